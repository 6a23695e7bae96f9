//! Verdict files from elsewhere (`goldgate publish` posts the one a fork's run uploaded):
//! [`read`] refuses a file whose schema or values are invalid (an unknown schema, a
//! metric goldgate does not know, a value outside its metric's range, a duplicated sample),
//! and [`rederive`] judges its values again under the trusted `thresholds.toml` and, when
//! given, the trusted baseline. The file's own `verdict`, `status`, `rule`, `reasons`,
//! `summary` and per-sample pass/fail are never used.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use super::compare::provenance_differences;
use super::judge::{decide, judge_values, Noise, Values};
use super::samples::{analyse_primaries, passes};
use super::thresholds::Thresholds;
use super::verdict::{
    MetricResult, Outcome, ProvenanceReport, SampleResult, Status, Verdict, VERDICT_SCHEMA,
};
use crate::document::{field_of, parse_json, pointer_of, Positions};
use crate::error::{Error, Location, Problem, Result};
use crate::score::file::ScoreFile;

/// Largest verdict file read (a verdict of 100,000 samples with diffs is a few MiB).
pub const MAX_VERDICT_BYTES: u64 = 64 << 20;

/// The confidence of an interval drawn for a metric without a rule.
const UNRULED_CONFIDENCE: f64 = 0.95;

const HINT: &str =
    "publish reads the verdict.json written by `goldgate check` or `compare --output` of the same goldgate release";

/// Read a verdict file that cannot be trusted, refusing it (every problem at once, each with
/// its line and field) when its schema or values are invalid.
pub fn read(path: &Path) -> Result<Verdict> {
    let size = std::fs::metadata(path)
        .map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?
        .len();
    if size > MAX_VERDICT_BYTES {
        let problem = Problem::new(
            Location::file(path),
            None,
            format!(
                "the file has {size} bytes, more than the {MAX_VERDICT_BYTES} a verdict may have"
            ),
        )
        .with_hint(HINT);
        return Err(Error::invalid("verdict file", problem));
    }
    let text = crate::io::read(path)?;
    let document = parse_json(&text).map_err(|e| {
        let at = Location::new(path, e.position.line, e.position.column);
        Error::invalid(
            "verdict file",
            Problem::new(at, None, e.message).with_hint(HINT),
        )
    })?;
    let at = |pointer: &str| {
        let p = document.positions.nearest(pointer);
        Location::new(path, p.line, p.column)
    };
    let schema = document.value.get("schema").and_then(Value::as_str);
    if schema != Some(VERDICT_SCHEMA) {
        let claimed = match document.value.get("schema") {
            Some(Value::String(s)) => shown(s),
            Some(other) => shown(&other.to_string()),
            None => "(none)".into(),
        };
        let problem = Problem::new(
            at("/schema"),
            Some("schema".into()),
            format!("unknown schema version {claimed}"),
        )
        .with_hint(format!("this goldgate reads `{VERDICT_SCHEMA}`; {HINT}"));
        return Err(Error::invalid("verdict file", problem));
    }
    let verdict: Verdict = serde_path_to_error::deserialize(document.value).map_err(|e| {
        let pointer = pointer_of(e.path());
        let (message, hint) = crate::text::explain_serde(&e.into_inner().to_string());
        let problem = Problem::new(at(&pointer), field_of(&pointer), message)
            .with_hint(hint.unwrap_or_else(|| HINT.into()));
        Error::invalid("verdict file", problem)
    })?;
    let problems = check(&verdict, &|pointer| at(pointer), &document.positions);
    if problems.is_empty() {
        Ok(verdict)
    } else {
        Err(Error::Invalid {
            what: "verdict file",
            problems,
        })
    }
}

/// Untrusted text in a message: quoted, control characters escaped, cut.
fn shown(text: &str) -> String {
    let cut: String = text.chars().take(80).collect();
    format!("`{}`", cut.escape_debug())
}

