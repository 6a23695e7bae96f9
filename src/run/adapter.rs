//! The pipeline adapters behind one interface: send one sample's request, get the answer
//! text back or a typed failure. Each adapter lives in its own module; this one owns what
//! they share.

use serde_json::Value;

use super::config::{Adapter, Mode, PipelineConfig};
use super::http::Http;
use super::jsonl::Jsonl;
use super::oneshot::Oneshot;
use super::replay::Replay;
use crate::error::Result;
use crate::runfile::record::{ErrorKind, RecordError, Usage};

/// What a pipeline answered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    pub text: String,
    /// Captured standard error (truncated), for command pipelines.
    pub stderr: Option<String>,
    pub usage: Option<Usage>,
    /// A replayed record keeps its original latency.
    pub latency_ms: Option<f64>,
}

/// Why a call failed, with what was captured on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct CallError {
    pub kind: ErrorKind,
    pub message: String,
    pub stderr: Option<String>,
    /// Worth trying again (rate limited, server error, connection failure).
    pub retryable: bool,
    /// How long the server asked us to wait.
    pub retry_after: Option<std::time::Duration>,
}

impl CallError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        CallError {
            kind,
            message: message.into(),
            stderr: None,
            retryable: false,
            retry_after: None,
        }
    }

    pub fn record(&self) -> RecordError {
        RecordError {
            kind: self.kind,
            message: self.message.clone(),
        }
    }
}

/// A ready adapter.
pub enum Pipeline {
    Oneshot(Oneshot),
    Jsonl(Jsonl),
    Http(Http),
    Replay(Replay),
}

impl Pipeline {
    /// Prepare the configured adapter (a replay file is read here).
    pub fn open(config: &PipelineConfig) -> Result<Pipeline> {
        Ok(match &config.adapter {
            Adapter::Command {
                command,
                mode: Mode::Oneshot,
            } => Pipeline::Oneshot(Oneshot::new(command, config)),
            Adapter::Command {
                command,
                mode: Mode::Jsonl,
            } => Pipeline::Jsonl(Jsonl::new(command, config)),
            Adapter::Http { url, headers } => Pipeline::Http(Http::new(url, headers, config)?),
            Adapter::Replay { file } => Pipeline::Replay(Replay::open(file)?),
        })
    }

    /// Send one request. `sample_id` and `repeat` identify it (replay looks answers up by them).
    pub async fn call(
        &self,
        sample_id: &str,
        repeat: u32,
        request: &Value,
    ) -> Result<Reply, CallError> {
        match self {
            Pipeline::Oneshot(p) => p.call(request).await,
            Pipeline::Jsonl(p) => p.call(sample_id, request).await,
            Pipeline::Http(p) => p.call(request).await,
            Pipeline::Replay(p) => p.call(sample_id, repeat),
        }
    }
}

/// Keep at most `limit` bytes of captured text, cut on a character boundary, saying so.
pub fn truncate_text(bytes: &[u8], limit: usize, total: usize) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(limit)]).into_owned();
    if total > limit {
        format!("{text}… [{} more bytes not kept]", total - limit)
    } else {
        text
    }
}
