//! Settings of the LLM judge (`[judge]` in goldgate.toml), with every default it takes and
//! the environment it reads: the model (`[judge] model`, else `OPENAI_EVALUATION_MODEL`,
//! else `OPENAI_MODEL`, else `gpt-4o-mini`), the API (`base_url`, else `OPENAI_BASE_URL`,
//! else OpenAI's; the key from `api_key_env`, default `OPENAI_API_KEY`), temperature,
//! repeats, prompt templates, prices and time limit; the rule that a `judge.*` rule needs a
//! judge; and the settings of `goldgate judge`. An error names goldgate.toml, the key's line and a hint.

use std::time::Duration;

use super::chat::{defaults as api, env};
use crate::config::ConfigFile;
use goldgate_core::error::{Error, Location, Problem};
use goldgate_core::gate::comparable::refuse_judge_rules;
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::llm::EndpointSettings;
use goldgate_run::config::{key_line, Adapter};
use goldgate_run::cost::Pricing;
use goldgate_run::judge::rejudge::RejudgeSettings;
use goldgate_run::judge::JudgeSettings;
use goldgate_run::plan::RunSettings;

/// The judge's defaults.
pub mod defaults {
    /// The variable naming the judge model (before `OPENAI_MODEL`).
    pub const MODEL_ENV: &str = "OPENAI_EVALUATION_MODEL";
    pub const TEMPERATURE: f64 = 0.2;
    /// Judgements per record.
    pub const REPEATS: u32 = 1;
    /// The most judgements per record.
    pub const MAX_REPEATS: u32 = 100;
    /// Calls at most per judgement.
    pub const ATTEMPTS: u32 = 6;
    /// The wait after a first failed attempt (then 4, 8, 16, 32 s).
    pub const FIRST_WAIT_SECS: u64 = 2;
}

/// The judge `[judge]` configures; `None` without the table.
pub fn judge_settings(file: &ConfigFile) -> Result<Option<JudgeSettings>, Error> {
    let Some(t) = &file.judge else {
        return Ok(None);
    };
    let error = |key: &str, message: String, hint: &str| match &file.path {
        Some(path) => Error::invalid(
            "config file",
            Problem::new(
                Location::new(path, key_line(path, "judge", key), 0),
                Some(format!("judge.{key}")),
                message,
            )
            .with_hint(hint),
        ),
        None => Error::usage(format!("[judge] {key}: {message}"), hint),
    };
    let model = t
        .model
        .clone()
        .or_else(|| env(defaults::MODEL_ENV))
        .or_else(|| env(api::MODEL_ENV))
        .unwrap_or_else(|| api::MODEL.to_string());
    if model.trim().is_empty() {
        return Err(error(
            "model",
            "model = \"\" names no model".into(),
            "name the judge model, such as model = \"gpt-4o-mini\"",
        ));
    }
    let temperature = t.temperature.unwrap_or(defaults::TEMPERATURE);
    if !(0.0..=2.0).contains(&temperature) {
        return Err(error(
            "temperature",
            format!("temperature = {temperature} is out of range"),
            "use a temperature from 0 to 2 (the judge's default, 0.2, keeps it steady)",
        ));
    }
    let repeats = t.judge_repeats.unwrap_or(defaults::REPEATS);
    if !(1..=defaults::MAX_REPEATS).contains(&repeats) {
        return Err(error(
            "judge_repeats",
            format!("judge_repeats = {repeats} is out of range"),
            &format!(
                "ask the judge 1 to {} times per record (3 shows how noisy it is)",
                defaults::MAX_REPEATS
            ),
        ));
    }
    let timeout = t
        .timeout_secs
        .unwrap_or(super::defaults::TIMEOUT_SECS as f64);
    if !(timeout > 0.0 && timeout.is_finite()) {
        return Err(error(
            "timeout_secs",
            format!("timeout_secs = {timeout} is not a positive number of seconds"),
            "for example timeout_secs = 120",
        ));
    }
    for (key, path) in [("system", &t.system), ("prompt", &t.prompt)] {
        if let Some(path) = path.as_ref().filter(|p| !p.is_file()) {
            return Err(error(
                key,
                format!("the prompt template {} does not exist", path.display()),
                "name a minijinja template file, relative to goldgate.toml (docs/judge.md lists its variables)",
            ));
        }
    }
    let pricing = match &t.pricing {
        None => None,
        Some(p) => {
            let ok = |x: f64| x >= 0.0 && x.is_finite();
            if !(ok(p.input_per_mtok) && ok(p.output_per_mtok)) {
                return Err(error(
                    "input_per_mtok",
                    "a token price under [judge.pricing] is negative or not a number".into(),
                    "give prices in USD per million tokens, such as input_per_mtok = 0.15",
                ));
            }
            Some(Pricing {
                input_per_mtok: p.input_per_mtok,
                output_per_mtok: p.output_per_mtok,
            })
        }
    };
    Ok(Some(JudgeSettings {
        model,
        endpoint: EndpointSettings {
            base_url: t
                .base_url
                .clone()
                .or_else(|| env(api::BASE_URL_ENV))
                .unwrap_or_else(|| goldgate_client::endpoint::OPENAI_API.to_string()),
            api_key_env: t
                .api_key_env
                .clone()
                .unwrap_or_else(|| api::API_KEY_ENV.to_string()),
            headers: t
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            timeout: Duration::from_secs_f64(timeout),
            max_answer_bytes: super::defaults::MAX_OUTPUT_BYTES,
            what: "the judge's API".into(),
            base_url_setting: "`[judge] base_url` or `OPENAI_BASE_URL`".into(),
        },
        temperature,
        repeats,
        system: t.system.clone(),
        prompt: t.prompt.clone(),
        pricing,
        attempts: defaults::ATTEMPTS,
        first_wait: super::test_backoff().unwrap_or(Duration::from_secs(defaults::FIRST_WAIT_SECS)),
    }))
}

