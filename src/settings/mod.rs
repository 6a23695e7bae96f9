//! Validated settings of each command, converted from the command line with `TryFrom`, and
//! every default goldgate applies ([`defaults`]): a flag wins over `goldgate.toml`, which
//! wins over the default. Facts from outside the inputs (git, the clock) are gathered here
//! too, so the steps below read only data. How a run is set up is in [`run`], the
//! pre-push hook's settings in [`hook`].

mod agents;
mod annotate;
pub mod chat;
mod facts;
mod gate;
#[cfg(test)]
mod help_tests;
mod history;
mod hook;
mod init;
pub mod judge;
mod publish_verdict;
mod reproduce;
mod run;
mod sequential;
pub mod similarity;
mod suite;

pub use annotate::AnnotateSettings;
pub use facts::provenance_facts;
pub use gate::GateSettings;
pub use history::{HistorySettings, PinSettings};
pub use hook::{HookInstallSettings, HookRunSettings};
pub use init::InitSettings;
pub use publish_verdict::PublishSettings;
pub use run::{run_settings, RunCommand};
pub use suite::{
    flaky_inputs, max_items, min_kappa, named_suite, AgreementSettings, NamedSuite, StatsSettings,
    SuiteSettings,
};

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::baseline::RefreshSettings;
use crate::check::{CheckSettings, MissingBaseline};
use crate::cli::{self, BaselineFormat, GateFormat, ScoreFormat};
use crate::config::ConfigFile;
use goldgate_core::error::Error;
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::metrics::bootstrap::BootstrapConfig;
use goldgate_core::retry::Backoff;
use goldgate_core::score::Facts;

/// Every default, in one table. The command line's help repeats them (a test checks that
/// it says the same).
pub mod defaults {
    /// The settings file looked for in the working directory.
    pub const CONFIG_FILE: &str = "goldgate.toml";
    /// The rules file looked for in the working directory.
    pub const THRESHOLDS_FILE: &str = "thresholds.toml";
    /// The stored baseline.
    pub const BASELINE: &str = "baselines/main.json";
    /// Where `check` writes its files.
    pub const OUT_DIR: &str = ".goldgate/out";
    /// The answer cache.
    pub const CACHE_DIR: &str = ".goldgate/cache";
    /// `run` and `merge` output.
    pub const RUN_FILE: &str = "run.jsonl";
    /// `score` output.
    pub const SCORE_FILE: &str = "score.json";
    /// Calls in flight at once.
    pub const JOBS: usize = 16;
    /// Seconds a call may take.
    pub const TIMEOUT_SECS: u64 = 120;
    /// Largest answer kept (16 MiB).
    pub const MAX_OUTPUT_BYTES: usize = 16 << 20;
    /// Largest suite sample read: a YAML or JSON file, or one JSONL line (16 MiB).
    pub const MAX_SAMPLE_BYTES: u64 = 16 << 20;
    /// Longest line of a `similarity --pairs` file (1 MiB): a pair of texts to compare.
    pub const MAX_PAIR_LINE_BYTES: u64 = 1 << 20;
    /// Extra attempts after a retryable failure.
    pub const RETRIES: u32 = 3;
    /// Records per sample.
    pub const REPEAT: u32 = 1;
    /// Bootstrap resamples.
    pub const RESAMPLES: usize = 1000;
    /// Most resamples accepted (beyond this the interval does not change, only the wait).
    pub const MAX_RESAMPLES: usize = 100_000;
    /// Bootstrap seed.
    pub const SEED: u64 = 20_240_601;
    /// The kappa a suite must reach.
    pub const MIN_KAPPA: f64 = 0.75;
    /// The gate's name (one sticky comment per name).
    pub const GATE_NAME: &str = "goldgate";
    /// Seconds goldgate waits at most for GitHub's API rate limit to reset.
    pub const GITHUB_MAX_WAIT_SECS: u64 = 60;
    /// Variables a command pipeline never gets unless passed through (the CI's tokens); their
    /// values are redacted wherever goldgate writes.
    pub const WITHHELD_ENV: &[&str] = &[
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    ];
    /// What a cleared pipeline environment (`env_clear`) keeps.
    pub const ENV_CLEAR_KEEPS: &[&str] = &["PATH", "HOME"];
    /// `srs-agents`: rounds of ReqExplore and ReqClarify at most.
    pub const AGENTS_MAX_ITERATIONS: u32 = 5;
    /// `srs-agents`: the wait before an agent's second attempt, in seconds (it doubles for
    /// each further attempt).
    pub const AGENTS_BACKOFF_SECS: f64 = 1.0;
    /// `srs-agents`: each agent's temperature (ReqParse, ReqExplore, ReqClarify,
    /// DocGenerate).
    pub const AGENTS_TEMPERATURES: [f64; 4] = [0.2, 0.6, 0.2, 0.1];
    /// `srs-agents`: each agent's attempts at most, in the same order.
    pub const AGENTS_ATTEMPTS: [u32; 4] = [3, 3, 3, 5];
    /// `init`: the project directory.
    pub const INIT_DIR: &str = ".";
    /// `init`: the task kinds when none is given and none can be asked: the first kind the
    /// registry lists (`goldgate_core::kinds::listed`), the one whose samples the scaffold's
    /// comments cite as their example.
    pub fn init_kinds() -> Vec<goldgate_core::sample::Kind> {
        goldgate_core::kinds::listed().take(1).collect()
    }
    /// `init`: the pipeline kind when none is given and none can be asked.
    pub const INIT_PIPELINE: crate::init::Pipeline = crate::init::Pipeline::Command;
}

