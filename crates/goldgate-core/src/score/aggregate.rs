//! The aggregates of a score: each sample's own metric values, and every metric over the
//! whole suite and per group (kind, difficulty, domain, tag, task) with its bootstrap
//! interval and, with repeats, its spread over the runs. Samples and scopes are spread over
//! the available cores.

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use super::file::{self, SampleScore};
use super::runs;
use crate::kinds;
use crate::metrics::bootstrap::{aggregate, BootstrapConfig, Prepared};
use crate::metrics::registry::SHARED;

pub(super) type Groups = BTreeMap<String, BTreeMap<String, file::Metrics>>;

/// Each sample's metric values and the overall and per-group aggregates (with repeats, each
/// with its spread over the runs); samples and scopes are spread over the available cores.
pub(super) fn aggregates(
    samples: &mut [SampleScore],
    records: Vec<runs::SampleRuns>,
    cfg: &BootstrapConfig,
) -> (file::Metrics, Groups) {
    let stats: Vec<&crate::metrics::stats::Stats> = samples.iter().map(|s| &s.stats).collect();
    let catalog = kinds::catalog(stats.iter().flat_map(|s| s.iter().map(|(k, _)| k)));
    let prepared = Prepared::new(
        catalog,
        &stats,
        samples.iter().map(|s| s.latency_ms.as_slice()).collect(),
    );
    let values = sample_metrics(&prepared, samples, catalog);
    let spreads = runs::prepare(samples, &prepared, &records, catalog);
    let aggregated = scopes(&prepared, spreads.as_ref(), samples, cfg);
    drop(spreads);
    drop(prepared);
    for (sample, values) in samples.iter_mut().zip(values) {
        sample.metrics = values
            .into_iter()
            .map(|(name, v)| (std::borrow::Cow::Borrowed(name), v))
            .collect();
    }
    aggregated
}

/// Each sample's values of its own kind's metrics and the shared ones (only those can have
/// support in its sums); a tuples sample's also of the source counts in `catalog`.
fn sample_metrics(
    prepared: &Prepared<'_>,
    samples: &[SampleScore],
    catalog: &'static [crate::metrics::registry::Metric],
) -> Vec<Vec<(&'static str, f64)>> {
    let family: Vec<&crate::metrics::registry::Metric> = catalog
        .iter()
        .filter(|m| kinds::is_family_member(m.name))
        .collect();
    prepared.sample_values(|i| {
        let kind = samples[i].kind;
        let own = family
            .iter()
            .copied()
            .filter(move |m| kinds::owner(m.name) == Some(kind));
        kinds::of(kind).metrics().iter().chain(own).chain(SHARED)
    })
}

/// The overall and per-group aggregates.
fn scopes(
    prepared: &Prepared<'_>,
    spreads: Option<&runs::Runs<'_>>,
    samples: &[SampleScore],
    cfg: &BootstrapConfig,
) -> (file::Metrics, Groups) {
    let mut scopes: Vec<(String, String, Vec<usize>)> =
        vec![("all".into(), String::new(), (0..samples.len()).collect())];
    let mut by_group: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, score) in samples.iter().enumerate() {
        let fixed = [
            ("kind", score.kind.as_str()),
            ("difficulty", score.difficulty.as_str()),
            ("domain", score.domain.as_str()),
        ];
        let task = score.task.iter().map(|t| ("task", t.as_str()));
        let tags = score.tags.iter().map(|t| ("tag", t.as_str()));
        for (dim, value) in fixed.into_iter().chain(task).chain(tags) {
            by_group
                .entry((dim.to_string(), value.to_string()))
                .or_default()
                .push(i);
        }
    }
    scopes.extend(by_group.into_iter().map(|((d, v), s)| (d, v, s)));
    // A group holding every sample (one kind, one domain) is the overall scope again:
    // compute each distinct member list once.
    let mut first: HashMap<&[usize], usize> = HashMap::new();
    let source: Vec<usize> = scopes
        .iter()
        .enumerate()
        .map(|(i, (_, _, m))| *first.entry(m.as_slice()).or_insert(i))
        .collect();
    let distinct: Vec<usize> = (0..scopes.len()).filter(|&i| source[i] == i).collect();
    let computed: Vec<_> = distinct
        .par_iter()
        .map(|&i| {
            let (dim, value, members) = &scopes[i];
            let aggregates = aggregate(prepared, members, cfg, &format!("{dim}:{value}"));
            runs::with_spread(aggregates, spreads, members)
        })
        .collect();
    let by_index: HashMap<usize, _> = distinct.into_iter().zip(computed).collect();
    let results: Vec<_> = source.iter().map(|i| by_index[i].clone()).collect();
    let mut metrics = file::Metrics::new();
    let mut groups = Groups::new();
    for ((dim, value, _), result) in scopes.iter().zip(results) {
        let named = result.into_iter().map(|(k, v)| (k.to_string(), v));
        if dim == "all" {
            metrics = named.collect();
        } else {
            let all_metrics = named.collect();
            groups
                .entry(dim.clone())
                .or_default()
                .insert(value.clone(), all_metrics);
        }
    }
    (metrics, groups)
}
