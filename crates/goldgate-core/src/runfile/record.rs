//! The `run.jsonl` record (one pipeline call: sample, repeat, answer or failure, latency,
//! usage, cache, and what the cache key was made of), and the simpler outputs-file line
//! (`{"id", "output"}`) recorded answers can also be given as.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::judge::JudgeRecord;

/// Why a pipeline call failed (timeout, exit, http, spawn, plus `output` for an answer over the
/// size limit or a jsonl response line of the wrong shape, and `missing` for a replay file
/// without an answer for the sample).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    Timeout,
    Exit,
    Http,
    Spawn,
    Output,
    Missing,
}

impl ErrorKind {
    /// The kind as written in run files (`timeout`, `exit`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Timeout => "timeout",
            ErrorKind::Exit => "exit",
            ErrorKind::Http => "http",
            ErrorKind::Spawn => "spawn",
            ErrorKind::Output => "output",
            ErrorKind::Missing => "missing",
        }
    }

    /// What happened to a sample whose call failed this way, as reports name it.
    pub fn outcome(self) -> &'static str {
        match self {
            ErrorKind::Timeout => "timed out",
            ErrorKind::Exit => "crashed",
            ErrorKind::Http => "call failed",
            ErrorKind::Spawn => "did not start",
            ErrorKind::Output => "answer too large",
            ErrorKind::Missing => "no answer",
        }
    }
}

/// A failed pipeline call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordError {
    pub kind: ErrorKind,
    pub message: String,
}

/// Token usage and cost of one call, where the pipeline reports them, or as goldgate counted
/// them when it did not (`estimated`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The token counts are goldgate's own count of the request and the answer (the
    /// pipeline reported none it could use), and the cost, when priced, is theirs: an
    /// estimate.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
    /// What the pipeline reported that cannot be a token count or a cost (a negative count,
    /// a string, `1e308` dollars), with why: those numbers were dropped, never counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
}

impl Usage {
    /// Total tokens: `total_tokens`, else prompt + completion when either is known (`None`
    /// also when that sum would overflow).
    pub fn tokens(&self) -> Option<u64> {
        self.total_tokens
            .or(match (self.prompt_tokens, self.completion_tokens) {
                (None, None) => None,
                (p, c) => crate::quantity::add_tokens(p.unwrap_or(0), c.unwrap_or(0)),
            })
    }

    /// The first number outside its range, as (field, why): token counts up to
    /// [`crate::quantity::MAX_TOKENS`], a cost that is finite, not negative and at most
    /// [`crate::quantity::MAX_COST_USD`].
    pub fn problem(&self) -> Option<(&'static str, String)> {
        let counts = [
            ("prompt_tokens", self.prompt_tokens),
            ("completion_tokens", self.completion_tokens),
            ("total_tokens", self.total_tokens),
        ];
        for (field, n) in counts {
            if let Some(Err(why)) = n.map(crate::quantity::check_tokens) {
                return Some((field, why));
            }
        }
        let cost = self.cost_usd.map(crate::quantity::cost);
        cost.and_then(Result::err).map(|why| ("cost_usd", why))
    }

    /// A chat call's tokens as a record counts them (`invalid`: what the server reported
    /// instead, when it could not be a count).
    pub fn of_tokens(tokens: crate::llm::TokenUsage, invalid: Option<String>) -> Usage {
        Usage {
            prompt_tokens: Some(tokens.prompt_tokens),
            completion_tokens: Some(tokens.completion_tokens),
            total_tokens: Some(tokens.total()),
            cost_usd: None,
            estimated: tokens.estimated,
            invalid,
        }
    }

    /// Whether the record's tokens or cost are known only as goldgate's estimate.
    pub fn is_estimated(usage: Option<&Usage>) -> bool {
        usage.is_some_and(|u| u.estimated)
    }
}

