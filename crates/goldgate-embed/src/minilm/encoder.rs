//! BERT's encoder, the forward pass of [`super::model`] on every CPU: the same arithmetic
//! as PyTorch's BERT, arranged for throughput. A batch's texts are packed one after
//! another, without padding, so every token row goes through the linear layers
//! ([`super::gemm`]) exactly once; attention runs per text on its own rows only
//! ([`super::attention`]); the result is the mean of each text's last hidden states. The
//! [`Isa`] chosen at load decides the instructions of every step. Single-threaded: the
//! caller runs batches side by side.

use super::attention::{self, Shape};
use super::config::{Config, HiddenAct};
use super::gemm::{Epilogue, Linear};
use super::math;
use super::simd::{Isa, Simd};
use super::weights::Weights;

/// A thread's activations, kept from batch to batch (no allocation, no page faults).
#[derive(Default)]
struct Scratch {
    x: Vec<f32>,
    qkv: Vec<f32>,
    context: Vec<f32>,
    attended: Vec<f32>,
    inner: Vec<f32>,
    attention: attention::Scratch,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Layer normalisation weights.
struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

struct Layer {
    /// Query, key and value in one: `3·hidden` outputs.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    intermediate: Linear,
    output: Linear,
    output_norm: Norm,
}

/// The encoder's weights, arranged for its instructions.
pub struct Encoder {
    isa: Isa,
    shape: Shape,
    act: HiddenAct,
    eps: f32,
    vocab: usize,
    positions: usize,
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

impl Encoder {
    /// Read the weights, checking every shape against `config`, for `isa`.
    pub fn load(isa: Isa, weights: &Weights, config: &Config) -> Result<Encoder, String> {
        let (h, i) = (config.hidden_size, config.intermediate_size);
        let norm = |name: &str| -> Result<Norm, String> {
            Ok(Norm {
                weight: weights.get(&format!("{name}.weight"), &[h])?,
                bias: weights.get(&format!("{name}.bias"), &[h])?,
            })
        };
        let linear = |name: &str, n: usize, k: usize| -> Result<Linear, String> {
            let weight = weights.get(&format!("{name}.weight"), &[n, k])?;
            let bias = weights.get(&format!("{name}.bias"), &[n])?;
            Ok(Linear::new(&weight, &bias, n, k))
        };
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for index in 0..config.num_hidden_layers {
            let at = format!("encoder.layer.{index}");
            let mut weight = Vec::with_capacity(3 * h * h);
            let mut bias = Vec::with_capacity(3 * h);
            for part in ["query", "key", "value"] {
                let name = format!("{at}.attention.self.{part}");
                weight.extend(weights.get(&format!("{name}.weight"), &[h, h])?);
                bias.extend(weights.get(&format!("{name}.bias"), &[h])?);
            }
            layers.push(Layer {
                qkv: Linear::new(&weight, &bias, 3 * h, h),
                attention_out: linear(&format!("{at}.attention.output.dense"), h, h)?,
                attention_norm: norm(&format!("{at}.attention.output.LayerNorm"))?,
                intermediate: linear(&format!("{at}.intermediate.dense"), i, h)?,
                output: linear(&format!("{at}.output.dense"), h, i)?,
                output_norm: norm(&format!("{at}.output.LayerNorm"))?,
            });
        }
        let embedding =
            |name: &str, rows: usize| weights.get(&format!("embeddings.{name}.weight"), &[rows, h]);
        Ok(Encoder {
            isa,
            shape: Shape {
                hidden: h,
                heads: config.num_attention_heads,
                head_dim: config.head_dim(),
            },
            act: config.hidden_act,
            eps: config.layer_norm_eps as f32,
            vocab: config.vocab_size,
            positions: config.max_position_embeddings,
            word: embedding("word_embeddings", config.vocab_size)?,
            position: embedding("position_embeddings", config.max_position_embeddings)?,
            token_type: embedding("token_type_embeddings", config.type_vocab_size)?,
            embedding_norm: norm("embeddings.LayerNorm")?,
            layers,
        })
    }

    /// The instructions it runs on.
    pub fn simd(&self) -> Simd {
        self.isa.simd()
    }

