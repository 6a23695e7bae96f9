//! Validated settings of each command, converted from the command line with `TryFrom`.

use std::path::PathBuf;

use std::time::Duration;

use crate::cli::{self, Format};
use crate::config::{ConfigFile, PipelineTable};
use crate::error::Error;
use crate::metrics::bootstrap::BootstrapConfig;
use crate::run::cache::CacheMode;
use crate::run::config::{
    Adapter, Mode, PipelineConfig, Shard, DEFAULT_MAX_OUTPUT, DEFAULT_TIMEOUT,
};

/// Where and when this score is made: `GITHUB_SHA`/`GITHUB_REF` inside GitHub Actions, else
/// what git says of the working directory; `SOURCE_DATE_EPOCH` makes the time reproducible.
pub fn provenance_facts() -> crate::score::Facts {
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
    crate::score::Facts {
        git_sha: env_or_git("GITHUB_SHA", &["rev-parse", "HEAD"]),
        git_ref: env_or_git("GITHUB_REF", &["rev-parse", "--abbrev-ref", "HEAD"]),
        created_at,
    }
}

/// Where `baseline refresh` keeps the baseline's run, beside it (`main.json` →
/// `main.run.jsonl`): reports diff a broken sample's answers against it.
pub fn baseline_run_path(baseline: &std::path::Path) -> PathBuf {
    baseline.with_extension("run.jsonl")
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
    pub format: Format,
}

/// Most resamples accepted (beyond this the CI does not change, only the wait).
pub const MAX_RESAMPLES: usize = 100_000;

impl TryFrom<cli::ScoreArgs> for ScoreSettings {
    type Error = Error;

    fn try_from(a: cli::ScoreArgs) -> Result<Self, Error> {
        if a.resamples > MAX_RESAMPLES {
            return Err(Error::usage(
                format!("--resamples {} is too many", a.resamples),
                format!("use at most {MAX_RESAMPLES}; 1000 is plenty for a 95% interval"),
            ));
        }
        Ok(ScoreSettings {
            suite: a.suite,
            run: a.run,
            output: a.output,
            thresholds: a.thresholds,
            bootstrap: BootstrapConfig {
                resamples: a.resamples,
                seed: a.seed,
                ..BootstrapConfig::default()
            },
            allow_missing: a.allow_missing,
            format: a.format,
        })
    }
}

/// `goldgate suite agreement`.
#[derive(Clone, Debug)]
pub struct AgreementSettings {
    pub dir: PathBuf,
    pub min_kappa: f64,
    pub format: Format,
}

impl TryFrom<cli::AgreementArgs> for AgreementSettings {
    type Error = Error;

    fn try_from(a: cli::AgreementArgs) -> Result<Self, Error> {
        if !(-1.0..=1.0).contains(&a.min_kappa) {
            return Err(Error::usage(
                format!("--min-kappa {} is outside [-1, 1]", a.min_kappa),
                "the seed's bar is 0.75",
            ));
        }
        Ok(AgreementSettings {
            dir: a.suite.dir,
            min_kappa: a.min_kappa,
            format: a.suite.format,
        })
    }
}

/// `goldgate run`.
#[derive(Clone, Debug)]
pub struct RunSettings {
    pub suite: PathBuf,
    pub output: PathBuf,
    pub pipeline: PipelineConfig,
    pub jobs: usize,
    pub resume: bool,
    pub repeat: u32,
    pub shard: Option<Shard>,
    pub cache_dir: PathBuf,
    pub cache: CacheMode,
    pub max_errors: Option<usize>,
    pub rpm: Option<u32>,
    pub tpm: Option<u64>,
}

impl TryFrom<cli::RunArgs> for RunSettings {
    type Error = Error;

    /// Flags, then `goldgate.toml` (`--config`, or the one in the working directory), then
    /// defaults.
    fn try_from(a: cli::RunArgs) -> Result<Self, Error> {
        let file = ConfigFile::discover(a.pipeline.config.as_deref())?;
        RunSettings::resolve(a.suite, a.output, a.pipeline, &file)
    }
}

