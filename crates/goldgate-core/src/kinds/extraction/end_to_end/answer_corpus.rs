//! The corpus of `schemas/answer-extraction.schema.json`: every extraction answer of the
//! examples and the docs, and every variant of a compliant answer that breaks one rule (or
//! keeps them in an unusual spelling), each labelled with goldgate's own judgement of its
//! compliance, which the schema must share.

use super::answers::{answer_variants, compliant, example_answers};
use crate::support::corpus::{AnswerCorpus, Instance};

/// Every instance, in the corpus file's order (an answer met twice is kept once).
fn instances() -> Vec<Instance> {
    let mut answers: Vec<Instance> = Vec::new();
    for (name, value) in example_answers().into_iter().chain(answer_variants()) {
        if !answers.iter().any(|a| a.value == value) {
            let valid = compliant(&value);
            answers.push(Instance { name, value, valid });
        }
    }
    answers
}

/// This kind's answer corpus.
pub(crate) fn hook() -> AnswerCorpus {
    AnswerCorpus {
        kind: "extraction",
        instances,
        compliant: Some(compliant),
    }
}
