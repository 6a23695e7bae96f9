//! Reading a parsed answer into a prediction, key by key and field by field (each task
//! kind reads the keys it scores): a field of the wrong
//! type counts as missing and never throws the whole answer away; a top-level array is read
//! as `{"requirements": [...]}`; an element that is not an object still counts as a
//! prediction (one that can never match); a scalar answer yields an empty prediction.

use super::json::{Json, Object};

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

/// A predicted inferred requirement.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PredInferred<'a> {
    pub requirement: PredRequirement<'a>,
    /// The item's outer `confidence`.
    pub confidence: Option<f64>,
}

/// A predicted validation issue.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PredIssue<'a> {
    pub issue_type: Option<&'a str>,
    pub field: Option<&'a str>,
    pub severity: Option<&'a str>,
}

/// Everything a pipeline answered for one sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prediction<'a> {
    pub requirements: Vec<PredRequirement<'a>>,
    pub inferred_requirements: Vec<PredInferred<'a>>,
    pub issues: Vec<PredIssue<'a>>,
    /// The string elements of `pii`.
    pub pii: Vec<&'a str>,
    pub srs_markdown: Option<&'a str>,
}

impl<'a> Prediction<'a> {
    /// Read every kind's keys from a parsed answer (`None`: the answer did not parse).
    pub fn read(value: Option<&'a Json<'_>>) -> Prediction<'a> {
        Prediction {
            requirements: requirements(value),
            inferred_requirements: inferred_requirements(value),
            issues: issues(value),
            pii: pii(value),
            srs_markdown: srs_markdown(value),
        }
    }
}

/// The top-level object of an answer, when it is one.
fn object<'a, 'j>(value: Option<&'a Json<'j>>) -> Option<&'a Object<'j>> {
    value.and_then(Json::as_object)
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

/// `inferred_requirements`.
pub fn inferred_requirements<'a>(value: Option<&'a Json<'_>>) -> Vec<PredInferred<'a>> {
    object(value)
        .map(|map| {
            list(map, "inferred_requirements")
                .map(PredInferred::read)
                .collect()
        })
        .unwrap_or_default()
}

/// `issues`.
pub fn issues<'a>(value: Option<&'a Json<'_>>) -> Vec<PredIssue<'a>> {
    object(value)
        .map(|map| list(map, "issues").map(PredIssue::read).collect())
        .unwrap_or_default()
}

/// The string elements of `pii`.
pub fn pii<'a>(value: Option<&'a Json<'_>>) -> Vec<&'a str> {
    object(value)
        .map(|map| list(map, "pii").filter_map(Json::as_str).collect())
        .unwrap_or_default()
}

/// `srs_markdown`.
pub fn srs_markdown<'a>(value: Option<&'a Json<'_>>) -> Option<&'a str> {
    object(value).and_then(|map| string(map, "srs_markdown"))
}

fn list<'a, 'j>(map: &'a Object<'j>, key: &str) -> impl Iterator<Item = &'a Json<'j>> {
    map.get(key).and_then(Json::as_array).into_iter().flatten()
}

fn string<'a>(map: &'a Object<'_>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Json::as_str)
}

/// A JSON number as f64 (booleans and strings are not numbers).
fn number(map: &Object<'_>, key: &str) -> Option<f64> {
    map.get(key).and_then(Json::as_f64)
}

/// A JSON integer; integers beyond i64 saturate (they are out of any range anyway).
pub fn integer(value: &Json<'_>) -> Option<i64> {
    match value {
        Json::Number(n) if n.is_i64() => n.as_i64(),
        Json::Number(n) if n.is_u64() => Some(i64::MAX),
        // A whole number written with a fraction or an exponent (`1.0`, `1e2`) is an integer
        // too, as JSON Schema's `integer` has it (past the range of i64: its nearest end).
        Json::Number(n) => n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64),
        _ => None,
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

impl<'a> PredInferred<'a> {
    fn read(value: &'a Json<'_>) -> PredInferred<'a> {
        let Some(map) = value.as_object() else {
            return PredInferred::default();
        };
        PredInferred {
            requirement: map
                .get("requirement")
                .map(PredRequirement::read)
                .unwrap_or_default(),
            confidence: number(map, "confidence"),
        }
    }
}

impl<'a> PredIssue<'a> {
    fn read(value: &'a Json<'_>) -> PredIssue<'a> {
        let Some(map) = value.as_object() else {
            return PredIssue::default();
        };
        PredIssue {
            issue_type: string(map, "issue_type"),
            field: string(map, "field"),
            severity: string(map, "severity"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Read a `json!` value as scoring reads an answer (from its text).
    fn read<R>(value: &serde_json::Value, check: impl FnOnce(Prediction<'_>) -> R) -> R {
        let text = value.to_string();
        let json = Json::parse(&text).unwrap();
        check(Prediction::read(Some(&json)))
    }

    #[test]
    fn wrong_types_count_as_missing() {
        let v = json!({"requirements": [{"id": 7, "title": "Track", "type": ["x"], "actor": "user",
            "action": "track", "acceptance_criteria": ["a", 3, "b"], "source_messages": [0, "1", 2.0, 3],
            "confidence": "0.9"}, 5]});
        read(&v, |p| {
            assert_eq!(p.requirements.len(), 2);
            let r = &p.requirements[0];
            assert_eq!(r.id, None);
            assert_eq!(r.type_, None);
            assert_eq!(r.title, Some("Track"));
            assert_eq!(r.acceptance_criteria, vec!["a", "b"]);
            // 2.0 is a whole number: an integer, as JSON Schema has it.
            assert_eq!(r.source_messages, vec![0, 2, 3]);
            assert!(!r.source_messages_clean);
            assert_eq!(r.confidence, None);
            assert!(!p.requirements[1].is_object);
        });
    }

    #[test]
    fn shapes() {
        read(&json!([{"title": "a"}]), |p| {
            assert_eq!(p.requirements.len(), 1)
        });
        read(&json!(42), |p| assert_eq!(p, Prediction::default()));
        assert_eq!(Prediction::read(None), Prediction::default());
        let wrong = json!({"requirements": {"title": "a"}, "pii": ["x", 1], "srs_markdown": 3});
        read(&wrong, |p| {
            assert!(p.requirements.is_empty());
            assert_eq!(p.pii, vec!["x"]);
            assert_eq!(p.srs_markdown, None);
        });
        let big = json!({"requirements": [{"source_messages": [18446744073709551615u64]}]});
        read(&big, |p| {
            assert_eq!(p.requirements[0].source_messages, vec![i64::MAX])
        });
    }

    /// A repeated key reads as its last value, as it did when answers were `Value`s.
    #[test]
    fn repeated_keys_read_as_the_last() {
        let text = r#"{"requirements": [], "requirements": [{"title": "a", "title": "b"}]}"#;
        let json = Json::parse(text).unwrap();
        let p = Prediction::read(Some(&json));
        assert_eq!(p.requirements.len(), 1);
        assert_eq!(p.requirements[0].title, Some("b"));
    }
}
