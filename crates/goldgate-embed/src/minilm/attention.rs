//! BERT's self-attention, one text at a time: each text's rows of the query-key-value
//! matrix attend only to each other (the texts of a batch are packed one after another,
//! without padding, so no mask is needed and no work is spent on padding). Per head:
//! `softmax(q·kᵀ/√d)·v`. Plain Rust that the compiler vectorises: the text's keys are
//! transposed into rows padded to whole groups of [`LANES`] (zeros past the text), so a
//! group of a query's scores is one multiply-add per dimension, summed in registers; the
//! values are summed the same way, a group of the head's floats at a time. `FMA` says
//! whether the instructions have a fused multiply-add ([`math::madd`]).

use super::math::{self, madd, LANES};

/// Reused buffers: the transposed keys of a text and one query's scores.
#[derive(Default)]
pub struct Scratch {
    keys: Vec<f32>,
    scores: Vec<f32>,
}

/// The shape of the attention: `heads` heads of `head_dim` floats side by side in rows of
/// `hidden`; the query-key-value rows hold the queries, keys and values one after another
/// (`3·hidden`).
#[derive(Clone, Copy)]
pub struct Shape {
    pub hidden: usize,
    pub heads: usize,
    pub head_dim: usize,
}

impl Shape {
    /// Self-attention of the text whose `len` rows start at row `r0` of `qkv`, into the
    /// same rows of `out` (the heads side by side, as BERT concatenates them).
    #[inline(always)]
    pub fn text<const FMA: bool>(
        self,
        qkv: &[f32],
        r0: usize,
        len: usize,
        scratch: &mut Scratch,
        out: &mut [f32],
    ) {
        let (hidden, d) = (self.hidden, self.head_dim);
        let stride = 3 * hidden;
        let padded = len.div_ceil(LANES) * LANES;
        let rows = &qkv[r0 * stride..(r0 + len) * stride];
        let out = &mut out[r0 * hidden..(r0 + len) * hidden];
        let Scratch { keys, scores } = scratch;
        // The keys transposed: `hidden` rows of `padded`, zeros past `len`.
        keys.clear();
        keys.resize(hidden * padded, 0.0);
        for (j, row) in rows.chunks_exact(stride).enumerate() {
            for (t, k) in row[hidden..2 * hidden].iter().enumerate() {
                keys[t * padded + j] = *k;
            }
        }
        scores.resize(padded, 0.0);
        let scale = 1.0 / (d as f32).sqrt();
        let per_row = padded / LANES;
        let key_groups = keys.as_chunks::<LANES>().0;
        for head in 0..self.heads {
            let head_keys = &key_groups[head * d * per_row..(head + 1) * d * per_row];
            let value_at = 2 * hidden + head * d;
            for (row, target) in rows.chunks_exact(stride).zip(out.chunks_exact_mut(hidden)) {
                let query = &row[head * d..(head + 1) * d];
                for (g, group) in scores.as_chunks_mut::<LANES>().0.iter_mut().enumerate() {
                    *group = scores_of::<FMA>(query, head_keys, per_row, g);
                }
                let total = softmax::<FMA>(scores, len, scale);
                let target = &mut target[head * d..(head + 1) * d];
                let p = &scores[..len];
                weighted_values::<FMA>(target, p, rows, stride, value_at, 1.0 / total);
            }
        }
    }
}

/// Group `g` of a query's scores: `Σₜ qₜ·keys[t][g]` over the head's dimensions (row `t`
/// of the keys is groups `t·per_row ..`), in four independent sums in registers (so the
/// multiply-adds overlap instead of waiting for each other).
#[inline(always)]
fn scores_of<const FMA: bool>(
    query: &[f32],
    keys: &[[f32; LANES]],
    per_row: usize,
    g: usize,
) -> [f32; LANES] {
    let mut acc = [[0f32; LANES]; 4];
    let fours = query.as_chunks::<4>();
    for (t4, q) in fours.0.iter().enumerate() {
        for (i, acc) in acc.iter_mut().enumerate() {
            let k = &keys[(4 * t4 + i) * per_row + g];
            for l in 0..LANES {
                acc[l] = madd::<FMA>(q[i], k[l], acc[l]);
            }
        }
    }
    for (i, q) in fours.1.iter().enumerate() {
        let k = &keys[(4 * fours.0.len() + i) * per_row + g];
        for l in 0..LANES {
            acc[0][l] = madd::<FMA>(*q, k[l], acc[0][l]);
        }
    }
    let mut out = [0f32; LANES];
    for l in 0..LANES {
        out[l] = (acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l]);
    }
    out
}

/// The first `len` of `scores` (whole groups of [`LANES`]) → `exp(scale·score − max)`,
/// the rest → 0; returns their sum.
#[inline(always)]
fn softmax<const FMA: bool>(scores: &mut [f32], len: usize, scale: f32) -> f32 {
    let max = scores[..len]
        .iter()
        .fold(f32::NEG_INFINITY, |m, s| m.max(*s))
        * scale;
    for group in scores.as_chunks_mut::<LANES>().0 {
        for s in group {
            *s = math::exp::<FMA>(*s * scale - max);
        }
    }
    scores[len..].fill(0.0);
    math::sum(scores)
}

/// `out = Σⱼ pⱼ·vⱼ · inverse` over the first `p.len()` rows (each `stride` floats, the
/// head's values at `at`), a group of [`LANES`] of the head's floats at a time, summed in
/// registers.
#[inline(always)]
fn weighted_values<const FMA: bool>(
    out: &mut [f32],
    p: &[f32],
    rows: &[f32],
    stride: usize,
    at: usize,
    inverse: f32,
) {
    let (groups, rest) = out.as_chunks_mut::<LANES>();
    let done = groups.len() * LANES;
    let value = |row: &[f32], g: usize| -> [f32; LANES] {
        row[at + g * LANES..][..LANES].try_into().unwrap()
    };
    for (g, target) in groups.iter_mut().enumerate() {
        // Two independent sums (even and odd rows), so the multiply-adds overlap.
        let (mut even, mut odd) = ([0f32; LANES], [0f32; LANES]);
        let pairs = p.as_chunks::<2>();
        for (pair, two) in pairs.0.iter().zip(rows.chunks_exact(2 * stride)) {
            let (v0, v1) = (value(two, g), value(&two[stride..], g));
            for l in 0..LANES {
                even[l] = madd::<FMA>(pair[0], v0[l], even[l]);
                odd[l] = madd::<FMA>(pair[1], v1[l], odd[l]);
            }
        }
        if let [last] = pairs.1 {
            let v = value(&rows[(p.len() - 1) * stride..], g);
            for l in 0..LANES {
                even[l] = madd::<FMA>(*last, v[l], even[l]);
            }
        }
        for l in 0..LANES {
            target[l] = (even[l] + odd[l]) * inverse;
        }
    }
    for (i, target) in rest.iter_mut().enumerate() {
        let mut acc = 0f32;
        for (p, row) in p.iter().zip(rows.chunks_exact(stride)) {
            acc = madd::<FMA>(*p, row[at + done + i], acc);
        }
        *target = acc * inverse;
    }
}
