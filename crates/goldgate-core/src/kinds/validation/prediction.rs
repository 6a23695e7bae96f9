//! What validation reads from an answer: its issues and the strings of `pii`.

use crate::parse::answer::{list, object, string};
use crate::parse::json::Json;

/// A predicted validation issue.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PredIssue<'a> {
    pub issue_type: Option<&'a str>,
    pub field: Option<&'a str>,
    pub severity: Option<&'a str>,
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

impl<'a> PredIssue<'a> {
    pub fn read(value: &'a Json<'_>) -> PredIssue<'a> {
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

    #[test]
    fn pii_keeps_its_strings_only() {
        let text =
            serde_json::json!({"pii": ["x", 1], "issues": {"issue_type": "pii"}}).to_string();
        let json = Json::parse(&text).unwrap();
        assert_eq!(pii(Some(&json)), vec!["x"]);
        assert!(issues(Some(&json)).is_empty());
        assert!(pii(None).is_empty());
    }
}
