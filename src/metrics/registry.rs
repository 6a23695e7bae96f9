//! The registry of every metric name goldgate reports: its direction (higher or lower is
//! better), the statistic whose presence counts a sample towards `n`, and how its value is
//! computed. Thresholds, reports and the gate look metrics up here.

use super::stats::Sums;
use super::{e2e, extraction, inference, validation};

/// Which way is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Higher,
    Lower,
}

/// How a metric's value is computed.
#[derive(Clone, Copy, Debug)]
pub enum Eval {
    /// A function of summed statistics.
    Sums(fn(&dyn Sums) -> Option<f64>),
    /// A quantile (0–1) of per-record latencies.
    LatencyQuantile(f64),
}

/// One metric.
#[derive(Clone, Copy, Debug)]
pub struct Metric {
    pub name: &'static str,
    pub direction: Direction,
    /// A sample counts towards `n` when this statistic is non-zero for it; the value is
    /// `null` when it is zero over the whole scope.
    pub support: &'static str,
    pub eval: Eval,
    pub about: &'static str,
}

impl Metric {
    /// The metric's value over summed statistics (`None` without support).
    pub fn value(&self, sums: &dyn Sums) -> Option<f64> {
        match self.eval {
            Eval::Sums(f) if sums.get(self.support) > 0.0 => f(sums).filter(|v| v.is_finite()),
            _ => None,
        }
    }
}

const fn m(
    name: &'static str,
    direction: Direction,
    support: &'static str,
    f: fn(&dyn Sums) -> Option<f64>,
    about: &'static str,
) -> Metric {
    Metric {
        name,
        direction,
        support,
        eval: Eval::Sums(f),
        about,
    }
}

use Direction::{Higher, Lower};

fn rate(s: &dyn Sums, key: &str, of: &str) -> Option<f64> {
    Some(s.get(key) / s.get(of))
}

