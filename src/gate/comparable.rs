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

/// How two scorings' similarities differ, when they do: the backend, or the model (by its
/// fingerprint: the same model files under another path are the same model, another model
/// under the same name is not).
pub fn similarity_change(baseline: &ScoringSummary, candidate: &ScoringSummary) -> Option<String> {
    let describe = |s: &ScoringSummary| match &s.model {
        Some(model) => format!("{} {}", s.similarity, model),
        None => s.similarity.clone(),
    };
    if baseline.similarity != candidate.similarity {
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
            "{} → {}: fingerprint {} → {}",
            describe(baseline).escape_debug(),
            describe(candidate).escape_debug(),
            short(&baseline.model_fingerprint).escape_debug(),
            short(&candidate.model_fingerprint).escape_debug()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::gate::compare::tests::{file, options, rules};
    use crate::gate::compare::{compare, CompareOptions};

    #[test]
    fn a_metrics_version_change_is_refused_unless_allowed() {
        let base = file(&[(5.0, 0.0, 0.0, false)], "0");
        let cand = file(&[(5.0, 0.0, 0.0, false)], "1");
        let e = compare(&cand, Some(&base), &rules(""), &options())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("metrics_version") && e.contains("--allow-version-change"),
            "{e}"
        );
        let allowed = CompareOptions {
            allow_version_change: true,
            ..options()
        };
        let v = compare(&cand, Some(&base), &rules(""), &allowed).unwrap();
        assert!(v
            .provenance
            .differences
            .iter()
            .any(|d| d.starts_with("metrics_version")));
    }

    #[test]
    fn a_similarity_or_model_change_is_refused_unless_allowed() {
        let base = file(&[(5.0, 0.0, 0.0, false)], "1");
        let mut cand = base.clone();
        cand.provenance.scoring.similarity = "minilm".into();
        cand.provenance.scoring.model = Some("all-MiniLM-L6-v2".into());
        cand.provenance.scoring.model_fingerprint = Some("ab12".into());
        let e = compare(&cand, Some(&base), &rules(""), &options())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("lexical → minilm all-MiniLM-L6-v2") && e.contains("--allow-version-change"),
            "{e}"
        );
        // The same model name with other files under it is another model.
        let mut retrained = cand.clone();
        retrained.provenance.scoring.model_fingerprint = Some("cd34".into());
        let e = compare(&retrained, Some(&cand), &rules(""), &options())
            .unwrap_err()
            .to_string();
        assert!(e.contains("fingerprint ab12 → cd34"), "{e}");
        let allowed = CompareOptions {
            allow_version_change: true,
            ..options()
        };
        assert!(compare(&retrained, Some(&cand), &rules(""), &allowed).is_ok());
        assert!(compare(&cand, Some(&cand), &rules(""), &options()).is_ok());
        // The same files found at another path are the same model.
        let mut moved = cand.clone();
        moved.provenance.scoring.model = Some("/elsewhere/all-MiniLM-L6-v2".into());
        assert!(compare(&moved, Some(&cand), &rules(""), &options()).is_ok());
    }
}
