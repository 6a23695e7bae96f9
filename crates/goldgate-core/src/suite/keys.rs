//! Unknown and missing keys of a sample document: all of them at once, with did-you-mean
//! hints, so one lint run lists every typo.

use serde_json::Value;

use crate::sample::findings::{child, Findings};
use crate::text::did_you_mean;

const SAMPLE_KEYS: &[&str] = &[
    "id",
    "kind",
    "domain",
    "difficulty",
    "conversation",
    "user_input",
    "requirements",
    "reference_srs",
    "task",
    "text",
    "tags",
    "labels",
    "annotations",
    "discussion",
    "review",
];
const MESSAGE_KEYS: &[&str] = &["role", "content"];
const LABEL_KEYS: &[&str] = &[
    "requirements",
    "inferred_requirements",
    "issues",
    "pii",
    "tuples",
];
const ANNOTATION_KEYS: &[&str] = &[
    "annotator",
    "requirements",
    "inferred_requirements",
    "issues",
    "pii",
    "tuples",
];
const DISCUSSION_KEYS: &[&str] = &["annotator", "note"];
const REVIEW_KEYS: &[&str] = &["promoted_by", "from", "at"];
/// In the order the labelling schema lists them (and an edit writes them).
pub const REQUIREMENT_KEYS: &[&str] = &[
    "id",
    "title",
    "type",
    "actor",
    "action",
    "condition",
    "acceptance_criteria",
    "priority",
    "source_messages",
    "rationale",
    "confidence",
];
/// In the order the labelling schema lists them (and an edit writes them).
pub const INFERRED_KEYS: &[&str] = &[
    "requirement",
    "inference_type",
    "triggered_by",
    "necessity",
    "rationale",
    "confidence",
];
/// In the order the labelling schema lists them (and an edit writes them).
pub const ISSUE_KEYS: &[&str] = &[
    "issue_type",
    "severity",
    "field",
    "location",
    "message",
    "suggested_fix",
    "confidence",
];

/// Report unknown and missing keys of one object; returns the unknown keys' pointers.
fn keys(
    value: &Value,
    pointer: &str,
    allowed: &[&str],
    required: &[&str],
    findings: &mut Findings,
) -> Vec<String> {
    let Some(map) = value.as_object() else {
        return Vec::new();
    };
    let mut unknown = Vec::new();
    for key in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
        let hint = match did_you_mean(key, allowed.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("known fields here: {}", allowed.join(", ")),
        };
        let at = child(pointer, key);
        findings.error(&at, format!("unknown field `{key}`"), Some(hint));
        unknown.push(at);
    }
    for key in required.iter().filter(|k| !map.contains_key(**k)) {
        findings.error(
            pointer,
            format!("missing field `{key}`"),
            Some(format!(
                "add `{key}`; docs/suites.md lists what each object needs"
            )),
        );
    }
    unknown
}

fn items<'a>(value: &'a Value, pointer: &str, key: &str) -> Vec<(String, &'a Value)> {
    let base = child(pointer, key);
    match value.get(key).and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("{base}/{i}"), v))
            .collect(),
        None => Vec::new(),
    }
}

pub(super) fn walk_sample_keys(value: &Value, findings: &mut Findings) -> Vec<String> {
    if !value.is_object() {
        findings.error(
            "",
            "a sample must be a mapping (object)".to_string(),
            Some("docs/suites.md describes the sample format".to_string()),
        );
        return Vec::new();
    }
    let mut unknown = keys(value, "", SAMPLE_KEYS, &["id", "kind", "labels"], findings);
    for (p, message) in items(value, "", "conversation") {
        unknown.extend(keys(message, &p, MESSAGE_KEYS, MESSAGE_KEYS, findings));
    }
    if let Some(labels) = value.get("labels") {
        unknown.extend(walk_label_keys(
            labels,
            "/labels",
            LABEL_KEYS,
            &[],
            findings,
        ));
    }
    for (p, annotation) in items(value, "", "annotations") {
        unknown.extend(walk_label_keys(
            annotation,
            &p,
            ANNOTATION_KEYS,
            &["annotator"],
            findings,
        ));
    }
    for (p, note) in items(value, "", "discussion") {
        unknown.extend(keys(note, &p, DISCUSSION_KEYS, DISCUSSION_KEYS, findings));
    }
    if let Some(review) = value.get("review") {
        unknown.extend(keys(
            review,
            "/review",
            REVIEW_KEYS,
            &["promoted_by", "at"],
            findings,
        ));
    }
    unknown
}

fn walk_label_keys(
    value: &Value,
    pointer: &str,
    allowed: &[&str],
    required: &[&str],
    findings: &mut Findings,
) -> Vec<String> {
    const REQUIREMENT_REQUIRED: &[&str] = &["id", "title", "type", "actor", "action"];
    let mut unknown = keys(value, pointer, allowed, required, findings);
    for (p, r) in items(value, pointer, "requirements") {
        unknown.extend(keys(
            r,
            &p,
            REQUIREMENT_KEYS,
            REQUIREMENT_REQUIRED,
            findings,
        ));
    }
    for (p, inferred) in items(value, pointer, "inferred_requirements") {
        unknown.extend(keys(
            inferred,
            &p,
            INFERRED_KEYS,
            &["requirement", "inference_type", "necessity"],
            findings,
        ));
        if let Some(r) = inferred.get("requirement") {
            unknown.extend(keys(
                r,
                &child(&p, "requirement"),
                REQUIREMENT_KEYS,
                REQUIREMENT_REQUIRED,
                findings,
            ));
        }
    }
    for (p, issue) in items(value, pointer, "issues") {
        unknown.extend(keys(
            issue,
            &p,
            ISSUE_KEYS,
            &["issue_type", "severity"],
            findings,
        ));
    }
    unknown
}
