//! The corpus of `schemas/answer-validation.schema.json` (issues and PII): answers of the
//! example runs, edits of the first that the schema must judge as labelled, and an answer
//! that is not an object. The schema describes what goldgate reads; goldgate does not
//! judge these answers' compliance itself.

use serde_json::json;

use crate::support::corpus::{a_number, answers_of, set, AnswerCorpus, Instance};

/// Every instance, in the corpus file's order.
#[rustfmt::skip]
fn instances() -> Vec<Instance> {
    let mut out = set(answers_of("requirements", "answers/main.jsonl", "validation", 3), json!([
    ["issues-not-a-list", "/issues", "none", false],
    ["severity-unknown", "/issues/0/severity", "fatal", false],
    ["severity-trailing-line-break", "/issues/0/severity", "error\n", true],
    ["severity-unicode-separator", "/issues/0/severity", "error\u{3000}", false],
]));
    out.push(a_number());
    out
}

/// This kind's answer corpus.
pub(crate) fn hook() -> AnswerCorpus {
    AnswerCorpus {
        kind: "validation",
        instances,
        compliant: None,
    }
}