/// One line of `run.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    pub sample_id: String,
    #[serde(default)]
    pub repeat: u32,
    #[serde(default)]
    pub raw_output: Option<String>,
    #[serde(default)]
    pub prediction: Option<Value>,
    /// The parse outcome as the runner saw it; scoring parses `raw_output` again.
    #[serde(default)]
    pub parse: Option<Value>,
    #[serde(default)]
    pub error: Option<RecordError>,
    #[serde(default)]
    pub latency_ms: Option<f64>,
    #[serde(default)]
    pub cached: bool,
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default)]
    pub pipeline_fingerprint: Option<String>,
    /// The pipeline's standard error (truncated), for command pipelines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The model the pipeline was run with (`--model`), when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Why the model stopped writing (`stop`; `length` when the answer hit the token
    /// limit and is cut short), when the API said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The call's cache key: hash(request, pipeline fingerprint, repeat), also the name of its
    /// cache entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_key: Option<String>,
    /// The run that started the file: on the file's first record only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<RunProvenance>,
    /// Every model call of a multi-step pipeline (`srs-agents`) and the state it ended in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<super::trace::Trace>,
    /// The judge's review of the answer (e2e samples with a reference SRS, when `[judge]`
    /// is configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeRecord>,
}

/// What a run's answers depend on, and how it used the cache: recorded once, on the run
/// file's first record, so a user can see why an answer was or was not reused, and
/// `--resume` can tell whether a partial run is the same run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunProvenance {
    /// The suite fingerprint when the run started (`sha256:…` of the bytes of its files).
    pub suite_fingerprint: String,
    /// Records per sample (`--repeat`).
    pub repeats: u32,
    /// What went into the pipeline fingerprint.
    pub fingerprint: FingerprintParts,
    /// How the run used the cache.
    pub cache: CacheUse,
    /// Why the cache is off, when goldgate turned it off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_off: Option<String>,
    /// Entries older than this many seconds were not reused (`cache_ttl`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_ttl_secs: Option<u64>,
}

/// How a run used the answer cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheUse {
    /// Cached answers were reused and fresh ones stored.
    #[default]
    ReadWrite,
    /// Fresh answers were stored, none reused (`--refresh-cache`, `baseline refresh`).
    WriteOnly,
    /// Neither.
    Off,
}

/// The parts of the pipeline fingerprint, each a hash or a name (never a secret).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FingerprintParts {
    /// `command`, `http`, `chat` or `replay`.
    pub adapter: String,
    /// `sha256:` of the adapter's settings: the command and mode, the URL and header
    /// templates, or the replay file's bytes.
    pub config: String,
    /// The model (`--model`), when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// What stands for the pipeline's code: `git` (the repository's tracked files), `files`
    /// (`fingerprint_files`), `prompts` (a `chat` pipeline's prompt templates) or `none`.
    pub source: String,
    /// `sha256:` of every tracked file's path, mode and blob id as git stages them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_index: Option<String>,
    /// `sha256:` of the uncommitted changes to tracked files (work tree against the index);
    /// absent when there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_worktree: Option<String>,
    /// How many tracked files the fingerprint covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_files: Option<usize>,
    /// goldgate's own files left out of it, relative to the repository's root.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub git_excluded: Vec<String>,
    /// Each fingerprint file (or directory) and the `sha256:` of its content.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
    /// The environment variables whose values (hashed, never written) are part of the
    /// fingerprint: `fingerprint_env` and those the command, URL or headers name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// Each of the adapter's settings (`[pipeline] command`, `[pipeline] temperature`, a
    /// prompt template, …) and the `sha256:` of its value, so a change can be named.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, String>,
}

/// The setting a pipeline's model is recorded under.
pub const MODEL_SETTING: &str = "[pipeline] model";

