//! Answers in a run file for samples the suite does not have: reported by line, each with
//! the nearest suite id, and counted past the first few.

use crate::error::{Location, Problem};
use crate::runfile::reader::{RunIndex, MAX_PROBLEMS};
use crate::suite::UniqueIds;
use crate::text::did_you_mean;

/// Answers for samples the suite does not have: the first [`MAX_PROBLEMS`] by line, each
/// with the nearest suite id when one is near, and one problem counting the rest (a run file
/// of another suite would otherwise give a screenful per answer, each searching the suite).
pub(super) fn unknown_samples(index: &RunIndex, ids: &UniqueIds) -> Vec<Problem> {
    let unknown: Vec<(&str, usize)> = index
        .leftover()
        .into_iter()
        .filter(|(id, _)| !ids.contains(id))
        .collect();
    if unknown.is_empty() {
        return Vec::new();
    }
    // Sorted, so that the nearest of equally near ids is the same on every run.
    let mut suite_ids: Vec<&str> = ids.iter().collect();
    suite_ids.sort_unstable();
    let at = |line| Location::new(index.path(), line, 0);
    let mut problems: Vec<Problem> = unknown
        .iter()
        .take(MAX_PROBLEMS)
        .map(|&(id, line)| {
            let problem = Problem::new(at(line), Some("sample_id".into()), format!("answer for unknown sample `{id}`"));
            match did_you_mean(id, suite_ids.iter().copied()) {
                Some(s) => problem.with_hint(format!("did you mean `{s}`? the run must come from this suite")),
                None => problem.with_hint("the run file does not belong to this suite (or the sample was renamed or removed)"),
            }
        })
        .collect();
    if let Some(&(_, line)) = unknown.get(MAX_PROBLEMS) {
        let rest = unknown.len() - MAX_PROBLEMS;
        problems.push(
            Problem::new(at(line), Some("sample_id".into()), format!("{rest} more answers for unknown samples, from this line on"))
                .with_hint("the run file does not belong to this suite (or its samples were renamed or removed)"),
        );
    }
    problems
}
