//! The inferred requirements' shape: its ids as the labelling page checks them against the
//! id pattern, with their pointers. (A repeated id, as `suite lint` reports it, is in
//! `end_to_end/lint.rs`.)

use serde_json::json;

use super::labels::InferredRequirements;
use crate::sample::LabelShape;

fn inferred(id: &str) -> serde_json::Value {
    json!({"requirement": {"id": id, "title": "Audit log", "type": "security", "actor": "system",
        "action": "log every login", "source_messages": [0]},
        "inference_type": "security", "necessity": "necessary"})
}

#[test]
fn its_ids_are_found_below_each_items_requirement() {
    let list = json!([inferred("REQ-101"), {"requirement": {}}, inferred("R-2")]);
    assert_eq!(
        InferredRequirements.requirement_ids(&list),
        [
            ("/0/requirement/id".to_string(), "REQ-101"),
            ("/2/requirement/id".to_string(), "R-2"),
        ]
    );
}