impl FingerprintParts {
    /// What differs from `then` to `self`, for people: the adapter; what stands for the
    /// code, the repository's content, each fingerprint or prompt file; each setting; the
    /// model (with both names). Parts recorded before settings were (older run files) name
    /// the adapter's settings as a whole.
    pub fn changes_since(&self, then: &FingerprintParts) -> Vec<String> {
        let now = self;
        let mut out = Vec::new();
        if then.adapter != now.adapter {
            out.push(format!("the adapter ({} → {})", then.adapter, now.adapter));
        }
        if then.source != now.source {
            out.push(format!(
                "what stands for its code ({} → {})",
                then.source, now.source
            ));
        } else {
            if then.git_index != now.git_index {
                out.push("the repository's tracked files".into());
            }
            if then.git_worktree != now.git_worktree {
                out.push("the uncommitted changes to tracked files".into());
            }
            out.extend(changed_keys(&then.files, &now.files, |_| false));
        }
        if then.adapter == now.adapter {
            match then.settings.is_empty() || now.settings.is_empty() {
                true if then.config != now.config => out.push(match now.adapter.as_str() {
                    "command" => "the command or its mode".to_string(),
                    "http" => "the URL or the headers".to_string(),
                    "srs-agents" => "the agents' settings or prompts".to_string(),
                    "replay" => "the replay file".to_string(),
                    other => format!("the {other} settings or prompts"),
                }),
                true => {}
                // The model is named below, with both names.
                false => out.extend(changed_keys(&then.settings, &now.settings, |k| {
                    k == MODEL_SETTING && then.model != now.model
                })),
            }
        }
        if then.model != now.model {
            let name = |m: &Option<String>| m.clone().unwrap_or_else(|| "none".into());
            out.push(format!(
                "{MODEL_SETTING} ({} → {})",
                name(&then.model),
                name(&now.model)
            ));
        }
        out
    }
}

/// The keys whose value differs between two maps, `(new)` or `(gone)` when one lacks it,
/// in name order; `skip` leaves keys out.
fn changed_keys(
    then: &BTreeMap<String, String>,
    now: &BTreeMap<String, String>,
    skip: impl Fn(&str) -> bool,
) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = then.keys().chain(now.keys()).collect();
    keys.into_iter()
        .filter(|k| !skip(k))
        .filter_map(|k| match (then.get(k), now.get(k)) {
            (a, b) if a == b => None,
            (None, _) => Some(format!("{k} (new)")),
            (_, None) => Some(format!("{k} (gone)")),
            _ => Some(k.clone()),
        })
        .collect()
}

/// One line of an outputs file: a recorded answer, as a string or as JSON.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputLine {
    pub id: String,
    #[serde(default)]
    pub repeat: u32,
    pub output: Value,
}

/// A recorded answer, whichever file it came from: what scoring needs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answer {
    pub repeat: u32,
    /// The answer text; empty when the call failed.
    pub text: String,
    /// Why the call failed, if it did.
    pub error: Option<RecordError>,
    pub latency_ms: Option<f64>,
    pub cached: bool,
    pub usage: Option<Usage>,
    pub pipeline_fingerprint: Option<String>,
    pub model: Option<String>,
    /// Why the model stopped writing, when the API said (`length`: cut at the token limit).
    pub finish_reason: Option<String>,
    /// The judge's review, when there is one.
    pub judge: Option<JudgeRecord>,
    /// What went into the pipeline fingerprint, on the record that starts a run file.
    pub pipeline: Option<FingerprintParts>,
}

impl Answer {
    /// Whether the pipeline call failed.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }
}

impl From<RunRecord> for Answer {
    fn from(r: RunRecord) -> Answer {
        let text = match (r.error.is_some(), r.raw_output, r.prediction) {
            (true, _, _) => String::new(),
            (false, Some(raw), _) => raw,
            (false, None, Some(prediction)) => prediction.to_string(),
            (false, None, None) => String::new(),
        };
        Answer {
            repeat: r.repeat,
            text,
            error: r.error,
            latency_ms: r.latency_ms,
            cached: r.cached,
            usage: r.usage,
            pipeline_fingerprint: r.pipeline_fingerprint,
            model: r.model,
            finish_reason: r.finish_reason,
            judge: r.judge,
            pipeline: r.provenance.map(|p| p.fingerprint),
        }
    }
}

impl From<OutputLine> for Answer {
    fn from(o: OutputLine) -> Answer {
        let text = match o.output {
            Value::String(s) => s,
            Value::Null => String::new(),
            other => other.to_string(),
        };
        Answer {
            repeat: o.repeat,
            text,
            ..Answer::default()
        }
    }
}
