//! Schema compliance of an extraction answer (`extraction.schema_compliance`, docs/metrics.md):
//! the rules `schemas/answer-extraction.schema.json` states, applied to the parsed answer, and
//! the one rule no schema can state (a source index names a message of the sample's
//! conversation). The schema is made from [`FIELDS`] and the constants here, and a test runs
//! both on the same answers (every example answer, and variants that break each rule once),
//! so a validator and goldgate agree. The id pattern is the rules' `[matching] id_pattern`
//! (the schema holds the default). Under `schema = "syntax_only"` only the top-level shape
//! counts.

use super::labels::enums;
use crate::kinds::compliance::{in_ascii_enum, quoted, what, Violations};
use crate::metrics::{SchemaMode, ScoringConfig};
use crate::parse::answer::integer;
use crate::parse::json::Json;

/// Acceptance criteria a requirement needs at least.
pub const MIN_CRITERIA: usize = 2;

/// What a field of a predicted requirement must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// A string the id pattern matches.
    Id,
    /// A string that is not empty.
    Text,
    /// A string (empty or not).
    AnyText,
    /// A string or null.
    TextOrNull,
    /// One of these values after `norm`, spelt in ASCII.
    OneOf(&'static [&'static str]),
    /// A list of at least [`MIN_CRITERIA`] strings.
    Criteria,
    /// A list of non-negative integers, each the index of one of the conversation's messages.
    Sources,
    /// A number in [0, 1].
    Confidence,
}

/// Every field a compliant requirement has, with its rule, in the schema's order.
pub const FIELDS: [(&str, Rule); 11] = [
    ("id", Rule::Id),
    ("title", Rule::Text),
    ("type", Rule::OneOf(enums::REQUIREMENT_TYPE)),
    ("actor", Rule::Text),
    ("action", Rule::Text),
    ("condition", Rule::TextOrNull),
    ("acceptance_criteria", Rule::Criteria),
    ("priority", Rule::OneOf(enums::PRIORITY)),
    ("source_messages", Rule::Sources),
    ("rationale", Rule::AnyText),
    ("confidence", Rule::Confidence),
];

/// The token counts of an answer's optional `usage` object: non-negative integers.
pub const USAGE_COUNTS: [&str; 3] = ["prompt_tokens", "completion_tokens", "total_tokens"];

/// Every rule `answer` breaks (`None`: it did not parse). `messages` is the number of the
/// conversation's messages (`None` leaves the source range out: what the schema checks).
pub fn check(
    answer: Option<&Json<'_>>,
    messages: Option<usize>,
    cfg: &ScoringConfig,
) -> Violations {
    let mut v = Violations::default();
    let Some(answer) = answer else {
        v.add(String::new, || "no JSON could be read from it".into());
        return v;
    };
    let (list, at) = match answer {
        Json::Array(list) => (list, ""),
        Json::Object(map) => match map.get("requirements") {
            Some(Json::Array(list)) => (list, "/requirements"),
            Some(other) => {
                v.add(
                    || "/requirements".into(),
                    || format!("not a list ({})", what(other)),
                );
                return v;
            }
            None => {
                v.add(String::new, || "no `requirements` key".into());
                return v;
            }
        },
        other => {
            v.add(String::new, || {
                format!("not an object or a list ({})", what(other))
            });
            return v;
        }
    };
    if cfg.schema == SchemaMode::SyntaxOnly {
        return v;
    }
    if let Some(usage) = answer.get("usage") {
        check_usage(usage, &mut v);
    }
    for (i, r) in list.iter().enumerate() {
        requirement(r, &|| format!("{at}/{i}"), messages, cfg, &mut v);
    }
    v
}

fn check_usage(usage: &Json<'_>, v: &mut Violations) {
    let Some(map) = usage.as_object() else {
        v.add(
            || "/usage".into(),
            || format!("not an object ({})", what(usage)),
        );
        return;
    };
    for key in USAGE_COUNTS {
        if let Some(count) = map.get(key) {
            if integer(count).is_none_or(|n| n < 0) {
                v.add(
                    || format!("/usage/{key}"),
                    || format!("not a non-negative integer ({})", shown(count)),
                );
            }
        }
    }
    if let Some(cost) = map.get("cost_usd") {
        if !matches!(cost, Json::Number(_)) {
            v.add(
                || "/usage/cost_usd".into(),
                || format!("not a number ({})", what(cost)),
            );
        }
    }
}

fn requirement(
    value: &Json<'_>,
    at: &dyn Fn() -> String,
    messages: Option<usize>,
    cfg: &ScoringConfig,
    v: &mut Violations,
) {
    let Some(r) = value.as_object() else {
        v.add(at, || format!("not an object ({})", what(value)));
        return;
    };
    for (key, rule) in FIELDS {
        let path = || format!("{}/{key}", at());
        match r.get(key) {
            None => v.add(path, || "missing".into()),
            Some(field) => field_rule(field, rule, &path, messages, cfg, v),
        }
    }
}

