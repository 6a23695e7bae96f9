//! Precision, recall and F1 — one home for the trio every metric family reports — with the
//! zero-denominator rule: with nothing predicted and nothing to find, precision and recall
//! are 1.0; with one side empty, 0.0.

use super::stats::Sums;

/// Precision with the zero-denominator rule: 1.0 when both sides are empty, else 0.0.
pub fn precision(tp: f64, fp: f64, fn_: f64) -> f64 {
    match tp + fp {
        d if d > 0.0 => tp / d,
        _ if fn_ == 0.0 => 1.0,
        _ => 0.0,
    }
}

/// Recall with the zero-denominator rule.
pub fn recall(tp: f64, fp: f64, fn_: f64) -> f64 {
    match tp + fn_ {
        d if d > 0.0 => tp / d,
        _ if fp == 0.0 => 1.0,
        _ => 0.0,
    }
}

/// F1 = 2PR/(P+R), 0 when P+R = 0.
pub fn f1(p: f64, r: f64) -> f64 {
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

/// (TP, FP, FN) of a predicted set against a gold set.
pub fn set_counts<T: Ord>(
    gold: &std::collections::BTreeSet<T>,
    pred: &std::collections::BTreeSet<T>,
) -> (usize, usize, usize) {
    let tp = gold.intersection(pred).count();
    (tp, pred.len() - tp, gold.len() - tp)
}

/// `num / den`, or `empty` when the denominator is zero.
pub fn ratio_or(num: f64, den: f64, empty: f64) -> f64 {
    if den == 0.0 {
        empty
    } else {
        num / den
    }
}

/// The sum keys of one precision/recall/F1 family (`ext.tp`, `ext.fp`, `ext.fn`).
#[derive(Clone, Copy, Debug)]
pub struct PrfKeys {
    pub tp: &'static str,
    pub fp: &'static str,
    pub fn_: &'static str,
}

/// Precision, recall and F1 of one family.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prf {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

impl Prf {
    /// From true positive, false positive and false negative counts.
    pub fn from_counts(tp: f64, fp: f64, fn_: f64) -> Prf {
        let (p, r) = (precision(tp, fp, fn_), recall(tp, fp, fn_));
        Prf {
            precision: p,
            recall: r,
            f1: f1(p, r),
        }
    }

    /// From summed counts under `keys`.
    pub fn of(sums: &dyn Sums, keys: &PrfKeys) -> Prf {
        Prf::from_counts(sums.get(keys.tp), sums.get(keys.fp), sums.get(keys.fn_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_denominators() {
        assert_eq!(precision(0.0, 0.0, 0.0), 1.0);
        assert_eq!(recall(0.0, 0.0, 0.0), 1.0);
        assert_eq!(precision(0.0, 0.0, 3.0), 0.0);
        assert_eq!(recall(0.0, 2.0, 0.0), 0.0);
        assert_eq!(f1(0.0, 0.0), 0.0);
        assert_eq!(f1(1.0, 0.5), 2.0 / 3.0);
        let prf = Prf::from_counts(2.0, 2.0, 0.0);
        assert_eq!((prf.precision, prf.recall), (0.5, 1.0));
        assert_eq!(prf.f1, 2.0 / 3.0);
        assert_eq!(Prf::from_counts(0.0, 0.0, 0.0).f1, 1.0);
    }
}
