//! The embedding cache: vectors kept on disk by (model fingerprint, text hash) under
//! `<cache dir>/embeddings/<fingerprint>/`, so that gold texts are embedded once across runs
//! and only new answers cost compute. [`vectors`] turns a list of texts into the
//! [`Vectors`] table scoring reads, embedding only what the cache lacks.
//!
//! Each write adds one shard file, written atomically (temporary file, then rename), so
//! concurrent runs never see half a shard and never lose each other's vectors. A shard is
//! `GGVEC1`, the dimension (u32 LE), then records of a 32-byte SHA-256 of the text and its
//! vector (f32 LE), then a SHA-256 of everything before it: a shard that fails the check is
//! ignored (and removed), so a damaged cache costs compute, never a wrong vector. Many
//! shards are merged into few. A shard is read only when it is goldgate's own file (see
//! [`crate::cachedir`]: never one git tracks, a link or a special file, and never through a
//! linked directory), at most [`MAX_SHARD_BYTES`]; no shard larger than that is written.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{Embedder, Vectors};
use crate::cachedir::CacheDir;
use crate::error::{Error, Result};
use crate::io::write_atomic;
use crate::text::hex;

const MAGIC: &[u8; 6] = b"GGVEC1";
/// Texts embedded per call to the embedder: a long run saves its work as it goes.
const CHUNK: usize = 2048;
/// More shards than this are merged.
const MAX_SHARDS: usize = 32;
/// The largest shard read or written (about 170,000 vectors of 384 components).
pub const MAX_SHARD_BYTES: u64 = 256 << 20;

/// What [`vectors`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Distinct texts asked for.
    pub texts: usize,
    /// Of those, found in the cache.
    pub cached: usize,
    /// Of those, embedded now.
    pub computed: usize,
}

/// The vectors of `texts` (duplicates are embedded once): from the cache under `cache_dir`
/// when there, else from `embedder`, whose new vectors are then added to the cache.
/// `cache_dir` `None` keeps nothing on disk.
pub fn vectors(
    embedder: &dyn Embedder,
    cache_dir: Option<&CacheDir>,
    texts: impl IntoIterator<Item = String>,
) -> Result<(Vectors, Stats)> {
    let mut wanted: Vec<String> = texts.into_iter().collect();
    wanted.sort_unstable();
    wanted.dedup();
    let dir = cache_dir.map(|c| (c, shard_dir(c.root(), &embedder.identity().fingerprint)));
    let stored = match &dir {
        Some((cache, dir)) => Store::read(cache, dir, MAX_SHARD_BYTES),
        None => Store::default(),
    };
    let mut stats = Stats {
        texts: wanted.len(),
        ..Stats::default()
    };
    let mut table: Option<Vectors> = stored.dim.map(Vectors::new);
    let mut missing: Vec<&str> = Vec::new();
    for text in &wanted {
        match stored.vectors.get(&key(text)) {
            Some(v) => {
                table
                    .get_or_insert_with(|| Vectors::new(v.len()))
                    .insert(text, v);
                stats.cached += 1;
            }
            None => missing.push(text),
        }
    }
    for chunk in missing.chunks(CHUNK) {
        let computed = embedder.embed(chunk)?;
        if computed.len() != chunk.len() {
            return Err(Error::internal(format!(
                "the {} embedder gave {} for {}",
                embedder.identity().backend,
                crate::text::plural(computed.len(), "vector"),
                crate::text::plural(chunk.len(), "text")
            )));
        }
        let dim = computed.first().map_or(0, Vec::len);
        if dim == 0 || computed.iter().any(|v| v.len() != dim) {
            return Err(Error::environment(
                format!("the {} embedder gave vectors of different or zero length", embedder.identity().backend),
                "the model or endpoint is not a sentence-embedding model: check `[matching]` in thresholds.toml",
            ));
        }
        let table = table.get_or_insert_with(|| Vectors::new(dim));
        if table.dim() != dim {
            return Err(Error::environment(
                format!(
                    "the {} embedder gave vectors of {dim} components where its cached ones have {}",
                    embedder.identity().backend,
                    table.dim()
                ),
                match &dir {
                    Some((_, dir)) => format!("the model changed under the same name: remove {}", dir.display()),
                    None => "the model changed while goldgate ran".to_string(),
                },
            ));
        }
        for (text, vector) in chunk.iter().zip(&computed) {
            table.insert(text, vector);
        }
        stats.computed += chunk.len();
        if let Some((cache, dir)) = &dir {
            let records = chunk.iter().zip(&computed);
            let records = records.map(|(t, v)| (key(t), v.as_slice()));
            write_shards(cache, dir, dim, records, MAX_SHARD_BYTES)?;
        }
    }
    if let Some((cache, dir)) = &dir {
        if stored.shards.len() + missing.len().div_ceil(CHUNK) > MAX_SHARDS {
            merge(cache, dir, MAX_SHARD_BYTES)?;
        }
    }
    Ok((table.unwrap_or_default(), stats))
}

