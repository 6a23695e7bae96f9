//! Which pipeline to run and how (`--command`, `--http`, `--replay` and their options), and
//! the pipeline fingerprint: what an answer depends on besides the sample.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

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
    /// The model the pipeline uses, when it matters for the fingerprint.
    pub model: Option<String>,
    /// Files whose content the answers depend on (prompts, code); directories count whole.
    pub fingerprint_files: Vec<PathBuf>,
}

/// The pipeline fingerprint: adapter kind, command or URL template (never an
/// expanded secret), model, and the content of every fingerprint file.
pub fn fingerprint(config: &PipelineConfig) -> Result<String> {
    let mut h = Sha256::new();
    h.update(config.adapter.kind().as_bytes());
    match &config.adapter {
        Adapter::Command { command, mode } => h.update(format!("\0{command}\0{mode:?}").as_bytes()),
        Adapter::Http { url, headers } => {
            h.update(format!("\0{url}").as_bytes());
            for (name, value) in headers {
                h.update(format!("\0{name}: {value}").as_bytes());
            }
        }
        Adapter::Replay { file } => {
            h.update(b"\0");
            hash_path(file, &mut h)?;
        }
    }
    h.update(format!("\0model={}", config.model.as_deref().unwrap_or("")).as_bytes());
    for file in &config.fingerprint_files {
        // The name, not the whole path: the same file reached from another working directory
        // (`--config sub/goldgate.toml` vs `cd sub`) is the same pipeline.
        let name = file.file_name().map_or_else(
            || file.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        h.update(format!("\0{name}\0").as_bytes());
        hash_path(file, &mut h)?;
    }
    Ok(format!("sha256:{}", crate::text::hex(&h.finalize())))
}

/// Hash a file's bytes, or every file below a directory in name order.
fn hash_path(path: &Path, h: &mut Sha256) -> Result<()> {
    let read_err = |source| Error::Read {
        path: path.to_path_buf(),
        source,
    };
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(read_err)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for entry in entries {
            h.update(
                entry
                    .strip_prefix(path)
                    .unwrap_or(&entry)
                    .to_string_lossy()
                    .as_bytes(),
            );
            hash_path(&entry, h)?;
        }
        Ok(())
    } else {
        h.update(std::fs::read(path).map_err(read_err)?);
        Ok(())
    }
}

/// `--shard i/N`: the samples whose id hashes to bucket i−1 of N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 0-based.
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// Parse `i/N` with 1 ≤ i ≤ N.
    pub fn parse(text: &str) -> Option<Shard> {
        let (i, n) = text.split_once('/')?;
        let (i, n): (u64, u64) = (i.trim().parse().ok()?, n.trim().parse().ok()?);
        (n >= 1 && (1..=n).contains(&i)).then(|| Shard {
            index: i - 1,
            count: n,
        })
    }

    /// Whether a sample belongs to this shard (FNV-1a of its id: stable across versions).
    pub fn contains(&self, sample_id: &str) -> bool {
        crate::rng::label_hash(sample_id) % self.count == self.index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_disjoint_and_cover() {
        let shards: Vec<Shard> = (1..=4)
            .map(|i| Shard::parse(&format!("{i}/4")).unwrap())
            .collect();
        for id in (0..500).map(|i| format!("sample-{i}")) {
            assert_eq!(shards.iter().filter(|s| s.contains(&id)).count(), 1, "{id}");
        }
        assert!(Shard::parse("0/4").is_none());
        assert!(Shard::parse("5/4").is_none());
        assert!(Shard::parse("1/0").is_none());
        assert!(Shard::parse("x").is_none());
        assert_eq!(Shard::parse("1/1"), Some(Shard { index: 0, count: 1 }));
    }

    #[test]
    fn fingerprint_covers_model_and_files() {
        let dir = std::env::temp_dir().join(format!("goldgate-fp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let prompt = dir.join("prompt.txt");
        std::fs::write(&prompt, "v1").unwrap();
        let mut config = PipelineConfig {
            adapter: Adapter::Command {
                command: "x".into(),
                mode: Mode::Oneshot,
            },
            timeout: std::time::Duration::from_secs(1),
            max_output_bytes: 1 << 20,
            retries: 0,
            model: None,
            fingerprint_files: Vec::new(),
        };
        let plain = fingerprint(&config).unwrap();
        config.model = Some("m".into());
        let with_model = fingerprint(&config).unwrap();
        assert_ne!(plain, with_model);
        config.fingerprint_files = vec![dir.clone()];
        let v1 = fingerprint(&config).unwrap();
        std::fs::write(&prompt, "v2").unwrap();
        assert_ne!(v1, fingerprint(&config).unwrap());
        config.fingerprint_files = vec![dir.join("missing")];
        assert!(fingerprint(&config).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
