//! BERT's encoder on x86-64 with AVX-512, the fast path of [`super::model`]: the same
//! arithmetic as candle-transformers' BERT (and PyTorch's), arranged for throughput on a
//! CPU. A batch's texts are packed one after another, without padding, so every token row
//! goes through the linear layers ([`super::gemm`], weights packed at load) exactly once;
//! attention runs per text and head on its own rows only (no mask needed); the result is
//! the attention-masked mean of each text's last hidden states. Single-threaded: the
//! caller runs batches side by side.

use std::arch::x86_64::*;

use candle_nn::VarBuilder;
use candle_transformers::models::bert::{Config, HiddenAct};

use super::gemm::{padded_rows, Avx512, Epilogue, Linear};
use super::math;

/// A thread's activations, kept from batch to batch (no allocation, no page faults).
#[derive(Default)]
struct Scratch {
    x: Vec<f32>,
    qkv: Vec<f32>,
    context: Vec<f32>,
    attended: Vec<f32>,
    inner: Vec<f32>,
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

/// The encoder's weights, packed.
pub struct Encoder {
    cpu: Avx512,
    hidden: usize,
    heads: usize,
    head_dim: usize,
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
    /// Whether this encoder can run `config` on this CPU (else the caller uses
    /// candle-transformers' BERT): AVX-512F, the exact GELU, and widths that are whole
    /// vectors.
    pub fn supports(config: &Config) -> Option<Avx512> {
        let head_dim = config.hidden_size / config.num_attention_heads.max(1);
        let fits = config.hidden_act == HiddenAct::Gelu
            && config.hidden_size.is_multiple_of(16)
            && head_dim.is_multiple_of(16)
            && head_dim <= 16 * MAX_HEAD_VECTORS;
        if fits {
            Avx512::detect()
        } else {
            None
        }
    }

    /// Read and pack the weights (`vb` at the model's root), checking every shape against
    /// `config`.
    pub fn load(cpu: Avx512, vb: VarBuilder, config: &Config) -> candle_core::Result<Encoder> {
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let (h, i) = (config.hidden_size, config.intermediate_size);
        let get = |vb: &VarBuilder, shape: &[usize], name: &str| -> candle_core::Result<Vec<f32>> {
            vb.get(shape, name)?.flatten_all()?.to_vec1::<f32>()
        };
        let norm = |vb: VarBuilder| -> candle_core::Result<Norm> {
            Ok(Norm {
                weight: get(&vb, &[h], "weight")?,
                bias: get(&vb, &[h], "bias")?,
            })
        };
        let linear = |vb: VarBuilder, n: usize, k: usize| -> candle_core::Result<Linear> {
            Ok(Linear::new(
                &get(&vb, &[n, k], "weight")?,
                &get(&vb, &[n], "bias")?,
                n,
                k,
            ))
        };
        let emb = vb.pp("embeddings");
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for index in 0..config.num_hidden_layers {
            let vb = vb.pp(format!("encoder.layer.{index}"));
            let attention = vb.pp("attention.self");
            let mut weight = Vec::with_capacity(3 * h * h);
            let mut bias = Vec::with_capacity(3 * h);
            for part in ["query", "key", "value"] {
                weight.extend(get(&attention.pp(part), &[h, h], "weight")?);
                bias.extend(get(&attention.pp(part), &[h], "bias")?);
            }
            layers.push(Layer {
                qkv: Linear::new(&weight, &bias, 3 * h, h),
                attention_out: linear(vb.pp("attention.output.dense"), h, h)?,
                attention_norm: norm(vb.pp("attention.output.LayerNorm"))?,
                intermediate: linear(vb.pp("intermediate.dense"), i, h)?,
                output: linear(vb.pp("output.dense"), h, i)?,
                output_norm: norm(vb.pp("output.LayerNorm"))?,
            });
        }
        Ok(Encoder {
            cpu,
            hidden: h,
            heads: config.num_attention_heads,
            head_dim: h / config.num_attention_heads,
            eps: config.layer_norm_eps as f32,
            vocab: config.vocab_size,
            positions: config.max_position_embeddings,
            word: get(&emb, &[config.vocab_size, h], "word_embeddings.weight")?,
            position: get(
                &emb,
                &[config.max_position_embeddings, h],
                "position_embeddings.weight",
            )?,
            token_type: get(
                &emb,
                &[config.type_vocab_size, h],
                "token_type_embeddings.weight",
            )?,
            embedding_norm: norm(emb.pp("LayerNorm"))?,
            layers,
        })
    }