/// `goldgate.toml`: `--config`, else the one in the working directory, else none.
pub fn config_file(explicit: Option<&Path>) -> Result<ConfigFile, Error> {
    match explicit {
        Some(path) => ConfigFile::load(path),
        None if Path::new(defaults::CONFIG_FILE).is_file() => {
            ConfigFile::load(Path::new(defaults::CONFIG_FILE))
        }
        None => Ok(ConfigFile::default()),
    }
}

/// Where `baseline refresh` keeps the baseline's run, beside it (`main.json` →
/// `main.run.jsonl`): reports diff a broken sample's answers against it.
pub fn baseline_run_path(baseline: &Path) -> PathBuf {
    baseline.with_extension("run.jsonl")
}

fn bootstrap(resamples: Option<usize>, seed: Option<u64>) -> Result<BootstrapConfig, Error> {
    let resamples = resamples.unwrap_or(defaults::RESAMPLES);
    if resamples > defaults::MAX_RESAMPLES {
        return Err(Error::usage(
            format!("--resamples {resamples} is too many"),
            format!(
                "use at most {}; 1000 is plenty for a 95% interval",
                defaults::MAX_RESAMPLES
            ),
        ));
    }
    Ok(BootstrapConfig {
        resamples,
        seed: seed.unwrap_or(defaults::SEED),
        ..BootstrapConfig::default()
    })
}

/// The largest suite sample read: the flag, else `[suite] max_sample_bytes`, else the
/// default; at least one byte.
pub fn max_sample_bytes(flag: Option<u64>, file: &ConfigFile) -> Result<u64, Error> {
    match flag.or(file.suite.max_sample_bytes) {
        Some(0) => Err(Error::usage(
            "max_sample_bytes = 0 would refuse every sample",
            format!(
                "give a size in bytes, e.g. {} (the default, 16 MiB)",
                defaults::MAX_SAMPLE_BYTES
            ),
        )),
        Some(n) => Ok(n),
        None => Ok(defaults::MAX_SAMPLE_BYTES),
    }
}

