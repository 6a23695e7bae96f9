//! What a sequential check did, as the verdict records it (`verdict.json`'s `sequential`),
//! and [`apply`]: a verdict judged on the samples that ran, made the full suite's by the
//! questions decided about it. A rule decided early takes its status from the decision;
//! the samples not sent are "not needed", never missing.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::decide::{Decisions, Outcome};
use super::questions::{Against, Check};
use crate::gate::decide::decide;
use crate::gate::verdict::{Status, Verdict};

/// How a sequential check went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SequentialReport {
    /// The seed of the sending order, from the candidate's pipeline fingerprint (hex).
    pub seed: String,
    /// Whether a secret salt (`GOLDGATE_SEQUENTIAL_SALT`) went into the seed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub salted: bool,
    /// Samples answered per batch before the rules were tested again.
    pub batch: usize,
    /// Samples in the suite.
    pub samples: usize,
    /// Samples answered, the cache's included, when every rule was decided (all of them
    /// when the run went to the end).
    pub answered: usize,
    /// Samples the cache answered before the first call.
    pub cached: usize,
    /// Whether every rule was decided before every sample was answered.
    pub stopped_early: bool,
    /// The calls not made, and what they would have cost at the baseline's cost per call
    /// (when the baseline knows its cost).
    pub calls_not_made: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_not_spent_usd: Option<f64>,
    /// The samples not sent: not needed for the verdict.
    pub not_needed: Vec<String>,
    /// Every question the rules asked, with where it stands.
    pub questions: Vec<QuestionReport>,
}

/// One question about the full suite, and its outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuestionReport {
    pub metric: String,
    /// The kind it was asked of, for a metric judged per kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `extraction.f1 ≥ 0.8`, `extraction.f1 Δ ≤ 0.02 (baseline 0.81)`.
    pub question: String,
    /// `open`, `holds`, `breaks` or `waits`.
    pub outcome: String,
    /// Why it waits for every sample, when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waits: Option<String>,
    /// Samples answered when it was decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<usize>,
    pub confidence: f64,
}

impl SequentialReport {
    /// The questions of `decisions`, and the counts, as recorded.
    pub fn of(decisions: &Decisions, seed: u64, batch: usize, cached: usize) -> SequentialReport {
        let questions = decisions
            .tracked()
            .iter()
            .map(|t| {
                let (outcome, waits) = match &t.outcome {
                    Outcome::Open => ("open", None),
                    Outcome::Holds => ("holds", None),
                    Outcome::Breaks => ("breaks", None),
                    Outcome::Waits(why) => ("waits", Some(why.clone())),
                };
                QuestionReport {
                    metric: t.question.metric.name.to_string(),
                    kind: t.question.kind.map(|k| k.as_str().to_string()),
                    question: t.question.describe(),
                    outcome: outcome.into(),
                    waits,
                    decided_at: t.decided_at,
                    confidence: t.question.confidence,
                }
            })
            .collect();
        // When every rule is decided, answers of calls still in flight keep coming: the
        // check was decided at the count of its last decision.
        let answered = match decisions.all_decided() {
            true => decisions
                .tracked()
                .iter()
                .filter_map(|t| t.decided_at)
                .max(),
            false => None,
        }
        .unwrap_or_else(|| decisions.answered());
        SequentialReport {
            seed: format!("{seed:016x}"),
            salted: false,
            batch,
            samples: decisions.total(),
            answered,
            cached,
            stopped_early: decisions.all_decided() && answered < decisions.total(),
            calls_not_made: 0,
            cost_not_spent_usd: None,
            not_needed: Vec::new(),
            questions,
        }
    }

    /// The questions that decided the stop: those decided last, at the sample count the
    /// check stopped at.
    pub fn deciding(&self) -> Vec<&QuestionReport> {
        let last = self.questions.iter().filter_map(|q| q.decided_at).max();
        self.questions
            .iter()
            .filter(|q| q.decided_at.is_some() && q.decided_at == last)
            .collect()
    }

    /// The questions that kept the run going to the end, when it went there.
    pub fn undecided(&self) -> Vec<&QuestionReport> {
        self.questions
            .iter()
            .filter(|q| matches!(q.outcome.as_str(), "open" | "waits"))
            .collect()
    }
}

