//! A bound on a ratio metric over the whole suite, `A/B` with `A = Σ aᵢ` and `B = Σ bᵢ`,
//! decided from the samples seen so far.
//!
//! `A/B ≥ θ` is `Σ (aᵢ − θ·bᵢ) ≥ 0` wherever `B > 0`: a bound on a ratio is a bound on a
//! plain total, which [`TotalTest`] decides. Samples answered from the cache are known
//! before any call; only the others are drawn, so the test is on their total, against the
//! bound less what the known samples contribute.
//!
//! A regression rule compares with the baseline, whose value `A_B/B_B` on the same samples
//! is known exactly. The candidate must stay above `θ = A_B/B_B − margin`. Each sample's
//! term can be paired with the baseline's term for it, `a_Bᵢ − (A_B/B_B)·b_Bᵢ`, whose total
//! over the suite is exactly zero. The total tested is the same, but it varies less from
//! sample to sample when the two pipelines agree.

use super::betting::{side_of, OutOfRange, Side, TotalTest};

/// One sample's part in a ratio: its numerator and denominator terms, the numerator never
/// above the denominator (each sample's own share lies in `[0, 1]`, as every ratio metric's
/// does).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Terms {
    pub numerator: f64,
    pub denominator: f64,
}

/// What a sample's terms can be before it is answered: each within `[0, max]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TermBounds {
    pub numerator: f64,
    pub denominator: f64,
}

/// Which side of `θ` the suite's ratio is on, decided as samples come in: a floor holds
/// above it, a ceiling below.
#[derive(Clone, Debug)]
pub struct RatioTest {
    theta: f64,
    /// `None` when every sample is known: the side is then exact.
    test: Option<TotalTest>,
    exact: Option<Side>,
    /// Each sample's paired baseline term, by index (zero without pairing).
    paired: Vec<f64>,
}

impl RatioTest {
    /// `A/B` against `theta` (in `[0, 1]`) over the samples `known` (answered already) and
    /// those `bounds` lists (to be drawn, uniformly without replacement), each side wrong
    /// with probability at most `alpha / 2`. `paired[i]`, when given, is subtracted from
    /// sample `i`'s term; the bound moves by their sum, so any known values will do.
    pub fn new(
        theta: f64,
        known: &[Terms],
        bounds: &[TermBounds],
        paired: Option<Vec<f64>>,
        alpha: f64,
    ) -> Self {
        assert!(
            (0.0..=1.0).contains(&theta),
            "θ {theta}: the ratios tested are shares and scores"
        );
        let paired = paired.unwrap_or_else(|| vec![0.0; bounds.len()]);
        assert_eq!(
            paired.len(),
            bounds.len(),
            "a paired term for each sample to draw"
        );
        let known_total: f64 = known
            .iter()
            .map(|t| t.numerator - theta * t.denominator)
            .sum();
        if bounds.is_empty() {
            return RatioTest {
                theta,
                test: None,
                exact: side_of(known_total, 0.0, 0.0),
                paired,
            };
        }
        // With 0 ≤ a ≤ b, a sample's term a − θb is lowest with no numerator and its
        // largest denominator, and highest with both at the numerator's largest.
        let lo = bounds
            .iter()
            .zip(&paired)
            .map(|(b, p)| -theta * b.denominator - p)
            .fold(f64::INFINITY, f64::min);
        let hi = bounds
            .iter()
            .zip(&paired)
            .map(|(b, p)| (1.0 - theta) * b.numerator.min(b.denominator) - p)
            .fold(f64::NEG_INFINITY, f64::max);
        // A term at its bound can round past it (a − θ·a against (1 − θ)·a): the range is
        // widened by far more than rounding and far less than any term can differ (a wider
        // range only makes the test more cautious).
        let slack = |x: f64| 1e-9 * (1.0 + x.abs());
        let (lo, hi) = (lo - slack(lo), hi + slack(hi));
        // Σ_drawn (z − p) against −(known total) − Σ p.
        let bound = -known_total - paired.iter().sum::<f64>();
        RatioTest {
            theta,
            test: Some(TotalTest::new(bounds.len(), lo, hi, bound, alpha)),
            exact: None,
            paired,
        }
    }

    /// Give sample `index`'s terms (its place in the `bounds` given to [`RatioTest::new`]).
    /// Terms outside their bounds are refused: the test's guarantee assumed them impossible.
    pub fn observe(&mut self, index: usize, terms: Terms) -> Result<(), OutOfRange> {
        // (A weighted sum such as the RD score may pass its weight by a rounding error.)
        let most = terms.denominator * (1.0 + 1e-9);
        if !(terms.numerator >= 0.0 && terms.numerator <= most) {
            return Err(OutOfRange::Value(terms.numerator));
        }
        let z = terms.numerator - self.theta * terms.denominator - self.paired[index];
        match &mut self.test {
            Some(test) => test.observe(z),
            None => Err(OutOfRange::Exhausted),
        }
    }

    /// How many samples it draws.
    pub fn population(&self) -> usize {
        self.paired.len()
    }

    /// The side of θ found for the suite's ratio, once one is.
    pub fn decided(&self) -> Option<Side> {
        match &self.test {
            Some(test) => test.decided(),
            None => self.exact,
        }
    }
}
