//! Aggregates with 95% bootstrap confidence intervals: resample whole samples (with
//! all their repeats) with replacement, recompute every metric from the resampled sums, and
//! take percentile bounds. Seeded per scope, so reports are reproducible and do not depend on
//! how scopes are spread over threads.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::registry::{Eval, Metric};

pub use super::aggregate::Aggregate;
use super::block_sums::{BlockSums, Counts, BLOCK};
use super::stats::{Interned, KeyIndex, ScopeSums, Stats};
use crate::rng::{label_hash, Rng};

/// Bootstrap settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BootstrapConfig {
    pub resamples: usize,
    pub seed: u64,
    pub confidence: f64,
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        BootstrapConfig {
            resamples: 1000,
            seed: 20_240_601,
            confidence: 0.95,
        }
    }
}

/// Samples prepared once for every scope: interned sums, record latencies and, per
/// sample, the set of metrics it supports (counts towards `n`).
pub struct Prepared<'a> {
    /// The metrics computed, in report order (every kind's and the shared ones).
    metrics: &'static [Metric],
    latencies: Vec<&'a [f64]>,
    interned: Interned,
    /// Sample i supports metric j when bit j of its `words` words from `i * words` is set.
    support: Vec<u64>,
    words: usize,
}

impl<'a> Prepared<'a> {
    /// `stats[i]` and `latencies[i]` belong to sample `i`; `metrics` are the metrics to
    /// compute.
    pub fn new(metrics: &'static [Metric], stats: &[&Stats], latencies: Vec<&'a [f64]>) -> Self {
        let interned = Interned::new(stats);
        let words = metrics.len().div_ceil(64).max(1);
        // The metrics each key is the support of: a sample supports a metric when the sum
        // under that key is positive.
        let mut supports = vec![Vec::new(); interned.names.len()];
        for (i, metric) in metrics.iter().enumerate() {
            if let Ok(k) = interned
                .names
                .binary_search_by(|n| n.as_str().cmp(metric.support))
            {
                supports[k].push(i);
            }
        }
        let support = interned
            .rows
            .par_iter()
            .flat_map_iter(|row| {
                let mut mask = vec![0u64; words];
                for &(k, v) in row {
                    if v > 0.0 {
                        for &i in &supports[k as usize] {
                            mask[i / 64] |= 1 << (i % 64);
                        }
                    }
                }
                mask
            })
            .collect();
        Prepared {
            metrics,
            latencies,
            interned,
            support,
            words,
        }
    }

    /// Whether sample `sample` supports metric `metric`.
    fn supports(&self, sample: usize, metric: usize) -> bool {
        self.support[sample * self.words + metric / 64] & (1 << (metric % 64)) != 0
    }
}

impl Prepared<'_> {
    /// Every key of the samples' sums, and each sample's sums as a row in key order.
    pub fn interned(&self) -> &Interned {
        &self.interned
    }

    /// Each sample's own values of the metrics `metrics_of(i)` lists (those computed from
    /// sums; the others are skipped), from its sums alone: what reading its [`Stats`]
    /// gives, through one memoized index of every key instead of a map per sample.
    pub fn sample_values<'m, I>(
        &self,
        metrics_of: impl Fn(usize) -> I + Sync,
    ) -> Vec<Vec<(&'static str, f64)>>
    where
        I: Iterator<Item = &'m Metric>,
    {
        let names: Vec<&str> = self.interned.names.iter().map(String::as_str).collect();
        (0..self.interned.rows.len())
            .into_par_iter()
            .map_init(
                || (KeyIndex::new(&names), vec![0.0; names.len()]),
                |(index, dense), i| {
                    let row = &self.interned.rows[i];
                    for &(k, v) in row {
                        dense[k as usize] = v;
                    }
                    let view = ScopeSums::new(&names, index, dense);
                    let values = metrics_of(i)
                        .filter(|m| !matches!(m.eval, Eval::LatencyQuantile(_)))
                        .filter_map(|m| m.value(&view).map(|v| (m.name, v)))
                        .collect();
                    for &(k, _) in row {
                        dense[k as usize] = 0.0;
                    }
                    values
                },
            )
            .collect()
    }
}

/// One scope's samples as sparse rows (CSR) over the scope's own keys.
struct Scope<'a> {
    metrics: &'static [Metric],
    names: Vec<&'a str>,
    /// Row r holds entries `starts[r]..starts[r + 1]` of `columns` and `values`.
    starts: Vec<usize>,
    columns: Vec<u32>,
    values: Vec<f64>,
    latencies: Vec<&'a [f64]>,
}

