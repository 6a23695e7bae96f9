//! `baseline refresh` as one library call: run the suite (never from a half-finished run),
//! score it, and store the score as the new baseline with its run kept beside it, both
//! written atomically. A broken run is never a baseline: nothing is changed unless the run
//! completed, every sample has an answer and no run-health rule broke (failed calls or
//! unreadable answers over their ceiling). A new baseline that already breaks an absolute
//! rule (a floor or a ceiling) is written, with a warning.

use std::path::PathBuf;

use goldgate_core::cachedir::CacheDir;
use goldgate_core::error::Result;
use goldgate_core::gate::compare::{compare, CompareOptions};
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::gate::verdict::{Outcome, Status};
use goldgate_core::io::write_output;
use goldgate_core::metrics::bootstrap::BootstrapConfig;
use goldgate_core::score::{self, Facts, ScoreFile, ScoreRequest};
use goldgate_core::suite::Suite;
use goldgate_run::plan::{run_suite, Observer, RunReport, RunSettings};

/// Everything a refresh needs, defaults already applied.
#[derive(Clone, Debug)]
pub struct RefreshSettings {
    /// The run; its `output` is a temporary file.
    pub run: RunSettings,
    pub baseline: PathBuf,
    /// Where the baseline's run is kept.
    pub baseline_run: PathBuf,
    /// The rules: their `[matching]` and `[rd_score]` shape the scores, their run-health
    /// rules decide whether the run may become the baseline.
    pub thresholds: Thresholds,
    /// The similarity backend the rules' `[matching]` selects.
    pub similarity: goldgate_embed::Backend,
    pub bootstrap: BootstrapConfig,
    pub facts: Facts,
}

/// How a refresh ended.
#[derive(Clone, Debug)]
pub enum Refreshed {
    /// The baseline (and its run) were written; `broken` lists the absolute rules it
    /// already breaks (`metric: reason`), for a warning.
    Written {
        score: Box<ScoreFile>,
        broken: Vec<String>,
    },
    /// A run-health rule broke (`problems`: `metric: reason`): nothing changed.
    Unhealthy { problems: Vec<String> },
    /// The run did not complete: nothing changed.
    RunIncomplete,
    /// Some samples have no answer: nothing changed.
    Missing { missing: Vec<String> },
}

/// Run, score and store the baseline.
pub fn refresh(
    s: &RefreshSettings,
    runtime: &tokio::runtime::Runtime,
    observer: &mut dyn Observer,
) -> Result<(RunReport, Refreshed)> {
    // A model that cannot be found fails here, before the pipeline costs anything.
    let embedder = goldgate_embed::open(&s.similarity)?;
    let mut run = run_suite(&s.run, runtime, observer)?;
    if !run.is_complete() {
        return Ok((run, Refreshed::RunIncomplete));
    }
    let suite = Suite::open(&s.run.suite, s.run.max_sample_bytes)?;
    let cache_dir = CacheDir::new(&s.run.cache_dir);
    let scored = score::score(&ScoreRequest {
        suite: &suite,
        run: &run.path,
        scoring: &s.thresholds.scoring(),
        bootstrap: s.bootstrap,
        facts: &s.facts,
        keep_view: None,
        embedding: score::Embedding::of(embedder.as_deref(), &cache_dir),
    })?;
    // Said once, with the run's.
    run.cache_ignored.merge(&cache_dir.ignored());
    if !scored.file.missing.is_empty() {
        let missing = scored.file.missing;
        return Ok((run, Refreshed::Missing { missing }));
    }
    // The new baseline against the rules on its own: run health, floors and ceilings.
    let options = CompareOptions {
        bootstrap: s.bootstrap,
        allow_version_change: false,
        ratchet: Vec::new(),
    };
    let verdict = compare(&scored.file, None, &s.thresholds, &options)?;
    let reasons = |status: Status| -> Vec<String> {
        let metrics = verdict.metrics.iter().filter(|m| m.status == status);
        metrics
            .flat_map(|m| m.reasons.iter().map(move |r| format!("{}: {r}", m.name)))
            .collect()
    };
    if verdict.verdict == Outcome::Incomplete {
        let problems = reasons(Status::Incomplete);
        return Ok((run, Refreshed::Unhealthy { problems }));
    }
    let broken = [reasons(Status::Fail), reasons(Status::Warn)].concat();
    write_output(&s.baseline, |w| scored.file.write_to(w))?;
    let records = std::fs::read(&run.path).map_err(|source| goldgate_core::error::Error::Read {
        path: run.path.clone(),
        source,
    })?;
    write_output(&s.baseline_run, |w| w.write_all(&records))?;
    Ok((
        run,
        Refreshed::Written {
            score: Box::new(scored.file),
            broken,
        },
    ))
}
