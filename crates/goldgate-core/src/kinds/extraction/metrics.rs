//! The extraction metrics: each one's name, direction, support statistic and how its value
//! is computed from summed statistics, in report order.

use crate::metrics::agreement::{binary_kappa, cohen_kappa_cells};
use crate::metrics::calibration::bins_from;
use crate::metrics::registry::{m, Higher, Lower, Metric, Range};
use crate::metrics::stats::Sums;
use crate::metrics::{ratio_or, Prf, PrfKeys};

/// Matched requirements.
const REQUIREMENTS: PrfKeys = PrfKeys {
    tp: "ext.tp",
    fp: "ext.fp",
    fn_: "ext.fn",
};
/// Per-sample sets of requirement types.
const TYPES: PrfKeys = PrfKeys {
    tp: "ext.type_tp",
    fp: "ext.type_fp",
    fn_: "ext.type_fn",
};

pub fn precision_(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &REQUIREMENTS).precision)
}
pub fn recall_(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &REQUIREMENTS).recall)
}
pub fn f1_(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &REQUIREMENTS).f1)
}
pub fn f1_macro(s: &dyn Sums) -> Option<f64> {
    Some(s.get("ext.f1_sum") / s.get("ext.records"))
}
pub fn type_f1(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &TYPES).f1)
}
pub fn ac_completeness(s: &dyn Sums) -> Option<f64> {
    Some(ratio_or(s.get("ext.ac_sum"), s.get("ext.ac_pairs"), 0.0))
}
pub fn kappa(s: &dyn Sums) -> Option<f64> {
    binary_kappa(
        s.get("ext.msg.11"),
        s.get("ext.msg.10"),
        s.get("ext.msg.01"),
        s.get("ext.msg.00"),
    )
}
pub fn type_kappa(s: &dyn Sums) -> Option<f64> {
    let pairs = s.prefixed("ext.type_pair:");
    cohen_kappa_cells(
        pairs
            .iter()
            .filter_map(|(k, n)| k.split_once('|').map(|(g, p)| (g, p, *n))),
    )
}
pub fn ece(s: &dyn Sums) -> Option<f64> {
    bins_from("ext.cal", s).ece()
}
pub fn mce(s: &dyn Sums) -> Option<f64> {
    bins_from("ext.cal", s).mce()
}
pub fn brier(s: &dyn Sums) -> Option<f64> {
    bins_from("ext.cal", s).brier()
}
pub fn schema_compliance(s: &dyn Sums) -> Option<f64> {
    Some(s.get("ext.schema_ok") / s.get("ext.records"))
}
pub fn hallucination_rate(s: &dyn Sums) -> Option<f64> {
    Some(s.get("ext.halluc_records") / s.get("ext.records"))
}
pub fn hallucination_entity_rate(s: &dyn Sums) -> Option<f64> {
    Some(ratio_or(
        s.get("ext.unsupported"),
        s.get("ext.checked"),
        0.0,
    ))
}

/// The extraction metrics, in report order.
pub static METRICS: &[Metric] = &[
    m(
        "extraction.precision",
        Higher,
        "ext.records",
        precision_,
        "micro precision of matched requirements",
    )
    .as_ratio(&[("ext.tp", 1.0)], &[("ext.tp", 1.0), ("ext.fp", 1.0)]),
    m(
        "extraction.recall",
        Higher,
        "ext.records",
        recall_,
        "micro recall of matched requirements",
    )
    .as_ratio(&[("ext.tp", 1.0)], &[("ext.tp", 1.0), ("ext.fn", 1.0)]),
    m(
        "extraction.f1",
        Higher,
        "ext.records",
        f1_,
        "micro F1 of matched requirements",
    )
    .as_ratio(
        &[("ext.tp", 2.0)],
        &[("ext.tp", 2.0), ("ext.fp", 1.0), ("ext.fn", 1.0)],
    ),
    m(
        "extraction.f1_macro",
        Higher,
        "ext.records",
        f1_macro,
        "mean per-sample F1",
    )
    .as_ratio(&[("ext.f1_sum", 1.0)], &[("ext.records", 1.0)]),
    m(
        "extraction.type_f1",
        Higher,
        "ext.records",
        type_f1,
        "micro F1 over per-sample sets of requirement types",
    ),
    m(
        "extraction.ac_completeness",
        Higher,
        "ext.records",
        ac_completeness,
        "share of gold acceptance criteria covered, mean over matched pairs",
    ),
    m(
        "extraction.kappa",
        Higher,
        "ext.msgs",
        kappa,
        "Cohen's kappa of message-level requirement identification",
    )
    .in_range(Range::Agreement),
    m(
        "extraction.type_kappa",
        Higher,
        "ext.type_pairs",
        type_kappa,
        "Cohen's kappa of types over type-blind matches",
    )
    .in_range(Range::Agreement)
    .unsupported_when("no requirement was matched, so no types were compared"),
    m(
        "extraction.ece",
        Lower,
        "ext.cal.n",
        ece,
        "expected calibration error of requirement confidences",
    ),
    m(
        "extraction.mce",
        Lower,
        "ext.cal.n",
        mce,
        "maximum calibration error over non-empty bins",
    ),
    m(
        "extraction.brier",
        Lower,
        "ext.cal.n",
        brier,
        "Brier score of requirement confidences",
    ),
    m(
        "extraction.schema_compliance",
        Higher,
        "ext.records",
        schema_compliance,
        "share of answers passing the schema",
    )
    .as_ratio(&[("ext.schema_ok", 1.0)], &[("ext.records", 1.0)]),
    m(
        "extraction.hallucination_rate",
        Lower,
        "ext.records",
        hallucination_rate,
        "share of samples with an unsupported requirement",
    )
    .as_ratio(&[("ext.halluc_records", 1.0)], &[("ext.records", 1.0)]),
    m(
        "extraction.hallucination_entity_rate",
        Lower,
        "ext.records",
        hallucination_entity_rate,
        "unsupported / checked requirements",
    ),
];
