//! The judge cache: valid judgements kept under `<cache dir>/judge/`, one file per
//! judgement named by its key (the judge's model at its endpoint, its prompts and
//! temperature, the rules its answers are read by, both texts and the judge repeat),
//! written atomically, so reviewing an
//! unchanged document again costs nothing and editing a judge prompt asks again. Invalid
//! judgements are not kept: they are asked again next time.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::judge::Judgement;

/// Whether the judge cache is read (`--refresh-cache` writes it without reading).
#[derive(Clone, Debug)]
pub struct JudgeCache {
    dir: PathBuf,
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
    pub fn new(cache_dir: &Path, read: bool) -> JudgeCache {
        JudgeCache {
            dir: cache_dir.join("judge"),
            read,
        }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    /// The stored judgement (marked cached, no attempts made), if there is a valid one.
    pub fn get(&self, key: &str) -> Option<Judgement> {
        if !self.read {
            return None;
        }
        let entry: Entry = serde_json::from_slice(&std::fs::read(self.path(key)).ok()?).ok()?;
        entry.judgement.metrics?;
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
        let _ = crate::io::write_atomic_io(&self.path(key), |w| {
            serde_json::to_writer(&mut *w, &entry).map_err(std::io::Error::from)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Scores;

    #[test]
    fn valid_judgements_come_back_marked_cached() {
        let dir = std::env::temp_dir().join(format!("goldgate-judge-cache-{}", std::process::id()));
        let cache = JudgeCache::new(&dir, true);
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
        assert_eq!(JudgeCache::new(&dir, false).get(&key), None);
        // An invalid judgement is never served.
        let other = "cd".repeat(32);
        cache.put(&other, &Judgement::not_judged("x"));
        assert_eq!(cache.get(&other), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
