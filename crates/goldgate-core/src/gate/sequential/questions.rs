//! The gate's rules as the questions the sequential gate asks about the full suite: each
//! floor, ceiling and allowed regression of a gated metric, with the bound it is decided
//! at. A rule on a metric that is not a ratio of summed statistics (kappa, calibration
//! bins, latency quantiles, sums such as cost) cannot be decided before every sample is in:
//! it keeps the run going, and says why.

use serde::Serialize;

use super::super::decide::unjudged_without_data;
use super::super::rule::rule_for;
use super::super::thresholds::{Regression, Severity, Thresholds};
use crate::metrics::registry::{Direction, Metric, Ratio};
use crate::sample::Kind;
use crate::score::file::ScoreFile;

/// What a question asks of a metric's value over the full suite.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "check")]
pub enum Check {
    /// It breaks below `bound`.
    Floor { bound: f64 },
    /// It breaks above `bound`.
    Ceiling { bound: f64 },
    /// It breaks when it is worse than the baseline's value by more than `allowed`.
    /// Against the pinned reference of `[drift]` (`against: Reference`), `baseline` is the
    /// reference's value on the samples the suite shares with it, `allowed` the drift
    /// budget, and only those samples count, as in the full check.
    Regression {
        baseline: f64,
        allowed: f64,
        /// Whether the full check would also need the change to be significant.
        significance: bool,
        against: Against,
    },
}

/// What a regression question pairs the candidate's samples with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Against {
    Baseline,
    /// The pinned reference of `[drift]`: a drift budget.
    Reference,
}

/// The pinned reference as the drift questions read it: its score file, and the ids of the
/// suite's samples (the full check measures a drift on the samples both have).
#[derive(Clone, Copy, Debug)]
pub struct DriftBasis<'a> {
    pub reference: &'a ScoreFile,
    pub suite: &'a std::collections::HashSet<String>,
}

/// One question: a metric (of one kind, for a metric judged per kind) and what is asked
/// of it, at the rule's confidence.
#[derive(Clone, Debug)]
pub struct Question {
    pub metric: &'static Metric,
    pub kind: Option<Kind>,
    pub check: Check,
    pub confidence: f64,
    pub severity: Severity,
    /// Why it cannot be decided before every sample is in, when it cannot.
    pub waits: Option<String>,
}

/// `[run] max_errors` as a question: the run stops as incomplete once more than
/// `max_errors` calls fail in the whole suite, a count no part of the suite can bound, so the
/// question waits for every sample (a sequential check with it sends them all, as the full
/// check would, and trips where the full check trips).
pub fn max_errors_question(max_errors: usize, calls: usize) -> Option<Question> {
    let metric = crate::kinds::find("run.error_rate")?;
    Some(Question {
        metric,
        kind: None,
        check: Check::Ceiling {
            bound: max_errors as f64 / calls.max(1) as f64,
        },
        confidence: 1.0,
        severity: Severity::Fail,
        waits: Some(format!(
            "[run] max_errors = {max_errors} counts the failed calls of the whole suite"
        )),
    })
}

impl Question {
    /// The ratio the question is decided on (`None`: it waits for every sample).
    pub fn ratio(&self) -> Option<Ratio> {
        self.waits.is_none().then_some(self.metric.ratio).flatten()
    }

    /// `extraction.f1 ≥ 0.8`, `extraction.f1 Δ ≤ 0.02 (baseline 0.81)`, with the kind of a
    /// metric judged per kind.
    pub fn describe(&self) -> String {
        let name = match self.kind {
            Some(k) => format!("{} ({})", self.metric.name, k.as_str()),
            None => self.metric.name.to_string(),
        };
        // Bounds as the rules write them; the baseline's value to four places.
        let v = |x: f64| crate::number::value(x, 4);
        match self.check {
            Check::Floor { bound } => format!("{name} ≥ {bound}"),
            Check::Ceiling { bound } => format!("{name} ≤ {bound}"),
            Check::Regression {
                baseline,
                allowed,
                against: Against::Baseline,
                ..
            } => format!("{name} Δ ≤ {allowed} (baseline {})", v(baseline)),
            Check::Regression {
                baseline, allowed, ..
            } => format!("{name} drift ≤ {} (reference {})", v(allowed), v(baseline)),
        }
    }

    /// The value the metric breaks on the other side of (its floor, its ceiling, or the
    /// baseline's value less the allowed regression), and whether breaking is falling below
    /// it.
    pub fn bound(&self) -> (f64, bool) {
        match self.check {
            Check::Floor { bound } => (bound, true),
            Check::Ceiling { bound } => (bound, false),
            Check::Regression {
                baseline, allowed, ..
            } => match self.metric.direction {
                Direction::Lower => (baseline + allowed, false),
                _ => (baseline - allowed, true),
            },
        }
    }
}

