//! Calibration of predicted confidences against correctness: ten equal-width bins,
//! ECE, MCE and Brier score. Empty bins are skipped, never divided by.

use super::stats::{Stats, Sums};

/// Number of equal-width bins.
pub const BINS: usize = 10;

/// The bin of a confidence: `min(floor(c·10), 9)` in IEEE doubles.
pub fn bin_of(confidence: f64) -> usize {
    ((confidence * 10.0).floor() as usize).min(BINS - 1)
}

/// A confidence that takes part in calibration: a finite number in [0, 1].
pub fn usable(confidence: Option<f64>) -> Option<f64> {
    confidence.filter(|c| c.is_finite() && (0.0..=1.0).contains(c))
}

/// Per-bin sums: count, summed confidence, summed correctness; plus Σ (c − y)².
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bins {
    pub count: [f64; BINS],
    pub confidence: [f64; BINS],
    pub correct: [f64; BINS],
    pub squared_error: f64,
}

impl Bins {
    pub fn add(&mut self, confidence: f64, correct: bool) {
        let b = bin_of(confidence);
        let y = if correct { 1.0 } else { 0.0 };
        self.count[b] += 1.0;
        self.confidence[b] += confidence;
        self.correct[b] += y;
        self.squared_error += (confidence - y) * (confidence - y);
    }

    pub fn total(&self) -> f64 {
        self.count.iter().sum()
    }

    fn gaps(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        (0..BINS).filter(|&b| self.count[b] > 0.0).map(|b| {
            let n = self.count[b];
            (n, (self.correct[b] / n - self.confidence[b] / n).abs())
        })
    }

    /// Expected calibration error: Σ (n_b/N)·|acc_b − conf_b|; `None` without confidences.
    pub fn ece(&self) -> Option<f64> {
        let total = self.total();
        (total > 0.0).then(|| self.gaps().map(|(n, gap)| n / total * gap).sum())
    }

    /// Maximum calibration error over non-empty bins.
    pub fn mce(&self) -> Option<f64> {
        self.gaps().map(|(_, gap)| gap).reduce(f64::max)
    }

    /// Brier score: mean (c − y)².
    pub fn brier(&self) -> Option<f64> {
        let total = self.total();
        (total > 0.0).then(|| self.squared_error / total)
    }
}

/// The sum keys of calibration bins under one prefix (`PREFIX.3.n`, `PREFIX.sq`, …), built
/// once per prefix.
pub struct BinKeys {
    pub count: [String; BINS],
    pub confidence: [String; BINS],
    pub correct: [String; BINS],
    pub squared_error: String,
    pub total: String,
}

/// How many calibration prefixes the kinds may use between them.
const PREFIXES: usize = 8;

/// The bin keys of `prefix`. Each prefix takes the first free slot the first time it is
/// asked for and keeps it (two threads asking for a new prefix at once agree on its slot:
/// a slot another prefix took is passed over), so a lookup is a few atomic loads.
pub fn bin_keys(prefix: &'static str) -> &'static BinKeys {
    static SLOTS: [std::sync::OnceLock<(&str, BinKeys)>; PREFIXES] =
        [const { std::sync::OnceLock::new() }; PREFIXES];
    SLOTS
        .iter()
        .map(|slot| {
            slot.get_or_init(|| {
                let keys = BinKeys {
                    count: std::array::from_fn(|b| format!("{prefix}.{b}.n")),
                    confidence: std::array::from_fn(|b| format!("{prefix}.{b}.conf")),
                    correct: std::array::from_fn(|b| format!("{prefix}.{b}.correct")),
                    squared_error: format!("{prefix}.sq"),
                    total: format!("{prefix}.n"),
                };
                (prefix, keys)
            })
        })
        .find(|(taken, _)| *taken == prefix)
        .map(|(_, keys)| keys)
        .expect("no more calibration prefixes than PREFIXES")
}

/// Calibration bins as sums under `prefix`.
pub fn add_bins(prefix: &'static str, bins: &Bins, s: &mut Stats) {
    let keys = bin_keys(prefix);
    for b in 0..BINS {
        s.add(keys.count[b].as_str(), bins.count[b]);
        s.add(keys.confidence[b].as_str(), bins.confidence[b]);
        s.add(keys.correct[b].as_str(), bins.correct[b]);
    }
    s.add(keys.squared_error.as_str(), bins.squared_error);
    s.add(keys.total.as_str(), bins.total());
}

/// Calibration bins read back from sums under `prefix`.
pub fn bins_from(prefix: &'static str, sums: &dyn Sums) -> Bins {
    let keys = bin_keys(prefix);
    let mut bins = Bins::default();
    for b in 0..BINS {
        bins.count[b] = sums.get(&keys.count[b]);
        bins.confidence[b] = sums.get(&keys.confidence[b]);
        bins.correct[b] = sums.get(&keys.correct[b]);
    }
    bins.squared_error = sums.get(&keys.squared_error);
    bins
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bin_edges_follow_ieee_doubles() {
        assert_eq!(bin_of(0.0), 0);
        assert_eq!(bin_of(0.1), 1);
        assert_eq!(bin_of(0.1 * 7.0), 7); // 0.7000000000000001 * 10 = 7.000000000000001
        assert_eq!(bin_of(0.8999999999999999), 9); // rounds up to exactly 9.0
        assert_eq!(bin_of(0.30000000000000004), 3);
        assert_eq!(bin_of(0.9999999999999999), 9);
        assert_eq!(bin_of(1.0), 9);
    }

    #[test]
    fn usable_confidences() {
        assert_eq!(usable(Some(0.0)), Some(0.0));
        assert_eq!(usable(Some(1.0)), Some(1.0));
        assert_eq!(usable(Some(1.01)), None);
        assert_eq!(usable(Some(-0.1)), None);
        assert_eq!(usable(Some(f64::NAN)), None);
        assert_eq!(usable(None), None);
    }

    #[test]
    fn empty_bins_are_skipped() {
        let mut bins = Bins::default();
        bins.add(0.95, true);
        bins.add(0.95, false);
        assert!((bins.ece().unwrap() - 0.45).abs() < 1e-15);
        assert!((bins.mce().unwrap() - 0.45).abs() < 1e-15);
        assert!((bins.brier().unwrap() - (0.05f64.powi(2) + 0.95f64.powi(2)) / 2.0).abs() < 1e-15);
        assert_eq!(Bins::default().ece(), None);
        assert_eq!(Bins::default().mce(), None);
    }

    /// Each prefix has its own keys, however many there are and whichever came first.
    #[test]
    fn every_prefix_has_its_own_keys() {
        for prefix in ["a.cal", "b.cal", "a.cal", "c.cal"] {
            let keys = bin_keys(prefix);
            assert_eq!(keys.total, format!("{prefix}.n"));
            assert_eq!(keys.count[3], format!("{prefix}.3.n"));
            assert!(std::ptr::eq(keys, bin_keys(prefix)), "built once");
        }
        let mut s = Stats::default();
        let mut bins = Bins::default();
        bins.add(0.95, true);
        add_bins("a.cal", &bins, &mut s);
        assert_eq!(bins_from("a.cal", &s), bins);
        assert_eq!(bins_from("b.cal", &s), Bins::default());
    }
}
