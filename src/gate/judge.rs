//! Judging: one metric against its rule (floors, ceilings, regressions with or without
//! paired-bootstrap significance), and the overall decision with its one-line summary.

use super::rule::rule_for;
use super::thresholds::{Regression, Severity, Thresholds};
use super::verdict::{summary_prefix, Detectable, MetricResult, Outcome, Status};
use crate::metrics::bootstrap::interval;
use crate::metrics::registry::{Direction, Metric};
use crate::number::value as fmt_value;
use crate::score::file::ScoreFile;

pub(super) fn judge(
    metric: &Metric,
    candidate: &ScoreFile,
    baseline: Option<&ScoreFile>,
    thresholds: &Thresholds,
    draws: Option<&Vec<f64>>,
) -> MetricResult {
    let value = |f: &ScoreFile| f.metrics.get(metric.name).and_then(|a| a.value);
    let values = Values {
        candidate: value(candidate),
        baseline: baseline.and_then(value),
        n: candidate.metrics.get(metric.name).map_or(0, |a| a.n),
    };
    let delta = values.candidate.zip(values.baseline);
    let spread = |f: &ScoreFile| f.metrics.get(metric.name).and_then(|a| a.spread);
    MetricResult {
        candidate_runs: spread(candidate),
        baseline_runs: baseline.and_then(spread),
        ..judge_values(metric, values, thresholds, |confidence| {
            Noise::Interval(delta.and(draws).and_then(|d| interval(d, confidence)))
        })
    }
}

/// A metric's values in one comparison.
#[derive(Clone, Copy, Debug)]
pub struct Values {
    pub candidate: Option<f64>,
    pub baseline: Option<f64>,
    /// Samples that count towards the candidate's value.
    pub n: usize,
}

/// What is known of the delta's sampling noise.
#[derive(Clone, Debug, PartialEq)]
pub enum Noise {
    /// The paired-bootstrap interval of the delta at the rule's confidence (`None`: none
    /// could be drawn).
    Interval(Option<[f64; 2]>),
    /// No interval fits this comparison (the reason says why): a regression beyond its
    /// allowance cannot be excused as noise, so it counts as significant.
    Unknown(String),
}