/// The questions of every gated metric of a suite holding `kinds`, under `thresholds`,
/// against `baseline` when there is one: those the full check would judge.
pub fn questions(
    thresholds: &Thresholds,
    baseline: Option<&ScoreFile>,
    drift: Option<DriftBasis<'_>>,
    kinds: &[Kind],
) -> Vec<Question> {
    let names: Vec<&str> = kinds
        .iter()
        .flat_map(|k| crate::kinds::of(*k).metrics().iter().map(|m| m.name))
        .chain(
            baseline
                .iter()
                .flat_map(|b| b.metrics.keys().map(String::as_str)),
        )
        .chain(thresholds.rule_names())
        .collect();
    let catalog = crate::kinds::catalog(names.iter().copied());
    let shared = drift.map(|d| SharedValues::new(d, catalog));
    let mut out = Vec::new();
    for metric in catalog {
        // A metric of a kind the suite does not hold has no data, and the full check says
        // so whatever is sent.
        let Some((rule, regression, severity)) = rule_for(metric, thresholds) else {
            continue;
        };
        // A metric of a kind the suite does not hold has no value in the candidate: its rule
        // is judged, on no data, as the full check judges it, whatever is sent.
        let owner = crate::kinds::owner(metric.name);
        if owner.is_some_and(|k| !kinds.contains(&k)) {
            let base = baseline
                .and_then(|b| b.metrics.get(metric.name))
                .and_then(|a| a.value);
            if !unjudged_without_data(metric, thresholds, false, base.is_some()) {
                out.push(waiting(metric, "the suite has no sample of its kind"));
            }
            continue;
        }
        let scopes: Vec<Option<Kind>> = match metric.is_judged_per_kind() {
            true => kinds.iter().copied().map(Some).collect(),
            false => vec![None],
        };
        let waits = match metric.ratio {
            None => Some("its value is not a ratio of summed counts".to_string()),
            Some(_) => None,
        };
        let ask = |kind: Option<Kind>, check: Check| Question {
            metric,
            kind,
            check,
            confidence: rule.confidence,
            severity,
            waits: waits.clone(),
        };
        for &kind in &scopes {
            if let Some(bound) = rule.min {
                out.push(ask(kind, Check::Floor { bound }));
            }
            if let Some(bound) = rule.max {
                out.push(ask(kind, Check::Ceiling { bound }));
            }
        }
        // Its drift from the pinned reference: a regression against the reference's value
        // on the samples the suite shares with it, within the budget.
        if let Some(budget) = super::super::rule::drift_for(metric, thresholds) {
            let decidable = shared
                .as_ref()
                .and_then(|s| s.value(metric, rule.confidence));
            let check = |r: f64| Check::Regression {
                baseline: r,
                allowed: match budget {
                    Regression::Absolute(x) => x,
                    Regression::Relative(p) => p * r.abs(),
                },
                significance: rule.require_significance,
                against: Against::Reference,
            };
            out.push(match decidable {
                Some(r) => ask(None, check(r)),
                None => Question {
                    waits: Some("its drift from the pinned reference is judged on every sample (the reference shares too few samples with the suite, or has no value for it)".into()),
                    ..ask(None, check(f64::NAN))
                },
            });
        }
        let base = baseline
            .and_then(|b| b.metrics.get(metric.name))
            .and_then(|a| a.value);
        if let (Some(regression), Some(b), false) =
            (regression, base, metric.direction == Direction::Neither)
        {
            let allowed = match regression {
                Regression::Absolute(x) => x,
                Regression::Relative(p) => p * b.abs(),
            };
            out.push(ask(
                None,
                Check::Regression {
                    baseline: b,
                    allowed,
                    significance: rule.require_significance,
                    against: Against::Baseline,
                },
            ));
        }
    }
    out
}

/// The reference's values on the samples the suite shares with it, and how many of them
/// count towards each metric: what the full check's drift is measured on.
struct SharedValues {
    values: Vec<Option<f64>>,
    shared: Vec<usize>,
    reference_n: Vec<usize>,
    catalog: &'static [Metric],
}

impl SharedValues {
    fn new(d: DriftBasis<'_>, catalog: &'static [Metric]) -> SharedValues {
        use crate::gate::pairs::{supporting, values_of};
        let kept: Vec<&crate::score::file::SampleScore> = d
            .reference
            .samples
            .iter()
            .filter(|s| d.suite.contains(&s.id))
            .collect();
        SharedValues {
            values: values_of(&kept, catalog),
            shared: catalog
                .iter()
                .map(|m| supporting(&kept, m.support))
                .collect(),
            reference_n: catalog
                .iter()
                .map(|m| d.reference.metrics.get(m.name).map_or(0, |a| a.n))
                .collect(),
            catalog,
        }
    }

    /// The reference's value of `metric` on the shared samples, when the full check would
    /// measure a drift on them (enough are shared: [`crate::gate::drift::enough_shared`]).
    fn value(&self, metric: &Metric, confidence: f64) -> Option<f64> {
        let i = self.catalog.iter().position(|m| m.name == metric.name)?;
        let enough =
            crate::gate::drift::enough_shared(self.shared[i], self.reference_n[i], confidence);
        self.values[i].filter(|v| enough && v.is_finite())
    }
}

/// A question on `metric` that waits for every sample, for `why`.
fn waiting(metric: &'static Metric, why: &str) -> Question {
    Question {
        metric,
        kind: None,
        check: Check::Floor { bound: 0.0 },
        confidence: 0.95,
        severity: Severity::Fail,
        waits: Some(why.to_string()),
    }
}

/// The statistics the questions read, each once, in order: what the caller bounds for every
/// sample not yet answered.
pub fn keys(questions: &[Question]) -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = Vec::new();
    for ratio in questions.iter().filter_map(Question::ratio) {
        for (key, _) in ratio.numerator.iter().chain(ratio.denominator) {
            if !keys.contains(key) {
                keys.push(key);
            }
        }
    }
    keys
}
