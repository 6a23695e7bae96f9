//! The `minilm` backend: sentence embeddings computed in-process, exactly as
//! sentence-transformers computes them for all-MiniLM-L6-v2 (or another sentence-transformers
//! BERT with mean pooling). Opening finds the model ([`locate`]) and fingerprints its files
//! ([`files`]) without loading anything; the first [`Embedder::embed`] call loads the
//! tokenizer ([`tokenize`]) and the weights ([`model`]), then every call tokenises its texts,
//! sorts them by length into batches of about a thousand tokens and runs the batches side
//! by side on the cores. One forward pass runs on every CPU, on the fastest instructions it
//! has ([`Simd`]), or on others it has when asked ([`MiniLm::with_simd`]).

mod attention;
pub mod config;
mod encoder;
pub mod files;
mod gemm;
pub mod locate;
mod math;
pub mod model;
mod simd;
pub mod tokenize;
mod weights;

use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;

use super::{Embedder, Identity};
use files::ModelFiles;
use goldgate_core::error::Result;
use model::Bert;
pub use simd::Simd;
use tokenize::WordPiece;

/// Tokens per forward pass (at most): enough rows for the linear layers to run at full
/// speed, few enough for a batch's activations to stay near 10 MB.
const BATCH_TOKENS: usize = 1024;

/// A sentence-transformers BERT model, loaded on first use.
pub struct MiniLm {
    identity: Identity,
    files: ModelFiles,
    simd: Simd,
    loaded: OnceLock<Loaded>,
    loading: Mutex<()>,
}

struct Loaded {
    tokenizer: WordPiece,
    bert: Bert,
}

impl MiniLm {
    /// Find the model (a directory, or a Hugging Face id in the Hugging Face cache, which is
    /// downloaded when missing and the machine is online) and fingerprint it. Loads
    /// nothing: the tokenizer and weights are read by the first [`Embedder::embed`].
    pub fn open(model: &str) -> Result<Self> {
        Self::open_with(model, &locate::Hub::from_env())
    }

    /// [`MiniLm::open`] with the Hugging Face settings given instead of read from the
    /// environment.
    pub fn open_with(model: &str, hub: &locate::Hub) -> Result<Self> {
        let dir = locate::locate(model, hub)?;
        let files = ModelFiles::read(&dir)?;
        Ok(MiniLm {
            identity: Identity {
                backend: "minilm",
                model: model.to_string(),
                fingerprint: files.fingerprint.clone(),
            },
            files,
            simd: Simd::detect(),
            loaded: OnceLock::new(),
            loading: Mutex::new(()),
        })
    }

    /// Run the forward pass on `simd` instead of the fastest this CPU has (before the first
    /// embedding; for tests and measurements). An instruction set this CPU lacks is an
    /// error.
    pub fn with_simd(mut self, simd: Simd) -> Result<Self> {
        self.simd = simd.require()?;
        self.loaded = OnceLock::new();
        Ok(self)
    }

    /// The instructions the forward pass runs on.
    pub fn simd(&self) -> Simd {
        self.simd
    }

    /// The instructions the loaded forward pass was built for (loads the model).
    pub fn loaded_simd(&self) -> Result<Simd> {
        Ok(self.loaded()?.bert.simd())
    }

    /// The model's files and settings.
    pub fn files(&self) -> &ModelFiles {
        &self.files
    }

    /// The model's tokenizer (loaded on first use).
    pub fn tokenizer(&self) -> Result<&WordPiece> {
        Ok(&self.loaded()?.tokenizer)
    }

    /// The token ids of `text` as the model reads it (`[CLS]` … `[SEP]`, truncated).
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>> {
        Ok(self.tokenizer()?.encode_all(&[text])?.remove(0))
    }

    /// The vectors of token id sequences, as [`Embedder::embed`] computes them from texts.
    pub fn embed_ids(&self, ids: &[Vec<u32>]) -> Result<Vec<Vec<f32>>> {
        let loaded = self.loaded()?;
        run_batches(&loaded.bert, ids)
    }

    fn loaded(&self) -> Result<&Loaded> {
        if let Some(loaded) = self.loaded.get() {
            return Ok(loaded);
        }
        let _one_at_a_time = self.loading.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(loaded) = self.loaded.get() {
            return Ok(loaded);
        }
        let files = &self.files;
        let tokenizer = WordPiece::load(
            &files.path("tokenizer.json"),
            files.max_seq_length,
            files.lower_case,
            files.config.vocab_size,
        )?;
        let bert = Bert::load(files, self.simd)?;
        Ok(self.loaded.get_or_init(|| Loaded { tokenizer, bert }))
    }
}

impl Embedder for MiniLm {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let loaded = self.loaded()?;
        let ids = loaded.tokenizer.encode_all(texts)?;
        run_batches(&loaded.bert, &ids)
    }
}

/// Embed every sequence: sorted by length into batches of about [`BATCH_TOKENS`] tokens
/// (at least one batch per thread when there are enough texts), the batches run side by
/// side, the vectors put back in the order given.
fn run_batches(bert: &Bert, ids: &[Vec<u32>]) -> Result<Vec<Vec<f32>>> {
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(ids[i].len()));
    let total: usize = ids.iter().map(Vec::len).sum();
    let budget = BATCH_TOKENS.min(total.div_ceil(rayon::current_num_threads()).max(1));
    let mut batches: Vec<&[usize]> = Vec::new();
    let (mut start, mut tokens) = (0, 0);
    for (at, &i) in order.iter().enumerate() {
        if at > start && tokens + ids[i].len() > budget {
            batches.push(&order[start..at]);
            (start, tokens) = (at, 0);
        }
        tokens += ids[i].len();
    }
    if start < order.len() {
        batches.push(&order[start..]);
    }
    let vectors: Vec<Vec<Vec<f32>>> = batches
        .par_iter()
        .map(|batch| {
            let seqs: Vec<&[u32]> = batch.iter().map(|&i| ids[i].as_slice()).collect();
            bert.embed(&seqs)
        })
        .collect::<Result<_>>()?;
    let mut out = vec![Vec::new(); ids.len()];
    for (batch, vectors) in batches.iter().zip(vectors) {
        for (&i, v) in batch.iter().zip(vectors) {
            out[i] = v;
        }
    }
    debug_assert!(out.iter().all(|v| v.len() == bert.dim()));
    Ok(out)
}
