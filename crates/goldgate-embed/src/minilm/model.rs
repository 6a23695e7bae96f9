//! The model: BERT's weights loaded from `model.safetensors` (checked against
//! `config.json`), and a batch of token ids → sentence vectors: BERT's forward pass,
//! attention-masked mean pooling and L2 normalisation, as sentence-transformers computes
//! them. The forward pass is [`super::encoder`] where the CPU has AVX-512 (x86-64), and
//! candle-transformers' BERT everywhere else (and when asked for: [`Kernel::Candle`]).

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::BertModel;

#[cfg(target_arch = "x86_64")]
use super::encoder::Encoder;
use super::files::{fetch_hint, problem, ModelFiles};
use goldgate_core::error::{Error, Result};

/// Which forward pass to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kernel {
    /// The fastest this CPU supports.
    #[default]
    Auto,
    /// candle-transformers' BERT, on any CPU.
    Candle,
}

enum Forward {
    Candle(BertModel),
    #[cfg(target_arch = "x86_64")]
    Packed(Encoder),
}

/// A loaded BERT encoder.
pub struct Bert {
    forward: Forward,
    hidden: usize,
    pad_id: u32,
    normalize: bool,
}

impl Bert {
    /// Load the weights of `files`, refusing a file that is damaged or whose tensors do not
    /// have the shapes `config.json` gives.
    pub fn load(files: &ModelFiles, kernel: Kernel) -> Result<Bert> {
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
        let mismatch = |e: candle_core::Error| {
            problem(
                &path,
                None,
                format!("the weights do not match config.json: {e}"),
                format!("model.safetensors and config.json come from different models or one is damaged; {}", fetch_hint()),
            )
        };
        let forward = match kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Auto if Encoder::supports(&files.config).is_some() => {
                let cpu = Encoder::supports(&files.config).expect("checked");
                Forward::Packed(Encoder::load(cpu, vb, &files.config).map_err(mismatch)?)
            }
            _ => Forward::Candle(BertModel::load(vb, &files.config).map_err(mismatch)?),
        };
        Ok(Bert {
            forward,
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

    /// Whether the forward pass is candle-transformers' BERT.
    pub fn is_candle(&self) -> bool {
        matches!(self.forward, Forward::Candle(_))
    }

    fn forward(&self, batch: &[&[u32]]) -> candle_core::Result<Vec<Vec<f32>>> {
        let mut vectors = match &self.forward {
            Forward::Candle(model) => self.candle(model, batch)?,
            #[cfg(target_arch = "x86_64")]
            Forward::Packed(encoder) => encoder
                .mean_pooled(batch)
                .map_err(candle_core::Error::msg)?,
        };
        if self.normalize {
            for v in &mut vectors {
                normalize(v);
            }
        }
        Ok(vectors)
    }

    /// Padded batch through candle-transformers' BERT, then the masked mean.
    fn candle(&self, model: &BertModel, batch: &[&[u32]]) -> candle_core::Result<Vec<Vec<f32>>> {
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
        let hidden = model.forward(&ids, &types, Some(&mask))?;
        // Mean over the real tokens: sum(hidden × mask) / max(sum(mask), 1e-9).
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
        let counts = mask.sum(1)?.clamp(1e-9f32, f32::MAX)?;
        let mean = summed.broadcast_div(&counts)?;
        mean.to_vec2::<f32>()
    }
}

/// Scale `v` to unit length as torch's `F.normalize` does (divide by max(‖v‖, 1e-12)).
fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    for x in v {
        *x /= norm;
    }
}