/// `goldgate score`.
#[derive(Clone, Debug)]
pub struct ScoreSettings {
    pub suite: PathBuf,
    /// The largest suite sample read.
    pub max_sample_bytes: u64,
    pub run: PathBuf,
    pub output: PathBuf,
    pub thresholds: Option<PathBuf>,
    /// Where embedding vectors are cached.
    pub cache_dir: PathBuf,
    pub bootstrap: BootstrapConfig,
    pub allow_missing: bool,
    pub format: ScoreFormat,
    pub facts: Facts,
}

impl TryFrom<cli::ScoreArgs> for ScoreSettings {
    type Error = Error;

    /// The suite, the rules, the sample cap and the cache as `check` finds them: flags,
    /// else goldgate.toml, else the defaults.
    fn try_from(a: cli::ScoreArgs) -> Result<Self, Error> {
        let file = config_file(a.config.as_deref())?;
        Ok(ScoreSettings {
            max_sample_bytes: max_sample_bytes(a.max_sample_bytes, &file)?,
            suite: suite_dir(a.suite, &file, "no suite to score against")?,
            run: a.run,
            output: a.output.unwrap_or_else(|| defaults::SCORE_FILE.into()),
            thresholds: rules_file(a.thresholds.as_deref(), file.check.thresholds.as_deref()),
            cache_dir: cache_dir(a.cache_dir, &file),
            bootstrap: bootstrap(a.resamples, a.seed)?,
            allow_missing: a.allow_missing,
            format: a.format.unwrap_or(ScoreFormat::Text),
            facts: provenance_facts(),
        })
    }
}

/// `goldgate merge`.
#[derive(Clone, Debug)]
pub struct MergeSettings {
    pub inputs: Vec<PathBuf>,
    pub output: PathBuf,
}

impl From<cli::MergeArgs> for MergeSettings {
    fn from(a: cli::MergeArgs) -> Self {
        MergeSettings {
            inputs: a.inputs,
            output: a.output.unwrap_or_else(|| defaults::RUN_FILE.into()),
        }
    }
}

/// Waits between retried calls to GitHub and embedding endpoints; `GOLDGATE_TEST_BACKOFF_MS`
/// shortens them (tests).
pub(crate) fn retry_backoff() -> Backoff {
    test_backoff().map_or_else(Backoff::default, Backoff::with_base)
}

