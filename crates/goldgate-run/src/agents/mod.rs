//! The `srs-agents` adapter: the built-in multi-agent SRS generator, over any
//! OpenAI-compatible chat API. For each sample, ReqParse turns the input (its `user_input`,
//! or its conversation as numbered lines) into atomic requirements; ReqExplore and
//! ReqClarify then refine, score, freeze and remove them in rounds; DocGenerate writes the
//! IEEE 830 document. The rules are in [`state`], one call with its retries in [`agent`],
//! the prompts in [`prompts`], the answer goldgate scores in [`mapping`]. Every call is kept
//! in the record's trace; an agent that fails after its attempts makes the record an error
//! naming it, with the trace so far.

pub mod agent;
pub mod ids;
pub mod mapping;
pub mod options;
pub mod prompts;
pub mod state;

use std::sync::Arc;

use serde_json::Value;

use crate::call::{CallError, Reply};
use agent::{Caller, Used};
use goldgate_client::limits::Limits;
use goldgate_client::Client;
use goldgate_core::error::Result;
use goldgate_core::llm::extract::json_value;
use goldgate_core::llm::TokenUsage;
use goldgate_core::runfile::record::{ErrorKind, Usage};
use goldgate_core::runfile::trace::Trace;
use goldgate_core::secrets::Secrets;
use options::AgentsOptions;
use prompts::{Input, Prompts};
use state::{Ablation, Agent, State, Unusable};

/// A ready `srs-agents` pipeline.
pub struct Agents {
    client: Client,
    options: AgentsOptions,
    prompts: Prompts,
    /// The run's rate limits: every attempt of every agent waits for them.
    limits: Arc<Limits>,
}

impl Agents {
    /// Check the API's settings, read the key and the prompt files, and render every prompt
    /// once, so a template naming a variable that does not exist is an error before the
    /// first call. The key and header values are added to `secrets`.
    pub fn open(
        options: &AgentsOptions,
        limits: Arc<Limits>,
        secrets: &mut Secrets,
    ) -> Result<Agents> {
        let client = Client::new(&options.endpoint, secrets)?;
        let prompts = Prompts::load(options)?;
        let input = Input {
            user_input: "[0] stakeholder: input".into(),
            input_is_conversation: true,
            reference_srs: "reference".into(),
            domain: "domain".into(),
        };
        let state = State::new(String::new(), String::new(), 1, Ablation::None);
        for agent in Agent::ALL {
            prompts.render(agent, &prompts::context(&input, &state, agent))?;
        }
        Ok(Agents {
            client,
            options: options.clone(),
            prompts,
            limits,
        })
    }

    /// Run the agents on one sample's request.
    pub async fn call(&self, request: &Value) -> std::result::Result<Reply, CallError> {
        let input = Input::of(request).ok_or_else(|| {
            CallError::new(
                ErrorKind::Spawn,
                "the sample has neither a `conversation` nor a `user_input`: srs-agents writes an SRS from one of them",
            )
        })?;
        if self.options.ablation == Ablation::None && input.reference_srs.trim().is_empty() {
            return Err(CallError::new(
                ErrorKind::Spawn,
                "the sample has no `reference_srs`, which ReqClarify scores against (with ablation = \"no-clarify\" no agent reads it)",
            ));
        }
        let mut state = State::new(
            input.user_input.clone(),
            input.reference_srs.clone(),
            self.options.max_iterations,
            self.options.ablation,
        );
        let caller = Caller {
            client: &self.client,
            limits: &self.limits,
            model: &self.options.model,
            backoff: self.options.backoff,
        };
        let mut trace = Trace::default();
        while let Some(agent) = state.next_agent() {
            let messages = match self
                .prompts
                .render(agent, &prompts::context(&input, &state, agent))
            {
                Ok(messages) => messages,
                Err(e) => {
                    let message = format!("{}'s prompt cannot be rendered: {e}", agent.name());
                    return Err(failed(ErrorKind::Spawn, message, trace, &state));
                }
            };
            let iteration = state.iteration;
            let (call, outcome) = caller
                .call(
                    agent,
                    iteration,
                    self.options.agent(agent),
                    messages,
                    &mut |text| apply(&mut state, agent, text),
                )
                .await;
            trace.calls.push(call);
            if let Err(f) = outcome {
                return Err(failed(f.kind, f.message, trace, &state));
            }
        }
        trace.state = Some(state.summary());
        // `length` when any answer used was cut at the token limit, else the document's.
        let finish_reason = match trace
            .calls
            .iter()
            .any(|c| c.finish_reason.as_deref() == Some("length"))
        {
            true => Some("length".to_string()),
            false => trace.calls.last().and_then(|c| c.finish_reason.clone()),
        };
        Ok(Reply {
            text: mapping::answer(&state).to_string(),
            usage: trace.usage().map(usage),
            finish_reason,
            trace: Some(trace),
            ..Reply::default()
        })
    }
}

