//! goldgate-embed: the backends that compute sentence embeddings for semantic matching,
//! behind goldgate-core's [`Embedder`] trait: `minilm` in-process, `openai` over any
//! OpenAI-compatible `/embeddings` endpoint; and what selects them ([`Backend`], [`open`]).
//! Caching the vectors and comparing them is goldgate-core's; nothing here knows about
//! suites or answers.
#![deny(clippy::print_stdout, clippy::print_stderr)]

#[cfg(feature = "semantic")]
pub mod minilm;
pub mod openai;

pub use goldgate_core::embed::{Embedder, Identity, Vectors};
use goldgate_core::error::Result;

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

/// Checked end to end by `scripts/wheel-test.sh` (run by `.ci/run`), which builds the wheel
/// without the feature: `similarity = "minilm"` exits 2 and names `--features semantic`.
#[cfg(not(feature = "semantic"))]
fn open_minilm(_model: &str) -> Result<Option<Box<dyn Embedder>>> {
    Err(goldgate_core::error::Error::usage(
        "this goldgate was built without the `semantic` feature, so `similarity = \"minilm\"` is not available",
        "install a release build (the feature is on by default), or build with `cargo install goldgate --features semantic`; `similarity = \"openai\"` and `\"lexical\"` work in every build",
    ))
}
