//! How a record's requirement matching came out, as the score file and reports show it:
//! every matched pair with its similarity, and every unmatched gold item with its most
//! similar prediction, that similarity, and why it did not match — so a real miss can be
//! told from a threshold problem.

use serde::{Deserialize, Serialize};

use crate::metrics::matching::{Miss, Pair, Unmatched};

/// One record's matching.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    pub matched: Vec<MatchedPair>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmatched: Vec<UnmatchedGold>,
}

/// A gold item and the prediction it matched.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchedPair {
    /// The gold requirement's id.
    pub gold: String,
    /// The prediction's id, or `#i` (its index in the answer) when it has none.
    pub predicted: String,
    pub similarity: f64,
}

/// A gold item without a match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnmatchedGold {
    pub gold: String,
    /// The most similar prediction, as in [`MatchedPair::predicted`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    pub reason: Miss,
}

impl UnmatchedGold {
    /// Why it found no match: its best candidate, their similarity and why they did not
    /// match (`threshold` is the requirement threshold), or the reason alone.
    pub fn describe(&self, threshold: f64) -> String {
        match (&self.best, self.similarity) {
            (Some(best), Some(s)) => {
                let why = match self.reason {
                    Miss::BelowThreshold => format!("below the threshold {threshold:.2}"),
                    other => other.describe().to_string(),
                };
                format!("best candidate {best}, similarity {s:.3}, {why}")
            }
            _ => self.reason.describe().to_string(),
        }
    }
}

/// How a prediction is named: its id, or `#i` when it has none.
pub fn predicted_name(id: Option<&str>, index: usize) -> String {
    match id.map(str::trim).filter(|id| !id.is_empty()) {
        Some(id) => id.to_string(),
        None => format!("#{index}"),
    }
}

impl Explanation {
    /// From the matching's pairs and misses, naming gold items by `gold_ids` and
    /// predictions by `predicted` (see [`predicted_name`]).
    pub fn new(
        gold_ids: &[&str],
        predicted: &[String],
        pairs: &[Pair],
        misses: &[Unmatched],
    ) -> Self {
        Explanation {
            matched: pairs
                .iter()
                .map(|p| MatchedPair {
                    gold: gold_ids[p.gold].to_string(),
                    predicted: predicted[p.pred].clone(),
                    similarity: p.similarity,
                })
                .collect(),
            unmatched: misses
                .iter()
                .map(|u| UnmatchedGold {
                    gold: gold_ids[u.gold].to_string(),
                    best: u.best.map(|(j, _)| predicted[j].clone()),
                    similarity: u.best.map(|(_, s)| s),
                    reason: u.reason,
                })
                .collect(),
        }
    }

    /// One line per pair and per miss, for the reports of a broken sample.
    pub fn lines(&self, threshold: f64) -> Vec<String> {
        let mut out: Vec<String> = self
            .matched
            .iter()
            .map(|p| {
                format!(
                    "matched    {} ↔ {}  similarity {:.3}",
                    p.gold, p.predicted, p.similarity
                )
            })
            .collect();
        out.extend(
            self.unmatched
                .iter()
                .map(|u| format!("unmatched  {}: {}", u.gold, u.describe(threshold))),
        );
        out
    }
}
