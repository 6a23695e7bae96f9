//! Settings of a run (`run`, and the run inside `check` and `baseline refresh`): the
//! pipeline adapter from flags or `[pipeline]`, concurrency, timeouts, repeats, shards,
//! the cache and rate limits, with their defaults.

use std::path::PathBuf;
use std::time::Duration;

use super::{config_file, defaults};
use crate::cli;
use crate::config::{ConfigFile, PipelineTable};
use crate::error::Error;
use crate::run::cache::CacheMode;
use crate::run::config::{Adapter, Mode, PipelineConfig, Shard};
use crate::run::plan::RunSettings;

impl TryFrom<cli::RunArgs> for RunSettings {
    type Error = Error;

    fn try_from(a: cli::RunArgs) -> Result<Self, Error> {
        let file = config_file(a.pipeline.config.as_deref())?;
        let output = a.output.unwrap_or_else(|| defaults::RUN_FILE.into());
        run_settings(a.suite, output, a.pipeline, &file)
    }
}

/// Settings for running `suite` into `output` with these pipeline flags over `file`.
pub fn run_settings(
    suite: PathBuf,
    output: PathBuf,
    a: cli::PipelineArgs,
    file: &ConfigFile,
) -> Result<RunSettings, Error> {
    let (p, r) = (file.pipeline.clone(), file.run.clone());
    let adapter = adapter(&a, &p)?;
    let jobs = a.jobs.or(r.jobs).unwrap_or(defaults::JOBS);
    if jobs == 0 || jobs > 4096 {
        return Err(Error::usage(
            format!("jobs = {jobs} is out of range"),
            "use 1 to 4096 calls in flight",
        ));
    }
    let timeout = a
        .timeout
        .or(p.timeout_secs)
        .unwrap_or(defaults::TIMEOUT_SECS as f64);
    if !(timeout > 0.0 && timeout.is_finite()) {
        return Err(Error::usage(
            format!("timeout {timeout} is not a positive number of seconds"),
            "for example --timeout 60",
        ));
    }
    let repeat = a.repeat.or(r.repeat).unwrap_or(defaults::REPEAT);
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
    let pipeline = PipelineConfig {
        adapter,
        timeout: Duration::from_secs_f64(timeout),
        max_output_bytes: a
            .max_output_bytes
            .or(p.max_output_bytes)
            .unwrap_or(defaults::MAX_OUTPUT_BYTES)
            .max(1),
        retries: a.retries.or(p.retries).unwrap_or(defaults::RETRIES),
        model: a.model.or(p.model),
        fingerprint_files: if a.fingerprint_files.is_empty() {
            p.fingerprint_files
        } else {
            a.fingerprint_files
        },
    };
    let cache = match (a.no_cache, a.refresh_cache) {
        (true, _) => CacheMode::Off,
        (false, true) => CacheMode::Refresh,
        (false, false) => CacheMode::Use,
    };
    Ok(RunSettings {
        suite,
        max_sample_bytes: super::max_sample_bytes(a.max_sample_bytes, file)?,
        output,
        pipeline,
        jobs,
        resume: a.resume,
        repeat,
        shard,
        cache_dir: super::cache_dir(a.cache_dir, file),
        cache,
        max_errors: a.max_errors.or(r.max_errors),
        rpm: a.rpm.or(p.rpm),
        tpm: a.tpm.or(p.tpm),
    })
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
    let headers = if a.headers.is_empty() {
        p.headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
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
