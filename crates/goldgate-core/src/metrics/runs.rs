//! Repeats taken as runs: every metric's value over a scope computed for each repeat index
//! on its own (the sums of the scope's records with that `repeat`, the latencies of those
//! records), as if each repeat were a separate run of the pipeline, and summarised as mean
//! and sample standard deviation over the repeats where it has a value ([`Spread`]). This is
//! the seed-to-seed variation of the whole pipeline; the pooled value and its bootstrap
//! interval (resampling samples) are the aggregate's own.

use std::cmp::Ordering;

use super::aggregate::Spread;
use super::bootstrap::quantile;
use super::registry::{Eval, Metric};
use super::stats::{Interned, KeyIndex, ScopeSums, Stats};

/// One sample's records kept apart, for as long as scoring needs them (they are not written
/// to the score file): each record's repeat index and latency and, with two records or
/// more, its sums laid out along the sample's pooled sums, so a record costs one `f64` per
/// key of its sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SampleRuns {
    /// Each record's repeat index, in record order.
    repeats: Vec<u32>,
    /// Each record's latency (`NaN` when it has none).
    latencies: Vec<f64>,
    /// Record `j`'s sum under the `i`-th key of the sample's pooled sums (in key order) is
    /// `values[j · keys + i]`. Empty for a sample of one record: its sums are the pooled ones.
    values: Vec<f64>,
}

impl SampleRuns {
    /// Pool a sample's records into its sums, keeping each one's own: `records` holds each
    /// record's repeat index and latency, `sums` its sums, in record order. The pooled sums
    /// are the records' sums merged in that order ([`Stats::merge`]), the same as merging
    /// them one by one as they are scored.
    pub fn pool(records: &[(u32, Option<f64>)], sums: Vec<Stats>) -> (Stats, SampleRuns) {
        assert_eq!(records.len(), sums.len(), "one set of sums per record");
        let mut values = Vec::new();
        if sums.len() > 1 {
            let keys = union(&sums);
            values.reserve(sums.len() * keys.len());
            for own in &sums {
                // A record's keys are among the pooled ones, in the same order.
                let mut own = own.iter().peekable();
                for &key in &keys {
                    match own.peek() {
                        Some(&(k, v)) if k == key => {
                            values.push(v);
                            own.next();
                        }
                        _ => values.push(0.0),
                    }
                }
            }
        }
        let mut pooled = Stats::default();
        for own in sums {
            pooled.merge(own);
        }
        let runs = SampleRuns {
            repeats: records.iter().map(|r| r.0).collect(),
            latencies: records
                .iter()
                .map(|r| r.1.filter(|l| l.is_finite()).unwrap_or(f64::NAN))
                .collect(),
            values,
        };
        (pooled, runs)
    }
}

/// Every key of `sums`, in key order (the keys their merge has).
fn union(sums: &[Stats]) -> Vec<&str> {
    let mut keys: Vec<&str> = Vec::new();
    for own in sums {
        let mut merged = Vec::with_capacity(keys.len() + 8);
        let (mut a, mut b) = (
            keys.into_iter().peekable(),
            own.iter().map(|(k, _)| k).peekable(),
        );
        while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
            match x.cmp(y) {
                Ordering::Less => merged.extend(a.next()),
                Ordering::Greater => merged.extend(b.next()),
                Ordering::Equal => {
                    merged.extend(a.next());
                    b.next();
                }
            }
        }
        merged.extend(a);
        merged.extend(b);
        keys = merged;
    }
    keys
}

/// Every sample's records, prepared once for every scope.
pub struct Runs<'a> {
    metrics: &'static [Metric],
    /// Every key of the samples' pooled sums, in key order.
    names: Vec<&'a str>,
    /// Sample `i`'s pooled sums (its keys, in key order, as positions in `names`).
    pooled: &'a [Vec<(u32, f64)>],
    samples: &'a [SampleRuns],
    /// The repeat indexes of the run, ascending.
    repeats: Vec<u32>,
}

impl<'a> Runs<'a> {
    /// `pooled` holds the samples' pooled sums as [`SampleRuns::pool`] made them, interned
    /// (row `i`: sample `i`'s sums in key order, as [`Interned::new`] makes them), and
    /// `samples[i]` sample `i`'s records; `metrics` are the metrics to compute, in report
    /// order.
    pub fn new(
        metrics: &'static [Metric],
        pooled: &'a Interned,
        samples: &'a [SampleRuns],
    ) -> Self {
        let mut repeats: Vec<u32> = samples
            .iter()
            .flat_map(|s| s.repeats.iter().copied())
            .collect();
        repeats.sort_unstable();
        repeats.dedup();
        Runs {
            metrics,
            names: pooled.names.iter().map(String::as_str).collect(),
            pooled: &pooled.rows,
            samples,
            repeats,
        }
    }

