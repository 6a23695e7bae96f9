//! The answer cache: content-addressed by hash(request, pipeline fingerprint, repeat), so an
//! unchanged pipeline on unchanged samples costs nothing to run again. One file per answer
//! under `<dir>/<2 hex>/<hash>.json`, written to a temporary file and renamed into place,
//! which is atomic and safe with several writers. Only successful answers are cached. Each
//! entry records when it was stored, so a run with a `cache_ttl` reuses only recent ones.
//! Entries are read only when they are goldgate's own files (see [`goldgate_core::cachedir`]: never
//! one git tracks, a link or a special file), at most [`max_entry_bytes`] each; an entry
//! larger than that is never written.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::call::Reply;
use goldgate_core::cachedir::CacheDir;
use goldgate_core::error::{Location, Problem};
use goldgate_core::runfile::numbers;
use goldgate_core::runfile::record::Usage;
use goldgate_core::runfile::trace::Trace;

/// Whether the cache is read and written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CacheMode {
    /// Read hits, write misses.
    #[default]
    Use,
    /// Ignore existing entries, write fresh answers (`--refresh-cache`).
    Refresh,
    /// Neither read nor write (`--no-cache`).
    Off,
}

/// An answer as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Entry {
    text: String,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    latency_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    finish_reason: Option<String>,
    /// When the entry was stored, in seconds since the Unix epoch (absent in entries of
    /// older versions, which no `cache_ttl` reuses).
    #[serde(default)]
    stored_at: Option<u64>,
    /// A multi-step pipeline's calls, so a cached record shows them too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    trace: Option<Trace>,
}

#[derive(Clone, Debug)]
pub struct Cache {
    dir: Arc<CacheDir>,
    mode: CacheMode,
    /// Entries stored before this time (seconds since the epoch) are not reused.
    not_before: Option<u64>,
    /// The largest entry read or written.
    max_entry_bytes: u64,
}

/// The largest answer entry read or written: four times the largest answer kept (room for
/// JSON escapes and a multi-step pipeline's trace) plus 64 KiB; 64 MiB by default.
pub fn max_entry_bytes(max_output_bytes: usize) -> u64 {
    (max_output_bytes as u64).saturating_mul(4) + (64 << 10)
}

/// Seconds since the Unix epoch.
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Cache {
    /// The cache in `dir`; with a `ttl`, entries older than it (when the run starts) are
    /// not reused; entries over `max_entry_bytes` are neither read nor written.
    pub fn new(
        dir: Arc<CacheDir>,
        mode: CacheMode,
        ttl: Option<Duration>,
        max_entry_bytes: u64,
    ) -> Self {
        Cache {
            dir,
            mode,
            not_before: ttl.map(|ttl| now().saturating_sub(ttl.as_secs())),
            max_entry_bytes,
        }
    }

    /// The key of one call.
    pub fn key(request: &Value, pipeline_fingerprint: &str, repeat: u32) -> String {
        let mut h = Sha256::new();
        h.update(serde_json::to_vec(request).unwrap_or_default());
        h.update(b"\0");
        h.update(pipeline_fingerprint.as_bytes());
        h.update(format!("\0{repeat}").as_bytes());
        goldgate_core::text::hex(&h.finalize())
    }

    /// The key of one call whose kind may have a fingerprint of its own (`by_kind`: a chat
    /// pipeline's per-kind prompts); else the pipeline's.
    pub fn key_by_kind(
        request: &Value,
        by_kind: &std::collections::BTreeMap<String, String>,
        pipeline_fingerprint: &str,
        repeat: u32,
    ) -> String {
        let kind = request["kind"].as_str();
        let fingerprint = kind.and_then(|k| by_kind.get(k));
        Cache::key(
            request,
            fingerprint.map_or(pipeline_fingerprint, String::as_str),
            repeat,
        )
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.root().join(&key[..2]).join(format!("{key}.json"))
    }

    /// A cached answer, if there is one (an unreadable entry is a miss; one that is not
    /// goldgate's own is a miss the cache directory remembers). An entry whose numbers no
    /// call can have (a cost of 1e308 or below 0, a latency of -5 ms, a token count past any
    /// call's) was not written by goldgate: it is refused, naming its file and field, never
    /// answered from.
    pub fn get(&self, key: &str) -> Result<Option<Reply>, Problem> {
        if self.mode != CacheMode::Use {
            return Ok(None);
        }
        let path = self.path(key);
        let Some(bytes) = self.dir.read(&path, self.max_entry_bytes) else {
            return Ok(None);
        };
        let Ok(entry) = serde_json::from_slice::<Entry>(&bytes) else {
            return Ok(None);
        };
        check_entry(&entry, &path, &bytes)?;
        if let Some(not_before) = self.not_before {
            if entry.stored_at.is_none_or(|at| at < not_before) {
                return Ok(None);
            }
        }
        Ok(Some(Reply {
            text: entry.text,
            usage: entry.usage,
            latency_ms: entry.latency_ms,
            stderr: None,
            finish_reason: entry.finish_reason,
            trace: entry.trace,
        }))
    }

    /// Store an answer. Failing to write the cache never fails the run.
    pub fn put(&self, key: &str, reply: &Reply, latency_ms: f64) {
        if self.mode == CacheMode::Off {
            return;
        }
        let entry = Entry {
            text: reply.text.clone(),
            usage: reply.usage.clone(),
            latency_ms: Some(reply.latency_ms.unwrap_or(latency_ms)),
            finish_reason: reply.finish_reason.clone(),
            stored_at: Some(now()),
            trace: reply.trace.clone(),
        };
        let bytes = serde_json::to_vec(&entry).unwrap_or_default();
        let path = self.path(key);
        if bytes.len() as u64 > self.max_entry_bytes || !self.dir.writable(&path) {
            return;
        }
        let _ = goldgate_core::io::write_atomic_io(&path, |w| w.write_all(&bytes));
    }
}