/// Judge one metric's values against its rule under `thresholds`. `noise` is asked for the
/// delta's interval at the rule's confidence.
pub fn judge_values(
    metric: &Metric,
    values: Values,
    thresholds: &Thresholds,
    noise: impl FnOnce(f64) -> Noise,
) -> MetricResult {
    let Values {
        candidate: cand,
        baseline: base,
        n,
    } = values;
    let delta = cand.zip(base).map(|(c, b)| c - b);
    // The built-in rules judge only the kinds the runs have.
    let absent = thresholds.is_built_in() && cand.is_none() && base.is_none();
    let rule = rule_for(metric, thresholds).filter(|_| !absent);
    let confidence = rule.as_ref().map_or(0.95, |(r, _, _)| r.confidence);
    let noise = noise(confidence);
    let delta_ci = match &noise {
        Noise::Interval(ci) => delta.and(*ci),
        Noise::Unknown(_) => None,
    };
    let mut result = MetricResult {
        name: metric.name.into(),
        direction: metric.direction,
        baseline: base,
        candidate: cand,
        delta,
        delta_ci,
        n,
        rule: None,
        status: Status::Info,
        reasons: Vec::new(),
        candidate_runs: None,
        baseline_runs: None,
        detectable: None,
    };
    let Some((rule, regression, severity)) = rule else {
        return result;
    };
    result.status = Status::Pass;
    let broken = if metric.is_run_health() {
        Status::Incomplete
    } else {
        match severity {
            Severity::Fail => Status::Fail,
            Severity::Warn => Status::Warn,
        }
    };
    let breaks = |result: &mut MetricResult, reason: String| {
        result.reasons.push(reason);
        if broken.rank() < result.status.rank() {
            result.status = broken;
        }
    };
    match (cand, base) {
        // The baseline measured it and this run cannot: the samples it came from are gone
        // (deleted with the change, or unscorable). A gate that held here would pass a pull
        // request that deletes a kind's samples along with breaking its pipeline.
        (None, Some(b)) if !metric.is_run_health() => breaks(
            &mut result,
            format!(
                "no data in this run, though the baseline has {}: the samples it is measured on are gone (see the samples removed since the baseline)",
                fmt(b)
            ),
        ),
        (None, _) => result.reasons.push("no data in this run".into()),
        (Some(v), _) => {
            if let Some(min) = rule.min.filter(|min| v < *min) {
                breaks(
                    &mut result,
                    format!("{} is below the floor {}", fmt(v), fmt(min)),
                );
            }
            if let Some(max) = rule.max.filter(|max| v > *max) {
                breaks(
                    &mut result,
                    format!("{} is above the ceiling {}", fmt(v), fmt(max)),
                );
            }
        }
    }
    // A metric with no better direction has no regressions, only bounds.
    let worse = match metric.direction {
        Direction::Higher => cand.zip(base).map(|(c, b)| b - c),
        Direction::Lower => cand.zip(base).map(|(c, b)| c - b),
        Direction::Neither => None,
    };
    if let (Some(regression), Some(c), Some(b), Some(worse)) = (regression, cand, base, worse) {
        let allowed = match regression {
            Regression::Absolute(x) => x,
            Regression::Relative(p) => p * b.abs(),
        };
        if worse > allowed + 1e-12 {
            let significant = match (metric.direction, delta_ci) {
                (Direction::Higher, Some([_, hi])) => hi < 0.0,
                (Direction::Lower, Some([lo, _])) => lo > 0.0,
                (Direction::Neither, _) | (_, None) => false,
            };
            let what = format!(
                "{} → {} is worse by {}, more than the {} allowed",
                fmt(b),
                fmt(c),
                fmt(worse),
                fmt(allowed)
            );
            if let (Noise::Unknown(why), true) = (&noise, rule.require_significance) {
                breaks(
                    &mut result,
                    format!("{what} (counted as significant: {why})"),
                );
            } else if significant || !rule.require_significance {
                breaks(&mut result, what);
            } else {
                result.reasons.push(format!(
                    "{what}, but not significant at {:.0}% (the delta's interval includes 0)",
                    rule.confidence * 100.0
                ));
            }
        }
    }
    if regression.is_some() && rule.require_significance {
        result.detectable = detectable(metric.direction, delta, delta_ci, n, rule.confidence);
    }
    result.rule = Some(rule);
    result
}

/// The smallest change for the worse this comparison could call significant, when the
/// change it saw is not (its interval holds 0): how far the interval reaches from the delta
/// towards the better side. The paired bootstrap's deltas spread around the observed one;
/// were the true change worse by `x`, they would spread alike around a delta `x` worse,
/// and the interval would exclude 0 once `x` passes that reach (docs/thresholds.md). `None`
/// when the change is significant either way, or the resamples did not vary (no noise to
/// measure).
fn detectable(
    direction: Direction,
    delta: Option<f64>,
    ci: Option<[f64; 2]>,
    samples: usize,
    confidence: f64,
) -> Option<Detectable> {
    let (d, [lo, hi]) = delta.zip(ci)?;
    if lo > 0.0 || hi < 0.0 {
        return None;
    }
    let change = match direction {
        Direction::Higher => hi - d,
        Direction::Lower => d - lo,
        Direction::Neither => return None,
    };
    (change > 1e-12).then_some(Detectable {
        change,
        samples,
        confidence,
    })
}

/// A value in a reason.
fn fmt(v: f64) -> String {
    fmt_value(v, 4)
}

