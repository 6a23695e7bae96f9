//! Sentence embeddings as scoring sees them: a source of vectors behind one trait
//! ([`Embedder`], whose backends live in the `goldgate-embed` crate), what made a set of
//! vectors ([`Identity`]), the on-disk cache ([`cache`]) keyed by (model fingerprint, text
//! hash) that turns a list of texts into the [`Vectors`] table scoring reads, and the
//! cosines of text pairs ([`pairs`]). Nothing here computes a vector or knows about suites.

pub mod cache;
pub mod pairs;

use crate::error::Result;
pub use crate::metrics::vectors::Vectors;

/// What made a set of vectors: vectors of different identities are never compared or
/// mixed in one cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// `minilm` or `openai`.
    pub backend: &'static str,
    /// The model: a directory, a Hugging Face id, or the endpoint's model name.
    pub model: String,
    /// A digest of everything that decides the vectors: the model's files for `minilm`,
    /// the endpoint and model name for `openai`. Hex, filesystem-safe.
    pub fingerprint: String,
}

/// A source of sentence embeddings.
pub trait Embedder: Send + Sync {
    /// What makes its vectors.
    fn identity(&self) -> &Identity;

    /// One vector per text, in order (not necessarily normalised). Blocks until done;
    /// spreads the work over the machine's cores or the endpoint's batches itself.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}
