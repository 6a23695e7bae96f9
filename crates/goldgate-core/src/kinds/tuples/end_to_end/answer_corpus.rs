//! The corpus of `schemas/answer-tuples.schema.json` (event tuples): answers of the
//! example runs, edits of the first that the schema must judge as labelled, and an answer
//! that is not an object. The schema describes what goldgate reads; goldgate does not
//! judge these answers' compliance itself.

use serde_json::json;

use crate::support::corpus::{a_number, answers_of, set, AnswerCorpus, Instance};

/// Every instance, in the corpus file's order.
#[rustfmt::skip]
fn instances() -> Vec<Instance> {
    let mut out = set(answers_of("events", "baselines/main.run.jsonl", "tuples", 3), json!([
    ["tuples-not-a-list", "/final_tuples", "none", false],
]));
    out.push(a_number());
    out
}

/// This kind's answer corpus.
pub(crate) fn hook() -> AnswerCorpus {
    AnswerCorpus {
        kind: "tuples",
        instances,
        compliant: None,
    }
}
