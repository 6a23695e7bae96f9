//! Diffs for broken samples: gold vs predicted items (from the scorer's [`SampleView`]s)
//! and the baseline's answer vs the candidate's, as unified diffs made with `similar`. They
//! travel in the verdict so `publish` has them.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use similar::TextDiff;

use crate::parse::parse_answer;
use crate::score::SampleView;

/// Diffs shown for a broken sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleDiff {
    pub id: String,
    /// Gold items vs the candidate's predicted items.
    pub gold_vs_candidate: String,
    /// The baseline's answer vs the candidate's, when the baseline's run is kept.
    pub baseline_vs_candidate: Option<String>,
}

/// Broken samples diffed at most, worst first: the job summary shows every diff (within
/// its 1 MiB), the PR comment as many as fit.
pub const MAX_DIFFS: usize = 100;

fn unified(old: &str, new: &str, from: &str, to: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(from, to)
        .to_string()
}

/// An answer made readable: pretty JSON when it parses, else the text as it is.
fn readable(text: &str) -> String {
    match parse_answer(text).value {
        Some(v) => serde_json::to_string_pretty(&v).unwrap_or_else(|_| text.to_string()),
        None => text.to_string(),
    }
}

/// Diffs for up to [`MAX_DIFFS`] of the `broken` samples, in that order. `views` holds the
/// candidate's gold and predicted items per sample; `baseline_answers` the baseline's answer
/// texts (empty when the baseline's run was not kept).
pub fn broken_sample_diffs(
    broken: &[String],
    views: &[SampleView],
    baseline_answers: &HashMap<String, String>,
) -> Vec<SampleDiff> {
    let by_id: HashMap<&str, &SampleView> = views.iter().map(|v| (v.id.as_str(), v)).collect();
    let as_text = |lines: &[String]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    broken
        .iter()
        .filter_map(|id| by_id.get(id.as_str()))
        .take(MAX_DIFFS)
        .map(|view| SampleDiff {
            id: view.id.clone(),
            gold_vs_candidate: unified(
                &as_text(&view.gold),
                &as_text(&view.predicted),
                "gold",
                "candidate",
            ),
            baseline_vs_candidate: baseline_answers.get(&view.id).map(|before| {
                unified(
                    &(readable(before) + "\n"),
                    &(readable(&view.answer) + "\n"),
                    "baseline answer",
                    "candidate answer",
                )
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn unified_diffs_show_what_went_missing() {
        let d = super::unified("a\nb\nc\n", "a\nc\n", "gold", "candidate");
        assert!(
            d.contains("--- gold") && d.contains("+++ candidate") && d.contains("-b"),
            "{d}"
        );
    }
}
