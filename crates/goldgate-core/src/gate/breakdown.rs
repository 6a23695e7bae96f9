//! What a verdict reports beside its judged metrics, read off the two score files: each
//! candidate sample's result, the gated metrics per group, the samples added and removed
//! since the baseline, what changed in provenance, the failed calls by cause, and the
//! judge's failed judgements and suspect documents.

use std::collections::HashMap;

use super::verdict::{provenance_differences, GroupRow, SampleResult};
use crate::score::file::ScoreFile;

/// The candidate's failed calls, grouped by cause (score files keep each failed call's
/// cause per sample).
pub(super) fn failed_calls(candidate: &ScoreFile) -> crate::runfile::failures::FailedCalls {
    let mut grouping = crate::runfile::failures::Grouping::default();
    for s in &candidate.samples {
        for e in &s.errors {
            grouping.add(&s.id, e);
        }
    }
    grouping.finish()
}

/// What the judge's reviews of the candidate say: its failed judgements and suspect
/// documents, read off the samples (score files keep each sample's counts, first failure
/// and suspicions).
pub(super) fn judge_reviews(candidate: &ScoreFile) -> crate::judge::reviews::JudgeReviews {
    let mut reviews = crate::judge::reviews::JudgeReviews::default();
    for s in &candidate.samples {
        let (asked, failed) = crate::judge::metrics::failures(&s.stats);
        reviews.add(
            &s.id,
            asked,
            failed,
            s.judge_failure.as_deref(),
            &s.judge_suspect,
        );
    }
    reviews
}

pub(super) fn sample_results(
    candidate: &ScoreFile,
    baseline: Option<&ScoreFile>,
    sample_pass: f64,
) -> Vec<SampleResult> {
    let before: HashMap<&str, f64> = baseline
        .map(|b| {
            b.samples
                .iter()
                .map(|s| (s.id.as_str(), s.primary))
                .collect()
        })
        .unwrap_or_default();
    candidate
        .samples
        .iter()
        .map(|s| SampleResult {
            id: s.id.clone(),
            kind: s.kind,
            primary: s.primary,
            baseline: before.get(s.id.as_str()).copied(),
            pass: super::samples::passes(s.primary, sample_pass),
            error: s.unanswered().cloned(),
        })
        .collect()
}

/// The gated metrics of every group that has data for them.
pub(super) fn group_rows(
    candidate: &ScoreFile,
    baseline: Option<&ScoreFile>,
    gated: &[&str],
) -> Vec<GroupRow> {
    let mut rows = Vec::new();
    for (dimension, groups) in &candidate.groups {
        for (group, metrics) in groups {
            for &name in gated {
                let Some(agg) = metrics.get(name).filter(|a| a.n > 0) else {
                    continue;
                };
                let before =
                    baseline.and_then(|b| b.groups.get(dimension)?.get(group)?.get(name)?.value);
                rows.push(GroupRow {
                    dimension: dimension.clone(),
                    group: group.clone(),
                    metric: name.into(),
                    baseline: before,
                    candidate: agg.value,
                    n: agg.n,
                });
            }
        }
    }
    rows
}

pub(super) fn membership(
    candidate: &ScoreFile,
    baseline: &ScoreFile,
) -> (Vec<String>, Vec<String>) {
    let ids = |f: &ScoreFile| {
        f.samples
            .iter()
            .map(|s| s.id.clone())
            .collect::<std::collections::BTreeSet<_>>()
    };
    let (c, b) = (ids(candidate), ids(baseline));
    (
        c.difference(&b).cloned().collect(),
        b.difference(&c).cloned().collect(),
    )
}

/// What changed between the baseline's and the candidate's provenance.
pub(super) fn differences(baseline: &ScoreFile, candidate: &ScoreFile) -> Vec<String> {
    let (b, c) = (&baseline.provenance, &candidate.provenance);
    let mut out = Vec::new();
    let mut diff = |what: &str, x: String, y: String| {
        if x != y {
            out.push(format!("{what}: {x} → {y}"));
        }
    };
    diff(
        "metrics_version",
        baseline.metrics_version.clone(),
        candidate.metrics_version.clone(),
    );
    diff(
        "protocol_version",
        baseline.protocol_version.clone(),
        candidate.protocol_version.clone(),
    );
    out.extend(provenance_differences(b, c));
    out
}
