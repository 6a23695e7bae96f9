//! BERT's forward pass as its definition reads, in `f64`, one text at a time, with nothing
//! arranged for speed: the reference the `minilm` backend's forward passes are checked
//! against on the tiny models of [`super::tiny_bert`] (embeddings summed and normalised;
//! per layer, the attention of every head, the output projection, the residual and layer
//! norm, the intermediate layer and its activation, the output, the residual and layer
//! norm; the mean of the last hidden states, normalised to length 1).

use std::collections::HashMap;

use super::tiny_bert::{self, Variant};

/// A tiny model's weights, in `f64`.
pub struct Reference {
    variant: Variant,
    tensors: HashMap<String, Vec<f64>>,
}

/// `y[m × n] = x[m × k]·Wᵀ + b`, `W` as PyTorch stores it (`n × k`).
fn linear(x: &[Vec<f64>], w: &[f64], b: &[f64]) -> Vec<Vec<f64>> {
    let n = b.len();
    x.iter()
        .map(|row| {
            (0..n)
                .map(|j| {
                    let weights = &w[j * row.len()..(j + 1) * row.len()];
                    b[j] + row.iter().zip(weights).map(|(a, w)| a * w).sum::<f64>()
                })
                .collect()
        })
        .collect()
}

fn layer_norm(x: &mut [Vec<f64>], weight: &[f64], bias: &[f64]) {
    for row in x {
        let n = row.len() as f64;
        let mean = row.iter().sum::<f64>() / n;
        let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        for (i, v) in row.iter_mut().enumerate() {
            *v = (*v - mean) / (var + 1e-12).sqrt() * weight[i] + bias[i];
        }
    }
}

/// erf: its Taylor series up to 3, the asymptotic series of erfc past it.
fn erf(x: f64) -> f64 {
    let a = x.abs();
    if a > 3.0 {
        let (mut term, mut sum) = (1.0, 1.0);
        for n in 1..8 {
            term *= -((2 * n - 1) as f64) / (2.0 * a * a);
            sum += term;
        }
        let erfc = (-a * a).exp() / (a * std::f64::consts::PI.sqrt()) * sum;
        return x.signum() * (1.0 - erfc);
    }
    let (mut term, mut sum, mut n) = (x, x, 0.0);
    while term.abs() > 1e-17 {
        n += 1.0;
        term *= -x * x / n;
        sum += term / (2.0 * n + 1.0);
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

impl Reference {
    /// The weights [`tiny_bert::write_variant`] writes for `variant`.
    pub fn new(variant: Variant) -> Reference {
        let tensors = tiny_bert::tensors(tiny_bert::vocab().len(), variant.hidden)
            .into_iter()
            .map(|(name, _, values)| (name, values.into_iter().map(f64::from).collect()))
            .collect();
        Reference { variant, tensors }
    }

    fn get(&self, name: &str) -> &[f64] {
        &self.tensors[name]
    }

    fn act(&self, x: f64) -> f64 {
        match self.variant.act {
            "gelu" => 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2)),
            "gelu_new" => {
                let inner = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3));
                0.5 * x * (1.0 + inner.tanh())
            }
            "relu" => x.max(0.0),
            other => panic!("no reference for {other}"),
        }
    }

    /// BERT's output blocks: `LayerNorm(x·Wᵀ + b + residual)`, with the weights under `at`.
    fn output(&self, x: &[Vec<f64>], residual: &[Vec<f64>], at: &str) -> Vec<Vec<f64>> {
        let get = |name: &str| self.get(&format!("{at}.{name}"));
        let mut y = linear(x, get("dense.weight"), get("dense.bias"));
        for (y, r) in y.iter_mut().zip(residual) {
            y.iter_mut().zip(r).for_each(|(y, r)| *y += r);
        }
        layer_norm(&mut y, get("LayerNorm.weight"), get("LayerNorm.bias"));
        y
    }

    /// The sentence vector of one text's token ids.
    pub fn embed(&self, ids: &[u32]) -> Vec<f64> {
        let h = self.variant.hidden;
        let (word, position, kind) = (
            self.get("embeddings.word_embeddings.weight"),
            self.get("embeddings.position_embeddings.weight"),
            self.get("embeddings.token_type_embeddings.weight"),
        );
        let mut x: Vec<Vec<f64>> = ids
            .iter()
            .enumerate()
            .map(|(t, id)| {
                let id = *id as usize;
                (0..h)
                    .map(|j| word[id * h + j] + position[t * h + j] + kind[j])
                    .collect()
            })
            .collect();
        layer_norm(
            &mut x,
            self.get("embeddings.LayerNorm.weight"),
            self.get("embeddings.LayerNorm.bias"),
        );
        let at = |name: &str| self.get(&format!("encoder.layer.0.{name}"));
        let q = linear(
            &x,
            at("attention.self.query.weight"),
            at("attention.self.query.bias"),
        );
        let k = linear(
            &x,
            at("attention.self.key.weight"),
            at("attention.self.key.bias"),
        );
        let v = linear(
            &x,
            at("attention.self.value.weight"),
            at("attention.self.value.bias"),
        );
        let (heads, len) = (self.variant.heads, ids.len());
        let d = h / heads;
        let mut context = vec![vec![0.0; h]; len];
        for head in 0..heads {
            let cols = head * d..(head + 1) * d;
            for i in 0..len {
                let scores: Vec<f64> = (0..len)
                    .map(|j| {
                        cols.clone().map(|c| q[i][c] * k[j][c]).sum::<f64>() / (d as f64).sqrt()
                    })
                    .collect();
                let max = scores.iter().cloned().fold(f64::MIN, f64::max);
                let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
                let total: f64 = weights.iter().sum();
                for c in cols.clone() {
                    context[i][c] = (0..len).map(|j| weights[j] * v[j][c]).sum::<f64>() / total;
                }
            }
        }
        let attended = self.output(&context, &x, "encoder.layer.0.attention.output");
        let mut inner = linear(
            &attended,
            at("intermediate.dense.weight"),
            at("intermediate.dense.bias"),
        );
        inner
            .iter_mut()
            .for_each(|row| row.iter_mut().for_each(|v| *v = self.act(*v)));
        let out = self.output(&inner, &attended, "encoder.layer.0.output");
        let mut mean: Vec<f64> = (0..h)
            .map(|j| out.iter().map(|row| row[j]).sum::<f64>() / len as f64)
            .collect();
        let norm = mean.iter().map(|v| v * v).sum::<f64>().sqrt();
        mean.iter_mut().for_each(|v| *v /= norm);
        mean
    }
}