/// The first wait between retried calls that tests ask for (`GOLDGATE_TEST_BACKOFF_MS`).
pub(crate) fn test_backoff() -> Option<Duration> {
    std::env::var("GOLDGATE_TEST_BACKOFF_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
}

/// `goldgate compare`.
#[derive(Clone, Debug)]
pub struct CompareSettings {
    pub score: PathBuf,
    pub baseline: Option<PathBuf>,
    pub output: Option<PathBuf>,
    pub format: GateFormat,
    pub gate: GateSettings,
}

impl TryFrom<cli::CompareArgs> for CompareSettings {
    type Error = Error;

    fn try_from(a: cli::CompareArgs) -> Result<Self, Error> {
        let mut gate = GateSettings::resolve(&a.gate, None)?;
        let baseline = a
            .baseline
            .clone()
            .unwrap_or_else(|| defaults::BASELINE.into());
        gate.with_reference(&baseline, a.gate.base_ref.as_deref())?;
        gate.report.reproduce = vec![reproduce::compare(
            &a.score,
            a.baseline.as_deref(),
            gate.thresholds_path.as_deref(),
        )];
        Ok(CompareSettings {
            gate,
            score: a.score,
            baseline: a.baseline,
            output: a.output,
            format: a.format.unwrap_or(GateFormat::Text),
        })
    }
}

/// `goldgate check`: the library's settings plus how to report and publish.
#[derive(Clone, Debug)]
pub struct CheckCommand {
    pub check: CheckSettings,
    pub gate: GateSettings,
    pub format: GateFormat,
    /// Print the pipeline fingerprint and the cache the run would use, and run nothing.
    pub print_fingerprint: bool,
    /// Print what the check would send and what it would cost, and run nothing.
    pub plan: bool,
}

impl TryFrom<cli::CheckArgs> for CheckCommand {
    type Error = Error;

    fn try_from(a: cli::CheckArgs) -> Result<Self, Error> {
        let check_again = reproduce::check(&a);
        let file = config_file(a.pipeline.config.as_deref())?;
        let suite = suite_dir(a.suite, &file, "no suite to check")?;
        let out_dir = out_dir(a.out_dir, &file);
        // A baseline named by a flag or goldgate.toml must exist; the default one need not
        // (a project's first run), and --allow-missing-baseline lifts the rule.
        let (baseline, named_by) = match (a.baseline, file.check.baseline.clone()) {
            (Some(p), _) => (p, Some("--baseline")),
            (None, Some(p)) => (p, Some("[check] baseline in goldgate.toml")),
            (None, None) => (defaults::BASELINE.into(), None),
        };
        let allow = a.allow_missing_baseline || file.check.allow_missing_baseline == Some(true);
        let missing_baseline = match named_by {
            Some(by) if !allow => MissingBaseline::Refuse {
                named_by: by.into(),
                instead: crate::check::ALLOW_MISSING_BASELINE,
            },
            _ => MissingBaseline::AbsoluteRulesOnly,
        };
        let mut gate = GateSettings::resolve(&a.gate, Some(&file))?;
        gate.with_reference(&baseline, a.gate.base_ref.as_deref())?;
        if let (Some(rev), true) = (a.gate.base_ref.as_deref(), baseline.is_file()) {
            let replaced = goldgate_core::gate::ratchet::baseline_changed(rev, &baseline)?;
            gate.compare.ratchet.extend(replaced);
        }
        let compare_again = reproduce::compare(
            &out_dir.join(defaults::SCORE_FILE),
            Some(baseline.as_path()).filter(|b| b.is_file()),
            gate.thresholds_path.as_deref(),
        );
        gate.report.reproduce = vec![check_again, compare_again];
        let run = run_settings(suite, out_dir.join(defaults::RUN_FILE), a.pipeline, &file)?;
        let mut run = run::gate_run(run, &baseline, [Some(&out_dir), a.gate.thresholds.as_ref()]);
        run.own_files
            .extend(gate.thresholds.reference().map(|(p, _)| p));
        judge::require_judge(&gate.thresholds, &run)?;
        let sequential = sequential::settings(a.sequential, a.full, a.batch, &file.check, &run)?;
        if sequential.is_some() {
            let base_ref = a.gate.base_ref.as_deref();
            gate.compare
                .ratchet
                .extend(sequential::loosened(a.sequential, base_ref, &file)?);
        }
        Ok(CheckCommand {
            check: CheckSettings {
                run,
                out_dir,
                baseline_run: baseline_run_path(&baseline),
                baseline,
                missing_baseline,
                similarity: similarity::backend(&gate.thresholds),
                thresholds: gate.thresholds.clone(),
                compare: gate.compare.clone(),
                report: gate.report.clone(),
                facts: provenance_facts(),
                sequential,
            },
            gate,
            format: a.format.unwrap_or(GateFormat::Text),
            print_fingerprint: a.print_fingerprint,
            plan: a.plan,
        })
    }
}

impl TryFrom<cli::RefreshArgs> for RefreshSettings {
    type Error = Error;

    /// The run goes to a temporary directory; the rules shape the scores and say whether the
    /// run is healthy enough to be a baseline.
    fn try_from(a: cli::RefreshArgs) -> Result<Self, Error> {
        let file = config_file(a.pipeline.config.as_deref())?;
        let suite = suite_dir(a.suite, &file, "no suite to run")?;
        let baseline = a
            .baseline
            .or(file.check.baseline.clone())
            .unwrap_or_else(|| defaults::BASELINE.into());
        let thresholds = rules(
            rules_file(a.thresholds.as_deref(), file.check.thresholds.as_deref()).as_deref(),
        )?;
        let work = std::env::temp_dir().join(format!("goldgate-refresh-{}", std::process::id()));
        let run = run_settings(suite, work.join(defaults::RUN_FILE), a.pipeline, &file)?;
        let mut run = run::refresh_run(run, &baseline, a.thresholds.as_ref());
        run.own_files.extend(thresholds.reference().map(|(p, _)| p));
        judge::require_judge(&thresholds, &run)?;
        if a.accept_drift
            .as_deref()
            .is_some_and(|r| r.trim().is_empty())
        {
            return Err(Error::usage(
                "--accept-drift needs a reason",
                "say why the drift is accepted, e.g. --accept-drift \"the new tokenizer trades recall for cost\": it is kept in the baseline's provenance",
            ));
        }
        Ok(RefreshSettings {
            reference: crate::history::reference(&thresholds, &baseline, None)?.0,
            accept_drift: a.accept_drift,
            run,
            baseline_run: baseline_run_path(&baseline),
            baseline,
            similarity: similarity::backend(&thresholds),
            thresholds,
            bootstrap: bootstrap(None, None)?,
            facts: provenance_facts(),
        })
    }
}

/// `--suite`, else `[check] suite` in goldgate.toml (every command that reads a suite finds
/// it so); neither is a usage error saying where goldgate looked.
fn suite_dir(flag: Option<PathBuf>, file: &ConfigFile, what: &str) -> Result<PathBuf, Error> {
    flag.or(file.check.suite.clone()).ok_or_else(|| {
        let looked = match &file.path {
            Some(path) => format!("{} has no [check] suite", path.display()),
            None => format!("there is no {} here", defaults::CONFIG_FILE),
        };
        Error::usage(
            format!("{what}: no --suite given, and {looked}"),
            "pass --suite DIR, or set suite = \"...\" under [check] in goldgate.toml (goldgate init writes one)",
        )
    })
}

/// `goldgate baseline show`.
#[derive(Clone, Debug)]
pub struct ShowSettings {
    /// The baseline file, default [`defaults::BASELINE`].
    pub baseline: PathBuf,
    pub format: BaselineFormat,
}

impl From<cli::ShowArgs> for ShowSettings {
    fn from(a: cli::ShowArgs) -> Self {
        ShowSettings {
            baseline: a.baseline.unwrap_or_else(|| defaults::BASELINE.into()),
            format: a.format.unwrap_or(BaselineFormat::Text),
        }
    }
}

/// The rules file: `flag`, else `configured` (`[check] thresholds` in goldgate.toml), else
/// ./thresholds.toml when it exists.
fn rules_file(flag: Option<&Path>, configured: Option<&Path>) -> Option<PathBuf> {
    flag.or(configured).map(PathBuf::from).or_else(|| {
        let default = PathBuf::from(defaults::THRESHOLDS_FILE);
        default.is_file().then_some(default)
    })
}

/// The rules in `path`, or the built-in rules when there is no rules file.
fn rules(path: Option<&Path>) -> Result<Thresholds, Error> {
    match path {
        Some(p) => Thresholds::load(p),
        None => Ok(Thresholds::built_in()),
    }
}

/// `thresholds check`: the file, default [`defaults::THRESHOLDS_FILE`].
pub fn thresholds_file(flag: Option<PathBuf>) -> PathBuf {
    flag.unwrap_or_else(|| defaults::THRESHOLDS_FILE.into())
}

/// `check`'s output directory: `--out-dir`, else `[check] out_dir`, else the default.
fn out_dir(flag: Option<PathBuf>, file: &ConfigFile) -> PathBuf {
    flag.or(file.check.out_dir.clone())
        .unwrap_or_else(|| defaults::OUT_DIR.into())
}

/// The answer cache: `--cache-dir`, else `[run] cache_dir`, else the default.
fn cache_dir(flag: Option<PathBuf>, file: &ConfigFile) -> PathBuf {
    flag.or(file.run.cache_dir.clone())
        .unwrap_or_else(|| defaults::CACHE_DIR.into())
}
