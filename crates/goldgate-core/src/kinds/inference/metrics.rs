//! The inference metrics: each one's name, direction, support statistic and how its value
//! is computed from summed statistics, in report order.

use crate::metrics::calibration::bins_from;
use crate::metrics::registry::{m, Higher, Lower, Metric};
use crate::metrics::stats::Sums;
use crate::metrics::{ratio_or, recall};

/// Σ score / (2·|P|); 1.0 when there are no predictions.
pub fn relevance(s: &dyn Sums) -> Option<f64> {
    Some(ratio_or(
        s.get("inf.relevance"),
        2.0 * s.get("inf.pred"),
        1.0,
    ))
}
/// Share of predictions scoring 0; 0.0 when there are no predictions.
pub fn false_inference_rate(s: &dyn Sums) -> Option<f64> {
    Some(ratio_or(s.get("inf.zero"), s.get("inf.pred"), 0.0))
}
/// Matched necessary gold items / necessary gold items (zero-denominator rule of §5).
pub fn recall_(s: &dyn Sums) -> Option<f64> {
    let (tp, all) = (s.get("inf.necessary_matched"), s.get("inf.necessary"));
    Some(recall(tp, s.get("inf.pred") - tp, all - tp))
}
pub fn ece(s: &dyn Sums) -> Option<f64> {
    bins_from("inf.cal", s).ece()
}

/// The inference metrics, in report order.
pub static METRICS: &[Metric] = &[
    m(
        "inference.relevance",
        Higher,
        "inf.records",
        relevance,
        "necessity-weighted relevance of inferred requirements",
    )
    .as_ratio(&[("inf.relevance", 1.0)], &[("inf.pred", 2.0)]),
    m(
        "inference.false_inference_rate",
        Lower,
        "inf.records",
        false_inference_rate,
        "share of inferences scoring 0",
    ),
    m(
        "inference.recall",
        Higher,
        "inf.records",
        recall_,
        "recall of necessary inferred requirements",
    )
    .as_ratio(&[("inf.necessary_matched", 1.0)], &[("inf.necessary", 1.0)]),
    m(
        "inference.ece",
        Lower,
        "inf.cal.n",
        ece,
        "expected calibration error of inference confidences",
    ),
];
