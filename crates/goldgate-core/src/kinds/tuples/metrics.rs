//! The tuples metrics: each one's name, direction, support statistic and how its value is
//! computed from summed statistics, in report order — the headline F1s and diagnostics
//! first, the chain-of-thought, stage, conflict and source figures after.

use crate::metrics::registry::{m, rate, Eval, Higher, Lower, Metric, Neither, Range};
use crate::metrics::stats::Sums;
use crate::metrics::{ratio_or, Prf, PrfKeys};

pub(super) const STRICT: PrfKeys = PrfKeys {
    tp: "tuples.strict_tp",
    fp: "tuples.strict_fp",
    fn_: "tuples.strict_fn",
};
pub(super) const RELAXED: PrfKeys = PrfKeys {
    tp: "tuples.relaxed_tp",
    fp: "tuples.relaxed_fp",
    fn_: "tuples.relaxed_fn",
};
pub(super) const TYPES: PrfKeys = PrfKeys {
    tp: "tuples.type_tp",
    fp: "tuples.type_fp",
    fn_: "tuples.type_fn",
};

/// The prefix of the per-pointer source counts, `tuples.pred_source[POINTER]`.
pub const SOURCE_PREFIX: &str = "tuples.pred_source[";

fn count(s: &dyn Sums, key: &str) -> Option<f64> {
    Some(s.get(key))
}

const fn counted(metric: Metric) -> Metric {
    metric.in_range(Range::NonNegative)
}

/// The chain-of-thought metrics: a diagnostics section of their own in reports, never the
/// main rows.
pub fn is_cot(name: &str) -> bool {
    name.starts_with("tuples.cot_")
}

