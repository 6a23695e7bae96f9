//! What a sample looked like to the scorer, kept for the samples a caller asks about (the
//! gate diffs broken samples with it): the gold items and the predicted items of its first
//! record lined up by the pairs scoring matched (as its task kind lists them), why each
//! unmatched gold item found no match, the answer text of that record, how its
//! requirements matched, and which rules of its kind's schema its answers break.

use crate::kinds::aligned::{Aligned, Paired};
use crate::parse::json::Json;
use crate::parse::parse_answer_as;
use crate::runfile::record::Answer;
use crate::sample::Sample;

/// One sample's gold and predicted items lined up, and its first answer.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleView {
    pub id: String,
    /// Repeat 0's items, lined up by the matching scoring made.
    pub aligned: Aligned,
    /// The answer text of repeat 0 (empty when the call failed).
    pub answer: String,
    /// How repeat 0's requirements matched, one line per pair and per unmatched gold item.
    pub matching: Vec<String>,
    /// Why the sample is not schema-compliant: `path: constraint` per rule its first
    /// non-compliant answer breaks (the first few, as the score file keeps them).
    pub violations: Vec<String>,
}

impl SampleView {
    /// `pairs` are the items repeat 0's record paired while it was scored.
    pub fn new(
        sample: &Sample,
        answers: &[Answer],
        score: &super::SampleScore,
        pairs: &[Paired],
        cfg: &crate::metrics::ScoringConfig,
    ) -> SampleView {
        let answer = answers.first().map(|a| a.text.clone()).unwrap_or_default();
        let kind = crate::kinds::of(sample.kind);
        let parsed = parse_answer_as::<Json>(&answer);
        let mut aligned = kind.aligned(sample, parsed.value.as_ref(), pairs);
        let explanation = score.matching.first();
        // Why each unmatched gold item found no match, as the matching explains it (gold
        // items are named by their ids; the first unpaired one of a name takes it).
        let mut open: std::collections::HashMap<&str, Vec<usize>> = Default::default();
        let mut paired = vec![false; aligned.gold.len()];
        aligned.pairs.iter().for_each(|p| paired[p.gold] = true);
        for (i, item) in aligned.gold.iter().enumerate().rev() {
            if !paired[i] {
                open.entry(item.name.as_str()).or_default().push(i);
            }
        }
        let mut misses = Vec::new();
        for miss in explanation.iter().flat_map(|e| &e.unmatched) {
            if let Some(i) = open.get_mut(miss.gold.as_str()).and_then(Vec::pop) {
                misses.push((i, miss.describe(cfg.requirement_threshold)));
            }
        }
        aligned.misses = misses;
        SampleView {
            id: sample.id.clone(),
            aligned,
            answer,
            matching: explanation
                .map(|m| m.lines(cfg.requirement_threshold))
                .unwrap_or_default(),
            violations: score
                .schema_violations
                .as_ref()
                .map(|v| v.lines())
                .unwrap_or_default(),
        }
    }
}
