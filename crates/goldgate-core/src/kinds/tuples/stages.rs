//! Two-stage answers (docs/tuples.md): a first stage's tuples and the final ones, each
//! scored against gold — fix, break, keep or still; whether the answer changed between the
//! stages and whether the change helped (compared as exact fractions); review and
//! arbitration actions — and label conflicts among a set's members.

use super::read::{Member, TupleSet};
use crate::hash::FastSet;
use crate::metrics::stats::Stats;
use crate::parse::json::Json;

/// A per-sample F1 as the exact fraction `2·TP / (predicted + gold)` (1/1 when both are 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fraction {
    pub numerator: u64,
    pub denominator: u64,
}

impl Fraction {
    pub fn f1(tp: usize, predicted: usize, gold: usize) -> Fraction {
        match predicted + gold {
            0 => Fraction {
                numerator: 1,
                denominator: 1,
            },
            d => Fraction {
                numerator: 2 * tp as u64,
                denominator: d as u64,
            },
        }
    }

    pub fn value(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }

    /// Whether it is 1: the same keys and nothing else.
    pub fn is_perfect(self) -> bool {
        self.numerator == self.denominator
    }

    /// Compare exactly (cross-multiplied in 128 bits).
    pub fn cmp_exact(self, other: Fraction) -> std::cmp::Ordering {
        let a = u128::from(self.numerator) * u128::from(other.denominator);
        let b = u128::from(other.numerator) * u128::from(self.denominator);
        a.cmp(&b)
    }
}

/// The strict F1 of a set against gold.
pub fn f1(set: &TupleSet, gold: &TupleSet, gold_keys: &FastSet<&[String]>) -> Fraction {
    let tp = set
        .members
        .iter()
        .filter(|m| gold_keys.contains(m.key.as_slice()))
        .count();
    Fraction::f1(tp, set.count(), gold.count())
}

/// Add a staged record's sums: `stage1` and `last` are its two sets, `gold_keys` the keys
/// of `gold`.
pub fn add(
    s: &mut Stats,
    stage1: &TupleSet,
    last: &TupleSet,
    gold: &TupleSet,
    gold_keys: &FastSet<&[String]>,
    answer: Option<&Json<'_>>,
) {
    let (first, fin) = (f1(stage1, gold, gold_keys), f1(last, gold, gold_keys));
    s.add("tuples.stage_records", 1.0);
    s.add("tuples.stage1_f1_sum", first.value());
    s.add("tuples.final_f1_sum", fin.value());
    let flip = match (first.is_perfect(), fin.is_perfect()) {
        (false, true) => "tuples.stage_fix",
        (true, false) => "tuples.stage_break",
        (true, true) => "tuples.stage_keep",
        (false, false) => "tuples.stage_still",
    };
    s.add(flip, 1.0);
    // The populations of the fix and break rates: the first stage missed, or hit.
    let first_hit = if first.is_perfect() {
        "tuples.stage_first_hit"
    } else {
        "tuples.stage_first_missed"
    };
    s.add(first_hit, 1.0);
    let changed = stage1.keys() != last.keys();
    let flagged = |key: &str| {
        answer
            .and_then(|a| a.get("analysis_flags"))
            .and_then(|f| f.get(key))
            .and_then(Json::as_array)
            .is_some_and(|list| !list.is_empty())
    };
    let (review, arbitration) = (flagged("review_actions"), flagged("arb_actions"));
    s.add("tuples.review", f64::from(u8::from(review)));
    s.add("tuples.arbitration", f64::from(u8::from(arbitration)));
    if changed {
        s.add("tuples.stage_changed", 1.0);
        match fin.cmp_exact(first) {
            std::cmp::Ordering::Greater => s.add("tuples.stage_improved", 1.0),
            std::cmp::Ordering::Less => s.add("tuples.stage_degraded", 1.0),
            std::cmp::Ordering::Equal => {}
        }
        s.add(
            "tuples.stage_guided",
            f64::from(u8::from(review || arbitration)),
        );
    }
}

/// Whether a set holds a label conflict — members with the same span keys and different
/// type keys — before and after keeping only each group's best-ranked members.
pub fn conflicts(members: &[Member], spans: &[usize], type_field: usize) -> (bool, bool) {
    let mut groups: Vec<(Vec<&str>, Vec<&Member>)> = Vec::new();
    for m in members {
        let span_key: Vec<&str> = spans.iter().map(|&f| m.key[f].as_str()).collect();
        match groups.iter_mut().find(|(k, _)| *k == span_key) {
            Some((_, group)) => group.push(m),
            None => groups.push((span_key, vec![m])),
        }
    }
    let distinct = |group: &[&Member]| {
        let types: FastSet<&str> = group.iter().map(|m| m.key[type_field].as_str()).collect();
        types.len() >= 2
    };
    let raw = groups.iter().any(|(_, g)| distinct(g));
    let after = groups.iter().any(|(_, group)| {
        let best = group.iter().map(|m| rank(m)).max_by(|a, b| compare(*a, *b));
        let kept: Vec<&Member> = group
            .iter()
            .copied()
            .filter(|m| best.is_some_and(|b| compare(rank(m), b).is_eq()))
            .collect();
        distinct(&kept)
    });
    (raw, after)
}

/// A member's rank, best highest: no drop reason, then not implicit, then a higher
/// confidence (a missing or invalid one below every number).
fn rank(m: &Member) -> (bool, bool, Option<f64>) {
    (!m.dropped, !m.implicit, m.confidence)
}

fn compare(a: (bool, bool, Option<f64>), b: (bool, bool, Option<f64>)) -> std::cmp::Ordering {
    (a.0, a.1).cmp(&(b.0, b.1)).then_with(|| match (a.2, b.2) {
        (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal),
        (x, y) => x.is_some().cmp(&y.is_some()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_compare_exactly() {
        let (a, b) = (Fraction::f1(1, 3, 3), Fraction::f1(2, 6, 6));
        assert!(a.cmp_exact(b).is_eq(), "2/6 and 4/12 are the same F1");
        assert!(Fraction::f1(0, 0, 0).is_perfect());
        assert!(!Fraction::f1(1, 2, 1).is_perfect());
        assert!(Fraction::f1(1, 1, 2)
            .cmp_exact(Fraction::f1(2, 3, 3))
            .is_eq());
        assert!(Fraction::f1(1, 1, 2)
            .cmp_exact(Fraction::f1(1, 3, 1))
            .is_gt());
    }
}
