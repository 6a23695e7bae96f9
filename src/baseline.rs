//! `baseline refresh` as one library call: run the suite (never from a half-finished run),
//! score it, and store the score as the new baseline with its run kept beside it, both
//! written atomically. Nothing is changed unless the run completed and every sample has an
//! answer.

use std::path::PathBuf;

use crate::error::Result;
use crate::io::write_atomic;
use crate::metrics::bootstrap::BootstrapConfig;
use crate::metrics::ScoringConfig;
use crate::run::plan::{run_suite, Observer, RunReport, RunSettings};
use crate::score::{self, Facts, ScoreFile, ScoreRequest};
use crate::suite::Suite;

/// Everything a refresh needs, defaults already applied.
#[derive(Clone, Debug)]
pub struct RefreshSettings {
    /// The run; its `output` is a temporary file.
    pub run: RunSettings,
    pub baseline: PathBuf,
    /// Where the baseline's run is kept.
    pub baseline_run: PathBuf,
    pub scoring: ScoringConfig,
    pub bootstrap: BootstrapConfig,
    pub facts: Facts,
}

/// How a refresh ended.
#[derive(Clone, Debug)]
pub enum Refreshed {
    /// The baseline (and its run) were written.
    Written { score: Box<ScoreFile> },
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
    let run = run_suite(&s.run, runtime, observer)?;
    if !run.is_complete() {
        return Ok((run, Refreshed::RunIncomplete));
    }
    let suite = Suite::open(&s.run.suite, s.run.max_sample_bytes)?;
    let scored = score::score(&ScoreRequest {
        suite: &suite,
        run: &run.path,
        scoring: &s.scoring,
        bootstrap: s.bootstrap,
        facts: &s.facts,
        keep_view: None,
    })?;
    if !scored.file.missing.is_empty() {
        let missing = scored.file.missing;
        return Ok((run, Refreshed::Missing { missing }));
    }
    write_atomic(&s.baseline, |w| scored.file.write_to(w))?;
    let records = std::fs::read(&run.path).map_err(|source| crate::error::Error::Read {
        path: run.path.clone(),
        source,
    })?;
    write_atomic(&s.baseline_run, |w| w.write_all(&records))?;
    Ok((
        run,
        Refreshed::Written {
            score: Box::new(scored.file),
        },
    ))
}
