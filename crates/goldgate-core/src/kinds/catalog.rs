//! The metric registry: every metric of the kinds goldgate lists and the shared ones, in
//! report order; a score's catalog (with the metric families and the unlisted kinds its
//! statistics hold); looking a metric up and finding its kind.

use std::sync::LazyLock;

use super::{all, of, TaskKind, ALL};
use crate::metrics::registry::{Metric, SHARED};
use crate::sample::Kind;

/// Every metric goldgate reports, in report order: each listed kind's
/// ([`TaskKind::listed`]), then the shared parse and run-health metrics. A kind that is not
/// listed (a test build's own) joins a score's [`catalog`] only where the score has its
/// statistics, so every other output is the same with or without it.
pub fn metrics() -> &'static [Metric] {
    static LISTED: LazyLock<Vec<Metric>> = LazyLock::new(|| {
        ALL.iter()
            .filter(|k| k.listed())
            .flat_map(|k| k.metrics().iter().copied())
            .chain(SHARED.iter().copied())
            .collect()
    });
    &LISTED
}

/// Every kind's metrics, listed or not, then the shared ones.
fn every_metric() -> &'static [Metric] {
    static EVERY: LazyLock<Vec<Metric>> = LazyLock::new(|| {
        ALL.iter()
            .flat_map(|k| k.metrics().iter().copied())
            .chain(SHARED.iter().copied())
            .collect()
    });
    &EVERY
}

/// Look a metric up by name (a member of a kind's metric family too, and a metric of a kind
/// that is not listed).
pub fn find(name: &str) -> Option<&'static Metric> {
    every_metric()
        .iter()
        .find(|m| m.name == name)
        .or_else(|| ALL.iter().find_map(|k| k.family_member(name)))
}

/// Every metric of a score whose metric names or sum keys are `names`: [`metrics`], with
/// the metrics of each kind that is not listed whose statistics are among `names` (names
/// starting with `KIND.`), in registry order, and each member of a kind's metric family
/// among `names` ([`TaskKind::family_prefix`]; tuples' `tuples.pred_source[POINTER]`) after
/// that kind's other metrics, in name order.
pub fn catalog<'n>(names: impl IntoIterator<Item = &'n str>) -> &'static [Metric] {
    use std::collections::{BTreeSet, HashMap};
    use std::sync::Mutex;
    static MADE: LazyLock<Mutex<HashMap<Vec<String>, &'static [Metric]>>> =
        LazyLock::new(Mutex::default);
    // One pass over the names (a score's every statistic key: they are many), keeping
    // only the family members and which unlisted kinds appear.
    let hidden: Vec<(&'static dyn TaskKind, String)> = ALL
        .iter()
        .filter(|k| !k.listed())
        .map(|k| (*k, format!("{}.", k.name())))
        .collect();
    let prefixes: Vec<&str> = ALL.iter().filter_map(|k| k.family_prefix()).collect();
    let mut family: BTreeSet<&str> = BTreeSet::new();
    let mut seen = vec![false; hidden.len()];
    for name in names {
        if prefixes.iter().any(|p| name.starts_with(p)) {
            family.insert(name);
        }
        for (i, (_, prefix)) in hidden.iter().enumerate() {
            seen[i] |= name.starts_with(prefix.as_str());
        }
    }
    let unlisted: Vec<&'static dyn TaskKind> = hidden
        .iter()
        .zip(&seen)
        .filter(|(_, seen)| **seen)
        .map(|((kind, _), _)| *kind)
        .collect();
    if family.is_empty() && unlisted.is_empty() {
        return metrics();
    }
    let key: Vec<String> = family
        .iter()
        .map(|s| s.to_string())
        .chain(unlisted.iter().map(|k| format!("kind:{}", k.name())))
        .collect();
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(list) = made.get(&key) {
        return list;
    }
    // Each kind's metrics, in registry order, each followed by its family's members.
    let list: Vec<Metric> = ALL
        .iter()
        .filter(|k| k.listed() || unlisted.iter().any(|u| u.name() == k.name()))
        .flat_map(|k| {
            let members = family.iter().filter_map(|n| k.family_member(n)).copied();
            k.metrics().iter().copied().chain(members)
        })
        .chain(SHARED.iter().copied())
        .collect();
    let list: &'static [Metric] = Box::leak(list.into_boxed_slice());
    made.insert(key, list);
    list
}

/// The kind whose metric `name` is (`None`: a metric every kind shares, or none).
pub fn owner(name: &str) -> Option<Kind> {
    all().find(|k| {
        let kind = of(*k);
        kind.metrics().iter().any(|m| m.name == name) || kind.family_member(name).is_some()
    })
}

/// Whether `name` is a member of a kind's metric family, whose members depend on the
/// answers (tuples' `tuples.pred_source[POINTER]`), not one of [`metrics`].
pub fn is_family_member(name: &str) -> bool {
    !every_metric().iter().any(|m| m.name == name) && find(name).is_some()
}

/// Whether a metric belongs to a listed kind or to none ([`TaskKind::listed`]): what the
/// published schemas and the documentation name.
pub fn is_listed_metric(name: &str) -> bool {
    owner(name).is_none_or(|k| of(k).listed())
}

/// Every metric name, for did-you-mean hints.
pub fn names() -> impl Iterator<Item = &'static str> {
    metrics().iter().map(|m| m.name)
}

#[cfg(test)]
mod tests {
    use crate::metrics::stats::Stats;
    use crate::rng::Rng;

    /// Every metric that declares itself a ratio of weighted sums has that value wherever
    /// the denominator is positive: the sequential gate decides its rules on the ratio.
    #[test]
    fn every_declared_ratio_is_the_metrics_value() {
        let mut rng = Rng::new(5);
        let mut checked = 0;
        for metric in super::every_metric() {
            let Some(ratio) = metric.ratio else { continue };
            checked += 1;
            for round in 0..200 {
                let mut stats = Stats::default();
                stats.add(metric.support, 1.0 + rng.below(5) as f64);
                for (key, _) in ratio.numerator.iter().chain(ratio.denominator) {
                    // Small counts, zeros among them, and in every tenth round large ones.
                    let scale = if round % 10 == 0 { 1000 } else { 6 };
                    stats.add(key, rng.below(scale) as f64);
                }
                let (num, den) = ratio.parts(&stats);
                if den <= 0.0 {
                    continue;
                }
                let value = metric.value(&stats);
                assert!(
                    value.is_some_and(|v| (v - num / den).abs() <= 1e-12),
                    "{}: {value:?} against {num} / {den} on {stats:?}",
                    metric.name
                );
            }
        }
        // The kinds' primary metrics and the run-health rates, at least.
        assert!(checked >= 18, "{checked} ratios");
    }
}
