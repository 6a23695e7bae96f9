//! The drift budget: besides the last baseline, a candidate is held against a pinned
//! reference (`[drift] reference`, typically the last release) that only moves when someone
//! pins it. A gated metric whose cumulative worsening against the reference is beyond its
//! budget (`max_drift`, by default 2.5 times its allowed regression) and significant by the
//! same paired test as a regression breaks its rule: "0.061 below the reference of
//! 2026-10-01 (budget 0.05), 7 refreshes ago". Ten pull requests that each lose just under
//! the per-PR allowance cannot add up to a loss nobody agreed to.
//!
//! Both values are taken on the samples the candidate and the reference both scored, so a
//! suite that grew or shrank since the pin moves neither; a run that shares too few samples
//! with a reference that had enough is incomplete, never a switched-off budget.

use super::decide::Noise;
use super::evidence::{min_paired, too_few_text};
use super::pairs;
use super::rule::{drift_for, rule_for};
use super::thresholds::{Regression, Severity, Thresholds};
pub use super::verdict::{About, Drift, DriftReport, Trend};
use super::verdict::{MetricResult, Status, Verdict};
use crate::error::{Error, Result};
use crate::metrics::bootstrap::{interval, paired_deltas, BootstrapConfig};
use crate::metrics::registry::{Direction, Metric};
use crate::number::value as fmt_value;
use crate::score::file::ScoreFile;

/// The pinned reference a candidate's drift is measured against, read by the caller.
#[derive(Clone, Debug)]
pub struct Reference {
    pub file: ScoreFile,
    /// The path the rules name, as shown in reports.
    pub path: String,
    /// How many times the baseline was refreshed since the reference was pinned (its
    /// committed versions newer than the reference), when the repository's history says.
    pub refreshes: Option<usize>,
}

impl Reference {
    /// What a report says of the reference: where it is, when it was made, and how long ago.
    pub fn about(&self) -> About {
        About {
            reference: self.path.clone(),
            created_at: self.file.provenance.created_at.clone(),
            git_sha: self.file.provenance.git_sha.clone(),
            refreshes: self.refreshes,
        }
    }
}

/// What one metric's drift is judged on.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// The candidate's and the reference's values on the samples both scored.
    pub values: (Option<f64>, Option<f64>),
    /// The samples both scored that count towards the metric.
    pub paired: usize,
    /// The samples the reference's own value was measured on.
    pub reference_n: Option<usize>,
    /// How much worse than the reference the baseline already is, when it is beyond the
    /// budget itself (said, so that a change is not blamed for its baseline's drift).
    pub baseline_worse: Option<f64>,
}