/// What the answers depend on in the settings, for the pipeline fingerprint: the API's
/// base URL (normalised, without credentials), the header templates (never their values),
/// the model, the rounds and the ablation, each agent's temperature and token limit, and the
/// fingerprint of each of its prompt templates (so editing a prompt changes it). The key,
/// time limits, attempts and waits are left out: they do not change an answer.
pub fn settings_text(options: &AgentsOptions) -> Result<String> {
    let base = base_url(options);
    let mut text = format!(
        "\0base_url={base}\0model={}\0max_iterations={}\0ablation={}",
        options.model,
        options.max_iterations,
        options.ablation.as_str()
    );
    for (name, template) in &options.endpoint.headers {
        text.push_str(&format!("\0{name}: {template}"));
    }
    for agent in Agent::ALL {
        let o = options.agent(agent);
        text.push_str(&format!(
            "\0{}: temperature={} max_tokens={:?}",
            agent.key(),
            o.temperature,
            o.max_tokens
        ));
    }
    let prompts = Prompts::load(options)?.fingerprints();
    for (agent, pair) in Agent::ALL.iter().zip(prompts.chunks(2)) {
        text.push_str(&format!(
            "\0{} prompts: {} {}",
            agent.key(),
            pair[0].1,
            pair[1].1
        ));
    }
    Ok(text)
}

/// The API's address as the fingerprint covers it: normalised, without credentials.
pub fn base_url(options: &AgentsOptions) -> String {
    let raw = options.endpoint.base_url.trim();
    reqwest::Url::parse(raw).map_or_else(
        |_| goldgate_core::secrets::url_without_password(raw).into_owned(),
        |url| goldgate_client::endpoint::normalised(&url),
    )
}

/// Tokens as a record counts them.
pub fn usage(tokens: TokenUsage) -> Usage {
    Usage::of_tokens(tokens, None)
}

/// A failed sample: the error, with the calls so far and the state they left.
fn failed(kind: ErrorKind, message: String, mut trace: Trace, state: &State) -> CallError {
    trace.state = Some(state.summary());
    CallError {
        trace: Some(Box::new(trace)),
        ..CallError::new(kind, message)
    }
}

/// Read an agent's answer and apply it to the state: JSON for the three list agents (a
/// ```json block first, then bare JSON), the document for DocGenerate.
fn apply(state: &mut State, agent: Agent, text: &str) -> std::result::Result<Used, Unusable> {
    if agent == Agent::DocGenerate {
        return state.apply_document(text).map(|effect| (None, effect));
    }
    let value =
        json_value(text).ok_or_else(|| Unusable("no JSON array or object in the answer".into()))?;
    let effect = match agent {
        Agent::ReqParse => state.apply_parse(&value),
        Agent::ReqExplore => state.apply_explore(&value),
        _ => state.apply_clarify(&value),
    }?;
    Ok((Some(value), effect))
}