impl<'a> Scope<'a> {
    fn new(prepared: &'a Prepared<'_>, members: &[usize]) -> Self {
        let all = &prepared.interned;
        let mut used = vec![false; all.names.len()];
        for &m in members {
            for &(k, _) in &all.rows[m] {
                used[k as usize] = true;
            }
        }
        let mut local = vec![usize::MAX; all.names.len()];
        let mut names = Vec::new();
        for (k, _) in used.iter().enumerate().filter(|(_, u)| **u) {
            local[k] = names.len();
            names.push(all.names[k].as_str());
        }
        let (mut starts, mut columns, mut values) = (vec![0], Vec::new(), Vec::new());
        for &m in members {
            for &(k, v) in &all.rows[m] {
                columns.push(local[k as usize] as u32);
                values.push(v);
            }
            starts.push(columns.len());
        }
        let latencies = members.iter().map(|&m| prepared.latencies[m]).collect();
        Scope {
            metrics: prepared.metrics,
            names,
            starts,
            columns,
            values,
            latencies,
        }
    }

    fn width(&self) -> usize {
        self.names.len()
    }

    /// Sum the rows, each `counts[r]` times, into `dense` (and latencies into `lat`).
    fn sum(&self, counts: &[u32], dense: &mut [f64], lat: &mut Vec<f64>, with_latency: bool) {
        dense.iter_mut().for_each(|v| *v = 0.0);
        lat.clear();
        for (r, &c) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
            let c = f64::from(c);
            for (k, v) in self.row(r) {
                dense[k] += c * v;
            }
            if with_latency {
                for _ in 0..c as u32 {
                    lat.extend_from_slice(self.latencies[r]);
                }
            }
        }
    }

    /// The scope's rows, ready to be summed a block of resamples at a time.
    fn block_sums(&self) -> BlockSums {
        BlockSums::new(self.width(), self.latencies.len(), |r| self.row(r))
    }

    /// The non-zero (column, value) entries of row `r`.
    fn row(&self, r: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let span = self.starts[r]..self.starts[r + 1];
        self.columns[span.clone()]
            .iter()
            .map(|&k| k as usize)
            .zip(self.values[span].iter().copied())
    }

    /// The latencies of the rows, each repeated `counts[r]` times.
    fn gather_latencies(&self, counts: &[u32], lat: &mut Vec<f64>) {
        lat.clear();
        for (r, &c) in counts.iter().enumerate() {
            for _ in 0..c {
                lat.extend_from_slice(self.latencies[r]);
            }
        }
    }

    /// Where the scope's keys are, for [`Scope::values`] (one per thread: it memoizes).
    fn key_index(&self) -> KeyIndex<'_> {
        KeyIndex::new(&self.names)
    }

    fn values(
        &self,
        index: &KeyIndex<'_>,
        dense: &[f64],
        lat: &mut [f64],
        which: &[usize],
    ) -> Vec<Option<f64>> {
        let view = ScopeSums::new(&self.names, index, dense);
        let mut out = vec![None; self.metrics.len()];
        for &i in which {
            let metric = &self.metrics[i];
            out[i] = match metric.eval {
                Eval::Sums(_) | Eval::Count(_) => metric.value(&view),
                Eval::LatencyQuantile(q) => quantile(lat, q),
            };
        }
        out
    }
}

/// Aggregates of every metric over the samples at `members`, with bootstrap CIs. `label`
/// names the scope (`all`, `kind:extraction`, …) and seeds its resampling.
pub fn aggregate(
    prepared: &Prepared<'_>,
    members: &[usize],
    cfg: &BootstrapConfig,
    label: &str,
) -> BTreeMap<&'static str, Aggregate> {
    let scope = Scope::new(prepared, members);
    let (mut dense, mut lat) = (vec![0.0; scope.width()], Vec::new());
    let all: Vec<usize> = (0..prepared.metrics.len()).collect();
    scope.sum(&vec![1; members.len()], &mut dense, &mut lat, true);
    let point = scope.values(&scope.key_index(), &dense, &mut lat, &all);
    let live: Vec<usize> = all.into_iter().filter(|&i| point[i].is_some()).collect();
    let draws = resample(&scope, &live, cfg, label);
    prepared
        .metrics
        .iter()
        .enumerate()
        .map(|(i, metric)| {
            let n = members.iter().filter(|&&m| prepared.supports(m, i)).count();
            let ci = point[i].and_then(|_| interval(&draws[i], cfg.confidence));
            (
                metric.name,
                Aggregate {
                    value: point[i],
                    n,
                    ci,
                    spread: None,
                },
            )
        })
        .collect()
}

