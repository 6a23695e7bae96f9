//! How an inference answer's diff lines up: by the pairs its scoring made.

use serde_json::{json, Value};

use super::Inference;
use crate::kinds::aligned::Aligned;
use crate::sample::Sample;

/// A sample with one requirement and one requirement inferred from it as its gold.
fn sample() -> Sample {
    crate::testkit::sample(
        crate::kinds::kind_of(&Inference),
        "the customer tracks orders",
        json!({
            "requirements": [{"id": "REQ-001", "title": "Track orders", "type": "functional", "actor": "customer",
                              "action": "track orders", "acceptance_criteria": ["a", "b"], "source_messages": [0]}],
            "inferred_requirements": [{"requirement": {"id": "REQ-101", "title": "Audit", "type": "security", "actor": "system",
                              "action": "log access"}, "inference_type": "security", "necessity": "necessary"}]
        }),
    )
}

/// The answer scored as the scorer scores a record, and its items lined up by the pairs
/// that scoring made.
fn lined(output: Value) -> Aligned {
    crate::testkit::lined_up(&Inference, &sample(), &output.to_string())
}

/// Inferred requirements pair by similarity, and each gold item shows its necessity.
#[test]
fn the_pairs_a_record_scored_line_its_diff_up() {
    let i = lined(
        json!({"inferred_requirements": [{"requirement": {"id": "INF-1", "title": "Audit log",
            "type": "security", "actor": "system", "action": "log every access"}}]}),
    );
    assert_eq!(
        (i.pairs.len(), i.pairs[0].gold, i.pairs[0].predicted),
        (1, 0, 0)
    );
    assert!(
        i.pairs[0].similarity.is_some_and(|s| s >= 0.6),
        "{:?}",
        i.pairs
    );
    assert_eq!(
        i.gold[0].text,
        "security | system | Audit: log access (necessary)"
    );
    assert_eq!(i.predicted[0].name, "INF-1");
}
