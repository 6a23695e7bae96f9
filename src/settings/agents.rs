//! The settings of the `srs-agents` pipeline from the flags, `[pipeline]`,
//! `[pipeline.agents]` and the environment, each default applied: the API as the `chat`
//! pipeline finds it (`--base-url`, else `base_url`, else `OPENAI_BASE_URL`, else OpenAI's;
//! the key's variable; `--model`, else `model`, else `OPENAI_MODEL`, else the default), the
//! rounds, the ablation, the wait between attempts, and each agent's temperature — its
//! table's `temperature`, else `OPENAI_TEMP_<AGENT>`, else the agent's default.

use std::path::Path;
use std::time::Duration;

use super::defaults;
use crate::cli;
use crate::config::{AgentTable, PipelineTable};
use goldgate_core::error::Error;
use goldgate_run::agents::options::{AgentOptions, AgentsOptions};
use goldgate_run::agents::state::Agent;
use goldgate_run::config::Origin;

/// The variable that sets an agent's temperature: `OPENAI_TEMP_REQPARSE` and the like.
pub fn temperature_env(agent: Agent) -> String {
    format!("OPENAI_TEMP_{}", agent.key().to_ascii_uppercase())
}

/// An agent's temperature from its variable, when set; a value that is not a number from
/// 0 to 2 is a usage error naming the variable.
fn env_temperature(agent: Agent) -> Result<Option<f64>, Error> {
    let var = temperature_env(agent);
    let Some(text) = super::chat::env(&var) else {
        return Ok(None);
    };
    match text.trim().parse::<f64>() {
        Ok(t) if (0.0..=2.0).contains(&t) => Ok(Some(t)),
        _ => Err(Error::usage(
            format!("{var} = `{}` is not a temperature", text.trim()),
            format!(
                "set {var} to a number from 0 to 2 (such as 0.2), or unset it for {}'s default",
                agent.name()
            ),
        )),
    }
}

/// The wait before an agent's second attempt: `backoff_secs`, else `GOLDGATE_TEST_BACKOFF_MS`
/// (tests shorten every retry wait with it), else the default.
fn backoff(configured: Option<f64>) -> Duration {
    configured.map(Duration::from_secs_f64).unwrap_or_else(|| {
        super::test_backoff().unwrap_or(Duration::from_secs_f64(defaults::AGENTS_BACKOFF_SECS))
    })
}

/// The `srs-agents` settings of the flags and `[pipeline]` (`headers` resolved already):
/// `timeout` and `max_output_bytes` bound each model call.
pub(super) fn options(
    a: &cli::PipelineArgs,
    p: &PipelineTable,
    headers: Vec<(String, String)>,
    timeout: Duration,
    max_output_bytes: usize,
    file: Option<&Path>,
) -> Result<AgentsOptions, Error> {
    let origin = file.map_or(Origin::Flags, |f| Origin::File(f.to_path_buf()));
    let table = p.agents.clone().unwrap_or_default();
    let model = super::chat::model(a, p);
    let tables = table.each();
    let agent = |agent: Agent| -> Result<AgentOptions, Error> {
        let AgentTable {
            temperature,
            max_tokens,
            system,
            prompt,
        } = tables[agent as usize].clone().unwrap_or_default();
        let key = |name: &str| format!("agents.{}.{name}", agent.key());
        if max_tokens == Some(0) {
            return Err(origin.error(
                "",
                &key("max_tokens"),
                "0 leaves the model no room to answer",
                "leave it out to use the model's own limit, or give a few thousand",
            ));
        }
        for (name, path) in [("system", &system), ("prompt", &prompt)] {
            if let Some(path) = path.as_ref().filter(|p| !p.is_file()) {
                return Err(origin.error(
                    "",
                    &key(name),
                    &format!("the prompt template {} does not exist", path.display()),
                    "name a minijinja template file, relative to goldgate.toml",
                ));
            }
        }
        let temperature = match temperature {
            Some(t) => t,
            None => {
                env_temperature(agent)?.unwrap_or(defaults::AGENTS_TEMPERATURES[agent as usize])
            }
        };
        Ok(AgentOptions {
            temperature,
            max_tokens,
            attempts: defaults::AGENTS_ATTEMPTS[agent as usize],
            system,
            prompt,
        })
    };
    let [parse, explore, clarify, document] = Agent::ALL.map(agent);
    let agents = [parse?, explore?, clarify?, document?];
    Ok(AgentsOptions {
        endpoint: super::chat::endpoint(
            a,
            p,
            headers,
            timeout,
            max_output_bytes,
            "the srs-agents API",
        ),
        model,
        max_iterations: table
            .max_iterations
            .unwrap_or(defaults::AGENTS_MAX_ITERATIONS),
        ablation: table.ablation.unwrap_or_default(),
        backoff: backoff(table.backoff_secs),
        agents,
    })
}