/// Where the vectors of the model with this fingerprint are kept.
pub fn shard_dir(cache_dir: &Path, fingerprint: &str) -> PathBuf {
    cache_dir.join("embeddings").join(fingerprint)
}

fn key(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// The readable shards of one model.
#[derive(Default)]
struct Store {
    dim: Option<usize>,
    vectors: HashMap<[u8; 32], Vec<f32>>,
    shards: Vec<PathBuf>,
}

impl Store {
    /// Every shard of goldgate's own (at most `max_bytes`) that reads whole and checks out;
    /// the others of its own are removed, the rest left alone (the cache directory says
    /// which it ignored).
    fn read(cache: &CacheDir, dir: &Path, max_bytes: u64) -> Store {
        let mut store = Store::default();
        let mut paths: Vec<PathBuf> = (cache.list(dir).into_iter())
            .filter(|p| p.extension().is_some_and(|e| e == "vec"))
            .collect();
        paths.sort();
        for path in paths {
            let Some(bytes) = cache.read(&path, max_bytes) else {
                continue; // not goldgate's own, or merged away by another run meanwhile
            };
            match parse_shard(&bytes) {
                Some((dim, records)) if store.dim.is_none_or(|d| d == dim) => {
                    store.dim = Some(dim);
                    store.vectors.extend(records);
                    store.shards.push(path);
                }
                Some(_) => store.shards.push(path), // another dimension: left alone
                None => {
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        store
    }
}

/// A text's hash and its vector.
type Record = ([u8; 32], Vec<f32>);

/// A shard's dimension and records, when it is whole and its checksum holds.
fn parse_shard(bytes: &[u8]) -> Option<(usize, Vec<Record>)> {
    let body_len = bytes.len().checked_sub(32)?;
    let (body, sum) = bytes.split_at(body_len);
    if Sha256::digest(body).as_slice() != sum || !body.starts_with(MAGIC) {
        return None;
    }
    let dim = u32::from_le_bytes(body.get(6..10)?.try_into().ok()?) as usize;
    let record = 32 + 4 * dim;
    let records = &body[10..];
    if dim == 0 || records.len() % record != 0 {
        return None;
    }
    let out = records
        .chunks_exact(record)
        .map(|r| {
            let key: [u8; 32] = r[..32].try_into().expect("32 bytes");
            let vector = r[32..]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect();
            (key, vector)
        })
        .collect();
    Some((dim, out))
}

fn shard_bytes<'a>(dim: usize, records: impl Iterator<Item = ([u8; 32], &'a [f32])>) -> Vec<u8> {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(dim as u32).to_le_bytes());
    for (key, vector) in records {
        bytes.extend_from_slice(&key);
        for x in vector {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    let sum = Sha256::digest(&bytes);
    bytes.extend_from_slice(&sum);
    bytes
}

/// Write `records` (vectors of `dim` components) as shards of at most `max_bytes` each;
/// returns their paths.
fn write_shards<'a>(
    cache: &CacheDir,
    dir: &Path,
    dim: usize,
    records: impl Iterator<Item = ([u8; 32], &'a [f32])>,
    max_bytes: u64,
) -> Result<Vec<PathBuf>> {
    let framing = (MAGIC.len() + 4 + 32) as u64;
    let record = (32 + 4 * dim) as u64;
    let per_shard = (max_bytes.saturating_sub(framing) / record).max(1) as usize;
    let mut records = records.peekable();
    let mut written = Vec::new();
    while records.peek().is_some() {
        let bytes = shard_bytes(dim, records.by_ref().take(per_shard));
        if bytes.len() as u64 > max_bytes {
            continue; // one vector larger than a shard: not kept
        }
        written.extend(write_new(cache, dir, &bytes)?);
    }
    Ok(written)
}

/// Write a shard atomically under a name made from its content (a run writing other
/// vectors never picks it); returns its path, or `None` when the cache directory does not
/// let goldgate write there (a linked directory, a tracked file in the way).
fn write_new(cache: &CacheDir, dir: &Path, bytes: &[u8]) -> Result<Option<PathBuf>> {
    let path = dir.join(format!("{}.vec", hex(&Sha256::digest(bytes)[..12])));
    if !cache.writable(&path) {
        return Ok(None);
    }
    write_atomic(&path, |out| out.write_all(bytes))?;
    Ok(Some(path))
}

/// Merge every shard of one dimension into as few as fit under `max_bytes`, then remove the
/// merged shards.
fn merge(cache: &CacheDir, dir: &Path, max_bytes: u64) -> Result<()> {
    let store = Store::read(cache, dir, max_bytes);
    let Some(dim) = store.dim else {
        return Ok(());
    };
    let mut records: Vec<(&[u8; 32], &Vec<f32>)> = store.vectors.iter().collect();
    records.sort_unstable_by_key(|(k, _)| *k);
    let records = records.into_iter().map(|(k, v)| (*k, v.as_slice()));
    let merged = write_shards(cache, dir, dim, records, max_bytes)?;
    for shard in store.shards.iter().filter(|s| !merged.contains(s)) {
        let _ = std::fs::remove_file(shard);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::embed::Identity;

    /// Embeds a text as (length, count of 'a', 1) and counts what it was asked.
    struct Counting {
        identity: Identity,
        asked: AtomicUsize,
    }

    impl Counting {
        fn new() -> Self {
            Counting {
                identity: Identity {
                    backend: "test",
                    model: "counting".into(),
                    fingerprint: "f00d".into(),
                },
                asked: AtomicUsize::new(0),
            }
        }
    }

    impl Embedder for Counting {
        fn identity(&self) -> &Identity {
            &self.identity
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            self.asked.fetch_add(texts.len(), Ordering::Relaxed);
            Ok(texts
                .iter()
                .map(|t| vec![t.len() as f32, t.matches('a').count() as f32, 1.0])
                .collect())
        }
    }

    fn texts(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn embeds_each_text_once_and_only_what_the_cache_lacks() {
        let dir = tempfile::tempdir().unwrap();
        let e = Counting::new();
        let (v, stats) = vectors(
            &e,
            Some(&CacheDir::new(dir.path())),
            texts(&["aa", "b", "aa"]),
        )
        .unwrap();
        assert_eq!(
            stats,
            Stats {
                texts: 2,
                cached: 0,
                computed: 2
            }
        );
        assert_eq!(e.asked.load(Ordering::Relaxed), 2);
        let (again, stats) = vectors(
            &e,
            Some(&CacheDir::new(dir.path())),
            texts(&["aa", "b", "ccc"]),
        )
        .unwrap();
        assert_eq!(
            stats,
            Stats {
                texts: 3,
                cached: 2,
                computed: 1
            }
        );
        assert_eq!(e.asked.load(Ordering::Relaxed), 3);
        assert_eq!(v.get("aa"), again.get("aa"));
        assert!(again.get("ccc").is_some());
    }

    #[test]
    fn a_damaged_shard_is_dropped_and_recomputed_never_read() {
        let dir = tempfile::tempdir().unwrap();
        let e = Counting::new();
        let (good, _) = vectors(&e, Some(&CacheDir::new(dir.path())), texts(&["aa"])).unwrap();
        let shards = shard_dir(dir.path(), "f00d");
        let shard = std::fs::read_dir(&shards)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let original = std::fs::read(&shard).unwrap();
        let mut bytes = original.clone();
        let at = bytes.len() - 40;
        bytes[at] ^= 0x40; // one flipped bit inside a vector
        std::fs::write(&shard, &bytes).unwrap();
        let (v, stats) = vectors(&e, Some(&CacheDir::new(dir.path())), texts(&["aa"])).unwrap();
        assert_eq!(stats.computed, 1, "the damaged shard was not trusted");
        assert_eq!(v.get("aa"), good.get("aa"));
        // The damaged shard was replaced by a good one (same content, same name).
        assert_eq!(std::fs::read(&shard).unwrap(), original);
    }

    #[test]
    fn many_shards_are_merged_without_losing_a_vector() {
        let dir = tempfile::tempdir().unwrap();
        let e = Counting::new();
        let all: Vec<String> = (0..MAX_SHARDS + 3).map(|i| "a".repeat(i + 1)).collect();
        for text in &all {
            vectors(&e, Some(&CacheDir::new(dir.path())), [text.clone()]).unwrap();
        }
        let shards = std::fs::read_dir(shard_dir(dir.path(), "f00d"))
            .unwrap()
            .count();
        assert!(shards <= 4, "{shards} shards");
        let (_, stats) = vectors(&e, Some(&CacheDir::new(dir.path())), all.clone()).unwrap();
        assert_eq!(stats.cached, all.len());
    }

    use crate::testkit::git;

    /// Vectors planted in a commit, reached through a linked directory, or over the cap are
    /// never read, and never removed: the cache directory says which it ignored.
    #[test]
    fn shards_that_are_not_goldgate_s_own_are_ignored_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let e = Counting::new();
        vectors(&e, Some(&CacheDir::new(d)), texts(&["aa"])).unwrap();
        let shards = shard_dir(d, "f00d");
        let planted: Vec<PathBuf> = std::fs::read_dir(&shards)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        git(d, &["init", "-q"]);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "plant"]);
        let cache = CacheDir::new(d);
        let (_, stats) = vectors(&e, Some(&cache), texts(&["aa"])).unwrap();
        assert_eq!(stats.computed, 1, "a tracked shard is not read");
        let ignored = cache.ignored();
        assert_eq!(
            ignored.reasons.get(&crate::cachedir::Refused::Tracked),
            Some(&1)
        );
        assert_eq!(ignored.examples, planted);
        assert!(planted[0].is_file(), "and not removed");

        // An untracked shard over the cap: ignored, left alone.
        let other = tempfile::tempdir().unwrap();
        vectors(&e, Some(&CacheDir::new(other.path())), texts(&["bb"])).unwrap();
        let cache = CacheDir::new(other.path());
        let store = Store::read(&cache, &shard_dir(other.path(), "f00d"), 8);
        assert!(store.vectors.is_empty() && store.shards.is_empty());
        assert_eq!(cache.ignored().entries, 1);
        assert!(std::fs::read_dir(shard_dir(other.path(), "f00d"))
            .unwrap()
            .next()
            .is_some());

        // A model's directory linked to another: nothing read, nothing written through it.
        let linked = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(linked.path().join("embeddings")).unwrap();
        std::os::unix::fs::symlink(
            shard_dir(other.path(), "f00d"),
            shard_dir(linked.path(), "f00d"),
        )
        .unwrap();
        let cache = CacheDir::new(linked.path());
        let (_, stats) = vectors(&e, Some(&cache), texts(&["bb", "cc"])).unwrap();
        assert_eq!(stats.computed, 2);
        let ignored = cache.ignored();
        assert_eq!(
            ignored.reasons.get(&crate::cachedir::Refused::Outside),
            Some(&1)
        );
        let there = std::fs::read_dir(shard_dir(other.path(), "f00d")).unwrap();
        assert_eq!(there.count(), 1, "nothing was written through the link");
    }

    /// Shards are written, and merged, in pieces under the cap.
    #[test]
    fn no_shard_over_the_cap_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(dir.path());
        let shards = shard_dir(dir.path(), "f00d");
        let vectors: Vec<Vec<f32>> = (0..10).map(|i| vec![i as f32, 1.0, 2.0]).collect();
        let records = (0..10).map(|i| (key(&i.to_string()), vectors[i].as_slice()));
        // Framing 42 bytes, records 44: three records per shard under 180 bytes.
        let written = write_shards(&cache, &shards, 3, records, 180).unwrap();
        assert_eq!(written.len(), 4);
        for shard in &written {
            assert!(std::fs::metadata(shard).unwrap().len() <= 180);
        }
        let store = Store::read(&cache, &shards, 180);
        assert_eq!(store.vectors.len(), 10);
        merge(&cache, &shards, 180).unwrap();
        assert_eq!(Store::read(&cache, &shards, 180).vectors.len(), 10);
        assert!(cache.ignored().is_empty());
    }

    #[test]
    fn without_a_cache_dir_nothing_is_kept() {
        let e = Counting::new();
        let (v, stats) = vectors(&e, None, texts(&["x"])).unwrap();
        assert_eq!((stats.computed, v.len()), (1, 1));
    }
}
