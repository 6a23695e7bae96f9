//! The checks one suite document goes through: unknown keys (all of them, with did-you-mean
//! hints), the typed shape (serde), then the labelling rules of SPEC §2 — enum values after
//! `norm`, `source_messages` in range, unique ids. Errors block loading; warnings are
//! labelling-guide rules that `suite lint` reports.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::document::{escape_pointer_segment, Positions};
use super::load::Loaded;
use super::model::{
    enums, Difficulty, Kind, Labels, RawSample, Requirement, Sample, Written, UNSPECIFIED_DOMAIN,
};
use crate::error::{Location, Problem};
use crate::text::{did_you_mean, explain_serde, hint_for, norm};

const SAMPLE_KEYS: &[&str] = &[
    "id",
    "kind",
    "domain",
    "difficulty",
    "conversation",
    "user_input",
    "requirements",
    "reference_srs",
    "labels",
    "annotations",
];
const MESSAGE_KEYS: &[&str] = &["role", "content"];
const LABEL_KEYS: &[&str] = &["requirements", "inferred_requirements", "issues", "pii"];
const ANNOTATION_KEYS: &[&str] = &[
    "annotator",
    "requirements",
    "inferred_requirements",
    "issues",
    "pii",
];
const REQUIREMENT_KEYS: &[&str] = &[
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
const INFERRED_KEYS: &[&str] = &[
    "requirement",
    "inference_type",
    "triggered_by",
    "necessity",
    "rationale",
    "confidence",
];
const ISSUE_KEYS: &[&str] = &[
    "issue_type",
    "severity",
    "field",
    "location",
    "message",
    "suggested_fix",
    "confidence",
];

/// A problem found in a document, located by JSON pointer until positions are known.
struct Finding {
    pointer: String,
    message: String,
    hint: Option<String>,
    warning: bool,
}

#[derive(Default)]
struct Findings(Vec<Finding>);

impl Findings {
    fn error(&mut self, pointer: &str, message: String, hint: impl Into<Option<String>>) {
        self.0.push(Finding {
            pointer: pointer.to_string(),
            message,
            hint: hint.into(),
            warning: false,
        });
    }

    fn warn(&mut self, pointer: &str, message: String, hint: &str) {
        self.0.push(Finding {
            pointer: pointer.to_string(),
            message,
            hint: Some(hint.to_string()),
            warning: true,
        });
    }
}

/// `/labels/requirements/0/type` → `labels.requirements[0].type`.
pub fn field_of(pointer: &str) -> Option<String> {
    if pointer.is_empty() {
        return None;
    }
    let mut out = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{segment}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&segment);
        }
    }
    Some(out)
}

/// The JSON pointer of the place a typed deserialization failed.
pub fn pointer_of(path: &serde_path_to_error::Path) -> String {
    path.iter()
        .filter_map(|segment| match segment {
            serde_path_to_error::Segment::Seq { index } => Some(format!("/{index}")),
            serde_path_to_error::Segment::Map { key } => {
                Some(format!("/{}", escape_pointer_segment(key)))
            }
            _ => None,
        })
        .collect()
}

fn child(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", escape_pointer_segment(key))
}

