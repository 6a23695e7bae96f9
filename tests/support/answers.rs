//! What a run record or an outputs line holds: its sample id and its answer as text.

use serde_json::Value;

/// The sample id of a run record (`sample_id`) or of an outputs line (`id`).
pub fn sample_id(record: &Value) -> Option<&str> {
    record
        .get("sample_id")
        .or(record.get("id"))
        .and_then(Value::as_str)
}

/// The answer a run record (`raw_output`) or an outputs line (`output`) holds, as text: a
/// string as it is, anything else as its JSON.
pub fn answer_text(record: &Value) -> Option<String> {
    match (record.get("raw_output"), record.get("output")) {
        (Some(Value::String(s)), _) | (_, Some(Value::String(s))) => Some(s.clone()),
        (_, Some(v)) => Some(v.to_string()),
        _ => None,
    }
}
