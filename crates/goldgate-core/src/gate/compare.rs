//! Comparing a candidate's score file with an optional baseline under `thresholds.toml`:
//! pairs the samples both runs scored, draws the paired-bootstrap deltas, judges every
//! metric (see [`super::judge`]), analyses the samples that flipped, and assembles the
//! [`Verdict`]. Plain data in, plain data out.

use super::breakdown::{differences, failed_calls, group_rows, membership, sample_results};
use super::decide::{decide, judge};
use super::drift::Reference;
use super::pairs;
use super::samples::analyse;
use super::thresholds::Thresholds;
use super::verdict::{MetricResult, ProvenanceReport, Verdict, VERDICT_SCHEMA};
use crate::error::Result;
use crate::metrics::bootstrap::BootstrapConfig;
use crate::score::file::ScoreFile;

/// How to compare.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    pub bootstrap: BootstrapConfig,
    pub allow_version_change: bool,
    /// Findings of the threshold ratchet (rules loosened against the base branch).
    pub ratchet: Vec<String>,
    /// The pinned reference of `[drift]`, read by the caller: `None` when the rules name
    /// none (a reference they name but that cannot be read is the caller's error).
    pub reference: Option<std::sync::Arc<Reference>>,
}

/// Compare a candidate score with an optional baseline.
pub fn compare(
    candidate: &ScoreFile,
    baseline: Option<&ScoreFile>,
    thresholds: &Thresholds,
    options: &CompareOptions,
) -> Result<Verdict> {
    if let Some(b) = baseline {
        super::comparable::check(
            b,
            &candidate.metrics_version,
            &candidate.provenance.scoring,
            options.allow_version_change,
            "the candidate",
        )?;
    }
    super::comparable::judged(candidate, thresholds, "the candidate")?;
    let shared = pairs::shared(candidate, baseline);
    let catalog = crate::kinds::catalog(
        candidate
            .metrics
            .keys()
            .chain(baseline.iter().flat_map(|b| b.metrics.keys()))
            .map(String::as_str)
            .chain(thresholds.rule_names()),
    );
    let draws = pairs::draws(candidate, baseline, &shared, &options.bootstrap, catalog);
    let mut metrics: Vec<MetricResult> = catalog
        .iter()
        .enumerate()
        .map(|(i, m)| {
            // What the paired interval sees: the shared samples that count towards it.
            let paired = baseline.map(|b| pairs::support(candidate, b, &shared, m.support));
            judge(m, candidate, baseline, thresholds, draws.get(i), paired)
        })
        .collect();
    let drift = match options.reference.as_deref() {
        Some(reference) => Some(super::drift::measure(
            candidate,
            (reference, baseline),
            thresholds,
            (&options.bootstrap, options.allow_version_change),
            catalog,
        )?),
        None => None,
    };
    if let Some(report) = &drift {
        super::drift::apply(&mut metrics, report);
    }
    super::verdict::mark_estimates(&mut metrics);
    metrics.sort_by_key(|m| m.status.rank());
    let sample_pass = thresholds.sample_pass();
    let samples = baseline.map(|b| analyse(b, candidate, sample_pass));
    let (added, removed) = match baseline {
        Some(b) => membership(candidate, b),
        None => (Vec::new(), Vec::new()),
    };
    let provenance = ProvenanceReport {
        candidate: candidate.provenance.clone(),
        baseline: baseline.map(|b| b.provenance.clone()),
        differences: baseline
            .map(|b| differences(b, candidate))
            .unwrap_or_default(),
    };
    let (verdict, summary) = decide(
        &metrics,
        candidate.missing.len(),
        baseline.is_some(),
        &options.ratchet,
    );
    let gated: Vec<&str> = metrics
        .iter()
        .filter(|m| m.rule.is_some())
        .map(|m| m.name.as_str())
        .collect();
    let groups = group_rows(candidate, baseline, &gated);
    Ok(Verdict {
        schema: VERDICT_SCHEMA.into(),
        metrics_version: Some(candidate.metrics_version.clone()),
        verdict,
        exit_code: crate::error::Exit::from(verdict).code(),
        summary,
        baseline_present: baseline.is_some(),
        rules_source: thresholds.source.to_string(),
        metrics,
        samples,
        added,
        removed,
        missing: candidate.missing.clone(),
        provenance,
        ratchet: options.ratchet.clone(),
        groups,
        sample_results: sample_results(candidate, baseline, sample_pass),
        diffs: Vec::new(),
        failures: failed_calls(candidate),
        keyless: candidate.keyless.clone(),
        judge: super::breakdown::judge_reviews(candidate),
        sequential: None,
        drift,
        trends: Vec::new(),
    })
}