/// Every metric of metrics_version "1", in report order.
pub static METRICS: &[Metric] = &[
    m(
        "extraction.precision",
        Higher,
        "ext.records",
        extraction::agg::precision_,
        "micro precision of matched requirements",
    ),
    m(
        "extraction.recall",
        Higher,
        "ext.records",
        extraction::agg::recall_,
        "micro recall of matched requirements",
    ),
    m(
        "extraction.f1",
        Higher,
        "ext.records",
        extraction::agg::f1_,
        "micro F1 of matched requirements",
    ),
    m(
        "extraction.f1_macro",
        Higher,
        "ext.records",
        extraction::agg::f1_macro,
        "mean per-sample F1",
    ),
    m(
        "extraction.type_f1",
        Higher,
        "ext.records",
        extraction::agg::type_f1,
        "micro F1 over per-sample sets of requirement types",
    ),
    m(
        "extraction.ac_completeness",
        Higher,
        "ext.records",
        extraction::agg::ac_completeness,
        "share of gold acceptance criteria covered, mean over matched pairs",
    ),
    m(
        "extraction.kappa",
        Higher,
        "ext.msgs",
        extraction::agg::kappa,
        "Cohen's kappa of message-level requirement identification",
    ),
    m(
        "extraction.type_kappa",
        Higher,
        "ext.type_pairs",
        extraction::agg::type_kappa,
        "Cohen's kappa of types over type-blind matches",
    ),
    m(
        "extraction.ece",
        Lower,
        "ext.cal.n",
        extraction::agg::ece,
        "expected calibration error of requirement confidences",
    ),
    m(
        "extraction.mce",
        Lower,
        "ext.cal.n",
        extraction::agg::mce,
        "maximum calibration error over non-empty bins",
    ),
    m(
        "extraction.brier",
        Lower,
        "ext.cal.n",
        extraction::agg::brier,
        "Brier score of requirement confidences",
    ),
    m(
        "extraction.schema_compliance",
        Higher,
        "ext.records",
        extraction::agg::schema_compliance,
        "share of answers passing the schema",
    ),
    m(
        "extraction.hallucination_rate",
        Lower,
        "ext.records",
        extraction::agg::hallucination_rate,
        "share of samples with an unsupported requirement",
    ),
    m(
        "extraction.hallucination_entity_rate",
        Lower,
        "ext.records",
        extraction::agg::hallucination_entity_rate,
        "unsupported / checked requirements",
    ),
    m(
        "inference.relevance",
        Higher,
        "inf.records",
        inference::agg::relevance,
        "necessity-weighted relevance of inferred requirements",
    ),
    m(
        "inference.false_inference_rate",
        Lower,
        "inf.records",
        inference::agg::false_inference_rate,
        "share of inferences scoring 0",
    ),
    m(
        "inference.recall",
        Higher,
        "inf.records",
        inference::agg::recall_,
        "recall of necessary inferred requirements",
    ),
    m(
        "inference.ece",
        Lower,
        "inf.cal.n",
        inference::agg::ece,
        "expected calibration error of inference confidences",
    ),
    m(
        "validation.precision",
        Higher,
        "val.records",
        validation::agg::precision_,
        "micro precision of issues (type, field)",
    ),
    m(
        "validation.recall",
        Higher,
        "val.records",
        validation::agg::recall_,
        "micro recall of issues (type, field)",
    ),
    m(
        "validation.f1",
        Higher,
        "val.records",
        validation::agg::f1_,
        "micro F1 of issues (type, field)",
    ),
    m(
        "validation.pii_precision",
        Higher,
        "val.records",
        validation::agg::pii_precision,
        "micro precision of PII strings",
    ),
    m(
        "validation.pii_recall",
        Higher,
        "val.records",
        validation::agg::pii_recall,
        "micro recall of PII strings",
    ),
    m(
        "validation.pii_f1",
        Higher,
        "val.records",
        validation::agg::pii_f1,
        "micro F1 of PII strings",
    ),
    m(
        "validation.severity_kappa",
        Higher,
        "val.severity_pairs",
        validation::agg::severity_kappa,
        "Cohen's kappa of severity over matched issues",
    ),
    m(
        "e2e.coverage",
        Higher,
        "e2e.records",
        e2e::agg::coverage,
        "mean recall of generated requirements",
    ),
    m(
        "e2e.accuracy",
        Higher,
        "e2e.records",
        e2e::agg::accuracy,
        "mean precision of generated requirements",
    ),
    m(
        "e2e.structure",
        Higher,
        "e2e.records",
        e2e::agg::structure,
        "mean share of IEEE 830 sections present",
    ),
    m(
        "e2e.traceability",
        Higher,
        "e2e.records",
        e2e::agg::traceability,
        "mean share of traceable requirements",
    ),
    m(
        "e2e.rd_score",
        Higher,
        "e2e.records",
        e2e::agg::rd_score,
        "mean weighted RD score",
    ),
    m(
        "parse.raw_success_rate",
        Higher,
        "parse.records",
        |s| rate(s, "parse.raw", "parse.records"),
        "answers that were strict JSON",
    ),
    m(
        "parse.repair_success_rate",
        Higher,
        "parse.records",
        |s| rate(s, "parse.repaired", "parse.records"),
        "answers that parsed after repair",
    ),
    m(
        "parse.error_rate",
        Lower,
        "parse.records",
        |s| rate(s, "parse.error", "parse.records"),
        "answers with JSON that did not parse",
    ),
    m(
        "parse.no_json_rate",
        Lower,
        "parse.records",
        |s| rate(s, "parse.no_json", "parse.records"),
        "answers with no JSON at all",
    ),
    m(
        "run.error_rate",
        Lower,
        "run.records",
        |s| rate(s, "run.errors", "run.records"),
        "records whose pipeline call failed",
    ),
    Metric {
        name: "run.latency_p50_ms",
        direction: Lower,
        support: "run.latency_known",
        eval: Eval::LatencyQuantile(0.50),
        about: "median latency",
    },
    Metric {
        name: "run.latency_p95_ms",
        direction: Lower,
        support: "run.latency_known",
        eval: Eval::LatencyQuantile(0.95),
        about: "95th percentile latency",
    },
    m(
        "run.cache_hit_rate",
        Higher,
        "run.records",
        |s| rate(s, "run.cached", "run.records"),
        "records answered from the cache",
    ),
    m(
        "run.tokens_total",
        Lower,
        "run.tokens_known",
        |s| Some(s.get("run.tokens")),
        "tokens used, where known",
    ),
    m(
        "run.cost_usd",
        Lower,
        "run.cost_known",
        |s| Some(s.get("run.cost")),
        "cost in USD, where known",
    ),
];

/// Look a metric up by name.
pub fn find(name: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.name == name)
}

/// Every metric name, for did-you-mean hints.
pub fn names() -> impl Iterator<Item = &'static str> {
    METRICS.iter().map(|m| m.name)
}
