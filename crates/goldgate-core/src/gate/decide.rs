//! Deciding each rule: one metric against its rule (floors, ceilings, regressions with or without
//! paired-bootstrap significance; a rule without data never holds, and a change on too few
//! pairs is never called significant, see [`super::evidence`]), and the overall decision
//! with its one-line summary.

use super::evidence::{min_paired, too_few_text};
use super::rule::rule_for;
use super::thresholds::{Regression, Severity, Thresholds};
use super::verdict::{summary_prefix, MetricResult, Outcome, Status, TooFew};
use crate::kinds::keys::Keyless;
use crate::metrics::bootstrap::interval;
use crate::metrics::registry::{Direction, Metric};
use crate::number::value as fmt_value;
use crate::sample::Kind;
use crate::score::file::ScoreFile;

/// Judge `metric` of `candidate` against `baseline`: `draws` are the paired-bootstrap
/// deltas, `paired` the samples both runs scored that count towards it.
pub(super) fn judge(
    metric: &Metric,
    candidate: &ScoreFile,
    baseline: Option<&ScoreFile>,
    thresholds: &Thresholds,
    draws: Option<&Vec<f64>>,
    paired: Option<usize>,
) -> MetricResult {
    let value = |f: &ScoreFile| f.metrics.get(metric.name).and_then(|a| a.value);
    let by_kind: Vec<(Kind, f64)> = match metric.is_judged_per_kind() {
        true => candidate
            .groups
            .get("kind")
            .into_iter()
            .flatten()
            .filter_map(|(kind, metrics)| {
                let value = metrics.get(metric.name).and_then(|a| a.value)?;
                Some((crate::kinds::named(kind)?, value))
            })
            .collect(),
        false => Vec::new(),
    };
    let values = Values {
        candidate: value(candidate),
        baseline: baseline.and_then(value),
        n: candidate.metrics.get(metric.name).map_or(0, |a| a.n),
        paired,
        baseline_n: baseline
            .and_then(|b| b.metrics.get(metric.name))
            .map(|a| a.n),
        by_kind: &by_kind,
        keyless: &candidate.keyless,
    };
    let delta = values.candidate.zip(values.baseline);
    let spread = |f: &ScoreFile| f.metrics.get(metric.name).and_then(|a| a.spread);
    let noise =
        |confidence| Noise::Interval(delta.and(draws).and_then(|d| interval(d, confidence)));
    MetricResult {
        candidate_runs: spread(candidate),
        baseline_runs: baseline.and_then(spread),
        ..judge_values(metric, values, thresholds, noise, || {
            super::evidence::no_data(metric, candidate)
        })
    }
}

/// Whether `metric`'s rule is left unjudged: a built-in rule (every rule without a rules
/// file, the run-health ceilings with one) judges only what the runs have — the kinds the
/// suite has, and run health when there are records to measure it on (a score file written
/// before a run-health metric existed has none).
pub(super) fn unjudged_without_data(
    metric: &Metric,
    thresholds: &Thresholds,
    candidate: bool,
    baseline: bool,
) -> bool {
    let built_in =
        thresholds.is_built_in() || !thresholds.rule_names().any(|name| name == metric.name);
    built_in && !candidate && (!baseline || metric.is_run_health())
}