    /// The mean of the last hidden states of each sequence of token ids (each at least one
    /// id, at most `max_position_embeddings`).
    pub fn mean_pooled(&self, batch: &[&[u32]]) -> Result<Vec<Vec<f32>>, String> {
        let h = self.hidden;
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
            } = &mut *scratch;
            // The linear layers read whole blocks of rows: room for the last one's padding
            // (its values never reach a real row).
            let rows = padded_rows(m);
            for (buffer, width) in [
                (&mut *x, h),
                (&mut *qkv, 3 * h),
                (&mut *context, h),
                (&mut *attended, h),
                (&mut *inner, intermediate),
            ] {
                if buffer.len() < rows * width {
                    buffer.resize(rows * width, 0.0);
                }
            }
            self.embeddings(batch, &mut x[..m * h]);
            let cpu = self.cpu;
            for layer in &self.layers {
                layer.qkv.forward(cpu, x, m, qkv, Epilogue::Bias);
                // SAFETY: `cpu` proves AVX-512F; `qkv` holds m rows of 3·h, `context` of h.
                unsafe { self.attention(qkv, &lens, context) };
                let residual = Epilogue::Residual(&x[..m * h]);
                layer
                    .attention_out
                    .forward(cpu, context, m, attended, residual);
                self.normalize_rows(&mut attended[..m * h], &layer.attention_norm);
                layer
                    .intermediate
                    .forward(cpu, attended, m, inner, Epilogue::Gelu);
                let residual = Epilogue::Residual(&attended[..m * h]);
                layer.output.forward(cpu, inner, m, x, residual);
                self.normalize_rows(&mut x[..m * h], &layer.output_norm);
            }
            Ok(self.pool(&x[..m * h], &lens))
        })
    }

    /// Each token's word, position and type embeddings summed and normalised, into `x`.
    fn embeddings(&self, batch: &[&[u32]], x: &mut [f32]) {
        let h = self.hidden;
        let tokens = batch
            .iter()
            .flat_map(|s| s.iter().enumerate().map(|(pos, id)| (*id as usize, pos)));
        for (dst, (id, pos)) in x.chunks_exact_mut(h).zip(tokens) {
            let (w, p, t) = (
                &self.word[id * h..(id + 1) * h],
                &self.position[pos * h..(pos + 1) * h],
                &self.token_type[..h],
            );
            for (j, v) in dst.iter_mut().enumerate() {
                *v = w[j] + t[j] + p[j];
            }
        }
        self.normalize_rows(x, &self.embedding_norm);
    }

    /// The mean of each sequence's rows of `x`.
    fn pool(&self, x: &[f32], lens: &[usize]) -> Vec<Vec<f32>> {
        let h = self.hidden;
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
        for row in rows.chunks_exact_mut(self.hidden) {
            // SAFETY: `self.cpu` proves AVX-512F; rows and weights are `hidden` long, a
            // multiple of 16 (`supports`).
            unsafe { math::layer_norm(row, &norm.weight, &norm.bias, self.eps) };
        }
    }

    /// Self-attention of each sequence (its `lens[s]` rows of `qkv`) with itself, head by
    /// head, into `out` (the heads side by side, as BERT concatenates them).
    #[target_feature(enable = "avx512f")]
    unsafe fn attention(&self, qkv: &[f32], lens: &[usize], out: &mut [f32]) {
        let hd = self.head_dim;
        let (mut keys, mut scores) = (Vec::new(), Vec::new());
        let mut r0 = 0;
        for &len in lens {
            let padded = len.div_ceil(16) * 16;
            keys.clear();
            keys.resize(hd * padded, 0f32);
            scores.clear();
            scores.resize(padded, 0f32);
            let at = Head {
                qkv,
                stride: 3 * self.hidden,
                r0,
                len,
                padded,
            };
            for head in 0..self.heads {
                // The head's widths are whole vectors (1 to MAX_HEAD_VECTORS): one copy of
                // the loop per width keeps its accumulators in registers.
                match hd / 16 {
                    1 => at.attend::<1>(self.hidden, head, &mut keys, &mut scores, out),
                    2 => at.attend::<2>(self.hidden, head, &mut keys, &mut scores, out),
                    3 => at.attend::<3>(self.hidden, head, &mut keys, &mut scores, out),
                    4 => at.attend::<4>(self.hidden, head, &mut keys, &mut scores, out),
                    5 => at.attend::<5>(self.hidden, head, &mut keys, &mut scores, out),
                    6 => at.attend::<6>(self.hidden, head, &mut keys, &mut scores, out),
                    7 => at.attend::<7>(self.hidden, head, &mut keys, &mut scores, out),
                    _ => at.attend::<8>(self.hidden, head, &mut keys, &mut scores, out),
                }
            }
            r0 += len;
        }
    }
}