impl RunSettings {
    /// Settings for running `suite` into `output` with these pipeline flags over `file`.
    pub fn resolve(
        suite: PathBuf,
        output: PathBuf,
        a: cli::PipelineArgs,
        file: &ConfigFile,
    ) -> Result<Self, Error> {
        let (p, r) = (file.pipeline.clone(), file.run.clone());
        let adapter = adapter(&a, &p)?;
        let jobs = a.jobs.or(r.jobs).unwrap_or(16);
        if jobs == 0 || jobs > 4096 {
            return Err(Error::usage(
                format!("jobs = {jobs} is out of range"),
                "use 1 to 4096 calls in flight",
            ));
        }
        let timeout = a
            .timeout
            .or(p.timeout_secs)
            .unwrap_or(DEFAULT_TIMEOUT.as_secs_f64());
        if !(timeout > 0.0 && timeout.is_finite()) {
            return Err(Error::usage(
                format!("timeout {timeout} is not a positive number of seconds"),
                "for example --timeout 60",
            ));
        }
        let repeat = a.repeat.or(r.repeat).unwrap_or(1);
        if repeat == 0 || repeat > 1000 {
            return Err(Error::usage(
                format!("repeat {repeat} is out of range"),
                "use 1 to 1000 (3 is usual for a flakiness check)",
            ));
        }
        let shard = match a.shard.as_deref() {
            None => None,
            Some(text) => Some(Shard::parse(text).ok_or_else(|| {
                Error::usage(
                    format!("--shard `{text}` is not of the form i/N"),
                    "for example --shard 1/4 (shards count from 1)",
                )
            })?),
        };
        let mut pipeline = PipelineConfig::new(adapter);
        pipeline.timeout = Duration::from_secs_f64(timeout);
        pipeline.max_output_bytes = a
            .max_output_bytes
            .or(p.max_output_bytes)
            .unwrap_or(DEFAULT_MAX_OUTPUT)
            .max(1);
        pipeline.retries = a.retries.or(p.retries).unwrap_or(3);
        pipeline.model = a.model.or(p.model);
        pipeline.fingerprint_files = if a.fingerprint_files.is_empty() {
            p.fingerprint_files
        } else {
            a.fingerprint_files
        };
        let cache = match (a.no_cache, a.refresh_cache) {
            (true, _) => CacheMode::Off,
            (false, true) => CacheMode::Refresh,
            (false, false) => CacheMode::Use,
        };
        Ok(RunSettings {
            suite,
            output,
            pipeline,
            jobs,
            resume: a.resume,
            repeat,
            shard,
            cache_dir: a
                .cache_dir
                .or(r.cache_dir)
                .unwrap_or_else(|| PathBuf::from(crate::run::cache::DEFAULT_DIR)),
            cache,
            max_errors: a.max_errors.or(r.max_errors),
            rpm: a.rpm.or(p.rpm),
            tpm: a.tpm.or(p.tpm),
        })
    }
}

