//! Whether a baseline and a candidate can be compared at all: scored under the same
//! `metrics_version`, with the same similarity (backend, embedding model and its
//! fingerprint) and, when both were judged, by the same judge (model and prompt
//! fingerprint). Otherwise the numbers measure different things, and the comparison is
//! refused unless the user says to compare anyway (`--allow-version-change`).

use crate::error::{Error, Problem, Result};
use crate::gate::thresholds::Thresholds;
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
    if let Some(change) = judge_change(b, scoring) {
        return Err(Error::usage(
            format!("the baseline and {what} were judged by different judges ({change}): their judge.* numbers are not comparable"),
            "judge both with the same `[judge]` model and prompts: refresh the baseline (goldgate baseline refresh, or goldgate judge on its run) after changing them, or pass --allow-version-change to compare anyway",
        ));
    }
    Ok(())
}

/// Refuse rules on the judge's metrics when no record of the candidate was reviewed by a
/// judge: they could only read "no data" and hold, a weaker gate than the file says.
pub fn judged(candidate: &ScoreFile, thresholds: &Thresholds, what: &str) -> Result<()> {
    if candidate.provenance.scoring.judge.is_some() {
        return Ok(());
    }
    refuse_judge_rules(
        thresholds,
        &format!("no record of {what} was reviewed by a judge"),
    )
}

/// Refuse every rule on a judge metric, at its line: `a rule gates NAME, but {because}`.
pub fn refuse_judge_rules(thresholds: &Thresholds, because: &str) -> Result<()> {
    let problems: Vec<Problem> = thresholds
        .judge_rules()
        .into_iter()
        .map(|(name, at)| {
            Problem::new(at, None, format!("a rule gates {name}, but {because}"))
                .with_hint(NO_JUDGE_HINT)
        })
        .collect();
    match problems.is_empty() {
        true => Ok(()),
        false => Err(Error::Invalid {
            what: "thresholds file",
            problems,
        }),
    }
}

/// How to get judge metrics, for rules that gate them without a judge.
pub const NO_JUDGE_HINT: &str = "configure the judge in goldgate.toml's [judge] table (docs/judge.md) so the run's e2e samples with a reference_srs are reviewed, or remove the judge.* rules";

/// How the judges of two scorings differ, when both were judged and they do: the model, or
/// the prompt (by its fingerprint). Records reviewed by several judges (`mixed`) are
/// comparable with none. A scoring without a judge has no judge metrics to compare.
pub fn judge_change(baseline: &ScoringSummary, candidate: &ScoringSummary) -> Option<String> {
    let (b, c) = (baseline.judge.as_ref()?, candidate.judge.as_ref()?);
    if b.is_mixed() || c.is_mixed() {
        return Some(format!(
            "{} → {}: a run's records were reviewed by several judges",
            b.model.escape_debug(),
            c.model.escape_debug()
        ));
    }
    if b.model != c.model {
        return Some(format!(
            "{} → {}",
            b.model.escape_debug(),
            c.model.escape_debug()
        ));
    }
    if b.prompt_fingerprint != c.prompt_fingerprint {
        let short = |f: &str| f.chars().take(15).collect::<String>();
        return Some(format!(
            "{}: prompt {} → {}",
            b.model.escape_debug(),
            short(&b.prompt_fingerprint).escape_debug(),
            short(&c.prompt_fingerprint).escape_debug()
        ));
    }
    None
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
