//! Judging a verdict file's values again (`goldgate publish`: the file came from a run that
//! cannot be trusted, and [`super::untrusted::read`] has checked it): every metric under the
//! trusted `thresholds.toml` and, when given, the trusted baseline, whose metric values and
//! per-sample scores replace the file's baseline values; the fix/break analysis, added and
//! removed samples and provenance changes worked out again. The file's own `verdict`,
//! `status`, `rule`, `reasons`, `summary` and per-sample pass/fail are never used.

use std::collections::{HashMap, HashSet};

use super::decide::{decide, judge_values, Noise, Values};
use super::drift::Reference;
use super::evidence::no_data_in_verdict;
use super::flaky::Outcomes;
use super::samples::{analyse_primaries, passes};
use super::thresholds::Thresholds;
use super::verdict::{
    provenance_differences, MetricResult, Outcome, ProvenanceReport, SampleResult, Status, Verdict,
    VERDICT_SCHEMA,
};
use crate::error::Result;
use crate::score::file::ScoreFile;

/// The confidence of an interval drawn for a metric without a rule.
const UNRULED_CONFIDENCE: f64 = 0.95;

/// A verdict derived again from a file's values, and what the file claimed.
#[derive(Clone, Debug)]
pub struct Rederived {
    pub verdict: Verdict,
    /// The outcome the file claimed.
    pub claimed: Outcome,
    /// Metrics whose claimed status differs from the derived one: (name, claimed, derived).
    pub overridden: Vec<(String, Status, Status)>,
}

impl Rederived {
    /// Whether the file claimed another outcome than the one derived.
    pub fn verdict_overridden(&self) -> bool {
        self.claimed != self.verdict.verdict
    }
}

/// How to derive a verdict again.
#[derive(Clone, Copy, Debug)]
pub struct RederiveOptions<'a> {
    /// Findings of the threshold ratchet of the trusted side (the file's are not used).
    pub ratchet: &'a [String],
    pub allow_version_change: bool,
    /// The trusted pinned reference of `[drift]`: the file's drift is judged again against
    /// it (the file's own drift values of the reference are never used).
    pub reference: Option<&'a Reference>,
}

