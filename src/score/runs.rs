//! Repeats as runs while scoring: each record's own sums kept beside the sample's pooled
//! ones (in memory only, never in the score file), and, when the run has two repeats or
//! more, every aggregate given the mean and standard deviation of its metric over the
//! repeats taken as separate runs (see [`crate::metrics::runs`]).

use std::collections::BTreeMap;

use crate::metrics::aggregate::Aggregate;
pub(super) use crate::metrics::runs::{Runs, SampleRuns};
use crate::metrics::stats::Stats;
use crate::runfile::record::Answer;

use super::file::SampleScore;

/// One sample's records as they are scored: their repeats and latencies and, when there are
/// several, a copy of each one's sums (the pooled sums take the records themselves).
pub(super) struct Records {
    several: bool,
    records: Vec<(u32, Option<f64>)>,
    sums: Vec<Stats>,
}

impl Records {
    /// For a sample with `count` records.
    pub(super) fn new(count: usize) -> Records {
        Records {
            several: count > 1,
            records: Vec::with_capacity(count),
            sums: Vec::with_capacity(if count > 1 { count } else { 0 }),
        }
    }

    /// Keep what the scopes' runs need of one record: its repeat, latency and sums.
    pub(super) fn add(&mut self, answer: &Answer, sums: &Stats) {
        self.records.push((answer.repeat, answer.latency_ms));
        if self.several {
            self.sums.push(sums.clone());
        }
    }

    /// The records laid out along the sample's pooled sums (`pooled`: the sum of them all).
    pub(super) fn finish(self, pooled: &Stats) -> SampleRuns {
        SampleRuns::new(pooled, &self.records, &self.sums)
    }
}

/// The samples' records ready for every scope, when some sample has two records or more
/// (a run of one repeat has no spread to report, and its score file stays as it was).
pub(super) fn prepare<'a>(
    samples: &[SampleScore],
    runs: &'a [SampleRuns],
    catalog: &'static [crate::metrics::registry::Metric],
) -> Option<Runs<'a>> {
    if samples.iter().all(|s| s.repeats < 2) {
        return None;
    }
    let pooled: Vec<&Stats> = samples.iter().map(|s| &s.stats).collect();
    Some(Runs::new(catalog, &pooled, runs))
}

/// A scope's aggregates, each given its metric's spread over the runs (`runs`: as
/// [`prepare`] made them, `members`: the scope's samples).
pub(super) fn with_spread(
    mut aggregates: BTreeMap<&'static str, Aggregate>,
    runs: Option<&Runs<'_>>,
    members: &[usize],
) -> BTreeMap<&'static str, Aggregate> {
    let Some(runs) = runs else {
        return aggregates;
    };
    for (metric, spread) in runs.metrics().iter().zip(runs.spread(members)) {
        if let Some(aggregate) = aggregates.get_mut(metric.name) {
            aggregate.spread = Some(spread);
        }
    }
    aggregates
}
