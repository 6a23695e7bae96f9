//! Unknown and missing keys of a sample document: all of them at once, with did-you-mean
//! hints, so one lint run lists every typo.

use serde_json::Value;

use crate::kinds;
use crate::sample::findings::{check_keys, child, items, Findings};

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
const DISCUSSION_KEYS: &[&str] = &["annotator", "note"];
const REVIEW_KEYS: &[&str] = &["promoted_by", "from", "at"];
pub(super) fn walk_sample_keys(value: &Value, findings: &mut Findings) -> Vec<String> {
    if !value.is_object() {
        findings.error(
            "",
            "a sample must be a mapping (object)".to_string(),
            Some("docs/suites.md describes the sample format".to_string()),
        );
        return Vec::new();
    }
    let mut unknown = check_keys(value, "", SAMPLE_KEYS, &["id", "kind", "labels"], findings);
    for (p, message) in items(value, "", "conversation") {
        unknown.extend(check_keys(
            message,
            &p,
            MESSAGE_KEYS,
            MESSAGE_KEYS,
            findings,
        ));
    }
    let label_keys: Vec<&str> = kinds::label_shapes().iter().map(|s| s.key()).collect();
    if let Some(labels) = value.get("labels") {
        unknown.extend(walk_label_keys(
            labels,
            "/labels",
            &label_keys,
            &[],
            findings,
        ));
    }
    let annotation_keys: Vec<&str> = std::iter::once("annotator")
        .chain(label_keys.iter().copied())
        .collect();
    for (p, annotation) in items(value, "", "annotations") {
        unknown.extend(walk_label_keys(
            annotation,
            &p,
            &annotation_keys,
            &["annotator"],
            findings,
        ));
    }
    for (p, note) in items(value, "", "discussion") {
        unknown.extend(check_keys(
            note,
            &p,
            DISCUSSION_KEYS,
            DISCUSSION_KEYS,
            findings,
        ));
    }
    if let Some(review) = value.get("review") {
        unknown.extend(check_keys(
            review,
            "/review",
            REVIEW_KEYS,
            &["promoted_by", "at"],
            findings,
        ));
    }
    unknown
}

/// The keys of a label mapping (`labels`, or an annotation), then each list's items by its
/// shape.
fn walk_label_keys(
    value: &Value,
    pointer: &str,
    allowed: &[&str],
    required: &[&str],
    findings: &mut Findings,
) -> Vec<String> {
    let mut unknown = check_keys(value, pointer, allowed, required, findings);
    for shape in kinds::label_shapes() {
        if let Some(list) = value.get(shape.key()) {
            unknown.extend(shape.walk_keys(list, &child(pointer, shape.key()), findings));
        }
    }
    unknown
}