/// Check one parsed document and build its sample. `positions` is computed only when there
/// is a problem to locate (JSONL lines are parsed without positions for speed).
pub(crate) fn check_document(
    path: &Path,
    origin: Location,
    mut value: Value,
    positions: impl FnOnce() -> Positions,
) -> Loaded {
    let mut findings = Findings::default();
    let unknown = walk_sample_keys(&value, &mut findings);
    for pointer in &unknown {
        remove(&mut value, pointer);
    }
    match deserialize(&value, &mut findings) {
        Some(raw) => check_raw(path, origin, raw, findings, positions),
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
    positions: impl FnOnce() -> Positions,
) -> Loaded {
    check_raw(path, origin, raw, Findings::default(), positions)
}

fn check_raw(
    path: &Path,
    origin: Location,
    raw: RawSample,
    mut findings: Findings,
    positions: impl FnOnce() -> Positions,
) -> Loaded {
    check_sample(&raw, &mut findings);
    let sample = build_sample(raw, origin);
    let problems = locate(path, findings, positions);
    let ok = !problems.iter().any(Problem::is_error);
    Loaded {
        sample: ok.then_some(sample),
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

fn locate(path: &Path, findings: Findings, positions: impl FnOnce() -> Positions) -> Vec<Problem> {
    if findings.0.is_empty() {
        return Vec::new();
    }
    let positions = positions();
    findings
        .0
        .into_iter()
        .map(|f| {
            let at = positions.nearest(&f.pointer);
            let mut problem = Problem::new(
                Location::new(path, at.line, at.column),
                field_of(&f.pointer),
                f.message,
            );
            problem.hint = f.hint;
            if f.warning {
                problem = problem.warning();
            }
            problem
        })
        .collect()
}

fn deserialize(value: &Value, findings: &mut Findings) -> Option<RawSample> {
    match serde_path_to_error::deserialize::<_, RawSample>(value) {
        Ok(raw) => Some(raw),
        Err(e) => {
            let pointer = pointer_of(e.path());
            let message = e.into_inner().to_string();
            // Missing fields were all reported by the key walk already.
            if !message.starts_with("missing field") || findings.0.is_empty() {
                let (message, hint) = explain_serde(&message);
                let hint =
                    hint.unwrap_or_else(|| "check the value's type against SPEC §2".to_string());
                findings.error(&pointer, message, Some(hint));
            }
            None
        }
    }
}

// ---------------------------------------------------------------------------------------
// Unknown and missing keys: all of them, with did-you-mean hints.

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
            Some(format!("add `{key}`; SPEC §2 lists what each object needs")),
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

fn walk_sample_keys(value: &Value, findings: &mut Findings) -> Vec<String> {
    if !value.is_object() {
        findings.error(
            "",
            "a sample must be a mapping (object)".to_string(),
            Some("see SPEC §2 for the sample format".to_string()),
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

// ---------------------------------------------------------------------------------------
// Labelling rules.

fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// Whether `value` equals one of the canonical `allowed` values after `norm`.
pub fn in_enum(value: &str, allowed: &[&str]) -> bool {
    let normed = norm(value);
    // Canonical values are lower-case words joined by `-` or `_`: their norm joins with spaces.
    allowed.iter().any(|a| {
        a.chars()
            .map(|c| if c.is_alphanumeric() { c } else { ' ' })
            .eq(normed.chars())
    })
}

fn check_enum(
    value: &str,
    allowed: &[&'static str],
    pointer: &str,
    what: &str,
    findings: &mut Findings,
) {
    if !in_enum(value, allowed) {
        findings.error(
            pointer,
            format!("`{value}` is not a valid {what}"),
            Some(hint_for(value, allowed)),
        );
    }
}

fn check_sample(raw: &RawSample, findings: &mut Findings) {
    if !is_valid_id(&raw.id) {
        findings.error(
            "/id",
            format!("sample id `{}` is not of the form [A-Za-z0-9._-]+", raw.id),
            Some("use letters, digits, `.`, `_` and `-` only, e.g. `ext-001`".to_string()),
        );
    }
    let kind = Kind::from_norm(&norm(&raw.kind));
    if kind.is_none() {
        findings.error(
            "/kind",
            format!("`{}` is not a valid kind", raw.kind),
            Some(hint_for(&raw.kind, enums::KIND)),
        );
    }
    if let Some(d) = &raw.difficulty {
        check_enum(d, enums::DIFFICULTY, "/difficulty", "difficulty", findings);
    }
    let messages = raw.conversation.as_ref().map_or(0, Vec::len);
    match kind {
        Some(Kind::E2e) => {
            if messages == 0
                && raw
                    .user_input
                    .as_deref()
                    .is_none_or(|s| s.trim().is_empty())
            {
                findings.error(
                    "",
                    "an e2e sample needs a `conversation` or a `user_input`".to_string(),
                    Some(
                        "add the stakeholder conversation or a free-text requirement statement"
                            .to_string(),
                    ),
                );
            }
            if raw.reference_srs.is_none() {
                findings.warn(
                    "",
                    "e2e sample without `reference_srs`".to_string(),
                    "the reference SRS is what a generated SRS is judged against",
                );
            }
        }
        Some(k) if messages == 0 => {
            findings.error(
                "/conversation",
                format!("a {} sample needs a non-empty `conversation`", k.as_str()),
                Some("add the messages the pipeline reads".to_string()),
            );
        }
        _ => {}
    }
    check_labels(&raw.labels, "/labels", messages, findings);
    check_kind_labels(raw, kind, findings);
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
        };
        check_labels(&labels, &pointer, messages, findings);
    }
}

fn check_kind_labels(raw: &RawSample, kind: Option<Kind>, findings: &mut Findings) {
    let l = &raw.labels;
    let scored = match kind {
        Some(Kind::Extraction) | Some(Kind::E2e) => "requirements",
        Some(Kind::Inference) => "inferred_requirements",
        Some(Kind::Validation) => "issues",
        None => return,
    };
    let present = [
        ("requirements", !l.requirements.is_empty()),
        ("inferred_requirements", !l.inferred_requirements.is_empty()),
        ("issues", !l.issues.is_empty()),
        ("pii", !l.pii.is_empty()),
    ];
    for (key, non_empty) in present {
        let allowed = key == scored || (key == "pii" && scored == "issues");
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
            &child(&p, "inference_type"),
            "inference_type",
            findings,
        );
        check_enum(
            &inferred.necessity,
            enums::NECESSITY,
            &child(&p, "necessity"),
            "necessity",
            findings,
        );
        check_confidence(inferred.confidence, &child(&p, "confidence"), findings);
    }
    for (i, issue) in labels.issues.iter().enumerate() {
        let p = format!("{pointer}/issues/{i}");
        check_enum(
            &issue.issue_type,
            enums::ISSUE_TYPE,
            &child(&p, "issue_type"),
            "issue_type",
            findings,
        );
        check_enum(
            &issue.severity,
            enums::SEVERITY,
            &child(&p, "severity"),
            "severity",
            findings,
        );
        check_confidence(issue.confidence, &child(&p, "confidence"), findings);
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
        &child(pointer, "type"),
        "requirement type",
        findings,
    );
    match &r.priority {
        Some(p) => check_enum(
            p,
            enums::PRIORITY,
            &child(pointer, "priority"),
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
    check_confidence(r.confidence, &child(pointer, "confidence"), findings);
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

fn check_confidence(confidence: Option<f64>, pointer: &str, findings: &mut Findings) {
    if let Some(c) = confidence.filter(|c| !(0.0..=1.0).contains(c)) {
        findings.error(pointer, format!("confidence {c} is outside [0, 1]"), None);
    }
}

fn build_sample(raw: RawSample, origin: Location) -> Sample {
    let written = Written {
        kind: raw.kind.clone(),
        domain: raw.domain.clone(),
        difficulty: raw.difficulty.clone(),
        conversation: raw.conversation.is_some(),
        requirements: raw.requirements,
    };
    Sample {
        kind: Kind::from_norm(&norm(&raw.kind)).unwrap_or(Kind::Extraction),
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
        labels: raw.labels,
        annotations: raw.annotations,
        written,
        origin,
        id: raw.id,
    }
}
