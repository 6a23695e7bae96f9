//! The pipeline adapters behind one interface: open the configured adapter (a command is
//! checked first, see [`super::preflight`]) and send one sample's request to it. Each
//! adapter lives in its own module; what they return is in [`super::call`].

use std::sync::Arc;

use serde_json::Value;

use super::agents::Agents;
use super::call::{CallError, Reply};
use super::chat::Chat;
use super::config::{Adapter, Mode, PipelineConfig};
use super::http::Http;
use super::jsonl::Jsonl;
use super::oneshot::Oneshot;
use super::preflight;
use super::process::Launch;
use super::replay::Replay;
use goldgate_client::limits::Limits;
use goldgate_core::error::Result;
use goldgate_core::secrets::Secrets;

/// A ready adapter.
pub enum Pipeline {
    Oneshot(Oneshot),
    Jsonl(Jsonl),
    Http(Http),
    Replay(Replay),
    Agents(Box<Agents>),
    Chat(Box<Chat>),
}

impl Pipeline {
    /// Prepare the configured adapter: a command that cannot start and a URL that cannot be
    /// called are configuration errors here, before the first call; a replay file is read.
    /// `secrets` are redacted by the adapters wherever they cut text short; `limits` are the
    /// run's, for an adapter that makes several calls per sample (see [`Self::paces_itself`]).
    pub fn open(
        config: &PipelineConfig,
        secrets: Arc<Secrets>,
        limits: Arc<Limits>,
    ) -> Result<Pipeline> {
        if let Adapter::Command { command, mode } = &config.adapter {
            preflight::check(&Launch::new(command, config), *mode, &config.origin)?;
        }
        Ok(match &config.adapter {
            Adapter::Command {
                command,
                mode: Mode::Oneshot,
            } => Pipeline::Oneshot(Oneshot::new(command, config, secrets)),
            Adapter::Command {
                command,
                mode: Mode::Jsonl,
            } => Pipeline::Jsonl(Jsonl::new(command, config, secrets)),
            Adapter::Http { url, headers } => {
                Pipeline::Http(Http::new(url, headers, config, secrets)?)
            }
            Adapter::Replay { file } => Pipeline::Replay(Replay::open(file)?),
            Adapter::SrsAgents(options) => {
                let mut own = Secrets::new();
                let agents = Agents::open(options, limits, &mut own)?;
                Pipeline::Agents(Box::new(agents))
            }
            Adapter::Chat(settings) => {
                Pipeline::Chat(Box::new(Chat::open(settings, &mut Secrets::new())?))
            }
        })
    }

    /// Whether the adapter waits for the rate limits and counts its tokens itself, once per
    /// model call (`srs-agents`), instead of the runner doing it once per sample.
    pub fn paces_itself(&self) -> bool {
        matches!(self, Pipeline::Agents(_))
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
            Pipeline::Jsonl(p) => p.call(sample_id, repeat, request).await,
            Pipeline::Http(p) => p.call(request).await,
            Pipeline::Replay(p) => p.call(sample_id, repeat),
            Pipeline::Agents(p) => p.call(request).await,
            Pipeline::Chat(p) => p.call(request).await,
        }
    }
}