/// An entry's numbers in their ranges ([`goldgate_core::runfile::numbers::reply`]); else a problem
/// at the entry's file, line and field.
fn check_entry(entry: &Entry, path: &Path, bytes: &[u8]) -> Result<(), Problem> {
    let impossible = numbers::reply(entry.latency_ms, entry.usage.as_ref(), entry.trace.as_ref());
    let Some((pointer, why)) = impossible else {
        return Ok(());
    };
    let text = String::from_utf8_lossy(bytes);
    let at = goldgate_core::document::json_positions(&text).nearest(&pointer);
    Err(Problem::new(
        Location::new(path, at.line, at.column),
        goldgate_core::document::field_of(&pointer),
        why,
    )
    .with_hint("goldgate writes only numbers a call can have: delete the entry, or run with --refresh-cache to store fresh answers"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_depend_on_request_fingerprint_and_repeat() {
        let r = json!({"id": "a"});
        let k = Cache::key(&r, "fp", 0);
        assert_eq!(k, Cache::key(&r, "fp", 0));
        assert_ne!(k, Cache::key(&r, "fp", 1));
        assert_ne!(k, Cache::key(&r, "fp2", 0));
        assert_ne!(k, Cache::key(&json!({"id": "b"}), "fp", 0));
    }

    #[test]
    fn round_trip_and_modes() {
        let dir = std::env::temp_dir().join(format!("goldgate-cache-test-{}", std::process::id()));
        let reply = Reply {
            text: "{\"requirements\": []}".into(),
            ..Reply::default()
        };
        let at = |mode, ttl| Cache::new(Arc::new(CacheDir::new(&dir)), mode, ttl, 1 << 20);
        let cache = at(CacheMode::Use, None);
        cache.put("abcdef", &reply, 12.0);
        assert_eq!(cache.get("abcdef").unwrap().unwrap().text, reply.text);
        assert_eq!(cache.get("abcdef").unwrap().unwrap().latency_ms, Some(12.0));
        assert!(at(CacheMode::Refresh, None)
            .get("abcdef")
            .unwrap()
            .is_none());
        assert!(cache.get("ab0000").unwrap().is_none());
        at(CacheMode::Off, None).put("ab1111", &reply, 1.0);
        assert!(cache.get("ab1111").unwrap().is_none());
        // A ttl keeps recent entries and drops old ones and those without a time.
        let hour = Some(Duration::from_secs(3600));
        assert!(at(CacheMode::Use, hour).get("abcdef").unwrap().is_some());
        let old = |stored_at: Option<u64>| {
            let entry = Entry {
                text: "old".into(),
                usage: None,
                latency_ms: None,
                finish_reason: None,
                stored_at,
                trace: None,
            };
            std::fs::write(cache.path("ab2222"), serde_json::to_vec(&entry).unwrap()).unwrap();
        };
        old(Some(now() - 7200));
        assert!(at(CacheMode::Use, hour).get("ab2222").unwrap().is_none());
        assert!(
            cache.get("ab2222").unwrap().is_some(),
            "without a ttl every entry is reused"
        );
        old(None);
        assert!(at(CacheMode::Use, hour).get("ab2222").unwrap().is_none());
        // An entry over the cap is never written (nor read).
        let tiny = Cache::new(Arc::new(CacheDir::new(&dir)), CacheMode::Use, None, 16);
        tiny.put("ab3333", &reply, 1.0);
        assert!(!tiny.path("ab3333").exists());
        assert!(tiny.get("abcdef").unwrap().is_none());
        assert_eq!(max_entry_bytes(16 << 20), (64 << 20) + (64 << 10));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// An entry with numbers no call can have is refused at its file and field, never
    /// answered from: a planted `cost_usd` of 1e308 printed `$inf` and passed a cost ceiling.
    #[test]
    fn an_entry_with_impossible_numbers_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(
            Arc::new(CacheDir::new(dir.path())),
            CacheMode::Use,
            None,
            1 << 20,
        );
        cache.put("abcdef", &Reply::default(), 12.0);
        std::fs::create_dir_all(dir.path().join("ab")).unwrap();
        for (entry, field) in [
            (
                json!({"text": "{}", "usage": {"cost_usd": 1e308}}),
                "usage.cost_usd",
            ),
            (
                json!({"text": "{}", "usage": {"cost_usd": -100.0}}),
                "usage.cost_usd",
            ),
            (json!({"text": "{}", "latency_ms": -5.0}), "latency_ms"),
            (
                json!({"text": "{}", "usage": {"prompt_tokens": u64::MAX}}),
                "usage.prompt_tokens",
            ),
        ] {
            std::fs::write(cache.path("abcdef"), entry.to_string()).unwrap();
            let problem = cache.get("abcdef").unwrap_err();
            assert_eq!(problem.field.as_deref(), Some(field), "{entry}");
            assert!(
                problem.location.to_string().contains("abcdef.json:1:"),
                "{problem:?}"
            );
        }
    }
}
