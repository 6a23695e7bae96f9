//! How a validation answer's diff lines up: by the pairs its scoring made.

use serde_json::{json, Value};

use super::Validation;
use crate::kinds::aligned::{Aligned, Paired};
use crate::sample::Sample;

/// A sample with one issue and one piece of personal data as its gold.
fn sample() -> Sample {
    crate::testkit::sample(
        crate::kinds::kind_of(&Validation),
        "the customer tracks orders",
        json!({
            "issues": [{"issue_type": "pii", "severity": "error", "field": "description"}],
            "pii": ["Jane Doe"]
        }),
    )
}

/// The answer scored as the scorer scores a record, and its items lined up by the pairs
/// that scoring made.
fn lined(output: Value) -> Aligned {
    crate::testkit::lined_up(&Validation, &sample(), &output.to_string())
}

/// Issues pair when of one type and field (their severities shown apart), personal data
/// when equal after `norm`.
#[test]
fn the_pairs_a_record_scored_line_its_diff_up() {
    let v = lined(
        json!({"issues": [{"issue_type": "ambiguity", "field": "title", "severity": "minor"},
            {"issue_type": "PII", "field": "Description", "severity": "warning"}], "pii": ["Bob", "jane  DOE"]}),
    );
    assert_eq!(v.pairs, [Paired::exact(0, 1), Paired::exact(1, 3)]);
    assert_eq!(v.gold[0].text, "pii | description | error");
    assert_eq!(
        v.predicted[1].fields[2],
        ("severity".into(), "warning".into())
    );
    assert_eq!(v.gold[1].text, "pii: Jane Doe");
}
