//! What a sample looked like to the scorer, kept for the samples a caller asks about (the
//! gate diffs broken samples with it): the gold items and the predicted items as one line
//! each, in a stable order, and the answer text of the first record.

use crate::parse::{parse_answer, prediction::Prediction};
use crate::runfile::record::Answer;
use crate::suite::{Kind, Sample};

/// One sample's gold and predicted items as lines, and its first answer.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleView {
    pub id: String,
    pub gold: Vec<String>,
    pub predicted: Vec<String>,
    /// The answer text of repeat 0 (empty when the call failed).
    pub answer: String,
}

impl SampleView {
    pub fn new(sample: &Sample, answers: &[Answer]) -> SampleView {
        let answer = answers.first().map(|a| a.text.clone()).unwrap_or_default();
        let prediction = Prediction::read(parse_answer(&answer).value.as_ref());
        SampleView {
            id: sample.id.clone(),
            gold: gold_lines(sample),
            predicted: predicted_lines(sample.kind, &prediction),
            answer,
        }
    }
}

fn gold_lines(sample: &Sample) -> Vec<String> {
    let l = &sample.labels;
    let mut lines: Vec<String> = match sample.kind {
        Kind::Extraction | Kind::E2e => l
            .requirements
            .iter()
            .map(|r| format!("{} | {} | {}: {}", r.type_, r.actor, r.title, r.action))
            .collect(),
        Kind::Inference => l
            .inferred_requirements
            .iter()
            .map(|i| {
                format!(
                    "{} | {} | {}: {} ({})",
                    i.requirement.type_,
                    i.requirement.actor,
                    i.requirement.title,
                    i.requirement.action,
                    i.necessity
                )
            })
            .collect(),
        Kind::Validation => l
            .issues
            .iter()
            .map(|i| {
                format!(
                    "{} | {} | {}",
                    i.issue_type,
                    i.field.as_deref().unwrap_or(""),
                    i.severity
                )
            })
            .chain(l.pii.iter().map(|p| format!("pii: {p}")))
            .collect(),
    };
    lines.sort();
    lines
}

fn predicted_lines(kind: Kind, p: &Prediction) -> Vec<String> {
    let s = |x: &Option<String>| x.clone().unwrap_or_default();
    let mut lines: Vec<String> = match kind {
        Kind::Extraction | Kind::E2e => p
            .requirements
            .iter()
            .map(|r| {
                format!(
                    "{} | {} | {}: {}",
                    s(&r.type_),
                    s(&r.actor),
                    s(&r.title),
                    s(&r.action)
                )
            })
            .collect(),
        Kind::Inference => p
            .inferred_requirements
            .iter()
            .map(|i| {
                format!(
                    "{} | {} | {}: {}",
                    s(&i.requirement.type_),
                    s(&i.requirement.actor),
                    s(&i.requirement.title),
                    s(&i.requirement.action)
                )
            })
            .collect(),
        Kind::Validation => p
            .issues
            .iter()
            .map(|i| {
                format!(
                    "{} | {} | {}",
                    s(&i.issue_type),
                    s(&i.field),
                    s(&i.severity)
                )
            })
            .chain(p.pii.iter().map(|x| format!("pii: {x}")))
            .collect(),
    };
    lines.sort();
    lines
}
