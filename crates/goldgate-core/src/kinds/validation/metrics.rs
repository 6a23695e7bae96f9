//! The validation metrics: each one's name, direction, support statistic and how its value
//! is computed from summed statistics, in report order.

use crate::metrics::agreement::cohen_kappa_cells;
use crate::metrics::registry::{m, Higher, Metric, Range};
use crate::metrics::stats::Sums;
use crate::metrics::{Prf, PrfKeys};

/// Issues matched by (type, field).
const ISSUES: PrfKeys = PrfKeys {
    tp: "val.tp",
    fp: "val.fp",
    fn_: "val.fn",
};
/// PII strings.
const PII: PrfKeys = PrfKeys {
    tp: "val.pii_tp",
    fp: "val.pii_fp",
    fn_: "val.pii_fn",
};

pub fn precision_(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &ISSUES).precision)
}
pub fn recall_(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &ISSUES).recall)
}
pub fn f1_(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &ISSUES).f1)
}
pub fn pii_precision(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &PII).precision)
}
pub fn pii_recall(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &PII).recall)
}
pub fn pii_f1(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &PII).f1)
}
pub fn severity_kappa(s: &dyn Sums) -> Option<f64> {
    let cells = s.prefixed("val.severity:");
    cohen_kappa_cells(
        cells
            .iter()
            .filter_map(|(k, n)| k.split_once('|').map(|(g, p)| (g, p, *n))),
    )
}

/// The validation metrics, in report order.
pub static METRICS: &[Metric] = &[
    m(
        "validation.precision",
        Higher,
        "val.records",
        precision_,
        "micro precision of issues (type, field)",
    )
    .as_ratio(&[("val.tp", 1.0)], &[("val.tp", 1.0), ("val.fp", 1.0)]),
    m(
        "validation.recall",
        Higher,
        "val.records",
        recall_,
        "micro recall of issues (type, field)",
    )
    .as_ratio(&[("val.tp", 1.0)], &[("val.tp", 1.0), ("val.fn", 1.0)]),
    m(
        "validation.f1",
        Higher,
        "val.records",
        f1_,
        "micro F1 of issues (type, field)",
    )
    .as_ratio(
        &[("val.tp", 2.0)],
        &[("val.tp", 2.0), ("val.fp", 1.0), ("val.fn", 1.0)],
    ),
    m(
        "validation.pii_precision",
        Higher,
        "val.records",
        pii_precision,
        "micro precision of PII strings",
    )
    .as_ratio(
        &[("val.pii_tp", 1.0)],
        &[("val.pii_tp", 1.0), ("val.pii_fp", 1.0)],
    ),
    m(
        "validation.pii_recall",
        Higher,
        "val.records",
        pii_recall,
        "micro recall of PII strings",
    )
    .as_ratio(
        &[("val.pii_tp", 1.0)],
        &[("val.pii_tp", 1.0), ("val.pii_fn", 1.0)],
    ),
    m(
        "validation.pii_f1",
        Higher,
        "val.records",
        pii_f1,
        "micro F1 of PII strings",
    )
    .as_ratio(
        &[("val.pii_tp", 2.0)],
        &[
            ("val.pii_tp", 2.0),
            ("val.pii_fp", 1.0),
            ("val.pii_fn", 1.0),
        ],
    ),
    m(
        "validation.severity_kappa",
        Higher,
        "val.severity_pairs",
        severity_kappa,
        "Cohen's kappa of severity over matched issues",
    )
    .in_range(Range::Agreement)
    .unsupported_when("no issue was matched, so no severities were compared"),
];
