//! Why an answer is not schema-compliant: each broken rule as a [`Violation`] (the JSON
//! pointer of the value in the parsed answer and the constraint it breaks, e.g.
//! `/requirements/0/acceptance_criteria: at least 2 items, found 1`), gathered by
//! [`Violations`], which counts every one and keeps the first few. The kinds with a
//! `schema_compliance` metric (extraction, tuples) fill it while they score a record; the
//! score file keeps them per sample and the diff of a broken sample shows them.

use serde::{Deserialize, Serialize};

use crate::parse::json::Json;

/// Violations kept per record (and per sample in the score file); the rest are counted.
pub const MAX_KEPT: usize = 5;

/// Characters of an answer's value quoted in a constraint at most.
const MAX_QUOTED: usize = 40;

/// One broken rule of an answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The JSON pointer (RFC 6901) of the value in the parsed answer; `""` is the answer.
    pub path: String,
    /// The constraint it breaks, e.g. `at least 2 items, found 1`.
    pub constraint: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.path.is_empty() {
            true => write!(f, "the answer: {}", self.constraint),
            false => write!(f, "{}: {}", self.path, self.constraint),
        }
    }
}

/// The violations of one answer: every one counted, the first [`MAX_KEPT`] kept. The
/// texts are only made for the ones kept, so checking a compliant answer allocates nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Violations {
    pub kept: Vec<Violation>,
    pub total: usize,
}

impl Violations {
    /// Whether nothing was broken.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The violations of the answer of `repeat`, as the score file keeps them; `None` when
    /// it broke no rule.
    pub fn of(self, repeat: u32) -> Option<SampleViolations> {
        (!self.is_empty()).then_some(SampleViolations {
            repeat,
            total: self.total,
            first: self.kept,
        })
    }

    /// Count a violation at `path` (made only when kept).
    pub fn add(&mut self, path: impl FnOnce() -> String, constraint: impl FnOnce() -> String) {
        self.total += 1;
        if self.kept.len() < MAX_KEPT {
            self.kept.push(Violation {
                path: path(),
                constraint: constraint(),
            });
        }
    }
}

/// Why a sample is not schema-compliant, as the score file keeps it: the violations of its
/// first answer that breaks a rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleViolations {
    /// That answer's repeat.
    pub repeat: u32,
    /// How many rules it breaks.
    pub total: usize,
    /// The first [`MAX_KEPT`] of them, in the answer's order.
    pub first: Vec<Violation>,
}

impl SampleViolations {
    /// One line per violation kept, and a last one for those left out.
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self.first.iter().map(ToString::to_string).collect();
        if self.total > self.first.len() {
            out.push(format!("… and {} more", self.total - self.first.len()));
        }
        out
    }
}

/// What a JSON value is, for "not a string (a number)".
pub fn what(value: &Json<'_>) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}

/// An answer's string quoted in a constraint: between backticks, cut at [`MAX_QUOTED`]
/// characters (reports escape what they show).
pub fn quoted(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED) {
        Some((at, _)) => format!("`{}…`", &text[..at]),
        None => format!("`{text}`"),
    }
}

/// A key as a JSON pointer token (RFC 6901: `~` as `~0`, `/` as `~1`).
pub fn token(key: &str) -> std::borrow::Cow<'_, str> {
    match key.contains(['~', '/']) {
        true => key.replace('~', "~0").replace('/', "~1").into(),
        false => key.into(),
    }
}

/// Whether `value` reads as one of `allowed` after `norm`, spelt in ASCII: the portable
/// form of [`crate::text::in_enum`] that the published answer schemas state as a pattern
/// (any case, words separated and surrounded by ASCII characters that are not letters or
/// digits), so a schema validator and goldgate agree on every answer.
pub fn in_ascii_enum(value: &str, allowed: &[&str]) -> bool {
    value.is_ascii() && crate::text::in_enum(value, allowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_few_are_kept_and_all_are_counted() {
        let mut v = Violations::default();
        assert!(v.is_empty());
        for i in 0..MAX_KEPT + 3 {
            v.add(|| format!("/requirements/{i}/title"), || "missing".into());
        }
        assert_eq!((v.kept.len(), v.total), (MAX_KEPT, MAX_KEPT + 3));
        assert_eq!(v.kept[1].to_string(), "/requirements/1/title: missing");
        let root = Violation {
            path: String::new(),
            constraint: "not JSON".into(),
        };
        assert_eq!(root.to_string(), "the answer: not JSON");
        assert_eq!(quoted(&"x".repeat(50)), format!("`{}…`", "x".repeat(40)));
        assert_eq!(token("a/b~c"), "a~1b~0c");
        assert!(in_ascii_enum(" Non_Functional ", &["non-functional"]));
        assert!(!in_ascii_enum("non\u{2011}functional", &["non-functional"]));
    }
}
