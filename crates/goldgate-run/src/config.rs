//! Which pipeline to run and how (`--command`, `--http`, `--chat`, `--replay` and their options), where
//! it was configured (for error messages), the environment and directory a command starts
//! in, the secrets its configuration holds, and shards. What an answer depends on (the
//! pipeline fingerprint) is in [`super::fingerprint`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::chat::ChatSettings;
use goldgate_core::error::{Error, Location, Problem};
use goldgate_core::secrets::Secrets;

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
    /// An OpenAI-compatible chat-completions API, prompted from templates.
    Chat(Box<ChatSettings>),
    /// The built-in multi-agent SRS generator over an OpenAI-compatible chat API.
    SrsAgents(Box<super::agents::options::AgentsOptions>),
}

impl Adapter {
    pub fn kind(&self) -> &'static str {
        match self {
            Adapter::Command { .. } => "command",
            Adapter::Http { .. } => "http",
            Adapter::Replay { .. } => "replay",
            Adapter::Chat(_) => "chat",
            Adapter::SrsAgents(_) => "srs-agents",
        }
    }
}

/// Where the adapter was configured: on the command line, or in `[pipeline]` of a
/// `goldgate.toml`. Errors about a setting name the flag or the file's key accordingly.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Origin {
    #[default]
    Flags,
    File(PathBuf),
}

impl Origin {
    /// A configuration error (exit 2) about one setting: `flag` on the command line, or
    /// `key` of `[pipeline]` (with its line) in the file; a dotted key names a key of a
    /// table below it (`agents.reqparse.prompt`: `prompt` of `[pipeline.agents.reqparse]`).
    pub fn error(&self, flag: &str, key: &str, message: &str, hint: &str) -> Error {
        match self {
            Origin::Flags => Error::usage(format!("{flag}: {message}"), hint),
            Origin::File(path) => {
                let line = match key.rsplit_once('.') {
                    Some((table, leaf)) => key_line(path, &format!("pipeline.{table}"), leaf),
                    None => key_line(path, "pipeline", key),
                };
                let problem = Problem::new(
                    Location::new(path, line, 0),
                    Some(format!("pipeline.{key}")),
                    message,
                )
                .with_hint(hint);
                Error::invalid("config file", problem)
            }
        }
    }
}

/// The 1-based line of `key = ...` in `[table]` of a TOML file (0 when not found).
pub fn key_line(path: &Path, table: &str, key: &str) -> usize {
    let Ok(text) = std::fs::read_to_string(path) else {
        return 0;
    };
    let mut current = String::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix('[') {
            current = name.trim_end_matches(']').trim().to_string();
        } else if current == table
            && line
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            return i + 1;
        }
    }
    0
}

/// The environment a command pipeline starts with. By default it inherits goldgate's own
/// environment except the `withheld` variables (the CI's tokens). With `clear`, it starts
/// from an empty environment and gets only the `kept_when_clear` variables (`PATH`,
/// `HOME`). Either way, a variable named in `passthrough` (a name, or `PREFIX_*`) is passed
/// when it is set, withheld or not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnvPolicy {
    pub clear: bool,
    pub passthrough: Vec<String>,
    /// Never passed unless named in `passthrough`; their values are redacted everywhere.
    pub withheld: Vec<String>,
    /// What a cleared environment keeps.
    pub kept_when_clear: Vec<String>,
}

