//! What the checks of one document collect: problems located by JSON pointer, turned into
//! file, line and column once positions are known (only when there is a problem).

use std::path::Path;

use crate::document::{escape_pointer_segment, field_of, Positions};
use serde_json::Value;

use crate::error::{Location, Problem};
use crate::text::{did_you_mean, hint_for, in_enum};

/// A problem found in a document, located by JSON pointer until positions are known.
pub struct Finding {
    pointer: String,
    message: String,
    hint: Option<String>,
    warning: bool,
}

#[derive(Default)]
pub struct Findings(pub(crate) Vec<Finding>);

impl Findings {
    pub fn error(&mut self, pointer: &str, message: String, hint: impl Into<Option<String>>) {
        self.0.push(Finding {
            pointer: pointer.to_string(),
            message,
            hint: hint.into(),
            warning: false,
        });
    }

    pub fn warn(&mut self, pointer: &str, message: String, hint: &str) {
        self.0.push(Finding {
            pointer: pointer.to_string(),
            message,
            hint: Some(hint.to_string()),
            warning: true,
        });
    }
}

pub fn child(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", escape_pointer_segment(key))
}

/// The findings as problems with their place in `path`.
pub(crate) fn locate(
    path: &Path,
    findings: Findings,
    positions: impl FnOnce() -> Positions,
) -> Vec<Problem> {
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

/// Report the unknown and missing keys of one object at `pointer` (each unknown key with a
/// did-you-mean hint); returns the unknown keys' pointers.
pub fn check_keys(
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

/// The items of the list under `key` of `value`, each with its pointer (none when it is
/// not a list).
pub fn items<'a>(value: &'a Value, pointer: &str, key: &str) -> Vec<(String, &'a Value)> {
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

/// An error when `value` is not one of `allowed` (after `norm`), with a did-you-mean hint;
/// `pointer` is only built when there is something to report.
pub fn check_enum(
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

/// An error when a confidence is outside [0, 1].
pub fn check_confidence(
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
