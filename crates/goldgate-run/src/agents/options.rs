//! The settings of the `srs-agents` pipeline, every default already applied (`settings`
//! resolves `[pipeline]`, `[pipeline.agents]` and the environment into this): the API, the
//! model, the rounds, the ablation, the wait between attempts, and each agent's
//! temperature, token limit, attempts and prompt files.

use std::path::PathBuf;
use std::time::Duration;

use super::state::{Ablation, Agent};
use goldgate_core::llm::EndpointSettings;

/// One agent's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentOptions {
    pub temperature: f64,
    pub max_tokens: Option<u32>,
    /// Attempts at most (API failures and unusable answers).
    pub attempts: u32,
    /// A system prompt template file replacing the built-in one.
    pub system: Option<PathBuf>,
    /// A user prompt template file replacing the built-in one.
    pub prompt: Option<PathBuf>,
}

/// The pipeline's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentsOptions {
    /// Where the API is, how to authenticate, one request's time limit.
    pub endpoint: EndpointSettings,
    pub model: String,
    pub max_iterations: u32,
    pub ablation: Ablation,
    /// The wait before an agent's second attempt; it doubles for each further one.
    pub backoff: Duration,
    /// ReqParse, ReqExplore, ReqClarify, DocGenerate, in [`Agent::ALL`] order.
    pub agents: [AgentOptions; 4],
}

impl AgentsOptions {
    /// The settings of one agent.
    pub fn agent(&self, agent: Agent) -> &AgentOptions {
        &self.agents[agent as usize]
    }
}