/// A metric's values in one comparison.
#[derive(Clone, Copy, Debug)]
pub struct Values<'a> {
    pub candidate: Option<f64>,
    pub baseline: Option<f64>,
    /// Samples that count towards the candidate's value.
    pub n: usize,
    /// With a baseline: the samples both runs scored that count towards the metric (the
    /// pairs of the paired test).
    pub paired: Option<usize>,
    /// Samples that count towards the baseline's value (a trusted baseline's only).
    pub baseline_n: Option<usize>,
    /// For a metric judged per kind ([`Metric::is_judged_per_kind`]): the candidate's value
    /// for each kind it has, whose floors and ceilings are checked instead of the overall
    /// value's (empty: the overall value is checked).
    pub by_kind: &'a [(Kind, f64)],
    /// The candidate's answers that hold none of their kind's keys, said when a kind's
    /// `parse.keyless_rate` breaks its ceiling.
    pub keyless: &'a [Keyless],
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
/// delta's interval at the rule's confidence; `missing` says why the candidate has no
/// value, when its rule needs one.
pub fn judge_values(
    metric: &Metric,
    values: Values,
    thresholds: &Thresholds,
    noise: impl FnOnce(f64) -> Noise,
    missing: impl FnOnce() -> String,
) -> MetricResult {
    let Values {
        candidate: cand,
        baseline: base,
        n,
        paired,
        baseline_n,
        by_kind,
        keyless,
    } = values;
    let delta = cand.zip(base).map(|(c, b)| c - b);
    let absent = unjudged_without_data(metric, thresholds, cand.is_some(), base.is_some());
    let rule = rule_for(metric, thresholds).filter(|_| !absent);
    let confidence = rule.as_ref().map_or(0.95, |(r, _, _)| r.confidence);
    // Too few pairs for any paired test to reach the confidence: no interval is shown and
    // no change is called significant.
    let needed = min_paired(confidence);
    let few = paired.filter(|&p| p < needed);
    let noise = noise(confidence);
    let delta_ci = match &noise {
        Noise::Interval(ci) => delta.and(*ci),
        Noise::Unknown(_) => None,
    }
    .filter(|_| few.is_none());
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
        paired,
        no_data: None,
        too_few: None,
        estimated: false,
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
    let breaks = |result: &mut MetricResult, status: Status, reason: String| {
        result.reasons.push(reason);
        if status.rank() < result.status.rank() {
            result.status = status;
        }
    };
    match (cand, base) {
        // A rule cannot hold on a value the run does not have (no sample of the kind, every
        // call failed, no valid judgement, …): the run is incomplete, whatever the reason,
        // and a `warn` rule warns. When the baseline has a value, the samples it came from
        // are gone (deleted with the change, or unscorable): a gate that held here would
        // pass a pull request that deletes a kind's samples along with breaking its pipeline.
        (None, b) => {
            let why = missing();
            let mut reason = format!("no data in this run: {why}");
            if let Some(b) = b.filter(|_| !metric.is_run_health()) {
                reason.push_str(&format!(
                    ", though the baseline has {}: the samples it is measured on are gone (see the samples removed since the baseline)",
                    fmt(b)
                ));
            }
            let status = match (metric.is_run_health(), severity) {
                (false, Severity::Warn) => Status::Warn,
                _ => Status::Incomplete,
            };
            breaks(&mut result, status, reason);
            result.no_data = Some(why);
        }
        (Some(v), _) => {
            // Each kind apart, for a metric judged per kind (its bounds hold for the whole
            // run when they hold for every kind).
            let scopes: Vec<(Option<Kind>, f64)> = match by_kind {
                [] => vec![(None, v)],
                kinds => kinds.iter().map(|&(k, v)| (Some(k), v)).collect(),
            };
            for (kind, v) in scopes {
                let what = |bound: String| match kind {
                    None => bound,
                    Some(k) => {
                        let held = super::evidence::keyless_reason(k, keyless);
                        format!("{}: {bound}{held}", k.as_str())
                    }
                };
                if let Some(min) = rule.min.filter(|min| v < *min) {
                    let reason = what(format!("{} is below the floor {}", fmt(v), fmt(min)));
                    breaks(&mut result, broken, reason);
                }
                if let Some(max) = rule.max.filter(|max| v > *max) {
                    let reason = what(format!("{} is above the ceiling {}", fmt(v), fmt(max)));
                    breaks(&mut result, broken, reason);
                }
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
        // Below the pairs the paired test needs, a required significance cannot be shown:
        // a change beyond the allowance is not tested.
        let untested = few.filter(|_| rule.require_significance);
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
            if let Some(samples) = untested {
                let too_few = too_few_text(samples, needed, rule.confidence);
                result.too_few = Some(TooFew { samples, needed });
                // The baseline had the samples to test it: deleting some cannot switch a
                // regression rule off (the run is incomplete, a `warn` rule warns).
                match super::evidence::shrunk(baseline_n, needed) {
                    Some(gone) => {
                        let status = match broken {
                            Status::Warn => Status::Warn,
                            _ => Status::Incomplete,
                        };
                        breaks(
                            &mut result,
                            status,
                            format!("{what}, but {too_few}; {gone}"),
                        );
                    }
                    None => result.reasons.push(format!("{what}, but {too_few}")),
                }
            } else if let (Noise::Unknown(why), true) = (&noise, rule.require_significance) {
                breaks(
                    &mut result,
                    broken,
                    format!("{what} (counted as significant: {why})"),
                );
            } else if significant || !rule.require_significance {
                breaks(&mut result, broken, what);
            } else {
                result.reasons.push(format!(
                    "{what}, but not significant at {:.0}% (the delta's interval includes 0)",
                    rule.confidence * 100.0
                ));
            }
        }
    }
    if regression.is_some() && rule.require_significance && few.is_none() {
        let samples = paired.unwrap_or(n);
        result.detectable = super::evidence::detectable(
            metric.direction,
            delta,
            delta_ci,
            samples,
            rule.confidence,
        );
    }
    result.rule = Some(rule);
    result
}

/// A value in a reason.
fn fmt(v: f64) -> String {
    fmt_value(v, 4)
}

/// The names of the metrics `pick` picks.
fn names_where(metrics: &[MetricResult], pick: impl Fn(&MetricResult) -> bool) -> Vec<&str> {
    metrics
        .iter()
        .filter(|m| pick(m))
        .map(|m| m.name.as_str())
        .collect()
}

/// The overall outcome of judged metrics and its one-line summary; `missing` is the number
/// of suite samples the candidate run had no answer for.
pub fn decide(
    metrics: &[MetricResult],
    missing: usize,
    has_baseline: bool,
    ratchet: &[String],
) -> (Outcome, String) {
    let names = |s: Status| names_where(metrics, |m| m.status == s);
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
    let incomplete: Vec<&MetricResult> = metrics
        .iter()
        .filter(|m| m.status == Status::Incomplete)
        .collect();
    if !incomplete.is_empty() {
        let (empty, broke): (Vec<&MetricResult>, Vec<&MetricResult>) =
            incomplete.into_iter().partition(|m| m.no_data.is_some());
        let list = |ms: &[&MetricResult]| {
            ms.iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut why = Vec::new();
        match empty.as_slice() {
            [] => {}
            [one] => why.push(format!(
                "no data for {} ({})",
                one.name,
                one.no_data.as_deref().unwrap_or_default()
            )),
            many => why.push(format!("no data for {}", list(many))),
        }
        if !broke.is_empty() {
            why.push(format!("{} broke its rule", list(&broke)));
        }
        return said(Outcome::Incomplete, why.join("; "));
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
    let untested = names_where(metrics, |m| m.too_few.is_some());
    let untested = match untested.is_empty() {
        true => String::new(),
        false => format!(
            "; too few samples to test a change in {}",
            untested.join(", ")
        ),
    };
    if warned.is_empty() {
        let hold = match gated {
            1 => "1 rule holds".to_string(),
            n => format!("{n} rules hold"),
        };
        said(Outcome::Pass, format!("{hold}{base}{untested}"))
    } else {
        said(
            Outcome::Warn,
            format!("{}{base}{untested}", warned.join(", ")),
        )
    }
}

#[cfg(test)]
mod tests;