    /// The metrics whose spreads [`Runs::spread`] gives, in its order.
    pub fn metrics(&self) -> &'static [Metric] {
        self.metrics
    }

    /// Each metric's spread (in the order of `metrics`) over the repeats of the samples at
    /// `members`: its value over each repeat's records, left out where it has none.
    pub fn spread(&self, members: &[usize]) -> Vec<Spread> {
        let width = self.names.len();
        let mut dense = vec![0.0; self.repeats.len() * width];
        let mut latencies = vec![Vec::new(); self.repeats.len()];
        for &m in members {
            let (sample, row) = (&self.samples[m], &self.pooled[m]);
            for (j, repeat) in sample.repeats.iter().enumerate() {
                let Ok(r) = self.repeats.binary_search(repeat) else {
                    continue;
                };
                let sums = &mut dense[r * width..(r + 1) * width];
                if sample.values.is_empty() {
                    for &(k, v) in row {
                        sums[k as usize] += v;
                    }
                } else {
                    let own = &sample.values[j * row.len()..(j + 1) * row.len()];
                    for (&(k, _), &v) in row.iter().zip(own) {
                        sums[k as usize] += v;
                    }
                }
                let latency = sample.latencies[j];
                if latency.is_finite() {
                    latencies[r].push(latency);
                }
            }
        }
        let index = KeyIndex::new(&self.names);
        let per_repeat: Vec<Vec<Option<f64>>> = latencies
            .iter_mut()
            .enumerate()
            .map(|(r, lat)| {
                let sums = &dense[r * width..(r + 1) * width];
                let view = ScopeSums::new(&self.names, &index, sums);
                self.metrics
                    .iter()
                    .map(|metric| match metric.eval {
                        Eval::Sums(_) | Eval::Count(_) => metric.value(&view),
                        Eval::LatencyQuantile(q) => quantile(lat, q),
                    })
                    .collect()
            })
            .collect();
        (0..self.metrics.len())
            .map(|i| Spread::of(per_repeat.iter().map(|values| values[i])))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(tp: f64, fp: f64, fn_: f64) -> Stats {
        let mut stats = Stats::default();
        for (k, v) in [
            ("ext.records", 1.0),
            ("ext.tp", tp),
            ("ext.fp", fp),
            ("ext.fn", fn_),
        ] {
            stats.add(k, v);
        }
        stats
    }

    /// The pooled sums are the records' merged in order; each record's own are laid out
    /// along the pooled keys, zero where it lacks one.
    #[test]
    fn records_are_pooled_and_laid_out_along_the_pooled_keys() {
        let (a, b) = (record(2.0, 0.0, 0.0), record(0.0, 1.0, 3.0));
        let mut c = record(1.0, 0.0, 0.0);
        c.add_dynamic("ext.type_pair:x|y".to_string(), 1.0);
        let mut merged = a.clone();
        merged.merge(b.clone());
        merged.merge(c.clone());
        let (pooled, runs) = SampleRuns::pool(
            &[(0, None), (1, Some(f64::INFINITY)), (2, Some(3.0))],
            vec![a.clone(), b, c],
        );
        assert_eq!(pooled, merged);
        // Keys in order: ext.fn, ext.fp, ext.records, ext.tp, ext.type_pair:x|y.
        assert_eq!(
            runs.values,
            [
                [0.0, 0.0, 1.0, 2.0, 0.0],
                [3.0, 1.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 1.0, 1.0]
            ]
            .concat()
        );
        assert!(runs.latencies[..2].iter().all(|l| l.is_nan()));
        assert_eq!(runs.latencies[2], 3.0);
        // One record: its sums are the pooled ones, nothing is kept apart.
        let (alone, one) = SampleRuns::pool(&[(4, Some(7.0))], vec![a.clone()]);
        assert_eq!(alone, a);
        assert!(one.values.is_empty());
        assert_eq!(
            (one.repeats.clone(), one.latencies.clone()),
            (vec![4], vec![7.0])
        );
    }
}
