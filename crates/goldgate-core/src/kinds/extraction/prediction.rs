//! What extraction reads from an answer: its requirements (`requirements`, or the answer
//! itself when it is a top-level array), each field as far as it could be read.

use crate::parse::answer::{integer, list, number, object, string};
use crate::parse::json::Json;

/// A predicted requirement as far as it could be read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PredRequirement<'a> {
    /// False for list elements that are not objects.
    pub is_object: bool,
    pub id: Option<&'a str>,
    pub title: Option<&'a str>,
    pub type_: Option<&'a str>,
    pub actor: Option<&'a str>,
    pub action: Option<&'a str>,
    /// The string elements of `acceptance_criteria`.
    pub acceptance_criteria: Vec<&'a str>,
    /// The integer elements of `source_messages` (others are ignored).
    pub source_messages: Vec<i64>,
    /// Whether `source_messages` was present as a list of integers only.
    pub source_messages_clean: bool,
    /// `confidence` when it is a JSON number (range is checked by calibration).
    pub confidence: Option<f64>,
}

/// `requirements`: the answer's list, or the answer itself when it is a top-level array.
pub fn requirements<'a>(value: Option<&'a Json<'_>>) -> Vec<PredRequirement<'a>> {
    match value {
        Some(Json::Array(items)) => items.iter().map(PredRequirement::read).collect(),
        _ => object(value)
            .map(|map| {
                list(map, "requirements")
                    .map(PredRequirement::read)
                    .collect()
            })
            .unwrap_or_default(),
    }
}

impl<'a> PredRequirement<'a> {
    pub fn read(value: &'a Json<'_>) -> PredRequirement<'a> {
        let Some(map) = value.as_object() else {
            return PredRequirement::default();
        };
        let sources = map.get("source_messages").and_then(Json::as_array);
        let source_messages: Vec<i64> = sources.into_iter().flatten().filter_map(integer).collect();
        PredRequirement {
            is_object: true,
            id: string(map, "id"),
            title: string(map, "title"),
            type_: string(map, "type"),
            actor: string(map, "actor"),
            action: string(map, "action"),
            acceptance_criteria: list(map, "acceptance_criteria")
                .filter_map(Json::as_str)
                .collect(),
            source_messages_clean: sources.is_some_and(|s| s.len() == source_messages.len()),
            source_messages,
            confidence: number(map, "confidence"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Read a `json!` value as scoring reads an answer (from its text).
    fn read<R>(value: &serde_json::Value, check: impl FnOnce(Vec<PredRequirement<'_>>) -> R) -> R {
        let text = value.to_string();
        let json = Json::parse(&text).unwrap();
        check(requirements(Some(&json)))
    }

    #[test]
    fn wrong_types_count_as_missing() {
        let v = json!({"requirements": [{"id": 7, "title": "Track", "type": ["x"], "actor": "user",
            "action": "track", "acceptance_criteria": ["a", 3, "b"], "source_messages": [0, "1", 2.0, 3],
            "confidence": "0.9"}, 5]});
        read(&v, |p| {
            assert_eq!(p.len(), 2);
            let r = &p[0];
            assert_eq!(r.id, None);
            assert_eq!(r.type_, None);
            assert_eq!(r.title, Some("Track"));
            assert_eq!(r.acceptance_criteria, vec!["a", "b"]);
            // 2.0 is a whole number: an integer, as JSON Schema has it.
            assert_eq!(r.source_messages, vec![0, 2, 3]);
            assert!(!r.source_messages_clean);
            assert_eq!(r.confidence, None);
            assert!(!p[1].is_object);
        });
    }

    #[test]
    fn shapes() {
        read(&json!([{"title": "a"}]), |p| assert_eq!(p.len(), 1));
        read(&json!(42), |p| assert!(p.is_empty()));
        assert!(requirements(None).is_empty());
        read(&json!({"requirements": {"title": "a"}}), |p| {
            assert!(p.is_empty())
        });
        let big = json!({"requirements": [{"source_messages": [18446744073709551615u64]}]});
        read(&big, |p| assert_eq!(p[0].source_messages, vec![i64::MAX]));
    }

    /// A repeated key reads as its last value, as it did when answers were `Value`s.
    #[test]
    fn repeated_keys_read_as_the_last() {
        let text = r#"{"requirements": [], "requirements": [{"title": "a", "title": "b"}]}"#;
        let json = Json::parse(text).unwrap();
        let p = requirements(Some(&json));
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].title, Some("b"));
    }
}