/// Every metric's value over the samples at `members` (registry order; `None` without
/// data), without intervals: what a comparison restricted to some samples reads.
pub fn point_values(prepared: &Prepared<'_>, members: &[usize]) -> Vec<Option<f64>> {
    let scope = Scope::new(prepared, members);
    let (mut dense, mut lat) = (vec![0.0; scope.width()], Vec::new());
    let all: Vec<usize> = (0..prepared.metrics.len()).collect();
    scope.sum(&vec![1; members.len()], &mut dense, &mut lat, true);
    scope.values(&scope.key_index(), &dense, &mut lat, &all)
}

/// Draw `block` resamples of `counts.rows()` samples with replacement: `counts[i][b]` is
/// how often sample i is in resample b. Each resample is drawn in turn, so the stream of
/// draws is one resample after another whatever the block size.
fn draw_block(rng: &mut Rng, counts: &mut Counts, block: usize) {
    let n = counts.rows();
    counts.clear();
    for b in 0..block {
        rng.count_draws(n, counts.resample_mut(b));
    }
    counts.finish();
}

/// Every block of `resamples` resamples of `n` samples, drawn from `rng`'s stream one
/// resample after another, handed to `each` (with the thread's `init` state) on every core;
/// the blocks' results in block order. A block starts at its place in the stream (every
/// resample takes `n` draws), so the draws do not depend on which thread takes which block.
fn in_blocks<S, T: Send>(
    n: usize,
    rng: &Rng,
    resamples: usize,
    init: impl Fn() -> S + Sync + Send,
    each: impl Fn(&mut S, &Counts, usize) -> T + Sync + Send,
) -> Vec<T> {
    (0..resamples.div_ceil(BLOCK))
        .into_par_iter()
        .map_init(
            || (Counts::new(n), init()),
            |(counts, state), j| {
                let mut rng = rng.clone();
                rng.skip(((j * BLOCK) as u64).wrapping_mul(n as u64));
                let block = BLOCK.min(resamples - j * BLOCK);
                draw_block(&mut rng, counts, block);
                each(state, counts, block)
            },
        )
        .collect()
}

/// Each metric's draws of every block (in block order, as [`in_blocks`] gives them) appended
/// to its list in `draws`, so the lists are in resample order.
fn join_blocks(draws: &mut [Vec<f64>], blocks: Vec<Vec<Vec<f64>>>) {
    for block in blocks {
        for (all, some) in draws.iter_mut().zip(block) {
            all.extend(some);
        }
    }
}

/// Each metric's value in every resample where it has one, in resample order.
fn resample(
    scope: &Scope<'_>,
    live: &[usize],
    cfg: &BootstrapConfig,
    label: &str,
) -> Vec<Vec<f64>> {
    let mut draws = vec![Vec::new(); scope.metrics.len()];
    let n = scope.latencies.len();
    if n == 0 || live.is_empty() {
        return draws;
    }
    let with_latency = live
        .iter()
        .any(|&i| matches!(scope.metrics[i].eval, Eval::LatencyQuantile(_)));
    let rng = Rng::new(cfg.seed ^ label_hash(label));
    let sums = scope.block_sums();
    let init = || {
        let scratch = (vec![0.0; scope.width()], Vec::new(), vec![0u32; n]);
        (scope.key_index(), sums.totals(), scratch)
    };
    let blocks = in_blocks(n, &rng, cfg.resamples, init, |state, counts, block| {
        let (index, totals, (dense, lat, single)) = state;
        sums.sum(counts, totals);
        let mut out = vec![Vec::with_capacity(block); scope.metrics.len()];
        for b in 0..block {
            sums.resample(totals, b, dense);
            if with_latency {
                single
                    .iter_mut()
                    .zip(&counts.drawn)
                    .for_each(|(s, c)| *s = c[b]);
                scope.gather_latencies(single, lat);
            }
            for (i, v) in scope
                .values(index, dense, lat, live)
                .into_iter()
                .enumerate()
            {
                out[i].extend(v);
            }
        }
        out
    });
    join_blocks(&mut draws, blocks);
    draws
}

