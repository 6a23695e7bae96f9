//! How reports lay out the tuples metrics ([`TaskKind::report_layout`]): the rows the main
//! table leads with, the chain-of-thought rates kept apart from it, and the counts their
//! coverage is told with.

use super::metrics::METRICS;
use super::Tuples;
use crate::kinds::TaskKind;

#[test]
fn the_main_table_leads_with_the_f1s_and_the_parse_rates() {
    let layout = Tuples
        .report_layout()
        .expect("the tuples kind has a layout");
    assert_eq!(
        layout.headline[..3],
        ["tuples.strict_f1", "tuples.relaxed_f1", "tuples.type_f1"]
    );
    let at = |name: &str| layout.headline.iter().position(|n| *n == name);
    assert!(at("parse.error_rate") > at("tuples.type_f1"));
    // The stage figures are the kind's own rows, neither headline nor diagnostic.
    assert!(METRICS.iter().any(|m| m.name == "tuples.stage_break_rate"));
    assert_eq!(at("tuples.stage_break_rate"), None);
    assert!(!(layout.is_diagnostic)("tuples.stage_break_rate"));
}

#[test]
fn the_chain_of_thought_rates_are_shown_apart_with_their_coverage() {
    let layout = Tuples
        .report_layout()
        .expect("the tuples kind has a layout");
    let at = |name: &str| layout.diagnostics.iter().position(|n| *n == name);
    assert!(at("tuples.cot_faithfulness") < at("tuples.cot_coverage_rate"));
    assert!(at("tuples.cot_faithfulness").is_some() && at("tuples.cot_type_consistency").is_some());
    assert_eq!(
        layout.coverage,
        [
            "tuples.cot_checked",
            "tuples.cot_skipped",
            "tuples.cot_parse_fail"
        ]
    );
    for name in layout.diagnostics.iter().chain(&layout.coverage) {
        assert!((layout.is_diagnostic)(name), "{name}");
        assert!(!layout.headline.contains(name), "{name}");
    }
}