/// The adapter: a flag wins; otherwise `[pipeline]`.
fn adapter(a: &cli::PipelineArgs, p: &PipelineTable) -> Result<Adapter, Error> {
    let mode = match (a.mode, p.mode.as_deref()) {
        (Some(cli::ModeArg::Jsonl), _) | (None, Some("jsonl")) => Mode::Jsonl,
        (Some(cli::ModeArg::Oneshot), _) | (None, Some("oneshot") | None) => Mode::Oneshot,
        (None, Some(other)) => {
            return Err(Error::usage(
                format!("[pipeline] mode = \"{other}\" is not a mode"),
                crate::text::hint_for(other, &["oneshot", "jsonl"]),
            ))
        }
    };
    let file_headers: Vec<(String, String)> = p
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let headers = if a.headers.is_empty() {
        file_headers
    } else {
        parse_headers(&a.headers)?
    };
    if let Some(command) = &a.command {
        return Ok(Adapter::Command {
            command: command.clone(),
            mode,
        });
    }
    if let Some(url) = &a.http {
        return Ok(Adapter::Http {
            url: url.clone(),
            headers,
        });
    }
    if let Some(file) = &a.replay {
        return Ok(Adapter::Replay { file: file.clone() });
    }
    let missing = |key: &str, kind: &str| {
        Error::usage(
            format!("[pipeline] kind = \"{kind}\" needs `{key}`"),
            format!("add {key} = ... to [pipeline] in goldgate.toml"),
        )
    };
    match p.kind.as_deref() {
        Some("command") => Ok(Adapter::Command { command: p.command.clone().ok_or_else(|| missing("command", "command"))?, mode }),
        Some("http") => Ok(Adapter::Http { url: p.url.clone().ok_or_else(|| missing("url", "http"))?, headers }),
        Some("replay") => Ok(Adapter::Replay { file: p.file.clone().ok_or_else(|| missing("file", "replay"))? }),
        Some(other) => Err(Error::usage(format!("[pipeline] kind = \"{other}\" is not an adapter"), crate::text::hint_for(other, &["command", "http", "replay"]))),
        None => Err(Error::usage(
            "no pipeline to run",
            "pass --command 'CMD' (the sample JSON arrives on stdin, the answer goes to stdout), --http URL or --replay FILE, or set [pipeline] in goldgate.toml",
        )),
    }
}

/// `Name: value` headers.
fn parse_headers(raw: &[String]) -> Result<Vec<(String, String)>, Error> {
    raw.iter()
        .map(|h| match h.split_once(':') {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_string(), value.trim().to_string()))
            }
            _ => Err(Error::usage(
                format!("--header `{h}` is not of the form 'Name: value'"),
                "for example --header 'Authorization: Bearer ${API_TOKEN}'",
            )),
        })
        .collect()
}

/// The rules and how to apply them (`compare`, `check`).
pub struct GateSettings {
    pub thresholds: crate::gate::thresholds::Thresholds,
    pub ratchet: Vec<String>,
    pub bootstrap: BootstrapConfig,
    pub allow_version_change: bool,
    pub format: Format,
    pub gate_name: String,
    pub templates: Option<PathBuf>,
    pub comment_on: cli::CommentOn,
    pub pr: Option<u64>,
    pub check_run: bool,
}

impl GateSettings {
    /// `--thresholds`, else `configured`, else ./thresholds.toml when it exists, else none;
    /// and the ratchet against `--base-thresholds` or the file at `--base-ref`.
    pub fn resolve(a: &cli::GateArgs, configured: Option<&std::path::Path>) -> Result<Self, Error> {
        use crate::gate::thresholds::Thresholds;
        let path = a
            .thresholds
            .as_deref()
            .or(configured)
            .map(PathBuf::from)
            .or_else(|| {
                let default = PathBuf::from("thresholds.toml");
                default.is_file().then_some(default)
            });
        let thresholds = match &path {
            Some(p) => Thresholds::load(p)?,
            None => Thresholds::parse("version = 1", std::path::Path::new("(no thresholds file)"))?,
        };
        let base = match (&a.base_thresholds, &a.base_ref) {
            (Some(file), _) => Some(Thresholds::load(file)?),
            (None, Some(rev)) => {
                let p = path
                    .clone()
                    .unwrap_or_else(|| PathBuf::from("thresholds.toml"));
                crate::gate::ratchet::at_revision(rev, &p)?
            }
            (None, None) => None,
        };
        let ratchet = base
            .map(|b| crate::gate::ratchet::loosened(&b, &thresholds))
            .unwrap_or_default();
        if a.resamples > MAX_RESAMPLES {
            return Err(Error::usage(
                format!("--resamples {} is too many", a.resamples),
                format!("use at most {MAX_RESAMPLES}"),
            ));
        }
        Ok(GateSettings {
            thresholds,
            ratchet,
            bootstrap: BootstrapConfig {
                resamples: a.resamples,
                seed: a.seed,
                ..BootstrapConfig::default()
            },
            allow_version_change: a.allow_version_change,
            format: a.format,
            gate_name: a.gate_name.clone(),
            templates: a.templates.clone(),
            comment_on: a.comment_on,
            pr: a.pr,
            check_run: a.check_run,
        })
    }
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
