//! The labelling rules a typed sample is held to (see docs/suites.md): enum values after
//! `norm`, `source_messages` in range, unique and well-formed ids, the fields each kind
//! needs; the labelling-guide rules (at least two acceptance criteria, a priority, a title)
//! are warnings.

use std::collections::HashSet;

use crate::kinds;
use crate::sample::findings::{child, Findings};
use crate::sample::task::Tasks;
use crate::sample::{enums, Kind, Labels, RawSample, Requirement};
use crate::text::{hint_for, in_enum, norm};

fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// `pointer` is only built when there is something to report.
fn check_enum(
    value: &str,
    allowed: &[&'static str],
    pointer: impl FnOnce() -> String,
    what: &str,
    findings: &mut Findings,
) {
    if !in_enum(value, allowed) {
        findings.error(
            &pointer(),
            format!("`{value}` is not a valid {what}"),
            Some(hint_for(value, allowed)),
        );
    }
}

pub(super) fn check_sample(raw: &RawSample, tasks: &Tasks, findings: &mut Findings) {
    if !is_valid_id(&raw.id) {
        findings.error(
            "/id",
            format!("sample id `{}` is not of the form [A-Za-z0-9._-]+", raw.id),
            Some("use letters, digits, `.`, `_` and `-` only, e.g. `ext-001`".to_string()),
        );
    }
    let kind = kinds::named(&norm(&raw.kind));
    if kind.is_none() {
        let names: Vec<&str> = kinds::all().map(Kind::as_str).collect();
        findings.error(
            "/kind",
            format!("`{}` is not a valid kind", raw.kind),
            Some(hint_for(&raw.kind, &names)),
        );
    }
    if let Some(d) = &raw.difficulty {
        check_enum(
            d,
            enums::DIFFICULTY,
            || "/difficulty".to_string(),
            "difficulty",
            findings,
        );
    }
    check_tags(raw, findings);
    // What each other kind forbids in a sample not of its kind, then the sample's own
    // kind's rules on its inputs.
    for other in kinds::all().filter(|k| Some(*k) != kind) {
        kinds::of(other).check_sample_of_other_kind(raw, findings);
    }
    if let Some(kind) = kind {
        kinds::of(kind).check_sample(raw, tasks, findings);
    }
    let messages = raw.conversation.as_ref().map_or(0, Vec::len);
    check_labels(&raw.labels, "/labels", messages, findings);
    check_kind_labels(raw, kind, findings);
    check_review(raw, findings);
    let mut annotators = HashSet::new();
    for (i, a) in raw.annotations.iter().enumerate() {
        let pointer = format!("/annotations/{i}");
        if a.annotator.trim().is_empty() {
            findings.error(
                &child(&pointer, "annotator"),
                "empty annotator name".to_string(),
                None,
            );
        } else if !annotators.insert(a.annotator.as_str()) {
            findings.error(
                &child(&pointer, "annotator"),
                format!("annotator `{}` appears twice in this sample", a.annotator),
                Some("give each annotator one annotation per sample".to_string()),
            );
        }
        let labels = Labels {
            requirements: a.requirements.clone(),
            inferred_requirements: a.inferred_requirements.clone(),
            issues: a.issues.clone(),
            pii: a.pii.clone(),
            tuples: Vec::new(),
        };
        check_labels(&labels, &pointer, messages, findings);
    }
}

/// `tags`: a list of non-empty strings (each names a group in the reports).
fn check_tags(raw: &RawSample, findings: &mut Findings) {
    for (i, tag) in raw.tags.iter().flatten().enumerate() {
        if tag.trim().is_empty() {
            findings.error(
                &format!("/tags/{i}"),
                "empty tag".into(),
                Some("a tag names a group in the reports, e.g. `implicit`".into()),
            );
        }
    }
}

/// The reviewing keys: `discussion` notes (one per annotator, with a note) and `review`
/// (who promoted which annotators' labels to gold, and when).
fn check_review(raw: &RawSample, findings: &mut Findings) {
    let mut seen = HashSet::new();
    for (i, note) in raw.discussion.iter().enumerate() {
        let p = format!("/discussion/{i}");
        if note.annotator.trim().is_empty() {
            findings.error(&child(&p, "annotator"), "empty annotator name".into(), None);
        } else if !seen.insert(note.annotator.as_str()) {
            findings.error(
                &child(&p, "annotator"),
                format!("annotator `{}` has two discussion notes", note.annotator),
                Some("keep one note per annotator; merge the two".into()),
            );
        }
        if note.note.trim().is_empty() {
            findings.error(
                &child(&p, "note"),
                "empty discussion note".into(),
                Some("say what needs discussing, or remove the entry".into()),
            );
        }
    }
    let Some(review) = &raw.review else { return };
    if review.promoted_by.trim().is_empty() {
        findings.error(
            "/review/promoted_by",
            "empty `promoted_by`".into(),
            Some("name the reviewer who made the gold labels".into()),
        );
    }
    for (i, name) in review.from.iter().enumerate() {
        if name.trim().is_empty() {
            findings.error(
                &format!("/review/from/{i}"),
                "empty annotator name".into(),
                None,
            );
        }
    }
    if !crate::text::is_rfc3339(&review.at) {
        findings.error(
            "/review/at",
            format!("`{}` is not an RFC 3339 timestamp", review.at),
            Some("write it like 2026-11-26T10:00:00Z".into()),
        );
    }
}

/// Labels under a key the sample's kind does not score (a warning).
fn check_kind_labels(raw: &RawSample, kind: Option<Kind>, findings: &mut Findings) {
    let l = &raw.labels;
    let Some(kind) = kind else { return };
    let scored = kinds::of(kind).label_keys();
    let present = [
        ("requirements", !l.requirements.is_empty()),
        ("inferred_requirements", !l.inferred_requirements.is_empty()),
        ("issues", !l.issues.is_empty()),
        ("pii", !l.pii.is_empty()),
    ];
    for (key, non_empty) in present {
        let allowed = scored.contains(&key);
        if non_empty && !allowed {
            findings.warn(
                &format!("/labels/{key}"),
                format!("`labels.{key}` is not scored for {} samples", raw.kind),
                "move the labels to a sample of the right kind, or remove them",
            );
        }
    }
}

fn check_labels(labels: &Labels, pointer: &str, messages: usize, findings: &mut Findings) {
    let mut ids = HashSet::new();
    for (i, r) in labels.requirements.iter().enumerate() {
        let p = format!("{pointer}/requirements/{i}");
        if !ids.insert(r.id.as_str()) {
            findings.error(
                &child(&p, "id"),
                format!("duplicate requirement id `{}` in this sample", r.id),
                Some("requirement ids must be unique within a sample".to_string()),
            );
        }
        check_requirement(r, &p, messages, findings);
    }
    for (i, inferred) in labels.inferred_requirements.iter().enumerate() {
        let p = format!("{pointer}/inferred_requirements/{i}");
        check_requirement(
            &inferred.requirement,
            &child(&p, "requirement"),
            messages,
            findings,
        );
        check_enum(
            &inferred.inference_type,
            enums::INFERENCE_TYPE,
            || child(&p, "inference_type"),
            "inference_type",
            findings,
        );
        check_enum(
            &inferred.necessity,
            enums::NECESSITY,
            || child(&p, "necessity"),
            "necessity",
            findings,
        );
        check_confidence(inferred.confidence, || child(&p, "confidence"), findings);
    }
    for (i, issue) in labels.issues.iter().enumerate() {
        let p = format!("{pointer}/issues/{i}");
        check_enum(
            &issue.issue_type,
            enums::ISSUE_TYPE,
            || child(&p, "issue_type"),
            "issue_type",
            findings,
        );
        check_enum(
            &issue.severity,
            enums::SEVERITY,
            || child(&p, "severity"),
            "severity",
            findings,
        );
        check_confidence(issue.confidence, || child(&p, "confidence"), findings);
    }
    for (i, pii) in labels.pii.iter().enumerate() {
        if norm(pii).is_empty() {
            findings.warn(
                &format!("{pointer}/pii/{i}"),
                "empty PII string".to_string(),
                "list the PII text exactly as it appears in the input",
            );
        }
    }
}

fn check_requirement(r: &Requirement, pointer: &str, messages: usize, findings: &mut Findings) {
    check_enum(
        &r.type_,
        enums::REQUIREMENT_TYPE,
        || child(pointer, "type"),
        "requirement type",
        findings,
    );
    match &r.priority {
        Some(p) => check_enum(
            p,
            enums::PRIORITY,
            || child(pointer, "priority"),
            "priority",
            findings,
        ),
        None => findings.warn(
            pointer,
            format!("requirement `{}` has no `priority`", r.id),
            "add must, should or could",
        ),
    }
    for (i, &index) in r.source_messages.iter().enumerate() {
        if index < 0 || index as usize >= messages {
            let range = match messages {
                0 => "the sample has no conversation".to_string(),
                n => format!("the conversation has {n} messages (indexes 0 to {})", n - 1),
            };
            findings.error(
                &format!("{pointer}/source_messages/{i}"),
                format!("source_messages index {index} is out of range: {range}"),
                Some("indexes are 0-based positions in `conversation`".to_string()),
            );
        }
    }
    check_confidence(r.confidence, || child(pointer, "confidence"), findings);
    for (key, value) in [
        ("title", &r.title),
        ("actor", &r.actor),
        ("action", &r.action),
    ] {
        if value.trim().is_empty() {
            findings.warn(
                &child(pointer, key),
                format!("empty `{key}`"),
                "every requirement names its title, actor and action",
            );
        }
    }
    if r.acceptance_criteria.len() < 2 {
        findings.warn(
            &child(pointer, "acceptance_criteria"),
            format!(
                "requirement `{}` has {} acceptance criteria",
                r.id,
                r.acceptance_criteria.len()
            ),
            "the labelling schema asks for at least 2 testable criteria",
        );
    }
}

fn check_confidence(
    confidence: Option<f64>,
    pointer: impl FnOnce() -> String,
    findings: &mut Findings,
) {
    if let Some(c) = confidence.filter(|c| !(0.0..=1.0).contains(c)) {
        findings.error(
            &pointer(),
            format!("confidence {c} is outside [0, 1]"),
            None,
        );
    }
}
