//! Validated settings of each command, converted from the command line with `TryFrom`.

use std::path::PathBuf;

use std::time::Duration;

use crate::cli::{self, Format};
use crate::error::Error;
use crate::metrics::bootstrap::BootstrapConfig;
use crate::pipeline::cache::CacheMode;
use crate::pipeline::config::{Adapter, Mode, PipelineConfig, Shard};

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

    fn try_from(a: cli::RunArgs) -> Result<Self, Error> {
        let adapter = match (a.command, a.http, a.replay) {
            (Some(command), None, None) => Adapter::Command { command, mode: match a.mode {
                    cli::ModeArg::Oneshot => Mode::Oneshot,
                    cli::ModeArg::Jsonl => Mode::Jsonl,
                } },
            (None, Some(url), None) => Adapter::Http { url, headers: parse_headers(&a.headers)? },
            (None, None, Some(file)) => Adapter::Replay { file },
            _ => {
                return Err(Error::usage(
                    "no pipeline to run",
                    "pass --command 'CMD' (the sample JSON arrives on stdin, the answer goes to stdout), --http URL or --replay FILE",
                ))
            }
        };
        if a.jobs == 0 || a.jobs > 4096 {
            return Err(Error::usage(
                format!("--jobs {} is out of range", a.jobs),
                "use 1 to 4096 calls in flight",
            ));
        }
        if !(a.timeout > 0.0 && a.timeout.is_finite()) {
            return Err(Error::usage(
                format!(
                    "--timeout {} is not a positive number of seconds",
                    a.timeout
                ),
                "for example --timeout 60",
            ));
        }
        let mut pipeline = PipelineConfig::new(adapter);
        pipeline.timeout = Duration::from_secs_f64(a.timeout);
        pipeline.max_output_bytes = a.max_output_bytes.max(1);
        pipeline.retries = a.retries;
        pipeline.model = a.model;
        pipeline.fingerprint_files = a.fingerprint_files;
        if a.repeat == 0 || a.repeat > 1000 {
            return Err(Error::usage(
                format!("--repeat {} is out of range", a.repeat),
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
        let cache = match (a.no_cache, a.refresh_cache) {
            (true, _) => CacheMode::Off,
            (false, true) => CacheMode::Refresh,
            (false, false) => CacheMode::Use,
        };
        Ok(RunSettings {
            suite: a.suite,
            output: a.output,
            pipeline,
            jobs: a.jobs,
            resume: a.resume,
            repeat: a.repeat,
            shard,
            cache_dir: a.cache_dir,
            cache,
            max_errors: a.max_errors,
            rpm: a.rpm,
            tpm: a.tpm,
        })
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
