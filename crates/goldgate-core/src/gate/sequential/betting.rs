//! Whether a finite population's total lies above or below a bound, tested after every
//! sample drawn from it uniformly without replacement, at a confidence that holds however
//! often it is looked at (anytime-valid).
//!
//! The test is the hedged capital process of Waudby-Smith and Ramdas ("Confidence sequences
//! for sampling without replacement", NeurIPS 2020; "Estimating means of bounded random
//! variables by betting", JRSS-B 2024) evaluated at one point, the bound. Each value is
//! mapped to `[0, 1]` by the population's known range. Under the hypothesis that the
//! population's mean is `m`, the mean of what is left after `t - 1` draws is
//! `μ_t = (N·m − S_{t−1}) / (N − t + 1)`. Two gamblers bet on each draw against it:
//!
//! - `K⁺_t = Π (1 + λ⁺_i (x_i − μ_i))` grows when the draws run above it;
//! - `K⁻_t = Π (1 − λ⁻_i (x_i − μ_i))` grows when they run below it.
//!
//! Each bet is a predictable plug-in,
//! `λ_t = sqrt(2 ln(1/α) / (σ̂²_{t−1} · t · ln(1 + t)))`, where `σ̂²` is the running variance
//! with one prior observation (mean 1/2, variance 1/4). It is truncated at `1/(2 μ_t)` for
//! `K⁺` and at `1/(2 (1 − μ_t))` for `K⁻`, so that no draw can take the capital below
//! zero.
//!
//! While the population's mean is at most `m`, `K⁺` is a nonnegative supermartingale. By
//! Ville's inequality, the chance that it ever reaches `2/α` is at most `α/2`, and the same
//! holds for `K⁻` above `m`. So "above" (`K⁺ ≥ 2/α`) and "below" (`K⁻ ≥ 2/α`) are each wrong
//! with probability at most `α/2`, however many times they are tested. This is the
//! reference's hedged process, `max(K⁺, K⁻)/2 ≥ 1/α`: the level-α confidence sequence then
//! lies entirely on one side of `m`.
//!
//! What remains can also rule a side out with certainty. When `μ_t` leaves `[0, 1]`, no
//! population consistent with the draws has mean `m`, whatever the draws still to come.

/// The side of the bound a population's total was found on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Above,
    Below,
}

/// A one-sided question about a finite population: is the total of its values above or
/// below `bound`? Values are drawn uniformly without replacement and given one at a time.
#[derive(Clone, Debug)]
pub struct TotalTest {
    population: usize,
    /// The values' range: every value of the population lies in `[lo, hi]`.
    lo: f64,
    width: f64,
    /// The hypothesis, as a mean in `[0, 1]` (the bound over `population`, mapped).
    m: f64,
    /// Each side is decided at `2/α`: `ln(2/α)`.
    log_threshold: f64,
    /// `ln(1/α)`, the scale of the bets.
    log_inverse_alpha: f64,
    drawn: usize,
    /// The mapped values drawn so far: their sum, their running mean and the running sum of
    /// squared deviations (each with the prior observation).
    sum: f64,
    mean: f64,
    squares: f64,
    log_above: f64,
    log_below: f64,
    decided: Option<Side>,
}

/// Bets are at most this share of what a draw could lose.
const TRUNCATION: f64 = 0.5;

/// Sums of mapped values that differ by less than this (relative) are equal: rounding must
/// not turn a total exactly at the bound into a side.
const EXACT: f64 = 1e-9;

impl TotalTest {
    /// A test of whether the total of `population` values, each in `[lo, hi]`, is above or
    /// below `bound`, each side wrong with probability at most `alpha / 2`.
    ///
    /// Panics when the range is empty or reversed, the population is empty, or `alpha` is
    /// not in `(0, 1)`: the callers derive them from the suite, never from input.
    pub fn new(population: usize, lo: f64, hi: f64, bound: f64, alpha: f64) -> Self {
        assert!(population > 0, "an empty population has no total to test");
        assert!(
            lo.is_finite() && hi.is_finite() && hi >= lo,
            "range [{lo}, {hi}]"
        );
        assert!(alpha > 0.0 && alpha < 1.0, "alpha {alpha}");
        let width = hi - lo;
        let n = population as f64;
        // A population whose values cannot vary is known before any draw.
        let m = if width > 0.0 {
            (bound / n - lo) / width
        } else {
            f64::NAN
        };
        let mut test = TotalTest {
            population,
            lo,
            width,
            m,
            log_threshold: (2.0 / alpha).ln(),
            log_inverse_alpha: (1.0 / alpha).ln(),
            drawn: 0,
            sum: 0.0,
            mean: 0.5,
            squares: 0.25,
            log_above: 0.0,
            log_below: 0.0,
            decided: None,
        };
        if width == 0.0 {
            test.decided = side_of(lo * n, bound, 0.0);
        } else {
            test.decide_by_what_remains();
        }
        test
    }

