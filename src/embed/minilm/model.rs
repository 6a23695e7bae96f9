//! The model: BERT's weights loaded from `model.safetensors` (checked against
//! `config.json`), and a batch of token ids → sentence vectors: the forward pass of
//! candle-transformers' BERT, attention-masked mean pooling and L2 normalisation, as
//! sentence-transformers computes them.

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::BertModel;

use super::files::{fetch_hint, problem, ModelFiles};
use crate::error::{Error, Result};

/// A loaded BERT encoder.
pub struct Bert {
    model: BertModel,
    hidden: usize,
    pad_id: u32,
    normalize: bool,
}

impl Bert {
    /// Load the weights of `files`, refusing a file that is damaged or whose tensors do not
    /// have the shapes `config.json` gives.
    pub fn load(files: &ModelFiles) -> Result<Bert> {
        let path = files.path("model.safetensors");
        let bytes = std::fs::read(&path)
            .map_err(|e| problem(&path, None, format!("cannot read it: {e}"), fetch_hint()))?;
        let vb = VarBuilder::from_buffered_safetensors(bytes, DType::F32, &Device::Cpu).map_err(
            |e| {
                problem(
                    &path,
                    None,
                    format!("not a valid safetensors file (damaged or incomplete): {e}"),
                    fetch_hint(),
                )
            },
        )?;
        let model = BertModel::load(vb, &files.config).map_err(|e| {
            problem(
                &path,
                None,
                format!("the weights do not match config.json: {e}"),
                format!("model.safetensors and config.json come from different models or one is damaged; {}", fetch_hint()),
            )
        })?;
        Ok(Bert {
            model,
            hidden: files.config.hidden_size,
            pad_id: files.config.pad_token_id as u32,
            normalize: files.normalize,
        })
    }

    /// The length of its vectors.
    pub fn dim(&self) -> usize {
        self.hidden
    }

    /// The vectors of one batch of token id sequences (each at least one id long), in order.
    pub fn embed(&self, batch: &[&[u32]]) -> Result<Vec<Vec<f32>>> {
        self.forward(batch)
            .map_err(|e| Error::internal(format!("the model's forward pass failed: {e}")))
    }

    fn forward(&self, batch: &[&[u32]]) -> candle_core::Result<Vec<Vec<f32>>> {
        let rows = batch.len();
        let width = batch.iter().map(|ids| ids.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![self.pad_id; rows * width];
        let mut mask = vec![0u32; rows * width];
        for (row, seq) in batch.iter().enumerate() {
            ids[row * width..row * width + seq.len()].copy_from_slice(seq);
            mask[row * width..row * width + seq.len()].fill(1);
        }
        let device = Device::Cpu;
        let ids = Tensor::from_vec(ids, (rows, width), &device)?;
        let mask = Tensor::from_vec(mask, (rows, width), &device)?;
        let types = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?;
        // Mean over the real tokens: sum(hidden × mask) / max(sum(mask), 1e-9).
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
        let counts = mask.sum(1)?.clamp(1e-9f32, f32::MAX)?;
        let mean = summed.broadcast_div(&counts)?;
        let mut vectors = mean.to_vec2::<f32>()?;
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
