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