/// Judge `metric`'s drift: `noise` gives the paired interval of candidate − reference at the
/// rule's confidence. `None`: the metric has no drift budget.
pub fn judge(
    metric: &Metric,
    thresholds: &Thresholds,
    measured: Measured,
    noise: impl FnOnce(f64) -> Noise,
    about: &About,
) -> Option<Drift> {
    let budget = drift_for(metric, thresholds)?;
    let (rule, _, severity) = rule_for(metric, thresholds)?;
    let (candidate, reference) = measured.values;
    let paired = measured.paired;
    let mut drift = Drift {
        name: metric.name.to_string(),
        reference,
        candidate,
        delta: candidate.zip(reference).map(|(c, r)| c - r),
        delta_ci: None,
        budget: budget.to_string(),
        allowed: reference.map(|r| allowed(budget, r)),
        paired,
        status: Status::Info,
        reason: None,
    };
    // A run-health metric's broken rule makes the run incomplete; a quality metric's fails
    // (or warns).
    let broken = match (metric.is_run_health(), severity) {
        (true, _) => Status::Incomplete,
        (false, Severity::Fail) => Status::Fail,
        (false, Severity::Warn) => Status::Warn,
    };
    let needed = min_paired(rule.confidence);
    // The reference had the samples to measure a drift: a run that shares too few with it
    // (renamed, deleted, a new suite) cannot switch the budget off.
    let gone = |drift: &mut Drift, why: String| {
        drift.status = match broken {
            Status::Warn => Status::Warn,
            _ => Status::Incomplete,
        };
        drift.reason = Some(format!(
            "{why}: the samples the reference of {} was measured on are gone; pin a new reference (goldgate baseline pin) if the suite changed on purpose",
            about.date()
        ));
    };
    // Enough of the reference's own samples must be shared: at least the pairs a paired
    // test needs, and half of those the reference was measured on.
    let reference_n = measured.reference_n.unwrap_or(0);
    let measurable = reference_n >= needed;
    let enough = enough_shared(paired, reference_n, rule.confidence);
    let shared = format!(
        "only {paired} of the reference's {reference_n} samples of it are shared with this run"
    );
    let (Some(c), Some(r), Some(allowed)) = (candidate, reference, drift.allowed) else {
        match (measurable, candidate, reference) {
            (true, _, None) | (true, None, Some(_)) => gone(&mut drift, shared),
            _ => {
                drift.reason = Some(match reference {
                    None => {
                        "the reference has no value for it: pin a reference that covers it".into()
                    }
                    Some(_) => "no value in this run".into(),
                });
            }
        }
        return Some(drift);
    };
    if measurable && !enough {
        gone(&mut drift, shared);
        return Some(drift);
    }
    let noise = noise(rule.confidence);
    if let Noise::Interval(ci) = &noise {
        drift.delta_ci = ci.filter(|_| paired >= needed);
    }
    drift.status = Status::Pass;
    let worse = match metric.direction {
        Direction::Higher => r - c,
        Direction::Lower => c - r,
        Direction::Neither => return Some(drift),
    };
    // A drift that is no number (`nan`) is never within its budget.
    if !(worse.is_finite() && allowed.is_finite()) {
        drift.status = broken;
        drift.reason = Some(format!(
            "the drift from the reference of {} is not a number ({c} against {r})",
            about.date()
        ));
        return Some(drift);
    }
    if worse <= allowed + 1e-12 {
        return Some(drift);
    }
    let side = match metric.direction {
        Direction::Lower => "above",
        _ => "below",
    };
    let already = measured
        .baseline_worse
        .filter(|b| *b > allowed + 1e-12)
        .map_or(String::new(), |b| {
            format!("; the baseline itself is already {} {side} it", fmt(b))
        });
    let what = format!(
        "{} {side} the reference of {} (budget {}){}{already}",
        fmt(worse),
        about.date(),
        drift.budget,
        about.ago()
    );
    let significant = match (metric.direction, drift.delta_ci) {
        (Direction::Higher, Some([_, hi])) => hi < 0.0,
        (Direction::Lower, Some([lo, _])) => lo > 0.0,
        _ => false,
    };
    if rule.require_significance && paired < needed {
        let few = format!(
            "{what}, but {}",
            too_few_text(paired, needed, rule.confidence)
        );
        match measurable {
            true => gone(&mut drift, few),
            false => {
                drift.status = Status::Info;
                drift.reason = Some(few);
            }
        }
        return Some(drift);
    }
    drift.reason = Some(if !rule.require_significance || significant {
        drift.status = broken;
        what
    } else if let Noise::Unknown(why) = &noise {
        drift.status = broken;
        format!("{what} (counted as significant: {why})")
    } else {
        format!(
            "{what}, but not significant at {:.0}% (the drift's interval includes 0)",
            rule.confidence * 100.0
        )
    });
    Some(drift)
}

/// Whether a run shares enough of a reference's `reference_n` samples of a metric for a
/// drift to be measured on them: `paired` at least the pairs a paired test needs at
/// `confidence`, and at least half of the reference's.
pub fn enough_shared(paired: usize, reference_n: usize, confidence: f64) -> bool {
    paired >= min_paired(confidence).max(reference_n.div_ceil(2))
}

/// A budget in the metric's units against a reference value.
fn allowed(budget: Regression, reference: f64) -> f64 {
    match budget {
        Regression::Absolute(x) => x,
        Regression::Relative(p) => p * reference.abs(),
    }
}

