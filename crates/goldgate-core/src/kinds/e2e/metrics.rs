//! The e2e metrics: each one's name, direction, support statistic and how its value
//! is computed from summed statistics, in report order.

use crate::metrics::registry::{m, Higher, Metric};
use crate::metrics::stats::Sums;

fn mean(s: &dyn Sums, key: &str) -> Option<f64> {
    Some(s.get(key) / s.get("e2e.records"))
}
pub fn coverage(s: &dyn Sums) -> Option<f64> {
    mean(s, "e2e.coverage")
}
pub fn accuracy(s: &dyn Sums) -> Option<f64> {
    mean(s, "e2e.accuracy")
}
pub fn structure(s: &dyn Sums) -> Option<f64> {
    mean(s, "e2e.structure")
}
pub fn traceability(s: &dyn Sums) -> Option<f64> {
    mean(s, "e2e.traceability")
}
pub fn rd_score(s: &dyn Sums) -> Option<f64> {
    mean(s, "e2e.rd_score")
}

/// The e2e metrics, in report order.
pub static METRICS: &[Metric] = &[
    m(
        "e2e.coverage",
        Higher,
        "e2e.records",
        coverage,
        "mean recall of generated requirements",
    ),
    m(
        "e2e.accuracy",
        Higher,
        "e2e.records",
        accuracy,
        "mean precision of generated requirements",
    ),
    m(
        "e2e.structure",
        Higher,
        "e2e.records",
        structure,
        "mean share of IEEE 830 sections present",
    ),
    m(
        "e2e.traceability",
        Higher,
        "e2e.records",
        traceability,
        "mean share of traceable requirements",
    ),
    m(
        "e2e.rd_score",
        Higher,
        "e2e.records",
        rd_score,
        "mean weighted RD score",
    )
    .as_ratio(&[("e2e.rd_score", 1.0)], &[("e2e.records", 1.0)]),
];
