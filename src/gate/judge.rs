//! Judging: one metric against its rule (floors, ceilings, regressions with or without
//! paired-bootstrap significance), and the overall decision with its one-line summary.

use super::rule::rule_for;
use super::thresholds::{Regression, Severity, Thresholds};
use super::verdict::{MetricResult, Outcome, Status};
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
    let (cand, base) = (value(candidate), baseline.and_then(value));
    let delta = cand.zip(base).map(|(c, b)| c - b);
    let rule = rule_for(metric, thresholds);
    let confidence = rule.as_ref().map_or(0.95, |(r, _, _)| r.confidence);
    let delta_ci = delta.and(draws).and_then(|d| interval(d, confidence));
    let mut result = MetricResult {
        name: metric.name.into(),
        direction: metric.direction,
        baseline: base,
        candidate: cand,
        delta,
        delta_ci,
        n: candidate.metrics.get(metric.name).map_or(0, |a| a.n),
        rule: None,
        status: Status::Info,
        reasons: Vec::new(),
    };
    let Some((rule, regression, severity)) = rule else {
        return result;
    };
    result.status = Status::Pass;
    let broken = if metric.name.starts_with("run.") {
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
    match cand {
        None => result.reasons.push("no data in this run".into()),
        Some(v) => {
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
    if let (Some(regression), Some(c), Some(b)) = (regression, cand, base) {
        let worse = match metric.direction {
            Direction::Higher => b - c,
            Direction::Lower => c - b,
        };
        let allowed = match regression {
            Regression::Absolute(x) => x,
            Regression::Relative(p) => p * b.abs(),
        };
        if worse > allowed + 1e-12 {
            let significant = match (metric.direction, delta_ci) {
                (Direction::Higher, Some([_, hi])) => hi < 0.0,
                (Direction::Lower, Some([lo, _])) => lo > 0.0,
                (_, None) => false,
            };
            let what = format!(
                "{} → {} is worse by {}, more than the {} allowed",
                fmt(b),
                fmt(c),
                fmt(worse),
                fmt(allowed)
            );
            if significant || !rule.require_significance {
                breaks(&mut result, what);
            } else {
                result.reasons.push(format!(
                    "{what}, but not significant at {:.0}% (the delta's interval includes 0)",
                    rule.confidence * 100.0
                ));
            }
        }
    }
    result.rule = Some(rule);
    result
}

/// A value in a reason.
fn fmt(v: f64) -> String {
    fmt_value(v, 4)
}

pub(super) fn decide(
    metrics: &[MetricResult],
    candidate: &ScoreFile,
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
    if !candidate.missing.is_empty() {
        return (
            Outcome::Incomplete,
            format!(
                "incomplete run: {} samples have no answer",
                candidate.missing.len()
            ),
        );
    }
    let incomplete = names(Status::Incomplete);
    if !incomplete.is_empty() {
        return (
            Outcome::Incomplete,
            format!("incomplete run: {} broke its rule", incomplete.join(", ")),
        );
    }
    let failed = names(Status::Fail);
    if !failed.is_empty() {
        return (Outcome::Fail, format!("failed: {}", failed.join(", ")));
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
        (Outcome::Pass, format!("passed: {gated} rules hold{base}"))
    } else {
        (
            Outcome::Warn,
            format!("passed with warnings: {}{base}", warned.join(", ")),
        )
    }
}