fn field_rule(
    field: &Json<'_>,
    rule: Rule,
    path: &dyn Fn() -> String,
    messages: Option<usize>,
    cfg: &ScoringConfig,
    v: &mut Violations,
) {
    let not = |v: &mut Violations, what_: &'static str| {
        v.add(path, || format!("not {what_} ({})", what(field)));
    };
    match rule {
        Rule::Id => match field.as_str() {
            None => not(v, "a string"),
            Some(id) if !cfg.id_pattern.is_match(id) => v.add(path, || {
                format!(
                    "{} does not match the id pattern {}",
                    quoted(id),
                    cfg.id_pattern.as_str()
                )
            }),
            Some(_) => {}
        },
        Rule::Text => match field.as_str() {
            None => not(v, "a string"),
            Some("") => v.add(path, || "empty".into()),
            Some(_) => {}
        },
        Rule::AnyText => {
            if !field.is_string() {
                not(v, "a string");
            }
        }
        Rule::TextOrNull => {
            if !matches!(field, Json::String(_) | Json::Null) {
                not(v, "a string or null");
            }
        }
        Rule::OneOf(values) => match field.as_str() {
            None => not(v, "a string"),
            Some(s) if !in_ascii_enum(s, values) => v.add(path, || {
                format!("{} is not one of {}", quoted(s), values.join(", "))
            }),
            Some(_) => {}
        },
        Rule::Criteria => match field.as_array() {
            None => not(v, "a list"),
            Some(items) => {
                if items.len() < MIN_CRITERIA {
                    v.add(path, || {
                        format!("at least {MIN_CRITERIA} items, found {}", items.len())
                    });
                }
                for (j, item) in items.iter().enumerate() {
                    if !item.is_string() {
                        v.add(
                            || format!("{}/{j}", path()),
                            || format!("not a string ({})", what(item)),
                        );
                    }
                }
            }
        },
        Rule::Sources => match field.as_array() {
            None => not(v, "a list"),
            Some(items) => {
                for (j, item) in items.iter().enumerate() {
                    let at = || format!("{}/{j}", path());
                    match integer(item) {
                        Some(i) if i >= 0 => match messages {
                            Some(n) if i as u64 >= n as u64 => v.add(at, || {
                                format!("message {i} is not in the conversation ({n} messages)")
                            }),
                            _ => {}
                        },
                        _ => v.add(at, || {
                            format!("not a non-negative integer ({})", shown(item))
                        }),
                    }
                }
            }
        },
        Rule::Confidence => match field {
            Json::Number(n) => {
                let c = n.as_f64().unwrap_or(f64::NAN);
                if !(0.0..=1.0).contains(&c) {
                    v.add(path, || format!("{n} is not in [0, 1]"));
                }
            }
            _ => not(v, "a number"),
        },
    }
}

/// A number as written, anything else as what it is.
fn shown(value: &Json<'_>) -> String {
    match value {
        Json::Number(n) => n.to_string(),
        other => what(other).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violations(text: &str, messages: Option<usize>) -> Vec<String> {
        let answer = Json::parse_owned(text).unwrap();
        let v = check(Some(&answer), messages, &ScoringConfig::default());
        v.kept.iter().map(ToString::to_string).collect()
    }

    const GOOD: &str = r#"{"id": "REQ-001", "title": "Track", "type": "Functional", "actor": "customer",
        "action": "track orders", "condition": null, "acceptance_criteria": ["a", "b"],
        "priority": "must", "source_messages": [0, 1.0], "rationale": "", "confidence": 1}"#;

    /// Each broken rule is named by the JSON pointer of its value and the constraint.
    #[test]
    fn each_broken_rule_says_where_and_what() {
        assert_eq!(
            violations(&format!("{{\"requirements\": [{GOOD}]}}"), Some(2)),
            Vec::<String>::new()
        );
        assert_eq!(
            violations(&format!("[{GOOD}]"), Some(2)),
            Vec::<String>::new()
        );
        let broken = GOOD
            .replace(r#""a", "b""#, r#""a""#)
            .replace("\"REQ-001\"", "\"R1\"")
            .replace("\"must\"", "\"urgent\"")
            .replace("[0, 1.0]", "[0, -1, 5]")
            .replace("\"confidence\": 1", "\"confidence\": 1.5");
        assert_eq!(
            violations(&format!("{{\"requirements\": [{broken}]}}"), Some(2)),
            [
                "/requirements/0/id: `R1` does not match the id pattern ^(REQ-[0-9]{3,}|(FR|NFR|CON|SUG)-[0-9]{2,})$",
                "/requirements/0/acceptance_criteria: at least 2 items, found 1",
                "/requirements/0/priority: `urgent` is not one of must, should, could",
                "/requirements/0/source_messages/1: not a non-negative integer (-1)",
                "/requirements/0/source_messages/2: message 5 is not in the conversation (2 messages)",
            ]
        );
        // Without the conversation, the source range is left out (what the schema checks).
        assert!(!violations(&format!("[{broken}]"), None)
            .iter()
            .any(|v| v.contains("message 5")));
        assert_eq!(
            violations(r#"{"requirements": [{"title": ""}, 3]}"#, None)[..3],
            [
                "/requirements/0/id: missing",
                "/requirements/0/title: empty",
                "/requirements/0/type: missing"
            ]
        );
        assert_eq!(
            violations(r#"{"requirements": [3]}"#, None),
            ["/requirements/0: not an object (a number)"]
        );
        assert_eq!(
            violations(r#"{"reqs": []}"#, None),
            ["the answer: no `requirements` key"]
        );
        assert_eq!(
            violations(r#"{"requirements": {}}"#, None),
            ["/requirements: not a list (an object)"]
        );
        assert_eq!(
            violations(
                r#"{"requirements": [], "usage": {"prompt_tokens": 1.5, "cost_usd": "1"}}"#,
                None
            ),
            [
                "/usage/prompt_tokens: not a non-negative integer (1.5)",
                "/usage/cost_usd: not a number (a string)"
            ]
        );
        assert_eq!(
            check(None, None, &ScoringConfig::default()).kept[0].to_string(),
            "the answer: no JSON could be read from it"
        );
        // Only the top-level shape under syntax_only.
        let loose = ScoringConfig {
            schema: SchemaMode::SyntaxOnly,
            ..ScoringConfig::default()
        };
        let answer = Json::parse_owned(r#"{"requirements": [3]}"#).unwrap();
        assert!(check(Some(&answer), None, &loose).is_empty());
    }
}
