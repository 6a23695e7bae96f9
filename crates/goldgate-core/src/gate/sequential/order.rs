//! The order in which the sequential gate sends samples. Within each stratum (a kind, and a
//! task within it), the order is a uniformly random permutation, so the samples seen so far
//! are a uniform draw without replacement from that stratum's samples, which the betting
//! test assumes. The strata are interleaved in proportion to their sizes: after `t`
//! samples, a stratum of `n_s` of `n` has had `t·n_s/n` of them, to within one. So every
//! rule, whatever kind it is about, sees its samples from the start.
//!
//! The order depends on the seed alone; the caller derives it from the candidate's pipeline
//! fingerprint, so a rerun of the same change sends the same samples first.

use std::collections::BTreeMap;

use crate::rng::Rng;

/// The indices of `strata` (sample `i` is in stratum `strata[i]`) in sending order.
pub fn send_order<S: Ord>(strata: &[S], seed: u64) -> Vec<usize> {
    let mut groups: BTreeMap<&S, Vec<usize>> = BTreeMap::new();
    for (i, stratum) in strata.iter().enumerate() {
        groups.entry(stratum).or_default().push(i);
    }
    let mut rng = Rng::new(seed);
    let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
    for group in &mut groups {
        rng.shuffle(group);
    }
    let total = strata.len();
    let mut sent = vec![0usize; groups.len()];
    let mut order = Vec::with_capacity(total);
    for t in 1..=total {
        // The stratum furthest behind its share of the first t samples (the first such,
        // in stratum order, on a tie).
        let (next, _) = groups
            .iter()
            .enumerate()
            .filter(|(s, group)| sent[*s] < group.len())
            .map(|(s, group)| (s, (t * group.len()) as f64 / total as f64 - sent[s] as f64))
            .fold((usize::MAX, f64::NEG_INFINITY), |best, (s, behind)| {
                if behind > best.1 {
                    (s, behind)
                } else {
                    best
                }
            });
        order.push(groups[next][sent[next]]);
        sent[next] += 1;
    }
    order
}