#[cfg(test)]
mod comparable_tests;
#[cfg(test)]
mod evidence_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::verdict::{by_name, Outcome, Status};
    use crate::testkit::{found_marks as run, metric, options, rules, test_kind_file};

    fn status(v: &Verdict, metric: &str) -> Status {
        by_name(v)[metric].status
    }

    #[test]
    fn floors_and_ceilings_in_both_directions() {
        let recall = metric("recall");
        let floor = rules(&format!("[metrics.\"{recall}\"]\nmin = 0.9\n"));
        let good = run(&[5; 40]);
        let v = compare(&good, None, &floor, &options()).unwrap();
        assert_eq!(
            (v.verdict, status(&v, &recall)),
            (Outcome::Pass, Status::Pass)
        );
        let weak = run(&[4; 40]); // recall 0.8
        let v = compare(&weak, None, &floor, &options()).unwrap();
        assert_eq!(
            (v.verdict, status(&v, &recall)),
            (Outcome::Fail, Status::Fail)
        );
        assert!(by_name(&v)[recall.as_str()].reasons[0].contains("below the floor"));
        // Lower is better: a ceiling.
        let flagged_rate = metric("flagged_rate");
        let flagged = test_kind_file(&vec![(5.0, 0.0, 0.0, true); 10], "1");
        let v = compare(
            &flagged,
            None,
            &rules(&format!("[metrics.\"{flagged_rate}\"]\nmax = 0.5\n")),
            &options(),
        )
        .unwrap();
        assert_eq!(status(&v, &flagged_rate), Status::Fail);
        assert!(!v.baseline_present && v.summary.contains("failed"));
    }

    #[test]
    fn absolute_and_relative_regressions_with_significance() {
        let recall = metric("recall");
        let rule = |text: &str| rules(&format!("[metrics.\"{recall}\"]\n{text}\n"));
        let base = run(&[5; 40]);
        let dropped = run(&[4; 40]); // recall 1.0 -> 0.8 on every sample: significant
        let abs = rule("max_regression = 0.05");
        let v = compare(&dropped, Some(&base), &abs, &options()).unwrap();
        assert_eq!(status(&v, &recall), Status::Fail);
        let rel = rule("max_regression = \"25%\""); // 25% of 1.0 allows 0.2
        assert_eq!(
            status(
                &compare(&dropped, Some(&base), &rel, &options()).unwrap(),
                &recall
            ),
            Status::Pass
        );
        let rel_tight = rule("max_regression = \"10%\"");
        assert_eq!(
            status(
                &compare(&dropped, Some(&base), &rel_tight, &options()).unwrap(),
                &recall
            ),
            Status::Fail
        );
        // One sample worse out of 40: beyond 0.02 but the paired interval includes 0.
        let mut one = vec![5; 40];
        one[0] = 0;
        let noisy = run(&one);
        let sig = rule("max_regression = 0.02\nrequire_significance = true");
        let v = compare(&noisy, Some(&base), &sig, &options()).unwrap();
        assert_eq!(status(&v, &recall), Status::Pass);
        assert!(by_name(&v)[recall.as_str()].reasons[0].contains("not significant"));
        let nosig = rule("max_regression = 0.02\nrequire_significance = false");
        assert_eq!(
            status(
                &compare(&noisy, Some(&base), &nosig, &options()).unwrap(),
                &recall
            ),
            Status::Fail
        );
        // Lower is better: a rise is the regression.
        let flagged_rate = metric("flagged_rate");
        let clean = test_kind_file(&vec![(5.0, 0.0, 0.0, false); 40], "1");
        let dirty = test_kind_file(&vec![(5.0, 0.0, 0.0, true); 40], "1");
        let lower = rules(&format!(
            "[metrics.\"{flagged_rate}\"]\nmax_regression = 0.1\n"
        ));
        assert_eq!(
            status(
                &compare(&dirty, Some(&clean), &lower, &options()).unwrap(),
                &flagged_rate
            ),
            Status::Fail
        );
        assert_eq!(
            status(
                &compare(&clean, Some(&dirty), &lower, &options()).unwrap(),
                &flagged_rate
            ),
            Status::Pass
        );
    }

    #[test]
    fn warn_severity_passes_with_warnings() {
        let recall = metric("recall");
        let weak = run(&[4; 40]);
        let v = compare(
            &weak,
            None,
            &rules(&format!(
                "[metrics.\"{recall}\"]\nmin = 0.9\nseverity = \"warn\"\n"
            )),
            &options(),
        )
        .unwrap();
        assert_eq!(
            (v.verdict, v.exit_code, status(&v, &recall)),
            (Outcome::Warn, 0, Status::Warn)
        );
    }

    #[test]
    fn run_health_and_missing_samples_make_a_run_incomplete() {
        let mut broken = run(&[5; 40]);
        broken.metrics.get_mut("run.error_rate").unwrap().value = Some(0.5);
        let v = compare(&broken, None, &rules(""), &options()).unwrap();
        assert_eq!(
            (v.verdict, v.exit_code),
            (Outcome::Incomplete, 3),
            "the built-in 10% error-rate rule"
        );
        let mut missing = run(&[5; 40]);
        missing.missing = vec!["s-99".into()];
        let v = compare(&missing, None, &rules(""), &options()).unwrap();
        assert_eq!(v.verdict, Outcome::Incomplete);
        // Incomplete wins over a quality failure: a broken run is never reported as a regression.
        let recall = metric("recall");
        let mut weak = run(&[4; 40]);
        weak.missing = vec!["s-99".into()];
        let v = compare(
            &weak,
            None,
            &rules(&format!("[metrics.\"{recall}\"]\nmin = 0.9\n")),
            &options(),
        )
        .unwrap();
        assert_eq!(status(&v, &recall), Status::Fail);
        assert_eq!(v.verdict, Outcome::Incomplete);
    }

    /// A cost that rests on goldgate's own token counts is marked in the verdict (the
    /// terminal and the comment show the mark: `report`'s tests).
    #[test]
    fn a_cost_goldgate_counted_is_marked_estimated() {
        let mut cand = run(&[5; 8]);
        let value = |v: f64| crate::metrics::aggregate::Aggregate {
            value: Some(v),
            n: 8,
            ci: None,
            spread: None,
        };
        cand.metrics.insert("run.cost_usd".into(), value(0.02));
        cand.metrics
            .insert("run.tokens_total".into(), value(4000.0));
        cand.metrics
            .insert("run.tokens_estimated_rate".into(), value(0.5));
        let t = rules("[metrics.\"run.cost_usd\"]\nmax = 5\n");
        let v = compare(&cand, None, &t, &options()).unwrap();
        let by = by_name(&v);
        assert!(by["run.cost_usd"].estimated && by["run.tokens_total"].estimated);
        assert!(!by[metric("f1").as_str()].estimated);
        cand.metrics
            .insert("run.tokens_estimated_rate".into(), value(0.0));
        let exact = compare(&cand, None, &t, &options()).unwrap();
        assert!(!by_name(&exact)["run.cost_usd"].estimated);
    }

    #[test]
    fn fix_and_break_counts() {
        let base = run(&[5, 5, 0, 0]);
        let cand = run(&[5, 0, 5, 0]);
        let v = compare(&cand, Some(&base), &rules(""), &options()).unwrap();
        let s = v.samples.unwrap();
        assert_eq!((s.fix, s.break_, s.keep, s.still), (1, 1, 1, 1));
        assert_eq!(
            (s.fix_rate, s.break_rate, s.net_gain),
            (Some(0.5), Some(0.5), Some(0.0))
        );
        assert_eq!(s.mcnemar_p, 1.0);
    }

    /// One simulated run: 200 samples of the test kind of 5 gold marks, each found with
    /// probability `p`, and one false positive with probability 0.3.
    fn simulate(p: f64, rng: &mut crate::rng::Rng) -> ScoreFile {
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let samples: Vec<(f64, f64, f64, bool)> = (0..200)
            .map(|_| {
                let tp = (0..5).filter(|_| uniform() < p).count() as f64;
                let fp = f64::from(u8::from(uniform() < 0.3));
                (tp, fp, 5.0 - tp, false)
            })
            .collect();
        test_kind_file(&samples, "1")
    }

    /// The gate's own statistics: with no true change it must rarely fail (about 5% at
    /// most), and a true F1 drop of 0.05 must be caught most of the time.
    #[test]
    #[allow(clippy::print_stderr)]
    fn the_gate_fails_rarely_on_noise_and_catches_a_real_drop() {
        let thresholds = rules(&format!(
            "[metrics.\"{}\"]\nmax_regression = 0.02\nrequire_significance = true\nconfidence = 0.95\n",
            metric("f1")
        ));
        let options = CompareOptions {
            bootstrap: BootstrapConfig {
                resamples: 300,
                ..BootstrapConfig::default()
            },
            allow_version_change: false,
            ratchet: vec![],
            reference: None,
        };
        let mut rng = crate::rng::Rng::new(42);
        // Expected micro F1 = 2000p / (1000 + 1000p + 60): 0.890 at p = 0.85, 0.840 at p = 0.7676.
        let (p_same, p_drop) = (0.85, 0.7676);
        let prs = 500;
        let mut fails = [0usize; 2];
        for _ in 0..prs {
            let baseline = simulate(p_same, &mut rng);
            for (i, p) in [p_same, p_drop].into_iter().enumerate() {
                let candidate = simulate(p, &mut rng);
                let v = compare(&candidate, Some(&baseline), &thresholds, &options).unwrap();
                fails[i] += usize::from(v.verdict == Outcome::Fail);
            }
        }
        let (false_alarm, caught) = (fails[0] as f64 / prs as f64, fails[1] as f64 / prs as f64);
        eprintln!("gate simulation over {prs} PRs: fails with no true change {:.1}%, catches a 0.05 F1 drop {:.1}%", false_alarm * 100.0, caught * 100.0);
        assert!(false_alarm <= 0.06, "false alarms {false_alarm}");
        assert!(caught >= 0.75, "caught {caught}");
    }
}
