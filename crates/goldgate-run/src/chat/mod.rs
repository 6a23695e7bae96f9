//! The `chat` adapter: any OpenAI-compatible chat-completions API as the pipeline. Each
//! sample's request is rendered into messages by the prompt templates ([`prompts`]), sent
//! with the configured model and sampling settings (streamed or not), and the assistant
//! message's text is the answer. The reply carries the tokens used and why generation
//! stopped, so a truncated answer (`finish_reason: length`) is visible on its record.
//! Retries, rate limits and the cache are the runner's, as for every adapter.

pub mod prompts;

use serde_json::{Map, Value};

use self::prompts::{PromptFiles, Prompts};
use super::call::{CallError, Reply};
use goldgate_client::Client;
use goldgate_core::error::Result;
use goldgate_core::llm::{ChatRequest, EndpointSettings};
use goldgate_core::runfile::record::{ErrorKind, Usage};
use goldgate_core::secrets::Secrets;

/// How a `chat` pipeline calls its model.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatSettings {
    pub endpoint: EndpointSettings,
    pub model: String,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub seed: Option<i64>,
    /// Sent as it is: `{"type": "json_object"}` or a `json_schema` format.
    pub response_format: Option<Value>,
    /// Provider-specific request fields.
    pub extra_body: Map<String, Value>,
    pub stream: bool,
    pub prompts: PromptFiles,
}

impl ChatSettings {
    /// The API's address as the fingerprint covers it: normalised, without credentials.
    pub fn base_url(&self) -> String {
        reqwest::Url::parse(self.endpoint.base_url.trim())
            .map(|u| goldgate_client::endpoint::normalised(&u))
            .unwrap_or_else(|_| self.endpoint.base_url.trim().to_string())
    }

    /// What the answers depend on besides the prompts and the request: the API's address
    /// (normalised, without credentials), the model and the sampling settings, as text.
    /// Whether the answer is streamed, the key and the time limit do not count.
    pub fn fingerprint_text(&self) -> String {
        let base = self.base_url();
        let sampling = serde_json::json!({
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "response_format": self.response_format,
            "extra_body": self.extra_body,
        });
        let mut text = format!("\0{base}\0{}\0{sampling}", self.model);
        for (name, template) in &self.endpoint.headers {
            text.push_str(&format!("\0{name}: {template}"));
        }
        text
    }
}

pub struct Chat {
    client: Client,
    prompts: Prompts,
    settings: ChatSettings,
}

impl Chat {
    /// Read the prompts and set up the client (the key is read from the environment and
    /// added to `secrets`); no request is made.
    pub fn open(settings: &ChatSettings, secrets: &mut Secrets) -> Result<Chat> {
        Ok(Chat {
            prompts: Prompts::load(&settings.prompts)?,
            client: Client::new(&settings.endpoint, secrets)?,
            settings: settings.clone(),
        })
    }

    pub async fn call(&self, request: &Value) -> Result<Reply, CallError> {
        let messages = self.prompts.render(request).map_err(|e| {
            CallError::new(ErrorKind::Spawn, format!("the prompt cannot be made: {e}"))
        })?;
        let s = &self.settings;
        let request = ChatRequest {
            model: s.model.clone(),
            messages,
            temperature: s.temperature,
            max_tokens: s.max_tokens,
            seed: s.seed,
            response_format: s.response_format.clone(),
            stream: s.stream,
            extra_body: s.extra_body.clone(),
        };
        let completion = self.client.chat(&request).await?;
        Ok(Reply {
            text: completion.content,
            usage: completion
                .usage
                .map(|u| Usage::of_tokens(u, completion.usage_invalid)),
            finish_reason: completion.finish_reason,
            ..Reply::default()
        })
    }
}

/// The prompts' fingerprints (role, kind and source hash of each template), for the
/// pipeline fingerprint.
pub fn prompt_fingerprints(settings: &ChatSettings) -> Result<Vec<String>> {
    Ok(Prompts::load(&settings.prompts)?.fingerprints())
}

/// Each kind and the fingerprints of the templates its samples are rendered with.
pub type PromptsByKind = Vec<(String, Vec<String>)>;

/// The fingerprint each kind's answers are keyed on: `shared` (everything every call uses:
/// the settings, the model, the environment, the fingerprint files) with the kind's own
/// templates.
pub fn key_fingerprints(
    shared: &sha2::Sha256,
    kinds: PromptsByKind,
) -> std::collections::BTreeMap<String, String> {
    use sha2::Digest;
    kinds
        .into_iter()
        .map(|(kind, prompts)| {
            let mut h = shared.clone();
            h.update(format!("\0kind={kind}").as_bytes());
            for prompt in prompts {
                h.update(format!("\0prompt={prompt}").as_bytes());
            }
            (kind, goldgate_core::text::sha256_of(h))
        })
        .collect()
}
