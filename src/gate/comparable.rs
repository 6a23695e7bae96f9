//! Whether a baseline and a candidate can be compared at all: scored under the same
//! `metrics_version` and with the same similarity (backend, embedding model and its
//! fingerprint). Otherwise the numbers measure different things, and the comparison is
//! refused unless the user says to compare anyway (`--allow-version-change`).

use crate::error::{Error, Result};
use crate::score::file::{ScoreFile, ScoringSummary};

/// Refuse, unless `allow`, to compare `baseline` with a candidate scored under
/// `metrics_version` with `scoring` (`what` names the candidate in the message).
pub fn check(
    baseline: &ScoreFile,
    metrics_version: &str,
    scoring: &ScoringSummary,
    allow: bool,
    what: &str,
) -> Result<()> {
    if allow {
        return Ok(());
    }
    if baseline.metrics_version != metrics_version {
        return Err(Error::usage(
            format!(
                "the baseline was scored with metrics_version {} and {what} with {}: their numbers are not comparable",
                baseline.metrics_version,
                metrics_version.escape_debug()
            ),
            "refresh the baseline (goldgate baseline refresh), or pass --allow-version-change to compare anyway",
        ));
    }
    let b = &baseline.provenance.scoring;
    if let Some(change) = similarity_change(b, scoring) {
        return Err(Error::usage(
            format!("the baseline and {what} were scored with different similarities ({change}): their numbers are not comparable"),
            "score both with the same `[matching]` similarity and model: refresh the baseline (goldgate baseline refresh) after changing it, or pass --allow-version-change to compare anyway",
        ));
    }
    Ok(())
}

/// How two scorings' similarities differ, when they do: backend, model, or the model's
/// files under the same name.
pub fn similarity_change(baseline: &ScoringSummary, candidate: &ScoringSummary) -> Option<String> {
    let describe = |s: &ScoringSummary| match &s.model {
        Some(model) => format!("{} {}", s.similarity, model),
        None => s.similarity.clone(),
    };
    if baseline.similarity != candidate.similarity || baseline.model != candidate.model {
        return Some(format!(
            "{} → {}",
            describe(baseline).escape_debug(),
            describe(candidate).escape_debug()
        ));
    }
    if baseline.model_fingerprint != candidate.model_fingerprint {
        let short = |f: &Option<String>| {
            f.as_deref().map_or("none".to_string(), |f| {
                f.chars().take(12).collect::<String>()
            })
        };
        return Some(format!(
            "model {} changed: fingerprint {} → {}",
            describe(candidate).escape_debug(),
            short(&baseline.model_fingerprint).escape_debug(),
            short(&candidate.model_fingerprint).escape_debug()
        ));
    }
    None
}
