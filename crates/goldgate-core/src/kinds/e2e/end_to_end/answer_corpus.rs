//! The corpus of `schemas/answer-e2e.schema.json` (a whole SRS document and its
//! requirements): answers of the example runs, edits of the first that the schema must
//! judge as labelled, and an answer that is not an object. The schema describes what
//! goldgate reads; goldgate does not judge these answers' compliance itself.

use serde_json::json;

use crate::support::corpus::{a_number, answers_of, set, AnswerCorpus, Instance};

/// Every instance, in the corpus file's order.
#[rustfmt::skip]
fn instances() -> Vec<Instance> {
    let mut out = set(answers_of("requirements", "answers/main.jsonl", "e2e", 3), json!([
    ["srs-not-text", "/srs_markdown", ["# SRS"], false],
    ["type-other-spelling", "/requirements/0/type", "NON FUNCTIONAL", true],
    ["type-unknown", "/requirements/0/type", "feature", false],
]));
    out.push(a_number());
    out
}

/// This kind's answer corpus.
pub(crate) fn hook() -> AnswerCorpus {
    AnswerCorpus {
        kind: "e2e",
        instances,
        compliant: None,
    }
}
