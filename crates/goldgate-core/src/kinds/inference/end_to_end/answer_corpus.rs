//! The corpus of `schemas/answer-inference.schema.json` (inferred requirements): answers of the
//! example runs, edits of the first that the schema must judge as labelled, and an answer
//! that is not an object. The schema describes what goldgate reads; goldgate does not
//! judge these answers' compliance itself.

use serde_json::json;

use crate::support::corpus::{a_number, answers_of, set, AnswerCorpus, Instance};

/// Every instance, in the corpus file's order.
#[rustfmt::skip]
fn instances() -> Vec<Instance> {
    let mut out = set(answers_of("requirements", "answers/main.jsonl", "inference", 3), json!([
    ["inferred-requirements-not-a-list", "/inferred_requirements", {}, false],
    ["necessity-spelt-otherwise", "/inferred_requirements/0/necessity", "Nice to have", false],
    ["necessity-upper-case", "/inferred_requirements/0/necessity", "NECESSARY", true],
]));
    out.push(a_number());
    out
}

/// This kind's answer corpus.
pub(crate) fn hook() -> AnswerCorpus {
    AnswerCorpus {
        kind: "inference",
        instances,
        compliant: None,
    }
}
