//! What a call to an OpenAI-compatible API (OpenAI, Azure-style gateways, vLLM, Ollama,
//! llama.cpp's server, LiteLLM) is made of, as plain data: requests, completions, usage and
//! failures; the chat wire format and its streaming form ([`chat`], [`sse`]); the settings of
//! an endpoint ([`EndpointSettings`]); the excerpts of answers that messages quote
//! ([`excerpt`]); JSON found in a model's prose ([`extract`]); prompt templates
//! ([`prompt`]); and goldgate's own count of a call's tokens when the server reports none it
//! can use ([`tokens`]). Reaching an API (addresses, keys, the HTTP client) is the
//! goldgate-client crate's.

pub mod chat;
pub mod excerpt;
pub mod extract;
pub mod prompt;
pub mod sse;
pub mod tokens;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One message of a conversation with the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    pub content: String,
}

impl Message {
    pub fn new(role: &str, content: impl Into<String>) -> Message {
        Message {
            role: role.to_string(),
            content: content.into(),
        }
    }
}

/// One chat-completions request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub seed: Option<i64>,
    /// `{"type": "json_object"}`, or `{"type": "json_schema", "json_schema": {…}}` for
    /// structured outputs.
    pub response_format: Option<Value>,
    /// Ask for Server-Sent Events (with `stream_options.include_usage`).
    pub stream: bool,
    /// Provider-specific fields added to the request body; they never replace `model`,
    /// `messages`, `stream` or `stream_options`.
    pub extra_body: Map<String, Value>,
}

/// The tokens one call used, as the server reported them, or as goldgate counted them
/// when it reported none it could use (`estimated`, [`tokens`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// goldgate's own count of the messages and the answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl TokenUsage {
    /// Prompt and completion tokens (counts are at most [`crate::quantity::MAX_TOKENS`]
    /// each, so the sum never overflows; it saturates if it ever would).
    pub fn total(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }
}

/// One successful call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Completion {
    /// The assistant message's content: a string, or its text parts joined.
    pub content: String,
    /// Why generation stopped (`stop`, `length`, …), when the server said.
    pub finish_reason: Option<String>,
    /// As the server reported it, or goldgate's count when it reported none it could use
    /// (a stream may not; some servers send negative counts or strings).
    pub usage: Option<TokenUsage>,
    /// What the server reported as usage that cannot be a token count, with why (the
    /// tokens were counted instead).
    pub usage_invalid: Option<String>,
    pub latency_ms: f64,
}

/// What kind of failure a call met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// No answer within the time limit.
    Timeout,
    /// No answer, or an HTTP error status.
    Http,
    /// A success status whose body is not a chat completion, or a stream cut short.
    Answer,
}

/// A failed call.
#[derive(Clone, Debug, PartialEq)]
pub struct LlmError {
    pub kind: FailureKind,
    /// What happened, naming the address (credentials masked); every known secret masked.
    pub message: String,
    /// Worth another try: rate limits, server errors, timeouts, dropped connections, cut
    /// streams.
    pub retryable: bool,
    /// The wait the server asked for (`Retry-After`, `retry-after-ms`).
    pub retry_after: Option<Duration>,
}

impl LlmError {
    pub fn new(kind: FailureKind, message: String, retryable: bool) -> LlmError {
        LlmError {
            kind,
            message,
            retryable,
            retry_after: None,
        }
    }
}

/// Where an API is and how to reach it.
#[derive(Clone, Debug, PartialEq)]
pub struct EndpointSettings {
    /// The API root, e.g. `https://api.openai.com/v1` (`/chat/completions` is appended).
    pub base_url: String,
    /// The environment variable holding the API key (may be unset for a local server).
    pub api_key_env: String,
    /// Extra headers; `${NAME}` in a value is expanded from the environment and the value
    /// is treated as a secret.
    pub headers: Vec<(String, String)>,
    /// One request's time limit.
    pub timeout: Duration,
    /// The largest answer read.
    pub max_answer_bytes: usize,
    /// What the endpoint is called in messages (`the chat API`, `the judge's API`).
    pub what: String,
    /// Which settings name the base URL, for messages
    /// (``[pipeline] base_url` or `OPENAI_BASE_URL``).
    pub base_url_setting: String,
}