/// One sequence's rows of the query-key-value matrix.
struct Head<'a> {
    qkv: &'a [f32],
    /// Floats per row: 3 · hidden.
    stride: usize,
    /// Its first row.
    r0: usize,
    len: usize,
    /// `len` rounded up to whole vectors.
    padded: usize,
}

impl Head<'_> {
    /// Attention of head `head` (`V` vectors wide) over the sequence: softmax(q·kᵀ/√d)·v for
    /// every query row, into `out`. `keys` and `scores` are scratch of `V·16·padded` and
    /// `padded` floats.
    #[target_feature(enable = "avx512f")]
    unsafe fn attend<const V: usize>(
        &self,
        hidden: usize,
        head: usize,
        keys: &mut [f32],
        scores: &mut [f32],
        out: &mut [f32],
    ) {
        let (hd, padded, len) = (V * 16, self.padded, self.len);
        let row = |r: usize| self.qkv.as_ptr().add((self.r0 + r) * self.stride);
        // The head's keys transposed (`hd × padded`), so 16 scores come at a time.
        for j in 0..len {
            let key = std::slice::from_raw_parts(row(j).add(hidden + head * hd), hd);
            for (d, v) in key.iter().enumerate() {
                keys[d * padded + j] = *v;
            }
        }
        let scale = _mm512_set1_ps(1.0 / (hd as f32).sqrt());
        for i in 0..len {
            let query = row(i).add(head * hd);
            let mut max = _mm512_set1_ps(f32::NEG_INFINITY);
            for jb in (0..padded).step_by(16) {
                // Four independent sums, so the multiply-adds overlap.
                let mut acc = [_mm512_setzero_ps(); 4];
                for d in (0..hd).step_by(4) {
                    for (t, a) in acc.iter_mut().enumerate() {
                        let k = _mm512_loadu_ps(keys.as_ptr().add((d + t) * padded + jb));
                        *a = _mm512_fmadd_ps(_mm512_set1_ps(*query.add(d + t)), k, *a);
                    }
                }
                let acc =
                    _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3]));
                let s = _mm512_mask_blend_ps(
                    lanes(len - jb),
                    _mm512_set1_ps(f32::NEG_INFINITY),
                    _mm512_mul_ps(acc, scale),
                );
                max = _mm512_max_ps(max, s);
                _mm512_storeu_ps(scores.as_mut_ptr().add(jb), s);
            }
            let max = _mm512_set1_ps(_mm512_reduce_max_ps(max));
            let mut sum = _mm512_setzero_ps();
            for jb in (0..padded).step_by(16) {
                let s = _mm512_loadu_ps(scores.as_ptr().add(jb));
                let e = _mm512_maskz_mov_ps(lanes(len - jb), math::exp(_mm512_sub_ps(s, max)));
                sum = _mm512_add_ps(sum, e);
                _mm512_storeu_ps(scores.as_mut_ptr().add(jb), e);
            }
            let inverse = _mm512_set1_ps(1.0 / _mm512_reduce_add_ps(sum));
            // Two independent sums over the values (even and odd rows).
            let (mut even, mut odd) = ([_mm512_setzero_ps(); V], [_mm512_setzero_ps(); V]);
            let value = |j: usize| row(j).add(2 * hidden + head * hd);
            for j in (0..len).step_by(2) {
                let (p, v) = (_mm512_set1_ps(scores[j]), value(j));
                for (b, a) in even.iter_mut().enumerate() {
                    *a = _mm512_fmadd_ps(p, _mm512_loadu_ps(v.add(b * 16)), *a);
                }
                if j + 1 < len {
                    let (p, v) = (_mm512_set1_ps(scores[j + 1]), value(j + 1));
                    for (b, a) in odd.iter_mut().enumerate() {
                        *a = _mm512_fmadd_ps(p, _mm512_loadu_ps(v.add(b * 16)), *a);
                    }
                }
            }
            let dst = out.as_mut_ptr().add((self.r0 + i) * hidden + head * hd);
            for b in 0..V {
                let total = _mm512_add_ps(even[b], odd[b]);
                _mm512_storeu_ps(dst.add(b * 16), _mm512_mul_ps(total, inverse));
            }
        }
    }
}

/// Widest head the attention keeps in registers: 8 vectors of 16.
const MAX_HEAD_VECTORS: usize = 8;

/// The mask of the first `count` lanes (all 16 when `count >= 16`).
fn lanes(count: usize) -> __mmask16 {
    if count >= 16 {
        0xFFFF
    } else {
        ((1u32 << count) - 1) as __mmask16
    }
}
