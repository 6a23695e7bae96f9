//! The samples two score files both scored, as the paired comparisons read them: which they
//! are, how many count towards a metric, each side's sums over them, the metrics' values on
//! them, and the paired-bootstrap deltas (the baseline's and the drift reference's
//! comparisons alike).

use std::collections::HashMap;

use crate::metrics::bootstrap::{paired_deltas, point_values, BootstrapConfig, Prepared};
use crate::metrics::registry::Metric;
use crate::metrics::stats::Stats;
use crate::score::file::{SampleScore, ScoreFile};

/// Indexes (candidate, other) of the samples both runs scored: the same id of the same
/// kind. A sample whose kind changed is another sample (its metrics are another kind's),
/// never a pair, so it cannot stand in for one in a count of shared samples.
pub fn shared(candidate: &ScoreFile, other: Option<&ScoreFile>) -> Vec<(usize, usize)> {
    let Some(b) = other else { return Vec::new() };
    let index: HashMap<&str, usize> = b
        .samples
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();
    candidate
        .samples
        .iter()
        .enumerate()
        .filter_map(|(i, s)| index.get(s.id.as_str()).map(|&j| (i, j)))
        .filter(|&(i, j)| candidate.samples[i].kind == b.samples[j].kind)
        .collect()
}

/// The shared samples that count towards a metric (whose `support` sum is positive) in
/// either run.
pub fn support(
    candidate: &ScoreFile,
    other: &ScoreFile,
    shared: &[(usize, usize)],
    support: &str,
) -> usize {
    use crate::metrics::stats::Sums;
    let counts = |f: &ScoreFile, i: usize| f.samples[i].stats.get(support) > 0.0;
    shared
        .iter()
        .filter(|&&(c, b)| counts(candidate, c) || counts(other, b))
        .count()
}

/// The sums and latencies of `samples`, in order.
pub fn prepared<'a>(samples: &[&'a SampleScore], catalog: &'static [Metric]) -> Prepared<'a> {
    let stats: Vec<&Stats> = samples.iter().map(|s| &s.stats).collect();
    let latencies = samples.iter().map(|s| s.latency_ms.as_slice()).collect();
    Prepared::new(catalog, &stats, latencies)
}

/// Every metric's value (catalog order) on `samples` alone: a reference's values on the
/// samples a run shares with it.
pub fn values_of(samples: &[&SampleScore], catalog: &'static [Metric]) -> Vec<Option<f64>> {
    let members: Vec<usize> = (0..samples.len()).collect();
    point_values(&prepared(samples, catalog), &members)
}

/// How many of `samples` count towards a metric (their `support` sum is positive).
pub fn supporting(samples: &[&SampleScore], support: &str) -> usize {
    use crate::metrics::stats::Sums;
    samples
        .iter()
        .filter(|s| s.stats.get(support) > 0.0)
        .count()
}

/// Each side's sums and latencies over the shared samples, in shared-sample order:
/// (candidate, other).
pub fn sides<'a>(
    candidate: &'a ScoreFile,
    other: &'a ScoreFile,
    shared: &[(usize, usize)],
    catalog: &'static [Metric],
) -> (Prepared<'a>, Prepared<'a>) {
    let side = |file: &'a ScoreFile, pick: fn(&(usize, usize)) -> usize| {
        let samples: Vec<&SampleScore> = shared.iter().map(|p| &file.samples[pick(p)]).collect();
        prepared(&samples, catalog)
    };
    (side(candidate, |p| p.0), side(other, |p| p.1))
}

/// Every metric's value on the shared samples alone (catalog order): (candidate, other).
pub fn values(
    sides: &(Prepared<'_>, Prepared<'_>),
    shared: usize,
) -> (Vec<Option<f64>>, Vec<Option<f64>>) {
    let members: Vec<usize> = (0..shared).collect();
    (
        point_values(&sides.0, &members),
        point_values(&sides.1, &members),
    )
}

/// The paired-bootstrap deltas (candidate − other) of every metric in `catalog`, over the
/// shared samples; none without the other run.
pub fn draws(
    candidate: &ScoreFile,
    other: Option<&ScoreFile>,
    shared: &[(usize, usize)],
    cfg: &BootstrapConfig,
    catalog: &'static [Metric],
) -> Vec<Vec<f64>> {
    let Some(b) = other else { return Vec::new() };
    let (cand, base) = sides(candidate, b, shared, catalog);
    paired_deltas(&base, &cand, cfg, "paired")
}
