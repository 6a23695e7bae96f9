//! The labelling rules a typed sample is held to (see docs/suites.md): enum values after
//! `norm`, `source_messages` in range, unique and well-formed ids, the fields each kind
//! needs; the labelling-guide rules (at least two acceptance criteria, a priority, a title)
//! are warnings.

use std::collections::HashSet;

use crate::kinds;
use crate::sample::findings::{check_enum, child, Findings};
use crate::sample::task::Tasks;
use crate::sample::{enums, Kind, Labels, RawSample};
use crate::text::{hint_for, norm};

fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
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
        check_labels(&a.labels, &pointer, messages, findings);
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

/// Labels under a key the sample's kind does not score (a warning; a key only its own
/// kind may carry is that kind's error, [`kinds::TaskKind::check_sample_of_other_kind`]).
fn check_kind_labels(raw: &RawSample, kind: Option<Kind>, findings: &mut Findings) {
    let Some(kind) = kind else { return };
    let scored = kinds::of(kind).label_keys();
    let exclusive = |key: &str| {
        kinds::label_shapes()
            .iter()
            .any(|s| s.key() == key && s.exclusive())
    };
    for (key, list) in raw.labels.iter() {
        if !list.is_empty() && !scored.contains(&key) && !exclusive(key) {
            findings.warn(
                &format!("/labels/{key}"),
                format!("`labels.{key}` is not scored for {} samples", raw.kind),
                "move the labels to a sample of the right kind, or remove them",
            );
        }
    }
}

/// The checks of every label list, each by its shape.
fn check_labels(labels: &Labels, pointer: &str, messages: usize, findings: &mut Findings) {
    for (key, list) in labels.iter() {
        if let Some(shape) = kinds::label_shapes().iter().find(|s| s.key() == key) {
            shape.check(list, &format!("{pointer}/{key}"), messages, findings);
        }
    }
}