/// The overall outcome of judged metrics and its one-line summary; `missing` is the number
/// of suite samples the candidate run had no answer for.
pub fn decide(
    metrics: &[MetricResult],
    missing: usize,
    has_baseline: bool,
    ratchet: &[String],
) -> (Outcome, String) {
    let names = |s: Status| {
        metrics
            .iter()
            .filter(|m| m.status == s)
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>()
    };
    let said =
        |outcome: Outcome, why: String| (outcome, format!("{}{why}", summary_prefix(outcome)));
    if missing > 0 {
        return said(
            Outcome::Incomplete,
            format!(
                "{} no answer",
                match missing {
                    1 => "1 sample has".to_string(),
                    n => format!("{n} samples have"),
                }
            ),
        );
    }
    let incomplete = names(Status::Incomplete);
    if !incomplete.is_empty() {
        return said(
            Outcome::Incomplete,
            format!("{} broke its rule", incomplete.join(", ")),
        );
    }
    let failed = names(Status::Fail);
    if !failed.is_empty() {
        return said(Outcome::Fail, failed.join(", "));
    }
    let mut warned: Vec<String> = names(Status::Warn).into_iter().map(String::from).collect();
    if !ratchet.is_empty() {
        warned.push(format!("{} loosened threshold(s)", ratchet.len()));
    }
    let gated = metrics.iter().filter(|m| m.rule.is_some()).count();
    let base = if has_baseline {
        ""
    } else {
        " (no baseline yet: absolute rules only)"
    };
    if warned.is_empty() {
        let hold = match gated {
            1 => "1 rule holds".to_string(),
            n => format!("{n} rules hold"),
        };
        said(Outcome::Pass, format!("{hold}{base}"))
    } else {
        said(Outcome::Warn, format!("{}{base}", warned.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::super::compare::tests::file;
    use super::super::compare::{compare, CompareOptions};
    use super::super::verdict::{by_name, Outcome, Status};
    use super::*;
    use crate::metrics::bootstrap::BootstrapConfig;

    /// A rule's metric with no data in the candidate while the baseline has it (the
    /// samples it came from were deleted in the pull request) breaks the rule: it used to
    /// read "no data in this run" and hold, so deleting a kind's samples passed the gate.
    #[test]
    fn a_gated_metric_the_baseline_has_and_the_candidate_lacks_breaks_its_rule() {
        let rules = Thresholds::parse(
            "version = 1\n[metrics.\"extraction.f1\"]\nmin = 0.5\n[metrics.\"inference.recall\"]\nmin = 0.5\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        let judge = |name: &str, baseline: Option<f64>| {
            let metric = crate::kinds::find(name).unwrap();
            let values = Values {
                candidate: None,
                baseline,
                n: 0,
            };
            judge_values(metric, values, &rules, |_| Noise::Interval(None))
        };
        let gone = judge("extraction.f1", Some(0.8));
        assert_eq!(gone.status, Status::Fail, "{:?}", gone.reasons);
        assert!(
            gone.reasons[0].contains("the baseline has 0.8000"),
            "{:?}",
            gone.reasons
        );
        // Never measured on either side (a kind the suite does not have): not a regression.
        let never = judge("inference.recall", None);
        assert_eq!(never.status, Status::Pass, "{:?}", never.reasons);
    }

    /// 40 extraction samples of 5 gold items, `found` of each found.
    fn run(found: usize) -> ScoreFile {
        let f = found as f64;
        file(&vec![(f, 0.0, 5.0 - f, false); 40], "1")
    }

    #[test]
    fn built_in_rules_gate_the_primary_metric_of_the_kinds_present() {
        let options = CompareOptions {
            bootstrap: BootstrapConfig {
                resamples: 200,
                ..BootstrapConfig::default()
            },
            allow_version_change: false,
            ratchet: vec![],
        };
        let rules = Thresholds::built_in();
        let mut candidate = run(3);
        for parse in ["parse.error_rate", "parse.no_json_rate"] {
            candidate.metrics.get_mut(parse).unwrap().value = Some(0.0);
        }
        let v = compare(&candidate, Some(&run(5)), &rules, &options).unwrap();
        let m = by_name(&v);
        assert_eq!(v.verdict, Outcome::Fail, "{}", v.summary);
        assert_eq!(m["extraction.f1"].status, Status::Fail);
        assert!(m["extraction.f1"].reasons[0].contains("more than the 0.0200 allowed"));
        assert!(v.built_in_rules() && v.rules_source == "built-in defaults");
        // Kinds the runs do not have are not judged; run health is.
        assert!(m["inference.recall"].rule.is_none() && m["e2e.rd_score"].rule.is_none());
        for health in ["run.error_rate", "parse.error_rate", "parse.no_json_rate"] {
            assert_eq!(m[health].status, Status::Pass, "{health}");
        }
        // The same run with a rules file that says nothing of extraction.f1: not gated.
        let file_rules =
            Thresholds::parse("version = 1\n", std::path::Path::new("t.toml")).unwrap();
        let v = compare(&candidate, Some(&run(5)), &file_rules, &options).unwrap();
        assert_eq!(v.verdict, Outcome::Pass);
        assert!(!v.built_in_rules() && v.rules_source == "t.toml");
        assert!(by_name(&v)["parse.error_rate"].rule.is_none());
    }

    /// 7 samples whose recall moves both ways: the drop is not significant, and the verdict
    /// says the smallest drop the paired interval could have called significant — the
    /// interval's reach above the delta. Ten times the samples see a drop about √10 times
    /// smaller; a significant drop carries no such statement.
    #[test]
    fn a_change_that_is_not_significant_states_the_smallest_detectable_one() {
        let rules = Thresholds::parse(
            "version = 1\n[metrics.\"extraction.recall\"]\nmax_regression = 0.02\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        let options = CompareOptions {
            bootstrap: BootstrapConfig {
                resamples: 2000,
                ..BootstrapConfig::default()
            },
            allow_version_change: false,
            ratchet: vec![],
        };
        let runs = |found: &[usize], times: usize| {
            let samples: Vec<_> = (0..times)
                .flat_map(|_| {
                    found
                        .iter()
                        .map(|&f| (f as f64, 0.0, 5.0 - f as f64, false))
                })
                .collect();
            file(&samples, "1")
        };
        let (base, cand) = ([5, 4, 5, 5, 5, 4, 5], [4, 5, 4, 5, 5, 5, 4]);
        let judged = |times: usize| {
            let v = compare(
                &runs(&cand, times),
                Some(&runs(&base, times)),
                &rules,
                &options,
            )
            .unwrap();
            by_name(&v)["extraction.recall"].clone()
        };
        let small = judged(1);
        assert_eq!(small.status, Status::Pass, "{:?}", small.reasons);
        assert!(
            small.reasons[0].contains("not significant"),
            "{:?}",
            small.reasons
        );
        let d = small
            .detectable
            .expect("the smallest detectable drop is stated");
        let [_, hi] = small.delta_ci.unwrap();
        assert_eq!((d.samples, d.confidence), (7, 0.95));
        assert!(
            (d.change - (hi - small.delta.unwrap())).abs() < 1e-12,
            "{d:?}"
        );
        assert!(d.change > 0.05, "7 samples see only large drops: {d:?}");
        let large = judged(10).detectable.unwrap();
        assert_eq!(large.samples, 70);
        let ratio = d.change / large.change;
        assert!((2.0..4.5).contains(&ratio), "about √10 smaller: {ratio}");
        // A significant drop states none.
        let dropped =
            compare(&runs(&[3; 7], 3), Some(&runs(&[5; 7], 3)), &rules, &options).unwrap();
        let m = &by_name(&dropped)["extraction.recall"];
        assert_eq!((m.status, m.detectable), (Status::Fail, None));
    }

    #[test]
    fn unreadable_answers_make_a_run_incomplete_not_failed() {
        let options = CompareOptions {
            bootstrap: BootstrapConfig::default(),
            allow_version_change: false,
            ratchet: vec![],
        };
        let mut prose = run(5);
        prose.metrics.get_mut("parse.no_json_rate").unwrap().value = Some(0.5);
        let v = compare(&prose, None, &Thresholds::built_in(), &options).unwrap();
        assert_eq!((v.verdict, v.exit_code), (Outcome::Incomplete, 3));
        let rules = Thresholds::parse(
            "version = 1\n[metrics.\"parse.error_rate\"]\nmax = 0.05\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        let mut broken = run(5);
        broken.metrics.get_mut("parse.error_rate").unwrap().value = Some(0.2);
        let v = compare(&broken, None, &rules, &options).unwrap();
        assert_eq!(by_name(&v)["parse.error_rate"].status, Status::Incomplete);
        assert_eq!(v.verdict, Outcome::Incomplete);
    }
}
