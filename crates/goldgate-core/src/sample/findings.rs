//! What the checks of one document collect: problems located by JSON pointer, turned into
//! file, line and column once positions are known (only when there is a problem).

use std::path::Path;

use crate::document::{escape_pointer_segment, field_of, Positions};
use crate::error::{Location, Problem};

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
