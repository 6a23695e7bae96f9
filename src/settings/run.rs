//! Settings of a run (`run`, and the run inside `check` and `baseline refresh`): the
//! pipeline adapter from flags or `[pipeline]` (and where it was configured), the
//! directory and environment a command gets, concurrency, timeouts, repeats, shards, the
//! cache (with goldgate's own files, which are not the pipeline's code) and rate limits,
//! with their defaults; and for `goldgate run`, the rules whose `run.error_rate` decides
//! when failed calls make the run incomplete.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{baseline_run_path, config_file, defaults};
use crate::cli;
use crate::config::{ConfigFile, PipelineTable};
use goldgate_core::error::Error;
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::runfile::lock::OutputLock;
use goldgate_core::runfile::writer::RecordWriter;
use goldgate_run::cache::CacheMode;
use goldgate_run::config::{Adapter, EnvPolicy, Mode, Origin, PipelineConfig, Shard};
use goldgate_run::plan::RunSettings;

/// `goldgate run`: the run, and the rules that judge its failed calls.
#[derive(Clone, Debug)]
pub struct RunCommand {
    pub run: RunSettings,
    /// `run.error_rate`'s rule comes from here (the built-in one when no file is found).
    pub thresholds: Thresholds,
    /// The rules file, when there is one.
    pub thresholds_file: Option<PathBuf>,
}

impl TryFrom<cli::RunArgs> for RunCommand {
    type Error = Error;

    /// `--thresholds`, else `[check] thresholds`, else ./thresholds.toml when it exists,
    /// else the built-in rules.
    fn try_from(mut a: cli::RunArgs) -> Result<Self, Error> {
        let file = config_file(a.pipeline.config.as_deref())?;
        let thresholds_file = super::rules_file(
            a.thresholds.take().as_deref(),
            file.check.thresholds.as_deref(),
        );
        let thresholds = match &thresholds_file {
            Some(p) => Thresholds::load(p)?,
            None => Thresholds::parse("version = 1", Path::new("(no thresholds file)"))?,
        };
        let output = a.output.unwrap_or_else(|| defaults::RUN_FILE.into());
        let suite = super::suite_dir(a.suite, &file, "no suite to run")?;
        let run = run_settings(suite, output, a.pipeline, &file)?;
        super::judge::require_judge(&thresholds, &run)?;
        Ok(RunCommand {
            run,
            thresholds,
            thresholds_file,
        })
    }
}

impl TryFrom<cli::RunArgs> for RunSettings {
    type Error = Error;

