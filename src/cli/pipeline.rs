//! The pipeline options shared by `run`, `check` and `baseline refresh`: which pipeline to
//! call (`--command`, `--http`, `--chat`, `--replay`), how hard to drive it, what it may
//! cost, its cache and the environment it gets.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// How a `--command` pipeline is driven.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// One process per sample: the sample JSON on stdin, the answer on stdout
    Oneshot,
    /// One long-lived process: a request line in, an {"id": ..., "output": ...} line out
    Jsonl,
}

/// Which pipeline to call and how (shared by `run`, `check` and `baseline refresh`).
#[derive(Debug, Args)]
pub struct PipelineArgs {
    /// Settings file ([pipeline], [run]); default: ./goldgate.toml when it exists. Flags win.
    #[arg(long, env = "GOLDGATE_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Run this shell command as the pipeline (`sh -c CMD`)
    #[arg(long, value_name = "CMD", conflicts_with_all = ["replay", "http"])]
    pub command: Option<String>,
    /// How the command is driven [default: oneshot]
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// POST each sample to this URL; any 2xx body is the answer (`${ENV}` is expanded)
    #[arg(long, value_name = "URL", conflicts_with = "replay")]
    pub http: Option<String>,
    /// An HTTP header, 'Name: value'; repeatable; `${ENV}` keeps tokens out of files
    #[arg(long = "header", value_name = "HEADER")]
    pub headers: Vec<String>,
    /// Replay answers from a run.jsonl or an outputs file instead of calling a pipeline
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
    /// Call an OpenAI-compatible chat API as the pipeline, prompting it with templates
    /// (built-in ones for each task kind unless --system/--prompt name yours)
    #[arg(long, conflicts_with_all = ["command", "http", "replay"])]
    pub chat: bool,
    /// The chat API's root [default: $OPENAI_BASE_URL, else https://api.openai.com/v1]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The environment variable holding the chat API's key [default: OPENAI_API_KEY]
    #[arg(long, value_name = "NAME")]
    pub api_key_env: Option<String>,
    /// Sampling temperature sent to the chat API (0 to 2)
    #[arg(long, value_name = "T")]
    pub temperature: Option<f64>,
    /// Most tokens the model may write per answer
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Seed sent to the chat API, for providers that honour it (`seed` under [pipeline])
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub chat_seed: Option<i64>,
    /// The system prompt: a minijinja template file
    #[arg(long, value_name = "FILE")]
    pub system: Option<PathBuf>,
    /// The user prompt: a minijinja template file rendered with the sample's fields
    #[arg(long, value_name = "FILE")]
    pub prompt: Option<PathBuf>,
    /// `json_object`, `text`, or a JSON Schema file for structured outputs
    #[arg(long, value_name = "FORMAT|FILE")]
    pub response_format: Option<String>,
    /// Provider-specific fields added to every chat request, as a JSON object
    #[arg(long, value_name = "JSON")]
    pub extra_body: Option<String>,
    /// Stream the chat API's answers (Server-Sent Events)
    #[arg(long)]
    pub stream: bool,
    /// Price of a million input (prompt) tokens, in USD, to cost the calls
    #[arg(long, value_name = "USD")]
    pub input_per_mtok: Option<f64>,
    /// Price of a million output (completion) tokens, in USD
    #[arg(long, value_name = "USD")]
    pub output_per_mtok: Option<f64>,
    /// Stop starting calls once this run's calls have cost this much (USD); the run is
    /// incomplete (exit 3) and --resume goes on from there
    #[arg(long, env = "GOLDGATE_MAX_COST", value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Calls in flight at once [default: 16]
    #[arg(long, short, env = "GOLDGATE_JOBS")]
    pub jobs: Option<usize>,
    /// Seconds a call may take before it is stopped and recorded as a timeout [default: 120]
    #[arg(long, env = "GOLDGATE_TIMEOUT", value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Largest answer kept, in bytes; a pipeline printing more is stopped [default: 16 MiB]
    #[arg(long, value_name = "BYTES")]
    pub max_output_bytes: Option<usize>,
    /// Largest suite sample read, in bytes (a YAML or JSON file, or one JSONL line); a bigger
    /// one is an input error [default: 16 MiB, or [suite] max_sample_bytes]
    #[arg(long, value_name = "BYTES")]
    pub max_sample_bytes: Option<u64>,
    /// At most N calls a minute, evenly spaced (every attempt counts)
    #[arg(long, env = "GOLDGATE_RPM", value_name = "N")]
    pub rpm: Option<u32>,
    /// At most N tokens a minute, as answers report them in a top-level `usage` object
    #[arg(long, env = "GOLDGATE_TPM", value_name = "N")]
    pub tpm: Option<u64>,
    /// Extra attempts after a retryable failure (HTTP 429/5xx, connection errors) [default: 3]
    #[arg(long, env = "GOLDGATE_RETRIES")]
    pub retries: Option<u32>,
    /// Keep the records an interrupted run finished and run only the rest
    #[arg(long)]
    pub resume: bool,
    /// Stop the run (exit 3) once more than N calls have failed: a broken pipeline should
    /// not burn through the whole suite
    #[arg(long, env = "GOLDGATE_MAX_ERRORS", value_name = "N")]
    pub max_errors: Option<usize>,
    /// Run every sample N times (repeats are evidence of flakiness; the repeat index is in
    /// the record and the cache key) [default: 1]
    #[arg(long, env = "GOLDGATE_REPEAT", value_name = "N")]
    pub repeat: Option<u32>,
    /// Run only shard i of N (1-based; split by a hash of the sample id; shards are disjoint
    /// and cover the suite); `goldgate merge` joins the outputs
    #[arg(long, value_name = "i/N")]
    pub shard: Option<String>,
    /// The answer cache directory [default: .goldgate/cache]
    #[arg(long, env = "GOLDGATE_CACHE_DIR", value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Neither read nor write the cache
    #[arg(long, conflicts_with = "refresh_cache")]
    pub no_cache: bool,
    /// Ignore cached answers but store the fresh ones
    #[arg(long)]
    pub refresh_cache: bool,
    /// Cache an http pipeline's answers too, like `cache = true` under [pipeline]
    #[arg(long, conflicts_with = "no_cache")]
    pub cache: bool,
    /// Reuse cached answers only this recent (30m, 1h, 2d)
    #[arg(long, value_name = "DURATION")]
    pub cache_ttl: Option<String>,
    /// The model the pipeline uses (part of the pipeline fingerprint, so of the cache key)
    #[arg(long, env = "GOLDGATE_MODEL", value_name = "NAME")]
    pub model: Option<String>,
    /// A file or directory the answers depend on (prompts, code); repeatable; when given,
    /// the cache key covers these instead of the whole git repository
    #[arg(long = "fingerprint-file", value_name = "PATH")]
    pub fingerprint_files: Vec<PathBuf>,
    /// An environment variable the answers depend on: its value (hashed, never written) is
    /// part of the cache key; `PREFIX_*` names a prefix; repeatable (variables the command,
    /// URL or headers name as ${NAME} count without it)
    #[arg(long = "fingerprint-env", value_name = "NAME")]
    pub fingerprint_env: Vec<String>,
    /// Pass this environment variable to a command pipeline even if goldgate withholds it
    /// (GITHUB_TOKEN, GH_TOKEN, ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN) or
    /// --env-clear drops it; `PREFIX_*` names a prefix; repeatable
    #[arg(long = "env-passthrough", value_name = "NAME")]
    pub env_passthrough: Vec<String>,
    /// Start a command pipeline with only PATH, HOME and the --env-passthrough variables
    #[arg(long)]
    pub env_clear: bool,
}
