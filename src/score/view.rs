//! What a sample looked like to the scorer, kept for the samples a caller asks about (the
//! gate diffs broken samples with it): the gold items and the predicted items as one line
//! each (as its task kind writes them), sorted, the answer text of the first record, and
//! how that record's requirements matched.

use crate::parse::json::Json;
use crate::parse::parse_answer_as;
use crate::runfile::record::Answer;
use crate::suite::Sample;

/// One sample's gold and predicted items as lines, and its first answer.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleView {
    pub id: String,
    pub gold: Vec<String>,
    pub predicted: Vec<String>,
    /// The answer text of repeat 0 (empty when the call failed).
    pub answer: String,
    /// How repeat 0's requirements matched, one line per pair and per unmatched gold item.
    pub matching: Vec<String>,
}

impl SampleView {
    pub fn new(
        sample: &Sample,
        answers: &[Answer],
        score: &super::SampleScore,
        cfg: &crate::metrics::ScoringConfig,
    ) -> SampleView {
        let answer = answers.first().map(|a| a.text.clone()).unwrap_or_default();
        let kind = crate::kinds::of(sample.kind);
        SampleView {
            id: sample.id.clone(),
            gold: kind.gold_lines(sample),
            predicted: kind
                .predicted_lines(sample, parse_answer_as::<Json>(&answer).value.as_ref()),
            answer,
            matching: score
                .matching
                .first()
                .map(|m| m.lines(cfg.requirement_threshold))
                .unwrap_or_default(),
        }
    }
}