    fn try_from(a: cli::RunArgs) -> Result<Self, Error> {
        let file = config_file(a.pipeline.config.as_deref())?;
        let output = a.output.unwrap_or_else(|| defaults::RUN_FILE.into());
        let suite = super::suite_dir(a.suite, &file, "no suite to run")?;
        run_settings(suite, output, a.pipeline, &file)
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
    let timeout = Duration::from_secs_f64(timeout);
    let max_output_bytes = a
        .max_output_bytes
        .or(p.max_output_bytes)
        .unwrap_or(defaults::MAX_OUTPUT_BYTES)
        .max(1);
    let (adapter, from_file) = adapter(&a, &p, timeout, max_output_bytes, file.path.as_deref())?;
    super::chat::refuse_unused(&a, &p, &adapter, from_file, file.path.as_deref())?;
    let origin = match (&file.path, from_file) {
        (Some(path), true) => Origin::File(path.clone()),
        _ => Origin::Flags,
    };
    // A command from goldgate.toml runs in that file's directory (or its `workdir`), so
    // `--config ci/goldgate.toml` works from anywhere; one from --command runs here.
    let config_dir = file
        .path
        .as_deref()
        .and_then(Path::parent)
        .filter(|d| !d.as_os_str().is_empty())
        .map(Path::to_path_buf);
    let workdir = match (&adapter, from_file) {
        (Adapter::Command { .. }, true) => p.workdir.clone().or(config_dir),
        (Adapter::Command { .. }, false) => p.workdir.clone(),
        _ => None,
    };
    let passthrough = if a.env_passthrough.is_empty() {
        p.env_passthrough.clone()
    } else {
        a.env_passthrough.clone()
    };
    if let Some(bad) = passthrough
        .iter()
        .find(|n| n.is_empty() || n.contains('=') || n.trim_end_matches('*').contains('*'))
    {
        return Err(Error::usage(
            format!("env_passthrough `{bad}` is not an environment variable name"),
            "name variables as NAME, or PREFIX_* for every variable starting with PREFIX_",
        ));
    }
    let fingerprint_env = fingerprint_env(&a, &p, file)?;
    let env = EnvPolicy {
        clear: a.env_clear || p.env_clear.unwrap_or(false),
        passthrough,
        withheld: defaults::WITHHELD_ENV
            .iter()
            .map(|s| s.to_string())
            .collect(),
        kept_when_clear: defaults::ENV_CLEAR_KEEPS
            .iter()
            .map(|s| s.to_string())
            .collect(),
    };
    let jobs = a.jobs.or(r.jobs).unwrap_or(defaults::JOBS);
    if jobs == 0 || jobs > 4096 {
        return Err(Error::usage(
            format!("jobs = {jobs} is out of range"),
            "use 1 to 4096 calls in flight",
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
    let pricing = super::chat::pricing(&a, &p)?;
    let max_cost = super::chat::max_cost(a.max_cost, r.max_cost)?;
    if let (Some(_), None, Adapter::Chat(_) | Adapter::SrsAgents(_)) = (max_cost, pricing, &adapter)
    {
        return Err(Error::usage(
            "--max-cost needs the token prices: a chat API reports tokens, not dollars",
            "state the prices under [pipeline.pricing] (input_per_mtok, output_per_mtok) or pass --input-per-mtok and --output-per-mtok",
        ));
    }
    // The judge's calls count against the budget too: without its prices they could spend
    // it unseen.
    let judge = super::judge::judge_settings(file)?;
    if let (Some(_), Some(j)) = (max_cost, &judge) {
        if j.pricing.is_none() {
            return Err(Error::usage(
                "--max-cost needs the judge's token prices too: its calls count against the budget, and a chat API reports tokens, not dollars",
                "state them under [judge.pricing] (input_per_mtok, output_per_mtok)",
            ));
        }
    }
    let model = match &adapter {
        Adapter::Chat(chat) => Some(chat.model.clone()),
        Adapter::SrsAgents(agents) => Some(agents.model.clone()),
        _ => a.model.clone().or(p.model.clone()),
    };
    let pipeline = PipelineConfig {
        adapter,
        timeout,
        max_output_bytes,
        retries: a.retries.or(p.retries).unwrap_or(defaults::RETRIES),
        model,
        fingerprint_files: if a.fingerprint_files.is_empty() {
            p.fingerprint_files
        } else {
            a.fingerprint_files
        },
        fingerprint_env,
        origin,
        workdir,
        env,
    };
    let cache = match (a.no_cache, a.refresh_cache) {
        (true, _) => CacheMode::Off,
        (false, true) => CacheMode::Refresh,
        (false, false) => CacheMode::Use,
    };
    let cache_ttl = match &a.cache_ttl {
        Some(text) => Some(crate::config::parse_duration(text).map_err(|why| {
            Error::usage(
                format!(
                    "--cache-ttl {text} {}",
                    why.split(':').next().unwrap_or(&why)
                ),
                "write a whole number and a unit (s, m, h or d), such as --cache-ttl 1h",
            )
        })?),
        None => p.cache_ttl,
    };
    let cache_dir = super::cache_dir(a.cache_dir, file);
    let own_files = own_files(&suite, &output, &cache_dir, file);
    Ok(RunSettings {
        suite,
        max_sample_bytes: super::max_sample_bytes(a.max_sample_bytes, file)?,
        output,
        pipeline,
        jobs,
        resume: a.resume,
        repeat,
        shard,
        cache_dir,
        cache,
        cache_pipeline: a.cache.then_some(true).or(p.cache),
        cache_ttl,
        own_files,
        max_errors: a.max_errors.or(r.max_errors),
        rpm: a.rpm.or(p.rpm),
        tpm: a.tpm.or(p.tpm),
        pricing,
        max_cost,
        judge,
    })
}

/// `check`'s run: its output directory, baseline (with its run) and a rules file named by
/// a flag are goldgate's own files too (and so is the rules' drift reference, added by the
/// caller: pinning it changes no pipeline).
pub(super) fn gate_run<'a>(
    mut run: RunSettings,
    baseline: &Path,
    more: impl IntoIterator<Item = Option<&'a PathBuf>>,
) -> RunSettings {
    run.own_files
        .extend([baseline.to_path_buf(), baseline_run_path(baseline)]);
    run.own_files.extend(more.into_iter().flatten().cloned());
    run
}

/// `baseline refresh`'s run: a baseline is made of fresh answers, so the cache is written,
/// never read; the baseline and a rules file named by a flag are goldgate's own files.
pub(super) fn refresh_run(
    mut run: RunSettings,
    baseline: &Path,
    thresholds: Option<&PathBuf>,
) -> RunSettings {
    if run.cache == CacheMode::Use {
        run.cache = CacheMode::Refresh;
    }
    gate_run(run, baseline, [thresholds])
}

/// goldgate's own inputs and outputs as far as a run knows them: the suite, the run file (and
/// its partial and lock files), the cache, `.goldgate/`, and the baseline (with its run),
/// rules and output directory `goldgate.toml` names or the defaults. `check` and
/// `baseline refresh` add the ones their flags name.
fn own_files(suite: &Path, output: &Path, cache_dir: &Path, file: &ConfigFile) -> Vec<PathBuf> {
    let c = &file.check;
    let baseline = c
        .baseline
        .clone()
        .unwrap_or_else(|| defaults::BASELINE.into());
    let mut own = vec![
        suite.to_path_buf(),
        output.to_path_buf(),
        RecordWriter::partial_path(output),
        OutputLock::path_of(output),
        cache_dir.to_path_buf(),
        baseline_run_path(&baseline),
        baseline,
        c.thresholds
            .clone()
            .unwrap_or_else(|| defaults::THRESHOLDS_FILE.into()),
        c.out_dir
            .clone()
            .unwrap_or_else(|| defaults::OUT_DIR.into()),
    ];
    own.extend(Path::new(defaults::OUT_DIR).parent().map(Path::to_path_buf));
    own
}

/// `--fingerprint-env` (which wins) or `fingerprint_env` in `[pipeline]`: variable names or
/// `PREFIX_*` patterns; anything else is an error naming the flag, or the file's line.
fn fingerprint_env(
    a: &cli::PipelineArgs,
    p: &PipelineTable,
    file: &ConfigFile,
) -> Result<Vec<String>, Error> {
    let (listed, origin) = match (a.fingerprint_env.is_empty(), &file.path) {
        (false, _) | (true, None) => (&a.fingerprint_env, Origin::Flags),
        (true, Some(path)) => (&p.fingerprint_env, Origin::File(path.clone())),
    };
    match listed.iter().find(|n| !goldgate_core::env::is_pattern(n)) {
        None => Ok(listed.clone()),
        Some(bad) => Err(origin.error(
            "--fingerprint-env",
            "fingerprint_env",
            &format!("`{bad}` is not an environment variable name"),
            "name variables as NAME, or PREFIX_* for every variable starting with PREFIX_",
        )),
    }
}

/// The adapter: a flag wins; otherwise `[pipeline]` (then `true`: it came from the file).
fn adapter(
    a: &cli::PipelineArgs,
    p: &PipelineTable,
    timeout: Duration,
    max_output_bytes: usize,
    file: Option<&Path>,
) -> Result<(Adapter, bool), Error> {
    let chat = || {
        let (_, headers) = mode_and_headers(a, p)?;
        super::chat::chat_settings(a, p, headers, timeout, max_output_bytes, file)
            .map(|c| Adapter::Chat(Box::new(c)))
    };
    if a.chat {
        return Ok((chat()?, false));
    }
    if let Some(adapter) = flag_adapter(a, p)? {
        return Ok((adapter, false));
    }
    if p.agents.is_some() && p.kind.as_deref() != Some("srs-agents") {
        return Err(Error::usage(
            "[pipeline.agents] is set, but [pipeline] kind is not \"srs-agents\"",
            "set kind = \"srs-agents\" under [pipeline], or remove [pipeline.agents]",
        ));
    }
    if p.kind.as_deref() == Some("chat") {
        return Ok((chat()?, true));
    }
    if p.kind.as_deref() == Some("srs-agents") {
        let (_, headers) = mode_and_headers(a, p)?;
        let options = super::agents::options(a, p, headers, timeout, max_output_bytes, file)?;
        return Ok((Adapter::SrsAgents(Box::new(options)), true));
    }
    file_adapter(a, p).map(|adapter| (adapter, true))
}

/// The mode and headers, from flags or the file.
fn mode_and_headers(
    a: &cli::PipelineArgs,
    p: &PipelineTable,
) -> Result<(Mode, Vec<(String, String)>), Error> {
    let mode = match (a.mode, p.mode.as_deref()) {
        (Some(cli::ModeArg::Jsonl), _) | (None, Some("jsonl")) => Mode::Jsonl,
        (Some(cli::ModeArg::Oneshot), _) | (None, Some("oneshot") | None) => Mode::Oneshot,
        (None, Some(other)) => {
            return Err(Error::usage(
                format!("[pipeline] mode = \"{other}\" is not a mode"),
                goldgate_core::text::hint_for(other, &["oneshot", "jsonl"]),
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
    Ok((mode, headers))
}

/// The adapter a flag names, if any.
fn flag_adapter(a: &cli::PipelineArgs, p: &PipelineTable) -> Result<Option<Adapter>, Error> {
    let (mode, headers) = mode_and_headers(a, p)?;
    if let Some(command) = &a.command {
        return Ok(Some(Adapter::Command {
            command: command.clone(),
            mode,
        }));
    }
    if let Some(url) = &a.http {
        return Ok(Some(Adapter::Http {
            url: url.clone(),
            headers,
        }));
    }
    Ok(a.replay
        .as_ref()
        .map(|file| Adapter::Replay { file: file.clone() }))
}

/// The adapter `[pipeline]` names.
fn file_adapter(a: &cli::PipelineArgs, p: &PipelineTable) -> Result<Adapter, Error> {
    let (mode, headers) = mode_and_headers(a, p)?;
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
        Some(other) => Err(Error::usage(format!("[pipeline] kind = \"{other}\" is not an adapter"), goldgate_core::text::hint_for(other, &["command", "http", "chat", "srs-agents", "replay"]))),
        None => Err(Error::usage(
            "no pipeline to run",
            "pass --command 'CMD' (the sample JSON arrives on stdin, the answer goes to stdout), --http URL, --chat (an OpenAI-compatible chat API) or --replay FILE, or set [pipeline] in goldgate.toml",
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
