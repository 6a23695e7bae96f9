//! Repeats as runs while scoring: each record's own sums kept beside the sample's pooled
//! ones (in memory only, never in the score file), and, when the run has two repeats or
//! more, every aggregate given the mean and standard deviation of its metric over the
//! repeats taken as separate runs (see [`crate::metrics::runs`]).

use std::collections::BTreeMap;

use crate::metrics::aggregate::Aggregate;
use crate::metrics::bootstrap::Prepared;
pub(super) use crate::metrics::runs::{Runs, SampleRuns};
use crate::metrics::stats::Stats;
use crate::runfile::record::Answer;

use super::file::SampleScore;

/// One sample's records as they are scored: each one's repeat, latency and sums.
pub(super) struct Records {
    records: Vec<(u32, Option<f64>)>,
    sums: Vec<Stats>,
}

impl Records {
    /// For a sample with `count` records.
    pub(super) fn new(count: usize) -> Records {
        Records {
            records: Vec::with_capacity(count),
            sums: Vec::with_capacity(count),
        }
    }

    /// Keep one record: its repeat, latency and sums.
    pub(super) fn add(&mut self, answer: &Answer, sums: Stats) {
        self.records.push((answer.repeat, answer.latency_ms));
        self.sums.push(sums);
    }

    /// The sample's sums (its records' merged in order) and its records laid out along
    /// them.
    pub(super) fn pool(self) -> (Stats, SampleRuns) {
        SampleRuns::pool(&self.records, self.sums)
    }
}

/// The samples' records ready for every scope, when some sample has two records or more
/// (a run of one repeat has no spread to report, and its score file stays as it was).
/// `prepared` holds the samples' sums, interned for the metrics of `catalog`.
pub(super) fn prepare<'a>(
    samples: &[SampleScore],
    prepared: &'a Prepared<'_>,
    runs: &'a [SampleRuns],
    catalog: &'static [crate::metrics::registry::Metric],
) -> Option<Runs<'a>> {
    if samples.iter().all(|s| s.repeats < 2) {
        return None;
    }
    Some(Runs::new(catalog, prepared.interned(), runs))
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