/// Make `verdict`, judged on the samples that ran, the full suite's: the samples not sent
/// are not missing, and when the check stopped early every rule takes its status from the
/// questions decided about it. The outcome and summary are decided again.
pub fn apply(verdict: &mut Verdict, decisions: &Decisions, report: SequentialReport) {
    let not_needed: HashSet<&str> = report.not_needed.iter().map(String::as_str).collect();
    if report.stopped_early {
        // Not sent is not missing, and not removed since the baseline either: only when
        // every rule was decided about the full suite.
        verdict
            .missing
            .retain(|id| !not_needed.contains(id.as_str()));
        verdict
            .removed
            .retain(|id| !not_needed.contains(id.as_str()));
        for m in verdict.metrics.iter_mut().filter(|m| m.rule.is_some()) {
            let asked: Vec<_> = decisions
                .tracked()
                .iter()
                .filter(|t| t.question.metric.name == m.name)
                .collect();
            if asked.is_empty() {
                continue;
            }
            let broken = match (
                crate::kinds::find(&m.name).is_some_and(|x| x.is_run_health()),
                m.rule.as_ref().map(|r| r.severity.as_str()),
            ) {
                (true, _) => Status::Incomplete,
                (false, Some("warn")) => Status::Warn,
                _ => Status::Fail,
            };
            m.reasons.clear();
            m.no_data = None;
            m.too_few = None;
            m.detectable = None;
            m.status = Status::Pass;
            for t in asked.iter().filter(|t| t.outcome == Outcome::Breaks) {
                m.status = broken;
                let what = match t.question.check {
                    Check::Regression {
                        against: Against::Baseline,
                        ..
                    } => "falls further than allowed",
                    Check::Regression { .. } => "drifts beyond its budget from the reference",
                    Check::Floor { .. } => "is below the floor",
                    Check::Ceiling { .. } => "is above the ceiling",
                };
                m.reasons.push(format!(
                    "on the full suite it {what} ({}): decided after {} of {} samples at {}% confidence",
                    t.question.describe(),
                    t.decided_at.unwrap_or(report.answered),
                    report.samples,
                    (t.question.confidence * 1000.0).round() / 10.0,
                ));
            }
        }
        verdict.metrics.sort_by_key(|m| m.status.rank());
        drift_decided(verdict, decisions, &report);
    }
    let (outcome, mut summary) = decide(
        &verdict.metrics,
        verdict.missing.len(),
        verdict.baseline_present,
        &verdict.ratchet,
    );
    if report.stopped_early {
        summary.push_str(&format!(
            " (decided after {} of {} samples)",
            report.answered, report.samples
        ));
    }
    verdict.verdict = outcome;
    verdict.exit_code = crate::error::Exit::from(outcome).code();
    verdict.summary = summary;
    verdict.sequential = Some(report);
}

/// A check that stopped early decided each drift budget as a question about the samples the
/// suite shares with the reference: the drift report says so, with each budget's status
/// from its question (its values are those of the samples that ran).
fn drift_decided(verdict: &mut Verdict, decisions: &Decisions, report: &SequentialReport) {
    let Some(drift) = verdict.drift.as_mut() else {
        return;
    };
    for d in &mut drift.metrics {
        let asked: Vec<_> = decisions
            .tracked()
            .iter()
            .filter(|t| t.question.metric.name == d.name)
            .filter(|t| {
                matches!(
                    t.question.check,
                    Check::Regression {
                        against: Against::Reference,
                        ..
                    }
                )
            })
            .collect();
        let Some(t) = asked.first() else { continue };
        let breaks = t.outcome == Outcome::Breaks;
        d.status = match (breaks, t.question.severity) {
            (false, _) => Status::Pass,
            (true, _) if t.question.metric.is_run_health() => Status::Incomplete,
            (true, crate::gate::thresholds::Severity::Warn) => Status::Warn,
            (true, crate::gate::thresholds::Severity::Fail) => Status::Fail,
        };
        d.reason = Some(format!(
            "on the samples the suite shares with the reference it is {} its budget ({}): decided after {} of {} samples at {}% confidence",
            if breaks { "beyond" } else { "within" },
            t.question.describe(),
            t.decided_at.unwrap_or(report.answered),
            report.samples,
            (t.question.confidence * 1000.0).round() / 10.0,
        ));
    }
}