/// Rules on the judge's metrics need a judge: without `[judge]`, they are refused before
/// the pipeline is called (they could only read "no data" and hold). A replayed run keeps
/// the reviews its records carry, so it is left to the gate, which refuses such rules when
/// no record was reviewed.
pub fn require_judge(thresholds: &Thresholds, run: &RunSettings) -> Result<(), Error> {
    if run.judge.is_some() || matches!(run.pipeline.adapter, Adapter::Replay { .. }) {
        return Ok(());
    }
    refuse_judge_rules(thresholds, "goldgate.toml configures no judge")
}

impl TryFrom<crate::cli::JudgeArgs> for RejudgeSettings {
    type Error = Error;

    /// `goldgate judge`: the judge from `[judge]` (required), the suite from `--suite` or
    /// `[check] suite`, concurrency, cache and rate limits as a run takes them.
    fn try_from(a: crate::cli::JudgeArgs) -> Result<Self, Error> {
        let file = super::config_file(a.config.as_deref())?;
        let judge = judge_settings(&file)?.ok_or_else(|| {
            Error::usage(
                "no judge is configured",
                "add a [judge] table to goldgate.toml (docs/judge.md), or name the file that has one with --config",
            )
        })?;
        let suite = super::suite_dir(a.suite, &file, "no suite to judge against")?;
        let jobs = a.jobs.or(file.run.jobs).unwrap_or(super::defaults::JOBS);
        if jobs == 0 || jobs > 4096 {
            return Err(Error::usage(
                format!("jobs = {jobs} is out of range"),
                "use 1 to 4096 reviews in flight",
            ));
        }
        Ok(RejudgeSettings {
            run: a.run,
            suite,
            max_sample_bytes: super::max_sample_bytes(a.max_sample_bytes, &file)?,
            judge,
            jobs,
            cache_dir: (!a.no_cache).then(|| super::cache_dir(a.cache_dir, &file)),
            refresh_cache: a.refresh_cache,
            rpm: file.pipeline.rpm,
            tpm: file.pipeline.tpm,
        })
    }
}
