//! The judge cache: valid judgements kept under `<cache dir>/judge/`, one file per
//! judgement named by its key (the judge's model at its endpoint, its prompts and
//! temperature, the rules its answers are read by, both texts and the judge repeat),
//! written atomically, so reviewing an
//! unchanged document again costs nothing and editing a judge prompt asks again. Invalid
//! judgements are not kept: they are asked again next time. A stored review is read only
//! when it is goldgate's own file (see [`goldgate_core::cachedir`]: never one git tracks, a link or
//! a special file), at most [`MAX_ENTRY_BYTES`].

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use goldgate_core::cachedir::CacheDir;
use goldgate_core::judge::Judgement;

/// The largest stored review read or written (a valid one is a few hundred bytes).
pub const MAX_ENTRY_BYTES: u64 = 64 << 10;

/// Whether the judge cache is read (`--refresh-cache` writes it without reading).
#[derive(Clone, Debug)]
pub struct JudgeCache {
    dir: Arc<CacheDir>,
    read: bool,
}

/// A judgement as stored.
#[derive(Serialize, Deserialize)]
struct Entry {
    judgement: Judgement,
    /// When it was stored, in seconds since the Unix epoch.
    stored_at: u64,
}

impl JudgeCache {
    /// The judge cache inside the run's cache directory.
    pub fn new(cache_dir: Arc<CacheDir>, read: bool) -> JudgeCache {
        JudgeCache {
            dir: cache_dir,
            read,
        }
    }

    fn path(&self, key: &str) -> PathBuf {
        let dir = self.dir.root().join("judge").join(&key[..2]);
        dir.join(format!("{key}.json"))
    }

    /// The stored judgement (marked cached, no attempts made), if there is a valid one.
    pub fn get(&self, key: &str) -> Option<Judgement> {
        if !self.read {
            return None;
        }
        let bytes = self.dir.read(&self.path(key), MAX_ENTRY_BYTES)?;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        entry.judgement.metrics?;
        // An entry with a number no review can have (a score of 5, a negative cost) is not
        // goldgate's: the judge is asked again, and its answer replaces the entry.
        if goldgate_core::runfile::numbers::judgement(&entry.judgement, "").is_some() {
            return None;
        }
        Some(Judgement {
            cached: true,
            attempts: 0,
            ..entry.judgement
        })
    }

    /// Keep a judgement (a failed write only costs a call next time).
    pub fn put(&self, key: &str, judgement: &Judgement) {
        let entry = Entry {
            judgement: judgement.clone(),
            stored_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        };
        let Ok(bytes) = serde_json::to_vec(&entry) else {
            return;
        };
        let path = self.path(key);
        if bytes.len() as u64 > MAX_ENTRY_BYTES || !self.dir.writable(&path) {
            return;
        }
        let _ = goldgate_core::io::write_atomic_io(&path, |w| w.write_all(&bytes));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use goldgate_core::judge::Scores;

    #[test]
    fn valid_judgements_come_back_marked_cached() {
        let dir = std::env::temp_dir().join(format!("goldgate-judge-cache-{}", std::process::id()));
        let cache_dir = Arc::new(CacheDir::new(&dir));
        let cache = JudgeCache::new(cache_dir.clone(), true);
        let valid = Judgement {
            metrics: Some(Scores::default()),
            attempts: 2,
            latency_ms: Some(40.0),
            ..Judgement::default()
        };
        let key = "ab".repeat(32);
        assert_eq!(cache.get(&key), None);
        cache.put(&key, &valid);
        let hit = cache.get(&key).unwrap();
        assert!(hit.cached && hit.attempts == 0 && hit.metrics == valid.metrics);
        assert!(dir.join("judge/ab").is_dir());
        // Refreshing writes without reading.
        assert_eq!(JudgeCache::new(cache_dir, false).get(&key), None);
        // An invalid judgement is never served.
        let other = "cd".repeat(32);
        cache.put(&other, &Judgement::not_judged("x"));
        assert_eq!(cache.get(&other), None);
        // Nor one holding a number no review can have (a planted score of 5, a negative
        // cost): the judge is asked again.
        let scores = Scores {
            coverage: 5.0,
            ..Scores::default()
        };
        let planted = "ef".repeat(32);
        cache.put(
            &planted,
            &Judgement {
                metrics: Some(scores),
                ..valid.clone()
            },
        );
        assert_eq!(cache.get(&planted), None);
        let costly = "0a".repeat(32);
        cache.put(
            &costly,
            &Judgement {
                cost_usd: Some(-1.0),
                ..valid.clone()
            },
        );
        assert_eq!(cache.get(&costly), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