    /// The mean of the last hidden states of each sequence of token ids (each at least one
    /// id, at most `max_position_embeddings`).
    pub fn mean_pooled(&self, batch: &[&[u32]]) -> Result<Vec<Vec<f32>>, String> {
        let h = self.shape.hidden;
        let lens: Vec<usize> = batch.iter().map(|s| s.len()).collect();
        if lens.iter().any(|&l| l == 0 || l > self.positions) {
            return Err(format!(
                "a sequence of {lens:?} tokens does not fit the model"
            ));
        }
        if let Some(id) = batch
            .iter()
            .flat_map(|s| s.iter())
            .find(|&&id| id as usize >= self.vocab)
        {
            return Err(format!("token id {id} is past the vocabulary"));
        }
        let m: usize = lens.iter().sum();
        let intermediate = self.layers.first().map_or(0, |l| l.intermediate.n);
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let Scratch {
                x,
                qkv,
                context,
                attended,
                inner,
                attention,
            } = &mut *scratch;
            for (buffer, width) in [
                (&mut *x, h),
                (&mut *qkv, 3 * h),
                (&mut *context, h),
                (&mut *attended, h),
                (&mut *inner, intermediate),
            ] {
                if buffer.len() < m * width {
                    buffer.resize(m * width, 0.0);
                }
            }
            let isa = self.isa;
            self.embeddings(batch, &mut x[..m * h]);
            for layer in &self.layers {
                layer.qkv.forward(isa, x, m, qkv, Epilogue::Bias);
                if isa.has_fma() {
                    isa.vectorize(
                        #[inline(always)]
                        || self.attention::<true>(qkv, &lens, attention, context),
                    );
                } else {
                    isa.vectorize(
                        #[inline(always)]
                        || self.attention::<false>(qkv, &lens, attention, context),
                    );
                }
                let residual = Epilogue::Residual(&x[..m * h]);
                layer
                    .attention_out
                    .forward(isa, context, m, attended, residual);
                self.normalize_rows(&mut attended[..m * h], &layer.attention_norm);
                let act = Epilogue::Activation(self.act);
                layer.intermediate.forward(isa, attended, m, inner, act);
                let residual = Epilogue::Residual(&attended[..m * h]);
                layer.output.forward(isa, inner, m, x, residual);
                self.normalize_rows(&mut x[..m * h], &layer.output_norm);
            }
            Ok(self.pool(&x[..m * h], &lens))
        })
    }

    /// Self-attention of each text (its `lens[i]` rows of `qkv`) into `context`.
    #[inline(always)]
    fn attention<const FMA: bool>(
        &self,
        qkv: &[f32],
        lens: &[usize],
        scratch: &mut attention::Scratch,
        context: &mut [f32],
    ) {
        let mut r0 = 0;
        for &len in lens {
            self.shape.text::<FMA>(qkv, r0, len, scratch, context);
            r0 += len;
        }
    }

    /// Each token's word, position and type embeddings summed and normalised, into `x`.
    fn embeddings(&self, batch: &[&[u32]], x: &mut [f32]) {
        let h = self.shape.hidden;
        let tokens = batch
            .iter()
            .flat_map(|s| s.iter().enumerate().map(|(pos, id)| (*id as usize, pos)));
        self.isa.vectorize(
            #[inline(always)]
            || {
                for (dst, (id, pos)) in x.chunks_exact_mut(h).zip(tokens) {
                    let word = &self.word[id * h..(id + 1) * h];
                    let position = &self.position[pos * h..(pos + 1) * h];
                    let kind = &self.token_type[..h];
                    for (((v, w), t), p) in dst.iter_mut().zip(word).zip(kind).zip(position) {
                        *v = w + t + p;
                    }
                }
            },
        );
        self.normalize_rows(x, &self.embedding_norm);
    }

    /// The mean of each sequence's rows of `x`.
    fn pool(&self, x: &[f32], lens: &[usize]) -> Vec<Vec<f32>> {
        let h = self.shape.hidden;
        let mut out = Vec::with_capacity(lens.len());
        let mut row = 0;
        for &len in lens {
            let mut mean = vec![0f32; h];
            for r in row..row + len {
                for (m, v) in mean.iter_mut().zip(&x[r * h..(r + 1) * h]) {
                    *m += v;
                }
            }
            for m in &mut mean {
                *m /= len as f32;
            }
            out.push(mean);
            row += len;
        }
        out
    }

    fn normalize_rows(&self, rows: &mut [f32], norm: &Norm) {
        let (h, eps) = (self.shape.hidden, self.eps);
        self.isa.vectorize(
            #[inline(always)]
            || {
                for row in rows.chunks_exact_mut(h) {
                    math::layer_norm(row, &norm.weight, &norm.bias, eps);
                }
            },
        );
    }
}