/// Paired bootstrap of every metric's delta (candidate − baseline) over the samples both
/// runs share: `base[i]` and `cand[i]` are the same sample, and every resample draws the same
/// samples on both sides, so the interval reflects the change, not the noise between two
/// independent draws. Returns, per metric (registry order), the delta of each resample
/// where both sides have a value.
pub fn paired_deltas(
    base: &Prepared<'_>,
    cand: &Prepared<'_>,
    cfg: &BootstrapConfig,
    label: &str,
) -> Vec<Vec<f64>> {
    let n = base.latencies.len().min(cand.latencies.len());
    let members: Vec<usize> = (0..n).collect();
    let (bs, cs) = (Scope::new(base, &members), Scope::new(cand, &members));
    let mut draws = vec![Vec::new(); base.metrics.len()];
    if n == 0 {
        return draws;
    }
    let all: Vec<usize> = (0..base.metrics.len()).collect();
    let rng = Rng::new(cfg.seed ^ label_hash(label));
    let (b_sums, c_sums) = (bs.block_sums(), cs.block_sums());
    let init = || {
        let dense = (vec![0.0; bs.width()], vec![0.0; cs.width()]);
        let totals = (b_sums.totals(), c_sums.totals());
        let indexes = (bs.key_index(), cs.key_index());
        (indexes, totals, dense, Vec::new(), vec![0u32; n])
    };
    let blocks = in_blocks(n, &rng, cfg.resamples, init, |state, counts, block| {
        let ((b_index, c_index), (b_totals, c_totals), (b_dense, c_dense), lat, single) = state;
        b_sums.sum(counts, b_totals);
        c_sums.sum(counts, c_totals);
        let mut out = vec![Vec::with_capacity(block); base.metrics.len()];
        for b in 0..block {
            b_sums.resample(b_totals, b, b_dense);
            c_sums.resample(c_totals, b, c_dense);
            single
                .iter_mut()
                .zip(&counts.drawn)
                .for_each(|(s, c)| *s = c[b]);
            bs.gather_latencies(single, lat);
            let before = bs.values(b_index, b_dense, lat, &all);
            cs.gather_latencies(single, lat);
            let after = cs.values(c_index, c_dense, lat, &all);
            for (i, (x, y)) in before.into_iter().zip(after).enumerate() {
                if let (Some(x), Some(y)) = (x, y) {
                    out[i].push(y - x);
                }
            }
        }
        out
    });
    join_blocks(&mut draws, blocks);
    draws
}

/// Percentile interval (linear interpolation between order statistics).
pub fn interval(draws: &[f64], confidence: f64) -> Option<[f64; 2]> {
    if draws.is_empty() {
        return None;
    }
    let mut values = draws.to_vec();
    let tail = (1.0 - confidence) / 2.0;
    let low = percentile(&mut values, tail);
    Some([low, percentile(&mut values, 1.0 - tail)])
}

/// `sorted[lo] + frac · (sorted[lo + 1] − sorted[lo])` of the values in ascending order,
/// found by selection instead of a sort (the same order statistics, so the same bits).
fn percentile(values: &mut [f64], q: f64) -> f64 {
    let pos = q * (values.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let (_, &mut a, right) = values.select_nth_unstable_by(lo, f64::total_cmp);
    let b = right.iter().copied().min_by(f64::total_cmp).unwrap_or(a);
    a + (pos - lo as f64) * (b - a)
}

/// The q-quantile of `values` (linear interpolation, like numpy's default); reorders them.
pub fn quantile(values: &mut [f64], q: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let pos = q * (values.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let (_, &mut a, right) = values.select_nth_unstable_by(lo, f64::total_cmp);
    let frac = pos - lo as f64;
    if frac == 0.0 || right.is_empty() {
        return Some(a);
    }
    let b = right.iter().copied().fold(f64::INFINITY, f64::min);
    Some(a + frac * (b - a))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks drawn on every core are the blocks one stream draws one after another.
    #[test]
    fn blocks_in_parallel_are_the_sequential_stream() {
        let (n, resamples) = (37, 5 * BLOCK + 3);
        let rng = Rng::new(11);
        let parallel = in_blocks(
            n,
            &rng,
            resamples,
            || (),
            |_, counts, block| (counts.drawn.clone(), block),
        );
        let (mut sequential, mut counts) = (rng.clone(), Counts::new(n));
        assert_eq!(parallel.len(), resamples.div_ceil(BLOCK));
        for (j, (drawn, block)) in parallel.into_iter().enumerate() {
            let expected = BLOCK.min(resamples - j * BLOCK);
            assert_eq!(block, expected);
            draw_block(&mut sequential, &mut counts, expected);
            for (got, want) in drawn.iter().zip(&counts.drawn) {
                assert_eq!(got[..block], want[..block], "block {j}");
            }
        }
    }

    #[test]
    fn quantiles_interpolate() {
        let mut v = vec![4.0, 1.0, 3.0, 2.0];
        assert_eq!(quantile(&mut v, 0.5), Some(2.5));
        assert_eq!(quantile(&mut v, 0.0), Some(1.0));
        assert_eq!(quantile(&mut v, 1.0), Some(4.0));
        assert_eq!(quantile(&mut [], 0.5), None);
        let mut w: Vec<f64> = (1..=100).map(f64::from).collect();
        assert!((quantile(&mut w, 0.95).unwrap() - 95.05).abs() < 1e-9);
    }

    #[test]
    fn rng_below_stays_in_range() {
        let mut rng = Rng::new(1);
        assert!((0..10_000).all(|_| rng.below(7) < 7));
    }
}
