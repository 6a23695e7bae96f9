//! Diffs for broken samples: gold vs predicted items (one line per requirement, inferred
//! requirement or issue, in a stable order) and the baseline's answer vs the candidate's,
//! as unified diffs made with `similar`. They travel in the verdict so `publish` has them.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};
use similar::TextDiff;

use crate::error::Result;
use crate::parse::{parse_answer, prediction::Prediction};
use crate::runfile::reader::RunIndex;
use crate::suite::{Kind, Sample, Suite};

/// Diffs shown for a broken sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleDiff {
    pub id: String,
    /// Gold items vs the candidate's predicted items.
    pub gold_vs_candidate: String,
    /// The baseline's answer vs the candidate's, when the baseline's run is kept.
    pub baseline_vs_candidate: Option<String>,
}

/// Broken samples diffed at most (the comment has a size limit).
pub const MAX_DIFFS: usize = 20;

fn unified(old: &str, new: &str, from: &str, to: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(from, to)
        .to_string()
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

/// An answer made readable: pretty JSON when it parses, else the text as it is.
fn readable(text: &str) -> String {
    match parse_answer(text).value {
        Some(v) => serde_json::to_string_pretty(&v).unwrap_or_else(|_| text.to_string()),
        None => text.to_string(),
    }
}

/// Answer texts (repeat 0) of the given samples in a run file.
fn answers(run: &Path, ids: &HashSet<&str>) -> Result<HashMap<String, String>> {
    let mut index = RunIndex::build(run)?;
    let mut reader = index.reader()?;
    let mut out = HashMap::new();
    for &id in ids {
        if let Some(entry) = index.take(id).and_then(|e| e.into_iter().next()) {
            if let Ok(answer) = reader.read(&entry) {
                out.insert(id.to_string(), answer.text);
            }
        }
    }
    Ok(out)
}

/// Diffs for up to [`MAX_DIFFS`] of the `broken` samples.
pub fn broken_sample_diffs(
    broken: &[String],
    suite: &Suite,
    run: &Path,
    baseline_run: Option<&Path>,
) -> Result<Vec<SampleDiff>> {
    let wanted: HashSet<&str> = broken.iter().take(MAX_DIFFS).map(String::as_str).collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let candidate = answers(run, &wanted)?;
    let baseline = match baseline_run.filter(|p| p.is_file()) {
        Some(p) => Some(answers(p, &wanted)?),
        None => None,
    };
    let mut diffs = Vec::new();
    for loaded in suite.reader() {
        let Some(sample) = loaded.sample.filter(|s| wanted.contains(s.id.as_str())) else {
            continue;
        };
        let text = candidate.get(&sample.id).map(String::as_str).unwrap_or("");
        let prediction = Prediction::read(parse_answer(text).value.as_ref());
        let as_text =
            |lines: Vec<String>| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
        let gold = as_text(gold_lines(&sample));
        let predicted = as_text(predicted_lines(sample.kind, &prediction));
        let before = baseline
            .as_ref()
            .and_then(|b| b.get(&sample.id))
            .map(|t| readable(t) + "\n");
        diffs.push(SampleDiff {
            gold_vs_candidate: unified(&gold, &predicted, "gold", "candidate"),
            baseline_vs_candidate: before.map(|b| {
                unified(
                    &b,
                    &(readable(text) + "\n"),
                    "baseline answer",
                    "candidate answer",
                )
            }),
            id: sample.id,
        });
    }
    diffs.sort_by_key(|d| broken.iter().position(|b| *b == d.id));
    Ok(diffs)
}

/// Where `baseline refresh` keeps the baseline's run: beside it, `main.json` → `main.run.jsonl`.
pub fn baseline_run_path(baseline: &Path) -> std::path::PathBuf {
    baseline.with_extension("run.jsonl")
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
