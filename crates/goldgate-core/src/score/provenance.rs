//! Provenance of a score: suite and pipeline fingerprints (and what went into the pipeline's,
//! as its run file recorded it), the facts the caller gathered
//! (git sha and ref, time), version, and the scoring settings that shaped the numbers (the
//! judge that reviewed the records among them).

use std::collections::HashSet;

use super::file::{JudgeSummary, Provenance, SampleScore, ScoringSummary};
use super::ScoreRequest;
use crate::runfile::record::FingerprintParts;

pub(super) fn collect(
    req: &ScoreRequest<'_>,
    suite_fingerprint: &str,
    samples: &[SampleScore],
    pipelines: HashSet<Option<String>>,
    parts: Vec<(Option<String>, FingerprintParts)>,
    models: HashSet<Option<String>>,
    judges: HashSet<JudgeSummary>,
) -> Provenance {
    let fingerprint = shared(pipelines);
    // The parts of the one pipeline every record came from.
    let pipeline = parts
        .into_iter()
        .find(|(fp, _)| fp.is_some() && *fp == fingerprint)
        .map(|(_, parts)| parts);
    let cfg = req.scoring;
    let w = cfg.rd_weights;
    let identity = req.embedding.map(|e| e.embedder.identity());
    Provenance {
        suite_name: req.suite.config.name.clone(),
        suite_path: req.suite.root.display().to_string(),
        suite_fingerprint: format!("sha256:{suite_fingerprint}"),
        run_path: req.run.display().to_string(),
        pipeline_fingerprint: fingerprint,
        pipeline,
        model: shared(models),
        git_sha: req.facts.git_sha.clone(),
        git_ref: req.facts.git_ref.clone(),
        created_at: rfc3339(req.facts.created_at),
        goldgate_version: env!("CARGO_PKG_VERSION").to_string(),
        repeats: samples.iter().map(|s| s.repeats as u32).max().unwrap_or(0),
        records: samples.iter().map(|s| s.repeats).sum(),
        bootstrap: req.bootstrap,
        scoring: ScoringSummary {
            similarity: identity.map_or("lexical", |i| i.backend).to_string(),
            model: identity.map(|i| i.model.clone()),
            model_fingerprint: identity.map(|i| i.fingerprint.clone()),
            requirement_threshold: cfg.requirement_threshold,
            ac_threshold: cfg.ac_threshold,
            type_rule: cfg.type_rule,
            actor_rule: cfg.actor_rule,
            schema: cfg.schema,
            id_pattern: cfg.id_pattern.as_str().to_string(),
            rd_weights: [w.coverage, w.accuracy, w.structure, w.traceability],
            judge: judge(judges),
        },
        accepted_drift: None,
    }
}

/// Where and when a score is made: facts from outside the suite and the run, gathered by
/// the caller (the command line reads git and the environment) so scoring reads only data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    pub git_sha: Option<String>,
    pub git_ref: Option<String>,
    /// Seconds since the Unix epoch.
    pub created_at: u64,
}

/// The value all records share (fingerprint, model), `mixed` when they differ.
fn shared(seen: HashSet<Option<String>>) -> Option<String> {
    let known: Vec<String> = seen.into_iter().flatten().collect();
    match known.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        _ => Some("mixed".to_string()),
    }
}

/// The judge every judged record names, `mixed` when they name different ones, `None` when
/// no record was judged.
fn judge(seen: HashSet<JudgeSummary>) -> Option<JudgeSummary> {
    let mut judges = seen.into_iter();
    let first = judges.next()?;
    Some(match judges.next() {
        None => first,
        Some(_) => JudgeSummary {
            model: JudgeSummary::MIXED.into(),
            prompt_fingerprint: JudgeSummary::MIXED.into(),
        },
    })
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (civil-from-days, proleptic Gregorian).
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc3339_dates() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(super::rfc3339(1_795_305_600), "2026-11-22T00:00:00Z");
    }
}
