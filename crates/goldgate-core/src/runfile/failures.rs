//! Failed calls grouped by cause, for the reports that must show them (the run summary, the
//! PR comment, the job summary, JUnit): a cause is the failure's kind and the first line of
//! its message, with the sample's own id taken out, so one broken credential or one crashing
//! code path is one line with its count and a few example samples.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::record::{ErrorKind, RecordError};

/// Example sample ids kept per cause.
pub const EXAMPLES: usize = 5;
/// Causes kept; calls with any other cause are counted in [`FailedCalls::other_calls`].
pub const MAX_CAUSES: usize = 10;
/// Characters of a message kept in a cause.
pub const CAUSE_CHARS: usize = 200;

/// One cause of failed calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureCause {
    pub kind: ErrorKind,
    /// The first line of the message (see [`cause`]).
    pub message: String,
    /// Calls that failed this way.
    pub calls: usize,
    /// Distinct samples among them.
    pub samples: usize,
    /// The first few of those samples, in id order.
    pub examples: Vec<String>,
}

/// Every failed call of a run, grouped by cause, most frequent first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedCalls {
    /// Failed calls in all.
    pub calls: usize,
    /// At most [`MAX_CAUSES`] causes.
    pub causes: Vec<FailureCause>,
    /// Failed calls whose cause is not among `causes`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub other_calls: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl FailedCalls {
    pub fn is_empty(&self) -> bool {
        self.calls == 0
    }
}

/// The cause text of a failure of `sample_id`: the first line of its message with the
/// sample id (as a whole word) replaced by `<id>` (a message naming its sample would make
/// every sample a cause of its own), at most [`CAUSE_CHARS`] characters.
pub fn cause(sample_id: &str, message: &str) -> String {
    let line = without_id(message.lines().next().unwrap_or("").trim(), sample_id);
    match line.char_indices().nth(CAUSE_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// `line` with each whole-word occurrence of `id` replaced by `<id>`.
fn without_id(line: &str, id: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '.');
    if id.is_empty() {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(id) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + id.len()..].chars().next();
        let alone = !before.is_some_and(word) && !after.is_some_and(word);
        out.push_str(&rest[..at]);
        out.push_str(if alone { "<id>" } else { id });
        rest = &rest[at + id.len()..];
    }
    out.push_str(rest);
    out
}

/// A failed record's error reduced to its cause (what score files keep per sample).
pub fn reduced(sample_id: &str, error: &RecordError) -> RecordError {
    RecordError {
        kind: error.kind,
        message: cause(sample_id, &error.message),
    }
}

/// Collects failed calls as they come, in any order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grouping {
    calls: usize,
    causes: Vec<FailureCause>,
    index: HashMap<(ErrorKind, String), usize>,
    seen: HashSet<(usize, String)>,
}

impl Grouping {
    /// A failed call of `sample_id`.
    pub fn add(&mut self, sample_id: &str, error: &RecordError) {
        self.calls += 1;
        let key = (error.kind, cause(sample_id, &error.message));
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                self.causes.push(FailureCause {
                    kind: key.0,
                    message: key.1.clone(),
                    calls: 0,
                    samples: 0,
                    examples: Vec::new(),
                });
                self.index.insert(key, self.causes.len() - 1);
                self.causes.len() - 1
            }
        };
        let cause = &mut self.causes[i];
        cause.calls += 1;
        if self.seen.insert((i, sample_id.to_string())) {
            cause.samples += 1;
            let at = cause.examples.partition_point(|e| e.as_str() < sample_id);
            if at < EXAMPLES {
                cause.examples.insert(at, sample_id.to_string());
                cause.examples.truncate(EXAMPLES);
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.calls == 0
    }

    /// The causes, most calls first (ties by kind and message, so the order never depends
    /// on the order the calls finished in).
    pub fn finish(&self) -> FailedCalls {
        let mut causes = self.causes.clone();
        causes.sort_by(|a, b| {
            (b.calls, a.kind.as_str(), &a.message).cmp(&(a.calls, b.kind.as_str(), &b.message))
        });
        let other_calls = causes.iter().skip(MAX_CAUSES).map(|c| c.calls).sum();
        causes.truncate(MAX_CAUSES);
        FailedCalls {
            calls: self.calls,
            causes,
            other_calls,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(kind: ErrorKind, message: &str) -> RecordError {
        RecordError {
            kind,
            message: message.into(),
        }
    }

    #[test]
    fn calls_group_by_kind_and_first_line_with_sorted_examples() {
        let mut g = Grouping::default();
        for id in ["s-9", "s-3", "s-7", "s-1", "s-5", "s-2", "s-3"] {
            g.add(
                id,
                &error(
                    ErrorKind::Http,
                    "POST x answered 401 Unauthorized: no\nbody",
                ),
            );
        }
        g.add(
            "s-4",
            &error(ErrorKind::Timeout, "no answer line for `s-4` within 1s"),
        );
        g.add(
            "s-6",
            &error(ErrorKind::Timeout, "no answer line for `s-6` within 1s"),
        );
        let f = g.finish();
        assert_eq!(f.calls, 9);
        assert_eq!(f.causes.len(), 2);
        let http = &f.causes[0];
        assert_eq!(
            (http.kind, http.message.as_str(), http.calls, http.samples),
            (
                ErrorKind::Http,
                "POST x answered 401 Unauthorized: no",
                7,
                6
            )
        );
        assert_eq!(http.examples, ["s-1", "s-2", "s-3", "s-5", "s-7"]);
        let timeout = &f.causes[1];
        assert_eq!(timeout.message, "no answer line for `<id>` within 1s");
        assert_eq!(
            cause("s-1", "s-1 failed; s-10 not: s-1."),
            "<id> failed; s-10 not: s-1."
        );
        assert_eq!(cause("s", "cause s"), "cause <id>");
        assert_eq!((timeout.calls, timeout.examples.len()), (2, 2));
    }

    #[test]
    fn causes_are_capped_and_long_messages_cut() {
        let mut g = Grouping::default();
        for i in 0..MAX_CAUSES + 3 {
            g.add("s", &error(ErrorKind::Exit, &format!("cause {i:02}")));
        }
        let f = g.finish();
        assert_eq!(
            (f.causes.len(), f.other_calls, f.calls),
            (MAX_CAUSES, 3, MAX_CAUSES + 3)
        );
        assert_eq!(f.causes[0].message, "cause 00", "ties in message order");
        let long = cause("s", &"x".repeat(500));
        assert_eq!(long.chars().count(), CAUSE_CHARS + 1);
        assert!(long.ends_with('…'));
    }
}