/// Judge a verdict file's values again under `thresholds`. With a trusted `baseline`, its
/// metric values and per-sample scores replace the file's baseline values; the file's
/// paired interval of a delta is used only when it was drawn against the same baseline
/// value at the rule's confidence; otherwise a regression beyond its allowance counts as
/// significant (the file cannot show it is noise).
pub fn rederive(
    file: &Verdict,
    baseline: Option<&ScoreFile>,
    thresholds: &Thresholds,
    options: RederiveOptions<'_>,
) -> Result<Rederived> {
    if let (Some(b), Some(version)) = (baseline, &file.metrics_version) {
        super::comparable::check(
            b,
            version,
            &file.provenance.candidate.scoring,
            options.allow_version_change,
            "the verdict's candidate",
        )?;
    }
    let before: HashMap<&str, f64> = match baseline {
        Some(b) => b
            .samples
            .iter()
            .map(|s| (s.id.as_str(), s.primary))
            .collect(),
        None => file
            .sample_results
            .iter()
            .filter_map(|s| Some((s.id.as_str(), s.baseline?)))
            .collect(),
    };
    let has_baseline = baseline.is_some() || file.baseline_present;
    let kinds: Vec<crate::sample::Kind> = crate::kinds::all()
        .filter(|k| file.sample_results.iter().any(|s| s.kind == *k))
        .collect();
    let claimed: HashMap<&str, &MetricResult> =
        file.metrics.iter().map(|m| (m.name.as_str(), m)).collect();
    let names = file.metrics.iter().map(|m| m.name.as_str());
    let mut metrics: Vec<MetricResult> =
        crate::kinds::catalog(names.chain(thresholds.rule_names()))
            .iter()
            .map(|metric| {
                let claim = claimed.get(metric.name).copied();
                let trusted = baseline.map(|b| b.metrics.get(metric.name).and_then(|a| a.value));
                // The pairs: the samples of the metric's kind that both runs scored, counted
                // here — the file's own count is never used (a file claiming one pair would
                // make every regression "too few samples to test"). With a trusted baseline,
                // the kinds are the baseline's.
                let paired = has_baseline.then(|| {
                    let kind = crate::kinds::owner(metric.name);
                    match baseline {
                        Some(b) => {
                            let of_kind: HashSet<&str> = b
                                .samples
                                .iter()
                                .filter(|s| kind.is_none_or(|k| s.kind == k))
                                .map(|s| s.id.as_str())
                                .collect();
                            let ids: HashSet<&str> =
                                file.sample_results.iter().map(|s| s.id.as_str()).collect();
                            ids.intersection(&of_kind).count()
                        }
                        None => file
                            .sample_results
                            .iter()
                            .filter(|s| kind.is_none_or(|k| s.kind == k))
                            .filter(|s| before.contains_key(s.id.as_str()))
                            .map(|s| s.id.as_str())
                            .collect::<HashSet<_>>()
                            .len(),
                    }
                });
                // A metric judged per kind: the file's value of each kind.
                let by_kind: Vec<(crate::sample::Kind, f64)> = match metric.is_judged_per_kind() {
                    true => file
                        .groups
                        .iter()
                        .filter(|g| g.dimension == "kind" && g.metric == metric.name)
                        .filter_map(|g| Some((crate::kinds::named(&g.group)?, g.candidate?)))
                        .collect(),
                    false => Vec::new(),
                };
                let values = Values {
                    candidate: claim.and_then(|m| m.candidate),
                    baseline: trusted.unwrap_or_else(|| claim.and_then(|m| m.baseline)),
                    n: claim.map_or(0, |m| m.n),
                    paired,
                    baseline_n: baseline
                        .and_then(|b| b.metrics.get(metric.name))
                        .map(|a| a.n),
                    by_kind: &by_kind,
                    keyless: &file.keyless,
                };
                // The spreads are shown, never judged: the candidate's as claimed (checked to
                // be in range), the baseline's from the trusted baseline when there is one.
                let trusted_runs =
                    baseline.map(|b| b.metrics.get(metric.name).and_then(|a| a.spread));
                MetricResult {
                    candidate_runs: claim.and_then(|m| m.candidate_runs),
                    baseline_runs: trusted_runs
                        .unwrap_or_else(|| claim.and_then(|m| m.baseline_runs)),
                    ..judge_values(
                        metric,
                        values,
                        thresholds,
                        |confidence| noise(claim, values.baseline, confidence),
                        || no_data_in_verdict(metric, &kinds),
                    )
                }
            })
            .collect();
    let drift = options
        .reference
        .map(|r| super::drift::judge_again(file, r, thresholds, options.allow_version_change))
        .transpose()?;
    if let Some(report) = &drift {
        super::drift::apply(&mut metrics, report);
    }
    super::verdict::mark_estimates(&mut metrics);
    metrics.sort_by_key(|m| m.status.rank());
    let sample_pass = thresholds.sample_pass();
    let after = || {
        file.sample_results
            .iter()
            .map(|s| (s.id.as_str(), s.primary, s.error.as_ref()))
    };
    // The trusted baseline's outcomes over its runs; the file's samples as one run each
    // (its per-run scores are not in a verdict file).
    let outcomes: HashMap<&str, (f64, Outcomes)> = match baseline {
        Some(b) => b
            .samples
            .iter()
            .map(|s| {
                (
                    s.id.as_str(),
                    (s.primary, Outcomes::of_sample(s, sample_pass)),
                )
            })
            .collect(),
        None => before
            .iter()
            .map(|(id, &p)| (*id, (p, Outcomes::of([p], sample_pass))))
            .collect(),
    };
    let runs = after().map(|(id, p, e)| (id, p, Outcomes::of([p], sample_pass), e));
    let samples = has_baseline.then(|| analyse_primaries(&outcomes, runs, sample_pass));
    let (added, removed) = match baseline {
        Some(b) => {
            let ours: HashSet<&str> = after().map(|(id, ..)| id).collect();
            (
                after()
                    .filter(|(id, ..)| !before.contains_key(id))
                    .map(|(id, ..)| id.to_string())
                    .collect(),
                b.samples
                    .iter()
                    .filter(|s| !ours.contains(s.id.as_str()))
                    .map(|s| s.id.clone())
                    .collect(),
            )
        }
        None => (file.added.clone(), file.removed.clone()),
    };
    let sample_results = file
        .sample_results
        .iter()
        .map(|s| SampleResult {
            id: s.id.clone(),
            kind: s.kind,
            primary: s.primary,
            baseline: match baseline {
                Some(_) => before.get(s.id.as_str()).copied(),
                None => s.baseline,
            },
            pass: passes(s.primary, sample_pass),
            error: s.error.clone(),
        })
        .collect();
    let gated: HashSet<&str> = metrics
        .iter()
        .filter(|m| m.rule.is_some())
        .map(|m| m.name.as_str())
        .collect();
    let groups = file
        .groups
        .iter()
        .filter(|g| gated.contains(g.metric.as_str()))
        .map(|g| {
            let mut row = g.clone();
            if let Some(b) = baseline {
                row.baseline = b
                    .groups
                    .get(&g.dimension)
                    .and_then(|d| d.get(&g.group)?.get(&g.metric)?.value);
            }
            row
        })
        .collect();
    let provenance = match baseline {
        Some(b) => ProvenanceReport {
            candidate: file.provenance.candidate.clone(),
            baseline: Some(b.provenance.clone()),
            differences: provenance_differences(&b.provenance, &file.provenance.candidate),
        },
        None => file.provenance.clone(),
    };
    let broken: HashSet<&str> = samples
        .iter()
        .flat_map(|a| a.broken.iter().map(|c| c.id.as_str()))
        .collect();
    let diffs = file
        .diffs
        .iter()
        .filter(|d| broken.contains(d.id.as_str()))
        .cloned()
        .collect();
    // A sequential check's early decisions rest on per-sample evidence the file does not
    // carry: judged again, the samples it did not send have no answer.
    let missing: Vec<String> = file
        .missing
        .iter()
        .chain(file.sequential.iter().flat_map(|s| &s.not_needed))
        .cloned()
        .collect();
    let (verdict, summary) = decide(&metrics, missing.len(), has_baseline, options.ratchet);
    let overridden = metrics
        .iter()
        .filter_map(|m| {
            let claim = claimed.get(m.name.as_str())?;
            // A claim about a metric the trusted rules do not gate changes nothing.
            (claim.status != m.status && m.status != Status::Info)
                .then(|| (m.name.clone(), claim.status, m.status))
        })
        .collect();
    let derived = Verdict {
        schema: VERDICT_SCHEMA.into(),
        metrics_version: file.metrics_version.clone(),
        verdict,
        exit_code: crate::error::Exit::from(verdict).code(),
        summary,
        baseline_present: has_baseline,
        metrics,
        samples,
        added,
        removed,
        missing,
        provenance,
        ratchet: options.ratchet.to_vec(),
        groups,
        sample_results,
        diffs,
        rules_source: thresholds.source.to_string(),
        failures: file.failures.clone(),
        keyless: file.keyless.clone(),
        judge: file.judge.clone(),
        sequential: None,
        drift,
        trends: Vec::new(),
    };
    Ok(Rederived {
        verdict: derived,
        claimed: file.verdict,
        overridden,
    })
}

