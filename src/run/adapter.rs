//! The pipeline adapters behind one interface: open the configured adapter and send one
//! sample's request to it. Each adapter lives in its own module; what they return is in
//! [`super::call`].

use serde_json::Value;

use super::call::{CallError, Reply};
use super::config::{Adapter, Mode, PipelineConfig};
use super::http::Http;
use super::jsonl::Jsonl;
use super::oneshot::Oneshot;
use super::replay::Replay;
use crate::error::Result;

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
