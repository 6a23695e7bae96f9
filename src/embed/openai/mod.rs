//! The `openai` backend: embeddings from any OpenAI-compatible `/embeddings` endpoint.

use std::time::Duration;

use super::{Embedder, Identity};
use crate::error::{Error, Result};

/// Where and how to ask for embeddings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The API root, e.g. `https://api.openai.com/v1` (`/embeddings` is appended).
    pub base_url: String,
    /// The environment variable holding the API key (never the key itself).
    pub api_key_env: String,
    /// The embedding model name sent with every request.
    pub model: String,
    /// Texts per request, at most the provider's input limit.
    pub batch_size: usize,
    /// Requests started per minute, at most.
    pub requests_per_minute: Option<u32>,
    /// One request's time limit.
    pub timeout: Duration,
    /// Retries of a request that failed for a reason worth another try.
    pub retries: u32,
}

/// An OpenAI-compatible embeddings client.
pub struct OpenAi {
    identity: Identity,
}

impl OpenAi {
    pub fn open(settings: &Settings) -> Result<Self> {
        let _ = settings;
        Err(Error::internal("the openai backend is being built"))
    }
}

impl Embedder for OpenAi {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn embed(&self, _texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Err(Error::internal("the openai backend is being built"))
    }
}