/// The candidate's drift from the pinned reference: every metric with a drift budget,
/// valued on the samples both scored (a suite that grew or shrank since the pin moves
/// neither side), with the paired bootstrap's interval, as a regression is judged.
/// `against` is the reference and the baseline (whose own drift is said when it is beyond
/// the budget already); `options` the bootstrap and whether to compare across metrics
/// versions.
pub fn measure(
    candidate: &ScoreFile,
    against: (&Reference, Option<&ScoreFile>),
    thresholds: &Thresholds,
    options: (&BootstrapConfig, bool),
    catalog: &'static [Metric],
) -> Result<DriftReport> {
    let (reference, baseline) = against;
    comparable(reference, candidate, options.1)?;
    let shared = pairs::shared(candidate, Some(&reference.file));
    let sides = pairs::sides(candidate, &reference.file, &shared, catalog);
    let (cand_values, ref_values) = pairs::values(&sides, shared.len());
    let draws = paired_deltas(&sides.1, &sides.0, options.0, "paired");
    // The baseline's own drift, on the samples it shares with the reference.
    let base_values = baseline.map(|b| {
        let shared = pairs::shared(b, Some(&reference.file));
        let sides = pairs::sides(b, &reference.file, &shared, catalog);
        pairs::values(&sides, shared.len())
    });
    let about = reference.about();
    let metrics = catalog
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            let values = (cand_values[i], ref_values[i]);
            let baseline_worse = base_values.as_ref().and_then(|(b, r)| {
                let (b, r) = (b[i]?, r[i]?);
                match m.direction {
                    Direction::Higher => Some(r - b),
                    Direction::Lower => Some(b - r),
                    Direction::Neither => None,
                }
            });
            let measured = Measured {
                values,
                paired: pairs::support(candidate, &reference.file, &shared, m.support),
                reference_n: reference.file.metrics.get(m.name).map(|a| a.n),
                baseline_worse,
            };
            let noise = |confidence| {
                let both = values.0.zip(values.1);
                Noise::Interval(both.and(draws.get(i)).and_then(|d| interval(d, confidence)))
            };
            judge(m, thresholds, measured, noise, &about)
        })
        .collect();
    Ok(DriftReport { about, metrics })
}

/// Refuse a reference scored under another metrics version, similarity or judge than the
/// candidate (unless `allow`), naming it and how to replace it.
pub fn comparable(reference: &Reference, candidate: &ScoreFile, allow: bool) -> Result<()> {
    let scored = (
        candidate.metrics_version.as_str(),
        &candidate.provenance.scoring,
    );
    comparable_with(reference, scored, allow, "the candidate")
}

/// [`comparable`], for a candidate scored under `metrics_version` with `scoring` (`what`
/// names it in the message).
fn comparable_with(
    reference: &Reference,
    (metrics_version, scoring): (&str, &crate::score::file::ScoringSummary),
    allow: bool,
    what: &str,
) -> Result<()> {
    super::comparable::check(&reference.file, metrics_version, scoring, allow, what).map_err(
        |e| match e {
            Error::Usage { message, hint } => Error::Usage {
                message: message.replacen(
                    "the baseline",
                    &format!("the drift reference {}", reference.path),
                    1,
                ),
                hint: format!(
                    "{hint}; once the baseline is refreshed, pin it as the new reference (goldgate baseline pin)"
                ),
            },
            other => other,
        },
    )
}

