//! `baseline refresh` as one library call: run the suite (never from a half-finished run),
//! score it, and store the score as the new baseline with its run kept beside it, both
//! written atomically. A broken run is never a baseline: nothing is changed unless the run
//! completed, every sample has an answer and no run-health rule broke (failed calls or
//! unreadable answers over their ceiling). A new baseline that already breaks an absolute
//! rule (a floor or a ceiling) is written, with a warning. A baseline that drifted beyond a
//! budget from the pinned reference (`[drift]`) is refused unless `--accept-drift` says
//! why; who accepted it and why are kept in its provenance. Each sample keeps the runs of
//! the baseline it replaces when the pipeline is unchanged (its flakiness across refreshes).

use std::path::PathBuf;
use std::sync::Arc;

use goldgate_core::cachedir::CacheDir;
use goldgate_core::error::Result;
use goldgate_core::gate::compare::{compare, CompareOptions};
use goldgate_core::gate::drift::Reference;
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::gate::verdict::{Outcome, Status};
use goldgate_core::io::write_output;
use goldgate_core::metrics::bootstrap::BootstrapConfig;
use goldgate_core::score::file::AcceptedDrift;
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
    /// The pinned reference of `[drift]`: a baseline that drifted beyond a budget from it is
    /// refused unless `accept_drift` says why.
    pub reference: Option<Arc<Reference>>,
    /// `--accept-drift`: why a drift beyond its budget is accepted.
    pub accept_drift: Option<String>,
}

/// How a refresh ended.
#[derive(Clone, Debug)]
pub enum Refreshed {
    /// The baseline (and its run) were written; `broken` lists the absolute rules it
    /// already breaks (`metric: reason`), for a warning.
    Written {
        score: Box<ScoreFile>,
        broken: Vec<String>,
        /// Why the drift from the reference could not be measured, when it could not.
        unmeasured: Vec<String>,
    },
    /// A run-health rule broke (`problems`: `metric: reason`): nothing changed.
    Unhealthy { problems: Vec<String> },
    /// The run did not complete: nothing changed.
    RunIncomplete,
    /// Some samples have no answer: nothing changed.
    Missing { missing: Vec<String> },
    /// The new baseline drifted beyond a budget from the pinned reference (`metric:
    /// reason`) and no `--accept-drift` said why: nothing changed.
    Drifted { drifts: Vec<String> },
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
        reference: None,
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
    let mut file = scored.file;
    let mut unmeasured = Vec::new();
    let mut drift_warnings = Vec::new();
    // The new baseline's drift from the pinned reference. A reference scored under another
    // metrics version, similarity or judge cannot measure it: the refresh says so and goes on
    // (the next step is to pin it).
    let measured = s.reference.as_ref().and_then(|reference| {
        let names = file.metrics.keys().map(String::as_str);
        let catalog = goldgate_core::kinds::catalog(names.chain(s.thresholds.rule_names()));
        let against = (reference.as_ref(), None);
        let options = (&s.bootstrap, false);
        match goldgate_core::gate::drift::measure(&file, against, &s.thresholds, options, catalog) {
            Ok(report) => Some((reference, report)),
            Err(e) => {
                unmeasured.push(e.to_string());
                None
            }
        }
    });
    if let Some((reference, drift)) = measured {
        let said = |d: &goldgate_core::gate::drift::Drift| {
            format!("{}: {}", d.name, d.reason.as_deref().unwrap_or_default())
        };
        let report = drift.metrics.iter();
        // A `warn` budget warns; a `fail` budget (and a reference whose samples are gone)
        // refuses.
        let drifts: Vec<String> = report
            .clone()
            .filter(|d| matches!(d.status, Status::Fail | Status::Incomplete))
            .map(said)
            .collect();
        drift_warnings = report
            .filter(|d| d.status == Status::Warn)
            .map(said)
            .collect();
        match (&s.accept_drift, drifts.is_empty()) {
            (_, true) => {}
            (None, false) => return Ok((run, Refreshed::Drifted { drifts })),
            (Some(reason), false) => {
                file.provenance.accepted_drift = Some(AcceptedDrift {
                    by: who(),
                    reason: reason.clone(),
                    reference: reference.path.clone(),
                    reference_created_at: reference.file.provenance.created_at.clone(),
                    drifts,
                })
            }
        }
    }
    // The runs of the baseline it replaces, when the pipeline is unchanged: what a sample's
    // flakiness is measured over across refreshes. A baseline that cannot be read is
    // replaced without them.
    let previous = s
        .baseline
        .is_file()
        .then(|| goldgate_core::score::file::read(&s.baseline));
    if let Some(Ok(previous)) = previous {
        goldgate_core::gate::flaky::carry_runs(&mut file, &previous);
    }
    write_output(&s.baseline, |w| file.write_to(w))?;
    let records = std::fs::read(&run.path).map_err(|source| goldgate_core::error::Error::Read {
        path: run.path.clone(),
        source,
    })?;
    write_output(&s.baseline_run, |w| w.write_all(&records))?;
    Ok((
        run,
        Refreshed::Written {
            score: Box::new(file),
            broken: [broken, drift_warnings].concat(),
            unmeasured,
        },
    ))
}

/// Who accepts a drift: `GITHUB_ACTOR` in GitHub Actions, else git's `user.name`, else the
/// login name.
fn who() -> String {
    let env = |var: &str| std::env::var(var).ok().filter(|v| !v.trim().is_empty());
    let git = || {
        let out = std::process::Command::new("git")
            .args(["config", "user.name"])
            .output()
            .ok()?;
        let name = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (out.status.success() && !name.is_empty()).then_some(name)
    };
    env("GITHUB_ACTOR")
        .or_else(git)
        .or_else(|| env("USER"))
        .unwrap_or_else(|| "unknown".into())
}
