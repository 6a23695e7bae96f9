//! Sentence embeddings for semantic matching. Owns the backends behind one trait
//! ([`Embedder`]: `minilm` in-process, `openai` over any OpenAI-compatible `/embeddings`
//! endpoint), what selects them ([`Backend`]), and the on-disk cache ([`cache`]) keyed by
//! (model fingerprint, text hash) that turns a list of texts into the [`Vectors`] table
//! scoring reads. Nothing here knows about suites or answers.

pub mod cache;
#[cfg(feature = "semantic")]
pub mod minilm;
pub mod openai;
pub mod pairs;

use crate::error::Result;
pub use crate::metrics::vectors::Vectors;

/// The similarity backend `[matching] similarity` selects, with what it needs to start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// Character-trigram cosine: no model, nothing to embed.
    #[default]
    Lexical,
    /// all-MiniLM-L6-v2 (or a compatible sentence-transformers BERT) run in-process.
    Minilm {
        /// A model directory, or a Hugging Face model id resolved through the Hugging Face
        /// cache.
        model: String,
    },
    /// An OpenAI-compatible `/embeddings` endpoint.
    OpenAi(openai::Settings),
}

/// The Hugging Face model id `minilm` uses when `[matching] model` is not set.
pub const DEFAULT_MINILM_MODEL: &str = "sentence-transformers/all-MiniLM-L6-v2";

impl Backend {
    /// The name `[matching] similarity` gives it.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Lexical => "lexical",
            Backend::Minilm { .. } => "minilm",
            Backend::OpenAi(_) => "openai",
        }
    }

    /// Whether it compares embeddings (and so defaults to the embedding thresholds).
    pub fn is_embedding(&self) -> bool {
        !matches!(self, Backend::Lexical)
    }
}

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

/// Start the embedder `backend` asks for; `None` for `lexical`. Opening finds the model
/// (a Hugging Face model not yet in its cache is downloaded into it here, so a missing
/// model fails before any pipeline call) and fingerprints it, but never loads weights:
/// that happens at the first [`Embedder::embed`] call that needs them, so a run whose
/// texts are all cached costs no model time.
pub fn open(backend: &Backend) -> Result<Option<Box<dyn Embedder>>> {
    match backend {
        Backend::Lexical => Ok(None),
        Backend::Minilm { model } => open_minilm(model),
        Backend::OpenAi(settings) => Ok(Some(Box::new(openai::OpenAi::open(settings)?))),
    }
}

#[cfg(feature = "semantic")]
fn open_minilm(model: &str) -> Result<Option<Box<dyn Embedder>>> {
    Ok(Some(Box::new(minilm::MiniLm::open(model)?)))
}

#[cfg(not(feature = "semantic"))]
fn open_minilm(_model: &str) -> Result<Option<Box<dyn Embedder>>> {
    Err(crate::error::Error::usage(
        "this goldgate was built without the `semantic` feature, so `similarity = \"minilm\"` is not available",
        "install a release build (the feature is on by default), or build with `cargo install goldgate --features semantic`; `similarity = \"openai\"` and `\"lexical\"` work in every build",
    ))
}

#[cfg(all(test, not(feature = "semantic")))]
mod lean {
    /// A build without the `semantic` feature refuses `minilm` and says how to get it.
    #[test]
    fn minilm_says_how_to_enable_it() {
        let e = super::open(&super::Backend::Minilm {
            model: super::DEFAULT_MINILM_MODEL.into(),
        })
        .err()
        .expect("refused");
        assert_eq!(e.exit(), crate::error::Exit::Input);
        assert!(e.to_string().contains("--features semantic"), "{e}");
    }
}