/// The tuples metrics, in report order.
pub static METRICS: &[Metric] = &[
    m(
        "tuples.strict_precision",
        Higher,
        "tuples.records",
        |s| Some(Prf::of(s, &STRICT).precision),
        "micro precision of exact tuples",
    )
    .as_ratio(
        &[("tuples.strict_tp", 1.0)],
        &[("tuples.strict_tp", 1.0), ("tuples.strict_fp", 1.0)],
    ),
    m(
        "tuples.strict_recall",
        Higher,
        "tuples.records",
        |s| Some(Prf::of(s, &STRICT).recall),
        "micro recall of exact tuples",
    )
    .as_ratio(
        &[("tuples.strict_tp", 1.0)],
        &[("tuples.strict_tp", 1.0), ("tuples.strict_fn", 1.0)],
    ),
    m(
        "tuples.strict_f1",
        Higher,
        "tuples.records",
        |s| Some(Prf::of(s, &STRICT).f1),
        "micro F1 of exact tuples",
    )
    .as_ratio(
        &[("tuples.strict_tp", 2.0)],
        &[
            ("tuples.strict_tp", 2.0),
            ("tuples.strict_fp", 1.0),
            ("tuples.strict_fn", 1.0),
        ],
    ),
    m(
        "tuples.strict_f1_macro",
        Higher,
        "tuples.records",
        |s| rate(s, "tuples.f1_sum", "tuples.records"),
        "mean per-sample F1 of exact tuples",
    ),
    m(
        "tuples.relaxed_precision",
        Higher,
        "tuples.records",
        |s| Some(Prf::of(s, &RELAXED).precision),
        "micro precision, spans matched loosely",
    ),
    m(
        "tuples.relaxed_recall",
        Higher,
        "tuples.records",
        |s| Some(Prf::of(s, &RELAXED).recall),
        "micro recall, spans matched loosely",
    ),
    m(
        "tuples.relaxed_f1",
        Higher,
        "tuples.records",
        |s| Some(Prf::of(s, &RELAXED).f1),
        "micro F1, spans matched loosely",
    ),
    m(
        "tuples.type_precision",
        Higher,
        "tuples.typed_records",
        |s| Some(Prf::of(s, &TYPES).precision),
        "micro precision of the types present",
    ),
    m(
        "tuples.type_recall",
        Higher,
        "tuples.typed_records",
        |s| Some(Prf::of(s, &TYPES).recall),
        "micro recall of the types present",
    ),
    m(
        "tuples.type_f1",
        Higher,
        "tuples.typed_records",
        |s| Some(Prf::of(s, &TYPES).f1),
        "micro F1 of the types present",
    ),
    m(
        "tuples.schema_compliance",
        Higher,
        "tuples.records",
        |s| rate(s, "tuples.schema_ok", "tuples.records"),
        "answers holding a list of well-formed tuples",
    ),
    m(
        "tuples.hallucination_rate",
        Lower,
        "tuples.parsed",
        |s| rate(s, "tuples.halluc_records", "tuples.parsed"),
        "answers with a span not in the text",
    ),
    m(
        "tuples.hallucination_entity_rate",
        Lower,
        "tuples.records",
        |s| {
            Some(ratio_or(
                s.get("tuples.halluc_unsupported"),
                s.get("tuples.halluc_checked"),
                0.0,
            ))
        },
        "predicted spans not in the text",
    ),
    m(
        "tuples.cot_type_consistency",
        Higher,
        "tuples.cot_checked",
        |s| rate(s, "tuples.cot_types", "tuples.cot_checked"),
        "thoughts naming every predicted type",
    ),
    m(
        "tuples.cot_argument_consistency",
        Higher,
        "tuples.cot_checked",
        |s| rate(s, "tuples.cot_arguments", "tuples.cot_checked"),
        "thoughts naming every predicted span",
    ),
    m(
        "tuples.cot_faithfulness",
        Higher,
        "tuples.cot_checked",
        |s| rate(s, "tuples.cot_faithful", "tuples.cot_checked"),
        "thoughts naming every predicted type and span",
    ),
    m(
        "tuples.cot_coverage_rate",
        Higher,
        "tuples.cot_records",
        |s| rate(s, "tuples.cot_checked", "tuples.cot_records"),
        "answers whose thought could be checked",
    ),
    counted(m(
        "tuples.cot_checked",
        Higher,
        "tuples.cot_records",
        |s| count(s, "tuples.cot_checked"),
        "answers whose thought was checked",
    )),
    counted(m(
        "tuples.cot_skipped",
        Lower,
        "tuples.cot_records",
        |s| count(s, "tuples.cot_skipped"),
        "answers without the required thought block",
    )),
    counted(m(
        "tuples.cot_parse_fail",
        Lower,
        "tuples.cot_records",
        |s| count(s, "tuples.cot_parse_fail"),
        "answers that did not parse",
    )),
    m(
        "tuples.stage1_f1",
        Higher,
        "tuples.stage_records",
        |s| rate(s, "tuples.stage1_f1_sum", "tuples.stage_records"),
        "mean per-sample F1 of the first stage",
    ),
    m(
        "tuples.final_f1",
        Higher,
        "tuples.stage_records",
        |s| rate(s, "tuples.final_f1_sum", "tuples.stage_records"),
        "mean per-sample F1 of the final stage",
    ),
    m(
        "tuples.delta_f1",
        Higher,
        "tuples.stage_records",
        delta_f1,
        "final minus first-stage F1",
    )
    .in_range(Range::Difference),
    m(
        "tuples.stage_fix_rate",
        Higher,
        "tuples.stage_first_missed",
        |s| rate(s, "tuples.stage_fix", "tuples.stage_first_missed"),
        "first-stage misses the last stage fixed",
    ),
    m(
        "tuples.stage_break_rate",
        Lower,
        "tuples.stage_first_hit",
        |s| rate(s, "tuples.stage_break", "tuples.stage_first_hit"),
        "first-stage hits the last stage broke",
    ),
    m(
        "tuples.stage_net_gain",
        Higher,
        "tuples.stage_records",
        |s| {
            Some(
                (s.get("tuples.stage_fix") - s.get("tuples.stage_break"))
                    / s.get("tuples.stage_records"),
            )
        },
        "(fixes − breaks) per staged answer",
    )
    .in_range(Range::Difference),
    m(
        "tuples.stage_changed_rate",
        Lower,
        "tuples.stage_records",
        |s| rate(s, "tuples.stage_changed", "tuples.stage_records"),
        "answers the last stage changed",
    ),
    m(
        "tuples.stage_changed_and_improved_rate",
        Higher,
        "tuples.stage_records",
        |s| rate(s, "tuples.stage_improved", "tuples.stage_records"),
        "answers the last stage changed for the better",
    ),
    m(
        "tuples.stage_changed_and_degraded_rate",
        Lower,
        "tuples.stage_records",
        |s| rate(s, "tuples.stage_degraded", "tuples.stage_records"),
        "answers the last stage changed for the worse",
    ),
    m(
        "tuples.review_action_rate",
        Lower,
        "tuples.stage_records",
        |s| rate(s, "tuples.review", "tuples.stage_records"),
        "staged answers with review actions",
    ),
    m(
        "tuples.arb_intervention_rate",
        Lower,
        "tuples.stage_records",
        |s| rate(s, "tuples.arbitration", "tuples.stage_records"),
        "staged answers with arbitration actions",
    ),
    m(
        "tuples.guided_change_rate",
        Higher,
        "tuples.stage_changed",
        |s| rate(s, "tuples.stage_guided", "tuples.stage_changed"),
        "changes that came with a review or arbitration action",
    ),
    m(
        "tuples.label_conflict_rate_raw",
        Lower,
        "tuples.conflict_records",
        |s| rate(s, "tuples.conflict_raw", "tuples.conflict_records"),
        "answers giving one span two labels",
    ),
    m(
        "tuples.label_conflict_rate",
        Lower,
        "tuples.conflict_records",
        |s| rate(s, "tuples.conflict", "tuples.conflict_records"),
        "conflicts left after keeping the best-ranked tuples",
    ),
    counted(m(
        "tuples.pred_source_fallback",
        Lower,
        "tuples.records",
        |s| count(s, "tuples.pred_source_fallback"),
        "answers read from a fallback pointer",
    )),
    counted(m(
        "tuples.pred_source_none",
        Lower,
        "tuples.records",
        |s| count(s, "tuples.pred_source_none"),
        "answers with no tuple list",
    )),
];

fn delta_f1(s: &dyn Sums) -> Option<f64> {
    let n = s.get("tuples.stage_records");
    Some(s.get("tuples.final_f1_sum") / n - s.get("tuples.stage1_f1_sum") / n)
}

/// `tuples.pred_source[POINTER]`: records whose final tuples were read at `POINTER` (a
/// family: one metric per pointer the answers used, made once per name).
pub fn source(name: &str) -> Option<&'static Metric> {
    use std::collections::HashMap;
    use std::sync::{LazyLock, Mutex};
    static MADE: LazyLock<Mutex<HashMap<String, &'static Metric>>> = LazyLock::new(Mutex::default);
    if !(name.starts_with(SOURCE_PREFIX) && name.ends_with(']')) {
        return None;
    }
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(metric) = made.get(name) {
        return Some(metric);
    }
    let name: &'static str = Box::leak(name.to_string().into_boxed_str());
    let metric: &'static Metric = Box::leak(Box::new(Metric {
        name,
        direction: Neither,
        support: "tuples.records",
        eval: Eval::Count(name),
        about: "answers whose tuples were read at this pointer",
        range: Range::NonNegative,
        unit: "",
        unsupported: "",
        ratio: None,
    }));
    made.insert(name.to_string(), metric);
    Some(metric)
}
