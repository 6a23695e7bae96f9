//! Validated settings of each command, converted from the command line with `TryFrom`, and
//! every default goldgate applies ([`defaults`]): a flag wins over `goldgate.toml`, which
//! wins over the default. Facts from outside the inputs (git, the clock) are gathered here
//! too, so the steps below read only data. How a run is set up is in [`run`].

mod run;

pub use run::{run_settings, RunCommand};

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::baseline::RefreshSettings;
use crate::check::{CheckSettings, ReportOptions};
use crate::cli::{self, CommentOn, GateFormat, ScoreFormat, SuiteFormat};
use crate::config::ConfigFile;
use crate::error::Error;
use crate::gate::compare::CompareOptions;
use crate::gate::thresholds::Thresholds;
use crate::metrics::bootstrap::BootstrapConfig;
use crate::publish::{self, PublishOptions};
use crate::retry::Backoff;
use crate::score::Facts;

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

/// Where and when this score is made: `GITHUB_SHA`/`GITHUB_REF` inside GitHub Actions, else
/// what git says of the working directory; `SOURCE_DATE_EPOCH` makes the time reproducible.
pub fn provenance_facts() -> Facts {
    fn env_or_git(var: &str, args: &[&str]) -> Option<String> {
        if let Some(v) = std::env::var(var).ok().filter(|v| !v.is_empty()) {
            return Some(v);
        }
        let out = std::process::Command::new("git").args(args).output().ok()?;
        let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (out.status.success() && !text.is_empty()).then_some(text)
    }
    let created_at = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    Facts {
        git_sha: env_or_git("GITHUB_SHA", &["rev-parse", "HEAD"]),
        git_ref: env_or_git("GITHUB_REF", &["rev-parse", "--abbrev-ref", "HEAD"]),
        created_at,
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

/// `goldgate score`.
#[derive(Clone, Debug)]
pub struct ScoreSettings {
    pub suite: PathBuf,
    pub run: PathBuf,
    pub output: PathBuf,
    pub thresholds: Option<PathBuf>,
    pub bootstrap: BootstrapConfig,
    pub allow_missing: bool,
    pub format: ScoreFormat,
    pub facts: Facts,
}

impl TryFrom<cli::ScoreArgs> for ScoreSettings {
    type Error = Error;

    fn try_from(a: cli::ScoreArgs) -> Result<Self, Error> {
        Ok(ScoreSettings {
            suite: a.suite,
            run: a.run,
            output: a.output.unwrap_or_else(|| defaults::SCORE_FILE.into()),
            thresholds: a.thresholds,
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

/// `goldgate suite lint` and `suite stats`.
#[derive(Clone, Debug)]
pub struct SuiteSettings {
    /// The suite directory, or a project directory whose goldgate.toml names it.
    pub dir: PathBuf,
    pub format: SuiteFormat,
}

impl From<cli::SuiteArgs> for SuiteSettings {
    fn from(a: cli::SuiteArgs) -> Self {
        SuiteSettings {
            dir: a.dir,
            format: a.format.unwrap_or(SuiteFormat::Text),
        }
    }
}

/// `goldgate suite agreement`.
#[derive(Clone, Debug)]
pub struct AgreementSettings {
    pub suite: SuiteSettings,
    pub min_kappa: f64,
}

impl TryFrom<cli::AgreementArgs> for AgreementSettings {
    type Error = Error;

    fn try_from(a: cli::AgreementArgs) -> Result<Self, Error> {
        let min_kappa = a.min_kappa.unwrap_or(defaults::MIN_KAPPA);
        if !(-1.0..=1.0).contains(&min_kappa) {
            return Err(Error::usage(
                format!("--min-kappa {min_kappa} is outside [-1, 1]"),
                "the labelling guide's bar is 0.75",
            ));
        }
        Ok(AgreementSettings {
            suite: a.suite.into(),
            min_kappa,
        })
    }
}

/// The rules, how to apply them, and how to report and publish the verdict (`compare`,
/// `check`, `publish`).
#[derive(Clone, Debug)]
pub struct GateSettings {
    pub thresholds: Thresholds,
    pub compare: CompareOptions,
    pub format: GateFormat,
    pub report: ReportOptions,
    pub publish: PublishOptions,
}

impl GateSettings {
    /// `--thresholds`, else `configured`, else ./thresholds.toml when it exists, else the
    /// built-in rules; and the ratchet against `--base-thresholds` or the file at
    /// `--base-ref`.
    pub fn resolve(a: &cli::GateArgs, configured: Option<&Path>) -> Result<Self, Error> {
        let path = a
            .thresholds
            .as_deref()
            .or(configured)
            .map(PathBuf::from)
            .or_else(|| {
                let default = PathBuf::from(defaults::THRESHOLDS_FILE);
                default.is_file().then_some(default)
            });
        let thresholds = match &path {
            Some(p) => Thresholds::load(p)?,
            None => Thresholds::parse("version = 1", Path::new("(no thresholds file)"))?,
        };
        let base = match (&a.base_thresholds, &a.base_ref) {
            (Some(file), _) => Some(Thresholds::load(file)?),
            (None, Some(rev)) => {
                let p = path.unwrap_or_else(|| PathBuf::from(defaults::THRESHOLDS_FILE));
                crate::gate::ratchet::at_revision(rev, &p)?
            }
            (None, None) => None,
        };
        let ratchet = base
            .map(|b| crate::gate::ratchet::loosened(&b, &thresholds))
            .unwrap_or_default();
        Ok(GateSettings {
            thresholds,
            compare: CompareOptions {
                bootstrap: bootstrap(a.resamples, a.seed)?,
                allow_version_change: a.allow_version_change,
                ratchet,
            },
            format: a.format.unwrap_or(GateFormat::Text),
            report: ReportOptions {
                gate_name: a
                    .gate_name
                    .clone()
                    .unwrap_or_else(|| defaults::GATE_NAME.into()),
                templates: a.templates.clone(),
            },
            publish: PublishOptions {
                gate_name: a
                    .gate_name
                    .clone()
                    .unwrap_or_else(|| defaults::GATE_NAME.into()),
                comment_on: match a.comment_on.unwrap_or(CommentOn::Always) {
                    CommentOn::Always => publish::CommentOn::Always,
                    CommentOn::Regression => publish::CommentOn::Regression,
                    CommentOn::Never => publish::CommentOn::Never,
                },
                pr: a.pr,
                check_run: a.check_run,
                backoff: github_backoff(),
            },
        })
    }
}

/// Waits between retried GitHub calls; `GOLDGATE_TEST_BACKOFF_MS` shortens them (tests).
fn github_backoff() -> Backoff {
    std::env::var("GOLDGATE_TEST_BACKOFF_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or_else(Backoff::default, |ms| {
            Backoff::with_base(Duration::from_millis(ms))
        })
}

/// `goldgate compare`.
#[derive(Clone, Debug)]
pub struct CompareSettings {
    pub score: PathBuf,
    pub baseline: Option<PathBuf>,
    pub output: Option<PathBuf>,
    pub gate: GateSettings,
}

impl TryFrom<cli::CompareArgs> for CompareSettings {
    type Error = Error;

    fn try_from(a: cli::CompareArgs) -> Result<Self, Error> {
        Ok(CompareSettings {
            gate: GateSettings::resolve(&a.gate, None)?,
            score: a.score,
            baseline: a.baseline,
            output: a.output,
        })
    }
}

/// `goldgate check`: the library's settings plus how to report and publish.
#[derive(Clone, Debug)]
pub struct CheckCommand {
    pub check: CheckSettings,
    pub gate: GateSettings,
}

impl TryFrom<cli::CheckArgs> for CheckCommand {
    type Error = Error;

    fn try_from(a: cli::CheckArgs) -> Result<Self, Error> {
        let file = config_file(a.pipeline.config.as_deref())?;
        let suite = suite_dir(a.suite, &file, "no suite to check")?;
        let out_dir = a
            .out_dir
            .or(file.check.out_dir.clone())
            .unwrap_or_else(|| defaults::OUT_DIR.into());
        let baseline = a
            .baseline
            .or(file.check.baseline.clone())
            .unwrap_or_else(|| defaults::BASELINE.into());
        let gate = GateSettings::resolve(&a.gate, file.check.thresholds.as_deref())?;
        let run = run_settings(suite, out_dir.join(defaults::RUN_FILE), a.pipeline, &file)?;
        Ok(CheckCommand {
            check: CheckSettings {
                run,
                out_dir,
                baseline_run: baseline_run_path(&baseline),
                baseline,
                thresholds: gate.thresholds.clone(),
                compare: gate.compare.clone(),
                report: gate.report.clone(),
                facts: provenance_facts(),
            },
            gate,
        })
    }
}

impl TryFrom<cli::RefreshArgs> for RefreshSettings {
    type Error = Error;

    /// The run goes to a temporary directory; the rules shape the scores.
    fn try_from(a: cli::RefreshArgs) -> Result<Self, Error> {
        let file = config_file(a.pipeline.config.as_deref())?;
        let suite = suite_dir(a.suite, &file, "no suite to run")?;
        let baseline = a
            .baseline
            .or(file.check.baseline.clone())
            .unwrap_or_else(|| defaults::BASELINE.into());
        let thresholds = match a.thresholds.as_deref().or(file.check.thresholds.as_deref()) {
            Some(p) => Some(Thresholds::load(p)?),
            None if Path::new(defaults::THRESHOLDS_FILE).is_file() => {
                Some(Thresholds::load(Path::new(defaults::THRESHOLDS_FILE))?)
            }
            None => None,
        };
        let work = std::env::temp_dir().join(format!("goldgate-refresh-{}", std::process::id()));
        let run = run_settings(suite, work.join(defaults::RUN_FILE), a.pipeline, &file)?;
        Ok(RefreshSettings {
            run,
            baseline_run: baseline_run_path(&baseline),
            baseline,
            scoring: thresholds.map(|t| t.scoring()).unwrap_or_default(),
            bootstrap: bootstrap(None, None)?,
            facts: provenance_facts(),
        })
    }
}

/// `goldgate publish`.
#[derive(Clone, Debug)]
pub struct PublishSettings {
    pub verdict: PathBuf,
    pub gate: GateSettings,
}

impl TryFrom<cli::PublishArgs> for PublishSettings {
    type Error = Error;

    fn try_from(a: cli::PublishArgs) -> Result<Self, Error> {
        Ok(PublishSettings {
            gate: GateSettings::resolve(&a.gate, None)?,
            verdict: a.verdict,
        })
    }
}

/// `--suite`, else `[check] suite` in goldgate.toml.
fn suite_dir(flag: Option<PathBuf>, file: &ConfigFile, what: &str) -> Result<PathBuf, Error> {
    flag.or(file.check.suite.clone()).ok_or_else(|| {
        Error::usage(
            what,
            "pass --suite DIR, or set suite = \"...\" under [check] in goldgate.toml",
        )
    })
}

/// `baseline show`: the file, default [`defaults::BASELINE`].
pub fn baseline_file(flag: Option<PathBuf>) -> PathBuf {
    flag.unwrap_or_else(|| defaults::BASELINE.into())
}

/// `thresholds check`: the file, default [`defaults::THRESHOLDS_FILE`].
pub fn thresholds_file(flag: Option<PathBuf>) -> PathBuf {
    flag.unwrap_or_else(|| defaults::THRESHOLDS_FILE.into())
}

/// `goldgate hook install`.
#[derive(Clone, Debug)]
pub struct HookInstallSettings {
    pub force: bool,
    /// Arguments for `goldgate check`, already checked by clap.
    pub check_args: Vec<String>,
    /// The binary the hook runs (this one).
    pub goldgate: PathBuf,
}

impl TryFrom<cli::HookInstallArgs> for HookInstallSettings {
    type Error = Error;

    fn try_from(a: cli::HookInstallArgs) -> Result<Self, Error> {
        cli::validate_check_args(&a.check_args).map_err(|why| {
            Error::usage(
                format!("the hook's check arguments are not valid: {why}"),
                "pass `goldgate check` options after `--`, e.g. goldgate hook install -- --config ci/goldgate.toml",
            )
        })?;
        let goldgate = std::env::current_exe()
            .and_then(|p| p.canonicalize())
            .unwrap_or_else(|_| PathBuf::from("goldgate"));
        Ok(HookInstallSettings {
            force: a.force,
            check_args: a.check_args,
            goldgate,
        })
    }
}