/// A verdict file's drift judged again against the trusted reference (`publish`): the
/// reference's values on the samples the file has, from the trusted file; the candidate's
/// as the file claims them (its drift's, else the metric's); the pairs counted here. The
/// file's interval of a drift is used only when it was drawn against the same reference
/// value, for the same candidate value, at the rule's confidence, and holds the drift;
/// otherwise a drift beyond its budget counts as significant.
pub fn judge_again(
    file: &Verdict,
    reference: &Reference,
    thresholds: &Thresholds,
    allow: bool,
) -> Result<DriftReport> {
    if let Some(version) = &file.metrics_version {
        let scored = (version.as_str(), &file.provenance.candidate.scoring);
        comparable_with(reference, scored, allow, "the verdict's candidate")?;
    }
    let claimed: std::collections::HashMap<&str, &MetricResult> =
        file.metrics.iter().map(|m| (m.name.as_str(), m)).collect();
    let claimed_drift: std::collections::HashMap<&str, &Drift> = file
        .drift
        .iter()
        .flat_map(|d| &d.metrics)
        .map(|d| (d.name.as_str(), d))
        .collect();
    let ids: std::collections::HashSet<&str> =
        file.sample_results.iter().map(|s| s.id.as_str()).collect();
    let names = file.metrics.iter().map(|m| m.name.as_str());
    let catalog = crate::kinds::catalog(names.chain(thresholds.rule_names()));
    // The trusted reference's values on the samples the file has.
    let kept: Vec<&crate::score::file::SampleScore> = reference
        .file
        .samples
        .iter()
        .filter(|s| ids.contains(s.id.as_str()))
        .collect();
    let trusted_values = pairs::values_of(&kept, catalog);
    let whole_run = kept.len() == ids.len();
    let about = reference.about();
    let metrics = catalog
        .iter()
        .enumerate()
        .filter_map(|(i, metric)| {
            let claim = claimed.get(metric.name).copied();
            let said = claimed_drift.get(metric.name).copied();
            let trusted = trusted_values[i];
            // When every sample of the file is the reference's, the drift is measured on the
            // whole run: its value is the metric's claimed value, which reading the file
            // checked, whatever the drift says. Else the file's drift value only when it is
            // one the metric can take (a forged 1e308 would sit "above" any budget).
            let claimed_value = claim.and_then(|m| m.candidate);
            let candidate = match whole_run {
                true => claimed_value,
                false => said
                    .and_then(|d| d.candidate)
                    .filter(|x| x.is_finite() && metric.range.contains(*x))
                    .or(claimed_value),
            };
            let paired = pairs::supporting(&kept, metric.support);
            let drawn_at = claim
                .and_then(|m| m.rule.as_ref())
                .map_or(0.95, |r| r.confidence);
            let noise = |confidence: f64| {
                let Some(d) = said else {
                    return Noise::Unknown("the verdict file has no drift for it".into());
                };
                let same = |a: Option<f64>, b: Option<f64>| {
                    a.zip(b).is_some_and(|(a, b)| (a - b).abs() <= 1e-12)
                };
                let holds = d.delta_ci.zip(candidate.zip(trusted)).is_some_and(|([lo, hi], (c, r))| {
                    lo <= c - r + 1e-12 && c - r <= hi + 1e-12
                });
                match d.delta_ci {
                    Some(ci)
                        if same(d.reference, trusted)
                            && same(d.candidate, candidate)
                            && holds
                            && (drawn_at - confidence).abs() <= 1e-12 =>
                    {
                        Noise::Interval(Some(ci))
                    }
                    _ => Noise::Unknown(
                        "the verdict file's drift was not drawn against this reference at the rule's confidence".into(),
                    ),
                }
            };
            let measured = Measured {
                values: (candidate, trusted),
                paired,
                reference_n: reference.file.metrics.get(metric.name).map(|a| a.n),
                baseline_worse: None,
            };
            judge(metric, thresholds, measured, noise, &about)
        })
        .collect();
    Ok(DriftReport { about, metrics })
}

/// Apply the drift report to the metrics it judged: a broken drift breaks the metric's rule
/// (with its reason), a drift within budget adds nothing.
pub fn apply(metrics: &mut [MetricResult], report: &DriftReport) {
    for drift in report.broken() {
        let Some(m) = metrics.iter_mut().find(|m| m.name == drift.name) else {
            continue;
        };
        if let Some(reason) = &drift.reason {
            m.reasons.push(reason.clone());
        }
        if drift.status.rank() < m.status.rank() {
            m.status = drift.status;
        }
    }
}

/// A drift in a reason, to three places: `0.061`.
fn fmt(v: f64) -> String {
    fmt_value(v, 3)
}

#[cfg(test)]
mod tests;
