//! Scoring validation samples through the library: issues matched by key and severity,
//! and the PII found, checked by hand.

use serde_json::json;

use crate::support::scoring::{conversation, run, value};

#[test]
fn validation_counts_keys_and_severity() {
    let sample = json!({"id": "v", "kind": "validation", "domain": "hr", "conversation": conversation(1),
        "labels": {"issues": [
            {"issue_type": "ambiguous_verb", "severity": "warning", "field": "action"},
            {"issue_type": "ambiguous_verb", "severity": "error", "field": "action"},
            {"issue_type": "pii", "severity": "error", "field": "description"}],
          "pii": ["Jane Doe", "jane@example.com"]}});
    let answer = json!({"issues": [
        {"issue_type": "Ambiguous Verb", "severity": "warning", "field": "Action"},
        {"issue_type": "too_broad", "severity": "info", "field": "title"}],
      "pii": ["jane doe", "555-0100"]});
    let file = run("validation", &[sample], &[("v", answer)]);
    assert_eq!(value(&file, "validation.precision"), Some(0.5));
    assert!((value(&file, "validation.recall").unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(value(&file, "validation.pii_precision"), Some(0.5));
    assert_eq!(value(&file, "validation.pii_recall"), Some(0.5));
    assert_eq!(value(&file, "validation.severity_kappa"), Some(1.0));
}

/// A rule on the severity kappa of a run where no issue was matched has no value, and the
/// verdict says why in the words of what it counts.
#[test]
fn a_severity_kappa_without_matches_says_why_it_has_no_value() {
    let sample = json!({"id": "v", "kind": "validation", "domain": "hr", "conversation": conversation(1),
        "labels": {"issues": [{"issue_type": "ambiguous_verb", "severity": "warning", "field": "action"}], "pii": []}});
    let file = run(
        "no-severities",
        &[sample],
        &[("v", json!({"issues": [], "pii": []}))],
    );
    let rules =
        goldgate_core::testkit::rules("[metrics.\"validation.severity_kappa\"]\nmin = 0.5\n");
    let options = goldgate_core::testkit::options();
    let verdict = goldgate_core::gate::compare::compare(&file, None, &rules, &options).unwrap();
    assert_eq!(
        goldgate_core::gate::verdict::by_name(&verdict)["validation.severity_kappa"].reasons,
        ["no data in this run: no issue was matched, so no severities were compared"]
    );
}