/// The file's interval of a metric's delta, when it fits this comparison: drawn against
/// this baseline value, at this confidence.
fn noise(claim: Option<&MetricResult>, baseline: Option<f64>, confidence: f64) -> Noise {
    let Some(claim) = claim else {
        return Noise::Unknown("the verdict file has no values for it".into());
    };
    let drawn_at = claim
        .rule
        .as_ref()
        .map_or(UNRULED_CONFIDENCE, |r| r.confidence);
    let same_baseline = match (claim.baseline, baseline) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-12,
        (None, None) => true,
        _ => false,
    };
    match claim.delta_ci {
        _ if !same_baseline => {
            Noise::Unknown("the verdict file's interval was drawn against another baseline".into())
        }
        Some(_) if (drawn_at - confidence).abs() > 1e-12 => Noise::Unknown(format!(
            "the verdict file's interval is at {}% confidence, the rule asks for {}%",
            drawn_at * 100.0,
            confidence * 100.0
        )),
        Some(ci) => Noise::Interval(Some(ci)),
        None => Noise::Unknown("the verdict file has no interval for the delta".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::compare::{compare, CompareOptions};
    use crate::gate::verdict::by_name;
    use crate::metrics::bootstrap::BootstrapConfig;
    use crate::testkit::{found_marks as run, metric};
    use std::path::Path;

    fn rules(text: &str) -> Thresholds {
        Thresholds::parse(&format!("version = 1\n{text}"), Path::new("t.toml")).unwrap()
    }

    const OPTIONS: RederiveOptions<'static> = RederiveOptions {
        ratchet: &[],
        allow_version_change: false,
        reference: None,
    };

    /// One sample worse out of 40: a drop beyond 0.02 that the paired interval calls noise.
    fn noisy_verdict(thresholds: &Thresholds) -> (Verdict, ScoreFile) {
        let base = run(&[5; 40]);
        let mut one = vec![5; 40];
        one[0] = 0;
        let options = CompareOptions {
            bootstrap: BootstrapConfig {
                resamples: 400,
                ..BootstrapConfig::default()
            },
            allow_version_change: false,
            ratchet: vec![],
            reference: None,
        };
        (
            compare(&run(&one), Some(&base), thresholds, &options).unwrap(),
            base,
        )
    }

    #[test]
    fn the_files_interval_counts_only_for_the_comparison_it_was_drawn_for() {
        let recall = metric("recall");
        let rule = |text: &str| rules(&format!("[metrics.\"{recall}\"]\n{text}\n"));
        let sig = rule("max_regression = 0.02\nrequire_significance = true");
        let (v, base) = noisy_verdict(&sig);
        assert_eq!(by_name(&v)[recall.as_str()].status, Status::Pass);
        // The same baseline and confidence: the file's interval stands.
        let again = rederive(&v, Some(&base), &sig, OPTIONS).unwrap();
        assert_eq!(again.verdict.verdict, Outcome::Pass);
        assert!(!again.verdict_overridden() && again.overridden.is_empty());
        // Another confidence: the interval does not fit the rule, the drop counts.
        let strict = rule("max_regression = 0.02\nrequire_significance = true\nconfidence = 0.9");
        let judged = rederive(&v, Some(&base), &strict, OPTIONS).unwrap();
        let judged_recall = by_name(&judged.verdict)[recall.as_str()].clone();
        assert_eq!(judged_recall.status, Status::Fail);
        assert!(
            judged_recall.reasons[0].contains("counted as significant"),
            "{:?}",
            judged_recall.reasons
        );
        assert!(judged.verdict_overridden());
        // Another baseline: the trusted one's values replace the file's.
        let mut better = run(&[5; 40]);
        better.metrics.get_mut(&recall).unwrap().value = Some(1.0);
        let mut forged = v.clone();
        for m in &mut forged.metrics {
            m.baseline = m.candidate;
        }
        let without = rederive(&forged, None, &sig, OPTIONS).unwrap();
        assert_eq!(
            without.verdict.verdict,
            Outcome::Pass,
            "the file's own values"
        );
        let with = rederive(&forged, Some(&better), &sig, OPTIONS).unwrap();
        assert_eq!(
            with.verdict.verdict,
            Outcome::Fail,
            "the trusted baseline's"
        );
        assert_eq!(by_name(&with.verdict)[recall.as_str()].baseline, Some(1.0));
    }

    /// A file cannot make a regression untestable by claiming few paired samples.
    #[test]
    fn a_claimed_pair_count_never_makes_a_drop_too_few_to_test() {
        let recall = metric("recall");
        let sig = rules(&format!(
            "[metrics.\"{recall}\"]\nmax_regression = 0.02\nrequire_significance = true\n"
        ));
        let base = run(&[5; 40]);
        let mut worse = vec![5; 40];
        worse[..20].fill(0);
        let options = CompareOptions {
            bootstrap: BootstrapConfig {
                resamples: 400,
                ..BootstrapConfig::default()
            },
            allow_version_change: false,
            ratchet: vec![],
            reference: None,
        };
        let v = compare(&run(&worse), Some(&base), &sig, &options).unwrap();
        assert_eq!(v.verdict, Outcome::Fail);
        let mut forged = v.clone();
        for m in &mut forged.metrics {
            m.paired = Some(1);
        }
        for trusted in [Some(&base), None] {
            let again = rederive(&forged, trusted, &sig, OPTIONS).unwrap();
            let judged = by_name(&again.verdict)[recall.as_str()].clone();
            assert_eq!(judged.status, Status::Fail, "{:?}", judged.reasons);
            assert!(
                !judged.reasons.iter().any(|r| r.contains("too few")),
                "{:?}",
                judged.reasons
            );
        }
    }

    #[test]
    fn per_sample_results_are_judged_again_under_the_trusted_sample_pass() {
        let (mut v, base) = noisy_verdict(&rules(""));
        for s in &mut v.sample_results {
            s.pass = false;
        }
        v.samples.as_mut().unwrap().broken.clear();
        let again = rederive(&v, Some(&base), &rules(""), OPTIONS).unwrap();
        assert_eq!(
            again
                .verdict
                .sample_results
                .iter()
                .filter(|s| s.pass)
                .count(),
            39
        );
        let analysis = again.verdict.samples.unwrap();
        assert_eq!(
            (analysis.break_, analysis.broken[0].id.as_str()),
            (1, "s-0")
        );
        let versions = ScoreFile {
            metrics_version: "0".into(),
            ..base
        };
        let e = rederive(&v, Some(&versions), &rules(""), OPTIONS).unwrap_err();
        assert!(e.to_string().contains("metrics_version"), "{e}");
    }
}