impl EnvPolicy {
    /// Whether `passthrough` names this variable (exactly, or by a `PREFIX_*` pattern).
    pub fn passes(&self, name: &str) -> bool {
        self.passthrough
            .iter()
            .any(|p| goldgate_core::env::matches(p, name))
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
    /// Environment variables the answers depend on (`NAME`, or `PREFIX_*`), besides those
    /// the command, URL or headers name.
    pub fingerprint_env: Vec<String>,
    /// Where the adapter was configured.
    pub origin: Origin,
    /// The directory a command runs in (`None`: goldgate's working directory).
    pub workdir: Option<PathBuf>,
    /// The environment a command gets.
    pub env: EnvPolicy,
}

/// Every secret the pipeline's configuration puts in goldgate's hands: the values of the
/// withheld variables (the CI's tokens), and for an http pipeline the value of each
/// `${NAME}` in its URL and header values and the password of the URL's userinfo.
pub fn known_secrets(config: &PipelineConfig) -> Secrets {
    let mut secrets = Secrets::from_env(&config.env.withheld);
    if let Adapter::Http { url, headers } = &config.adapter {
        for template in std::iter::once(url).chain(headers.iter().map(|(_, v)| v)) {
            for value in goldgate_core::env::values_in(template) {
                secrets.add(&value);
            }
        }
        secrets.add_url_password(url);
        if let Ok(expanded) = goldgate_core::env::expand_url(url) {
            secrets.add_url_password(&expanded);
        }
    }
    let endpoint = match &config.adapter {
        Adapter::Chat(chat) => Some(&chat.endpoint),
        Adapter::SrsAgents(agents) => Some(&agents.endpoint),
        _ => None,
    };
    if let Some(endpoint) = endpoint {
        for (_, template) in &endpoint.headers {
            for value in goldgate_core::env::values_in(template) {
                secrets.add(&value);
            }
        }
        secrets.add_url_password(&endpoint.base_url);
        if let Ok(key) = std::env::var(&endpoint.api_key_env) {
            secrets.add(key.trim());
        }
    }
    secrets
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
        goldgate_core::rng::label_hash(sample_id) % self.count == self.index
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
    fn known_secrets_are_the_expanded_variables_and_the_url_password() {
        std::env::set_var("GOLDGATE_CONFIG_TEST_Q", "query-secret-1");
        std::env::set_var("GOLDGATE_CONFIG_TEST_H", "header-secret-2");
        std::env::set_var("GOLDGATE_CONFIG_TEST_W", "withheld-secret-3");
        let config = PipelineConfig {
            adapter: Adapter::Http {
                url: "https://u:url-pass-4@h/x?t=${GOLDGATE_CONFIG_TEST_Q}".into(),
                headers: vec![("X-Key".into(), "k ${GOLDGATE_CONFIG_TEST_H}".into())],
            },
            timeout: std::time::Duration::from_secs(1),
            max_output_bytes: 1,
            retries: 0,
            model: None,
            fingerprint_files: Vec::new(),
            fingerprint_env: Vec::new(),
            origin: Origin::Flags,
            workdir: None,
            env: EnvPolicy {
                withheld: vec!["GOLDGATE_CONFIG_TEST_W".into()],
                ..EnvPolicy::default()
            },
        };
        let s = known_secrets(&config);
        assert_eq!(
            s.redact("query-secret-1 header-secret-2 withheld-secret-3 url-pass-4 k"),
            "*** *** *** *** k"
        );
    }

    #[test]
    fn passthrough_names_variables_exactly_or_by_prefix() {
        let env = EnvPolicy {
            passthrough: vec!["GH_TOKEN".into(), "OPENAI_*".into()],
            ..EnvPolicy::default()
        };
        assert!(env.passes("GH_TOKEN") && env.passes("OPENAI_API_KEY"));
        assert!(!env.passes("GH_TOKEN2") && !env.passes("GITHUB_TOKEN"));
    }

    #[test]
    fn a_setting_error_names_the_flag_or_the_key_and_its_line() {
        let dir = std::env::temp_dir().join(format!("goldgate-origin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("goldgate.toml");
        std::fs::write(
            &path,
            "[check]\ncommand = 1\n\n[pipeline]\nkind = \"command\"\ncommand = \"x\"\n",
        )
        .unwrap();
        let e = Origin::File(path.clone()).error("--command", "command", "bad", "fix it");
        let text = e.to_string();
        assert!(
            text.contains("goldgate.toml:6") && text.contains("`pipeline.command`: bad"),
            "{text}"
        );
        assert!(text.contains("hint: fix it"), "{text}");
        let e = Origin::Flags.error("--command", "command", "bad", "fix it");
        assert_eq!(e.to_string(), "--command: bad\n  hint: fix it");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
