//! The checks one suite document goes through, in order: unknown and missing keys
//! ([`super::keys`]), the typed shape (serde), then the labelling rules
//! ([`super::rules`]). The result is a [`Loaded`]: the sample when nothing blocks it, and
//! every problem found (errors block loading; warnings are labelling-guide rules that
//! `suite lint` reports).

use std::path::Path;

use serde_json::Value;

use super::keys::walk_sample_keys;
use super::rules::check_sample;
use crate::document::Positions;
use crate::error::{Location, Problem};
use crate::sample::findings::{locate, Findings};
use crate::sample::task::Tasks;
use crate::sample::{Difficulty, Kind, RawSample, Sample, Written, UNSPECIFIED_DOMAIN};
use crate::text::norm;

/// One document read from the suite: the sample when it has no errors, and every problem
/// found in it (errors and labelling warnings).
#[derive(Debug)]
pub struct Loaded {
    pub sample: Option<Sample>,
    pub problems: Vec<Problem>,
}

/// Check one parsed document and build its sample. `positions` is computed only when there
/// is a problem to locate (JSONL lines are parsed without positions for speed).
pub(crate) fn check_document(
    path: &Path,
    origin: Location,
    mut value: Value,
    tasks: &Tasks,
    positions: impl FnOnce() -> Positions,
) -> Loaded {
    let mut findings = Findings::default();
    let unknown = walk_sample_keys(&value, &mut findings);
    for pointer in &unknown {
        remove(&mut value, pointer);
    }
    match super::read::read(value, &mut findings) {
        Some(raw) => check_raw(path, origin, raw, tasks, findings, positions),
        None => Loaded {
            sample: None,
            problems: locate(path, findings, positions),
        },
    }
}

/// Check a sample that deserialized (the fast path for valid JSONL lines starts here).
pub(crate) fn check_typed(
    path: &Path,
    origin: Location,
    raw: RawSample,
    tasks: &Tasks,
    positions: impl FnOnce() -> Positions,
) -> Loaded {
    check_raw(path, origin, raw, tasks, Findings::default(), positions)
}

fn check_raw(
    path: &Path,
    origin: Location,
    raw: RawSample,
    tasks: &Tasks,
    mut findings: Findings,
    positions: impl FnOnce() -> Positions,
) -> Loaded {
    check_sample(&raw, tasks, &mut findings);
    let problems = locate(path, findings, positions);
    let ok = !problems.iter().any(Problem::is_error);
    // A sample without errors is of a registered kind (an unknown kind is an error).
    let kind = crate::kinds::named(&norm(&raw.kind));
    Loaded {
        sample: kind
            .filter(|_| ok)
            .map(|kind| build_sample(raw, kind, origin, tasks)),
        problems,
    }
}

/// Remove the value at a JSON pointer (unknown keys are reported, then set aside so the
/// rest of the document is still checked).
fn remove(value: &mut Value, pointer: &str) {
    let Some((parent, key)) = pointer.rsplit_once('/') else {
        return;
    };
    let key = key.replace("~1", "/").replace("~0", "~");
    if let Some(Value::Object(map)) = value.pointer_mut(parent) {
        map.remove(&key);
    }
}

fn build_sample(raw: RawSample, kind: Kind, origin: Location, tasks: &Tasks) -> Sample {
    let mut tags: Vec<String> = Vec::new();
    for tag in raw.tags.unwrap_or_default() {
        if !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    let written = Written {
        kind: raw.kind.clone(),
        domain: raw.domain.clone(),
        difficulty: raw.difficulty.clone(),
        conversation: raw.conversation.is_some(),
        requirements: raw.requirements,
    };
    Sample {
        kind,
        difficulty: raw
            .difficulty
            .as_deref()
            .and_then(|d| Difficulty::from_norm(&norm(d)))
            .unwrap_or(Difficulty::Medium),
        domain: raw
            .domain
            .filter(|d| !d.trim().is_empty())
            .unwrap_or_else(|| UNSPECIFIED_DOMAIN.to_string()),
        conversation: raw.conversation.unwrap_or_default(),
        user_input: raw.user_input,
        reference_srs: raw.reference_srs,
        task: raw.task.as_deref().and_then(|t| tasks.get(t)).cloned(),
        text: raw.text,
        tags,
        labels: raw.labels,
        annotations: raw.annotations,
        discussion: raw.discussion,
        review: raw.review,
        written,
        origin,
        id: raw.id,
    }
}