/// Every value the file claims, in its range; every sample once.
fn check(v: &Verdict, at: &dyn Fn(&str) -> Location, positions: &Positions) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut problem = |pointer: String, message: String, hint: &str| {
        problems.push(Problem::new(at(&pointer), field_of(&pointer), message).with_hint(hint));
    };
    let range_hint = |m: &crate::metrics::registry::Metric| {
        let (lo, hi) = m.range();
        match hi.is_finite() {
            true => format!("`{}` takes values from {lo} to {hi}", m.name),
            false => format!("`{}` takes values of at least {lo}", m.name),
        }
    };
    let mut seen = HashSet::new();
    for (i, m) in v.metrics.iter().enumerate() {
        let here = format!("/metrics/{i}");
        let Some(metric) = crate::kinds::find(&m.name) else {
            let hint = match crate::text::did_you_mean(&m.name, crate::kinds::names()) {
                Some(s) => format!("did you mean `{s}`? {HINT}"),
                None => HINT.to_string(),
            };
            problem(
                format!("{here}/name"),
                format!("unknown metric {}", shown(&m.name)),
                &hint,
            );
            continue;
        };
        if !seen.insert(metric.name) {
            problem(
                format!("{here}/name"),
                format!("metric `{}` is listed twice", metric.name),
                HINT,
            );
        }
        if m.direction != metric.direction {
            problem(
                format!("{here}/direction"),
                format!(
                    "`{}` is a metric where {} is better",
                    metric.name,
                    match metric.direction {
                        crate::metrics::registry::Direction::Higher => "higher",
                        crate::metrics::registry::Direction::Lower => "lower",
                    }
                ),
                HINT,
            );
        }
        let (lo, hi) = metric.range();
        let hint = range_hint(metric);
        for (key, value) in [("candidate", m.candidate), ("baseline", m.baseline)] {
            if let Some(x) = value.filter(|x| !(lo..=hi).contains(x)) {
                problem(
                    format!("{here}/{key}"),
                    format!("{key} value {x} of `{}` is outside its range", metric.name),
                    &hint,
                );
            }
        }
        let span = hi - lo;
        let deltas = m.delta.iter().chain(m.delta_ci.iter().flatten());
        if let Some(x) = deltas.copied().find(|x| !(-span..=span).contains(x)) {
            problem(
                format!("{here}/delta"),
                format!("a delta of {x} is impossible for `{}`", metric.name),
                &hint,
            );
        }
        if let Some([a, b]) = m.delta_ci.filter(|[a, b]| a > b) {
            problem(
                format!("{here}/delta_ci"),
                format!("the interval [{a}, {b}] ends below its start"),
                HINT,
            );
        }
    }
    for (i, g) in v.groups.iter().enumerate() {
        let here = format!("/groups/{i}");
        let Some(metric) = crate::kinds::find(&g.metric) else {
            problem(
                format!("{here}/metric"),
                format!("unknown metric {}", shown(&g.metric)),
                HINT,
            );
            continue;
        };
        let (lo, hi) = metric.range();
        for (key, value) in [("candidate", g.candidate), ("baseline", g.baseline)] {
            if let Some(x) = value.filter(|x| !(lo..=hi).contains(x)) {
                problem(
                    format!("{here}/{key}"),
                    format!("{key} value {x} of `{}` is outside its range", metric.name),
                    &range_hint(metric),
                );
            }
        }
    }
    const SCORE_HINT: &str = "a sample's primary score is from 0 to 1";
    let primary = |x: f64| (0.0..=1.0).contains(&x);
    for (i, s) in v.sample_results.iter().enumerate() {
        for (key, value) in [("primary", Some(s.primary)), ("baseline", s.baseline)] {
            if let Some(x) = value.filter(|x| !primary(*x)) {
                problem(
                    format!("/sample_results/{i}/{key}"),
                    format!(
                        "{key} score {x} of sample {} is outside [0, 1]",
                        shown(&s.id)
                    ),
                    SCORE_HINT,
                );
            }
        }
    }
    let mut lists: Vec<(String, Vec<&str>)> = vec![
        (
            "/sample_results".into(),
            v.sample_results.iter().map(|s| s.id.as_str()).collect(),
        ),
        (
            "/missing".into(),
            v.missing.iter().map(String::as_str).collect(),
        ),
        (
            "/added".into(),
            v.added.iter().map(String::as_str).collect(),
        ),
        (
            "/removed".into(),
            v.removed.iter().map(String::as_str).collect(),
        ),
        (
            "/diffs".into(),
            v.diffs.iter().map(|d| d.id.as_str()).collect(),
        ),
    ];
    if let Some(a) = &v.samples {
        for (key, changes) in [
            ("fixed", &a.fixed),
            ("broken", &a.broken),
            ("still_failing", &a.still_failing),
        ] {
            lists.push((
                format!("/samples/{key}"),
                changes.iter().map(|c| c.id.as_str()).collect(),
            ));
            for (i, c) in changes.iter().enumerate() {
                if let Some(x) = [c.baseline, c.candidate].into_iter().find(|x| !primary(*x)) {
                    problem(
                        format!("/samples/{key}/{i}"),
                        format!("score {x} of sample {} is outside [0, 1]", shown(&c.id)),
                        SCORE_HINT,
                    );
                }
            }
        }
    }
    for (list, ids) in lists {
        let mut first: HashMap<&str, usize> = HashMap::new();
        for (i, id) in ids.into_iter().enumerate() {
            if let Some(&j) = first.get(id) {
                let line = positions.nearest(&format!("{list}/{j}")).line;
                let key = if list == "/sample_results"
                    || list.starts_with("/samples/")
                    || list == "/diffs"
                {
                    "/id"
                } else {
                    ""
                };
                problem(
                    format!("{list}/{i}{key}"),
                    format!(
                        "sample {} is listed twice (first at line {line})",
                        shown(id)
                    ),
                    "every sample appears once: a suite's sample ids are unique",
                );
            } else {
                first.insert(id, i);
            }
        }
    }
    problems
}

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
        if &b.metrics_version != version && !options.allow_version_change {
            return Err(Error::usage(
                format!("the baseline was scored with metrics_version {} and the verdict's candidate with {}: their numbers are not comparable", b.metrics_version, version.escape_debug()),
                "refresh the baseline (goldgate baseline refresh), or pass --allow-version-change to compare anyway",
            ));
        }
    }
    let claimed: HashMap<&str, &MetricResult> =
        file.metrics.iter().map(|m| (m.name.as_str(), m)).collect();
    let mut metrics: Vec<MetricResult> = crate::kinds::metrics()
        .iter()
        .map(|metric| {
            let claim = claimed.get(metric.name).copied();
            let trusted = baseline.map(|b| b.metrics.get(metric.name).and_then(|a| a.value));
            let values = Values {
                candidate: claim.and_then(|m| m.candidate),
                baseline: trusted.unwrap_or_else(|| claim.and_then(|m| m.baseline)),
                n: claim.map_or(0, |m| m.n),
            };
            judge_values(metric, values, thresholds, |confidence| {
                noise(claim, values.baseline, confidence)
            })
        })
        .collect();
    metrics.sort_by_key(|m| m.status.rank());
    let sample_pass = thresholds.sample_pass();
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
    let after = || {
        file.sample_results
            .iter()
            .map(|s| (s.id.as_str(), s.primary))
    };
    let samples = has_baseline.then(|| analyse_primaries(&before, after(), sample_pass));
    let (added, removed) = match baseline {
        Some(b) => {
            let ours: HashSet<&str> = after().map(|(id, _)| id).collect();
            (
                after()
                    .filter(|(id, _)| !before.contains_key(id))
                    .map(|(id, _)| id.to_string())
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
    let (verdict, summary) = decide(&metrics, file.missing.len(), has_baseline, options.ratchet);
    let overridden = metrics
        .iter()
        .filter_map(|m| {
            let claim = claimed.get(m.name.as_str())?;
            (claim.status != m.status).then(|| (m.name.clone(), claim.status, m.status))
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
        missing: file.missing.clone(),
        provenance,
        ratchet: options.ratchet.to_vec(),
        groups,
        sample_results,
        diffs,
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
    use crate::gate::compare::{compare, tests::file, CompareOptions};
    use crate::gate::verdict::by_name;
    use crate::metrics::bootstrap::BootstrapConfig;

    fn run(found: &[usize]) -> ScoreFile {
        let samples: Vec<_> = found
            .iter()
            .map(|&f| (f as f64, 0.0, (5 - f) as f64, false))
            .collect();
        file(&samples, "1")
    }

    fn rules(text: &str) -> Thresholds {
        Thresholds::parse(&format!("version = 1\n{text}"), Path::new("t.toml")).unwrap()
    }

    const OPTIONS: RederiveOptions<'static> = RederiveOptions {
        ratchet: &[],
        allow_version_change: false,
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
        };
        (
            compare(&run(&one), Some(&base), thresholds, &options).unwrap(),
            base,
        )
    }

    #[test]
    fn the_files_interval_counts_only_for_the_comparison_it_was_drawn_for() {
        let sig = rules(
            "[metrics.\"extraction.recall\"]\nmax_regression = 0.02\nrequire_significance = true\n",
        );
        let (v, base) = noisy_verdict(&sig);
        assert_eq!(by_name(&v)["extraction.recall"].status, Status::Pass);
        // The same baseline and confidence: the file's interval stands.
        let again = rederive(&v, Some(&base), &sig, OPTIONS).unwrap();
        assert_eq!(again.verdict.verdict, Outcome::Pass);
        assert!(!again.verdict_overridden() && again.overridden.is_empty());
        // Another confidence: the interval does not fit the rule, the drop counts.
        let strict = rules("[metrics.\"extraction.recall\"]\nmax_regression = 0.02\nrequire_significance = true\nconfidence = 0.9\n");
        let judged = rederive(&v, Some(&base), &strict, OPTIONS).unwrap();
        let recall = by_name(&judged.verdict)["extraction.recall"].clone();
        assert_eq!(recall.status, Status::Fail);
        assert!(
            recall.reasons[0].contains("counted as significant"),
            "{:?}",
            recall.reasons
        );
        assert!(judged.verdict_overridden());
        // Another baseline: the trusted one's values replace the file's.
        let mut better = run(&[5; 40]);
        better.metrics.get_mut("extraction.recall").unwrap().value = Some(1.0);
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
        assert_eq!(
            by_name(&with.verdict)["extraction.recall"].baseline,
            Some(1.0)
        );
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
