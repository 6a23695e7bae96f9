//! Chain-of-thought diagnostics (docs/tuples.md): the thought of an answer — its
//! `<thought>…</thought>` block, or, when a block is not required, the answer with its JSON
//! cut out — and whether the answer's tuples are written in it.

use super::read::Member;
use crate::kinds::Parsed;
use crate::sample::task::Task;
use crate::text::norm;

/// How a record fares under the chain-of-thought rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The answer did not parse.
    ParseFail,
    /// No thought block, and the task requires one.
    Skipped,
    /// Checked: whether every type value, and every span value, is in the thought.
    Checked { types: bool, arguments: bool },
}

/// The text between the first `<thought>` and the first `</thought>` after it.
pub fn block(text: &str) -> Option<&str> {
    const OPEN: &str = "<thought>";
    let start = text.find(OPEN)? + OPEN.len();
    let end = text[start..].find("</thought>")?;
    Some(&text[start..start + end])
}

/// Check one record's final tuples against its thought.
pub fn check(task: &Task, answer: &Parsed<'_>, members: &[Member]) -> Outcome {
    if !answer.outcome.is_success() {
        return Outcome::ParseFail;
    }
    let thought = match (block(answer.text), answer.region) {
        (Some(thought), _) => norm(thought),
        (None, _) if task.cot.require_thought_block => return Outcome::Skipped,
        (None, Some(region)) => {
            let text = answer.text;
            norm(&format!(
                "{} {}",
                &text[..region.start],
                &text[region.end..]
            ))
        }
        (None, None) => norm(answer.text),
    };
    // A span's key is its norm; a type is checked as written, before synonyms are mapped.
    let types = task
        .type_field
        .is_none_or(|t| members.iter().all(|m| thought.contains(&norm(&m.raw[t]))));
    let arguments = task
        .span_fields()
        .all(|f| members.iter().all(|m| thought.contains(m.key[f].as_str())));
    Outcome::Checked { types, arguments }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_is_the_first_open_to_the_first_close_after_it() {
        assert_eq!(
            block("a <thought>x</thought> <thought>y</thought>"),
            Some("x")
        );
        assert_eq!(block("</thought><thought>z</thought>"), Some("z"));
        assert_eq!(block("<thought>never closed"), None);
        assert_eq!(block("<Thought>case</Thought>"), None, "case-sensitive");
    }
}