    /// The side found, once one is.
    pub fn decided(&self) -> Option<Side> {
        self.decided
    }

    /// How many values have been given.
    pub fn drawn(&self) -> usize {
        self.drawn
    }

    /// The evidence for each side so far: `ln K⁺` and `ln K⁻` (a side is found at
    /// `ln(2/α)`).
    pub fn log_capital(&self) -> (f64, f64) {
        (self.log_above, self.log_below)
    }

    /// Give the next value drawn. Values outside the range the test was made with, or more
    /// values than the population has, are refused (`Err`), and the test stays as it was.
    pub fn observe(&mut self, value: f64) -> Result<(), OutOfRange> {
        if self.drawn >= self.population {
            return Err(OutOfRange::Exhausted);
        }
        if !(value >= self.lo && value <= self.lo + self.width) {
            return Err(OutOfRange::Value(value));
        }
        if self.width == 0.0 {
            self.drawn += 1;
            return Ok(());
        }
        let x = ((value - self.lo) / self.width).clamp(0.0, 1.0);
        let t = (self.drawn + 1) as f64;
        if self.decided.is_none() {
            let mu = self.remaining_mean();
            // The bet: the plug-in from the draws before this one.
            let variance = self.squares / t;
            let bet = if variance > 0.0 {
                (2.0 * self.log_inverse_alpha / (variance * t * (1.0 + t).ln())).sqrt()
            } else {
                f64::INFINITY
            };
            let up = bet.min(TRUNCATION / mu);
            let down = bet.min(TRUNCATION / (1.0 - mu));
            self.log_above += (1.0 + up * (x - mu)).ln();
            self.log_below += (1.0 - down * (x - mu)).ln();
        }
        self.drawn += 1;
        self.sum += x;
        // The running mean and variance with one prior observation (mean 1/2, variance 1/4).
        let count = self.drawn as f64 + 1.0;
        self.mean = (0.5 + self.sum) / count;
        self.squares += (x - self.mean.min(1.0)).powi(2);
        if self.decided.is_none() {
            if self.log_above >= self.log_threshold {
                self.decided = Some(Side::Above);
            } else if self.log_below >= self.log_threshold {
                self.decided = Some(Side::Below);
            } else {
                self.decide_by_what_remains();
            }
        }
        Ok(())
    }

    /// The hypothesised mean of the values not yet drawn, `μ_t`.
    fn remaining_mean(&self) -> f64 {
        let n = self.population as f64;
        (n * self.m - self.sum) / (n - self.drawn as f64)
    }

    /// A side is certain when no values still to come could bring the total to the bound.
    fn decide_by_what_remains(&mut self) {
        if self.drawn == self.population {
            // Everything drawn: the total is known exactly.
            let target = self.m * self.population as f64;
            self.decided = side_of(self.sum, target, EXACT * target.abs().max(1.0));
            return;
        }
        let mu = self.remaining_mean();
        if mu < -EXACT {
            self.decided = Some(Side::Above);
        } else if mu > 1.0 + EXACT {
            self.decided = Some(Side::Below);
        }
    }
}

/// The side of `bound` that `total` lies on; `None` within `tolerance` of it.
pub(super) fn side_of(total: f64, bound: f64, tolerance: f64) -> Option<Side> {
    if total > bound + tolerance {
        Some(Side::Above)
    } else if total < bound - tolerance {
        Some(Side::Below)
    } else {
        None
    }
}

/// A value the test cannot take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OutOfRange {
    /// Outside the range the test was made with: the test's guarantee assumed it could
    /// not happen.
    Value(f64),
    /// More values than the population holds.
    Exhausted,
}
