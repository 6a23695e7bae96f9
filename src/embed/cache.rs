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
//! shards are merged into one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{Embedder, Vectors};
use crate::error::{Error, Result};
use crate::io::write_atomic;
use crate::text::hex;

const MAGIC: &[u8; 6] = b"GGVEC1";
/// Texts embedded per call to the embedder: a long run saves its work as it goes.
const CHUNK: usize = 2048;
/// More shards than this are merged into one.
const MAX_SHARDS: usize = 32;

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
    cache_dir: Option<&Path>,
    texts: impl IntoIterator<Item = String>,
) -> Result<(Vectors, Stats)> {
    let mut wanted: Vec<String> = texts.into_iter().collect();
    wanted.sort_unstable();
    wanted.dedup();
    let dir = cache_dir.map(|d| shard_dir(d, &embedder.identity().fingerprint));
    let stored = match &dir {
        Some(dir) => Store::read(dir),
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
                    Some(dir) => format!("the model changed under the same name: remove {}", dir.display()),
                    None => "the model changed while goldgate ran".to_string(),
                },
            ));
        }
        for (text, vector) in chunk.iter().zip(&computed) {
            table.insert(text, vector);
        }
        stats.computed += chunk.len();
        if let Some(dir) = &dir {
            write_shard(dir, chunk, &computed)?;
        }
    }
    if let Some(dir) = &dir {
        if stored.shards.len() + missing.len().div_ceil(CHUNK) > MAX_SHARDS {
            merge(dir)?;
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
    /// Every shard that reads whole and checks out; the others are removed.
    fn read(dir: &Path) -> Store {
        let mut store = Store::default();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return store;
        };
        let mut paths: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "vec"))
            .collect();
        paths.sort();
        for path in paths {
            let Ok(bytes) = std::fs::read(&path) else {
                continue; // merged away by another run meanwhile
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

fn write_shard(dir: &Path, texts: &[&str], vectors: &[Vec<f32>]) -> Result<()> {
    let dim = vectors.first().map_or(0, Vec::len);
    let bytes = shard_bytes(
        dim,
        texts
            .iter()
            .zip(vectors)
            .map(|(t, v)| (key(t), v.as_slice())),
    );
    write_new(dir, &bytes).map(drop)
}

/// Write a shard atomically under a name made from its content (a run writing other
/// vectors never picks it); returns its path.
fn write_new(dir: &Path, bytes: &[u8]) -> Result<PathBuf> {
    let path = dir.join(format!("{}.vec", hex(&Sha256::digest(bytes)[..12])));
    write_atomic(&path, |out| out.write_all(bytes))?;
    Ok(path)
}

/// Merge every shard of one dimension into one, then remove the merged shards.
fn merge(dir: &Path) -> Result<()> {
    let store = Store::read(dir);
    let Some(dim) = store.dim else {
        return Ok(());
    };
    let mut records: Vec<(&[u8; 32], &Vec<f32>)> = store.vectors.iter().collect();
    records.sort_unstable_by_key(|(k, _)| *k);
    let bytes = shard_bytes(dim, records.into_iter().map(|(k, v)| (*k, v.as_slice())));
    let merged = write_new(dir, &bytes)?;
    for shard in store.shards.iter().filter(|s| **s != merged) {
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
        let (v, stats) = vectors(&e, Some(dir.path()), texts(&["aa", "b", "aa"])).unwrap();
        assert_eq!(
            stats,
            Stats {
                texts: 2,
                cached: 0,
                computed: 2
            }
        );
        assert_eq!(e.asked.load(Ordering::Relaxed), 2);
        let (again, stats) = vectors(&e, Some(dir.path()), texts(&["aa", "b", "ccc"])).unwrap();
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
        let (good, _) = vectors(&e, Some(dir.path()), texts(&["aa"])).unwrap();
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
        let (v, stats) = vectors(&e, Some(dir.path()), texts(&["aa"])).unwrap();
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
            vectors(&e, Some(dir.path()), [text.clone()]).unwrap();
        }
        let shards = std::fs::read_dir(shard_dir(dir.path(), "f00d"))
            .unwrap()
            .count();
        assert!(shards <= 4, "{shards} shards");
        let (_, stats) = vectors(&e, Some(dir.path()), all.clone()).unwrap();
        assert_eq!(stats.cached, all.len());
    }

    #[test]
    fn without_a_cache_dir_nothing_is_kept() {
        let e = Counting::new();
        let (v, stats) = vectors(&e, None, texts(&["x"])).unwrap();
        assert_eq!((stats.computed, v.len()), (1, 1));
    }
}
