//! The model: BERT's weights loaded from `model.safetensors` (checked against
//! `config.json`), and a batch of token ids → sentence vectors: BERT's forward pass
//! ([`super::encoder`]), attention-masked mean pooling and L2 normalisation, as
//! sentence-transformers computes them.

use super::encoder::Encoder;
use super::files::{fetch_hint, problem, ModelFiles};
use super::simd::Simd;
use super::weights::Weights;
use goldgate_core::error::{Error, Result};

/// A loaded BERT encoder.
pub struct Bert {
    encoder: Encoder,
    hidden: usize,
    normalize: bool,
}

impl Bert {
    /// Load the weights of `files` for `simd` (which this CPU must run), refusing a file
    /// that is damaged or whose tensors do not have the shapes `config.json` gives.
    pub fn load(files: &ModelFiles, simd: Simd) -> Result<Bert> {
        let isa = simd.proof()?;
        let path = files.path("model.safetensors");
        let bytes = std::fs::read(&path)
            .map_err(|e| problem(&path, None, format!("cannot read it: {e}"), fetch_hint()))?;
        let weights = Weights::parse(&bytes).map_err(|e| {
            problem(
                &path,
                None,
                format!("not a valid safetensors file (damaged or incomplete): {e}"),
                fetch_hint(),
            )
        })?;
        let encoder = Encoder::load(isa, &weights, &files.config).map_err(|e| {
            problem(
                &path,
                None,
                format!("the weights do not match config.json: {e}"),
                format!("model.safetensors and config.json come from different models or one is damaged; {}", fetch_hint()),
            )
        })?;
        Ok(Bert {
            encoder,
            hidden: files.config.hidden_size,
            normalize: files.normalize,
        })
    }

    /// The length of its vectors.
    pub fn dim(&self) -> usize {
        self.hidden
    }

    /// The instructions its forward pass runs on.
    pub fn simd(&self) -> Simd {
        self.encoder.simd()
    }

    /// The vectors of one batch of token id sequences (each at least one id long), in order.
    pub fn embed(&self, batch: &[&[u32]]) -> Result<Vec<Vec<f32>>> {
        let mut vectors = self
            .encoder
            .mean_pooled(batch)
            .map_err(|e| Error::internal(format!("the model's forward pass failed: {e}")))?;
        if self.normalize {
            for v in &mut vectors {
                normalize(v);
            }
        }
        Ok(vectors)
    }
}

/// Scale `v` to unit length as torch's `F.normalize` does (divide by max(‖v‖, 1e-12)).
fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    for x in v {
        *x /= norm;
    }
}
