//! Which pipeline to run and how: the `[pipeline]` table of `goldgate.toml`, or the
//! `--command`, `--replay` flags. Validated here so the runner never sees a half-set adapter.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// How a `command` pipeline is driven.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// One process per sample: sample JSON on stdin, answer on stdout.
    #[default]
    Oneshot,
    /// One long-lived process speaking request/response lines.
    Jsonl,
}

/// The adapter and its settings.
#[derive(Clone, Debug, PartialEq)]
pub enum Adapter {
    /// Run a shell command (`sh -c`).
    Command { command: String, mode: Mode },
    /// POST the request to a URL; headers may use `${ENV}`.
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
    /// Answers recorded earlier: a run.jsonl or an outputs file.
    Replay { file: PathBuf },
}

impl Adapter {
    pub fn kind(&self) -> &'static str {
        match self {
            Adapter::Command { .. } => "command",
            Adapter::Http { .. } => "http",
            Adapter::Replay { .. } => "replay",
        }
    }
}

/// Everything the runner needs to know about the pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct PipelineConfig {
    pub adapter: Adapter,
    /// Per-call time limit.
    pub timeout: Duration,
    /// Largest answer kept; a pipeline printing more is stopped and the record says so.
    pub max_output_bytes: usize,
    /// Extra attempts for a retryable failure.
    pub retries: u32,
}

/// Default per-call time limit.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// Default answer size limit (16 MiB).
pub const DEFAULT_MAX_OUTPUT: usize = 16 << 20;

impl PipelineConfig {
    pub fn new(adapter: Adapter) -> Self {
        PipelineConfig {
            adapter,
            timeout: DEFAULT_TIMEOUT,
            max_output_bytes: DEFAULT_MAX_OUTPUT,
            retries: 3,
        }
    }
}

/// The pipeline fingerprint: what a record's answer depends on besides the sample (SPEC §3).
pub fn fingerprint(config: &PipelineConfig) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    match &config.adapter {
        Adapter::Command { command, mode } => {
            h.update(b"command\0");
            h.update(command.as_bytes());
            h.update(format!("\0{mode:?}").as_bytes());
        }
        Adapter::Http { url, headers } => {
            // The templates, never the expanded secrets.
            h.update(b"http\0");
            h.update(url.as_bytes());
            for (name, value) in headers {
                h.update(format!("\0{name}: {value}").as_bytes());
            }
        }
        Adapter::Replay { file } => {
            h.update(b"replay\0");
            h.update(std::fs::read(file).unwrap_or_default());
        }
    }
    format!("sha256:{}", crate::suite::load::hex(&h.finalize()))
}
