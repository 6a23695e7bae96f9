//! Flaky samples: a sample whose pass/fail outcome varies under an unchanged pipeline —
//! across its repeats (`--repeat N`), or across the baseline refreshes that kept its earlier
//! runs — is flaky. A sample that flips between a baseline and a candidate is counted as
//! fixed or broken only when the flip is more than its observed spread can explain: when
//! neither side's runs varied, or when Fisher's exact test says the two pass rates differ
//! (at [`SPREAD_ALPHA`]). Otherwise the flip is listed apart ("broken, flaky on main:
//! passed 3 of 5 runs"), never counted.

use serde::{Deserialize, Serialize};

use crate::score::file::SampleScore;

/// How far below `sample_pass` a primary score may be from rounding alone and still pass:
/// a score of 4/5 computed as 0.7999999999999999 passes `sample_pass = 0.8`.
pub const PASS_TOLERANCE: f64 = 1e-9;

/// Whether a sample with this primary score passes (`primary ≥ sample_pass`, within
/// [`PASS_TOLERANCE`]). Every report and the analysis decide through this.
pub fn passes(primary: f64, sample_pass: f64) -> bool {
    primary >= sample_pass - PASS_TOLERANCE
}

/// The significance at which two pass rates are told apart: a flip whose rates Fisher's
/// exact test cannot tell apart at this level stays within the sample's spread.
pub const SPREAD_ALPHA: f64 = 0.05;

/// The most runs a baseline keeps of a sample (its repeats and the earlier ones `baseline
/// refresh` carried over): enough for a pass rate, recent enough to describe the pipeline.
pub const MAX_RUNS: usize = 20;

/// How often a sample passed over its runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcomes {
    pub passed: usize,
    pub runs: usize,
}

impl Outcomes {
    /// The outcomes of `primaries` (one primary score per run) at `sample_pass`.
    pub fn of(primaries: impl IntoIterator<Item = f64>, sample_pass: f64) -> Outcomes {
        let mut o = Outcomes::default();
        for p in primaries {
            o.runs += 1;
            o.passed += usize::from(passes(p, sample_pass));
        }
        o
    }

    /// A sample's outcomes over every run the score file keeps of it: its earlier runs and
    /// this run's repeats.
    /// At most [`MAX_RUNS`], the newest: a score file claiming more is read as that many.
    pub fn of_sample(s: &SampleScore, sample_pass: f64) -> Outcomes {
        let all = s.earlier_runs.len() + s.primary_runs.len();
        let runs = s.earlier_runs.iter().chain(&s.primary_runs).copied();
        Outcomes::of(runs.skip(all.saturating_sub(MAX_RUNS)), sample_pass)
    }

    /// Whether the outcome varied: it both passed and failed.
    pub fn varied(self) -> bool {
        self.passed > 0 && self.passed < self.runs
    }

    /// The share of runs that passed (`None` without a run).
    pub fn rate(self) -> Option<f64> {
        (self.runs > 0).then(|| self.passed as f64 / self.runs as f64)
    }
}

/// Whether a flip between the baseline's outcomes and the candidate's stays within the
/// sample's observed spread: both sides have at least two runs (one run shows nothing of a
/// spread: a candidate run once is held to its flips, as without repeats), one side varied,
/// and Fisher's exact test does not tell the two pass rates apart at [`SPREAD_ALPHA`].
pub fn within_spread(baseline: Outcomes, candidate: Outcomes) -> bool {
    baseline.runs >= 2
        && candidate.runs >= 2
        && (baseline.varied() || candidate.varied())
        && fisher_exact(
            baseline.passed,
            baseline.runs - baseline.passed,
            candidate.passed,
            candidate.runs - candidate.passed,
        ) > SPREAD_ALPHA
}

/// Fisher's exact test, two-sided, on the 2×2 table [[a, b], [c, d]]: the probability,
/// with the margins fixed, of a table no more likely than this one.
pub fn fisher_exact(a: usize, b: usize, c: usize, d: usize) -> f64 {
    Fisher::new([a, b, c, d]).p()
}

/// The tables with the margins of one 2×2 table, for Fisher's exact test.
struct Fisher {
    a: usize,
    row1: usize,
    col1: usize,
    n: usize,
    /// ln k! for k = 0..=n.
    ln_fact: Vec<f64>,
}

impl Fisher {
    fn new([a, b, c, d]: [usize; 4]) -> Fisher {
        let n = a + b + c + d;
        let mut ln_fact = Vec::with_capacity(n + 1);
        let mut sum = 0.0;
        ln_fact.push(0.0);
        for k in 1..=n {
            sum += (k as f64).ln();
            ln_fact.push(sum);
        }
        Fisher {
            a,
            row1: a + b,
            col1: a + c,
            n,
            ln_fact,
        }
    }

    /// The probability of the table whose top-left cell is `x`.
    fn probability(&self, x: usize) -> f64 {
        let (f, n, r, c) = (&self.ln_fact, self.n, self.row1, self.col1);
        (f[r] + f[n - r] + f[c] + f[n - c] - f[x] - f[r - x] - f[c - x] - f[n + x - r - c] - f[n])
            .exp()
    }

    /// Every table's top-left cell.
    fn cells(&self) -> std::ops::RangeInclusive<usize> {
        (self.row1 + self.col1).saturating_sub(self.n)..=self.row1.min(self.col1)
    }

    /// The p-value of a table whose probability is `observed`.
    fn p_of(&self, observed: f64) -> f64 {
        let total: f64 = self
            .cells()
            .map(|x| self.probability(x))
            .filter(|q| *q <= observed * (1.0 + 1e-7))
            .sum();
        total.min(1.0)
    }

    /// This table's p-value.
    fn p(&self) -> f64 {
        if self.n == 0 {
            return 1.0;
        }
        self.p_of(self.probability(self.a))
    }
}

/// Carry the runs of `previous` (a baseline) over into `new` (the baseline replacing it),
/// as each sample's `earlier_runs`, when both come from the same pipeline, suite and
/// scoring: then the pipeline is unchanged, and a sample whose outcome varied between the
/// two varied under it. At most [`MAX_RUNS`] runs in all are kept, the newest. Returns how
/// many samples got earlier runs.
pub fn carry_runs(new: &mut crate::score::ScoreFile, previous: &crate::score::ScoreFile) -> usize {
    let (a, b) = (&new.provenance, &previous.provenance);
    let same_pipeline = a.pipeline_fingerprint.is_some()
        && a.pipeline_fingerprint != Some("mixed".into())
        && a.pipeline_fingerprint == b.pipeline_fingerprint;
    if !same_pipeline
        || a.suite_fingerprint != b.suite_fingerprint
        || a.scoring != b.scoring
        || new.metrics_version != previous.metrics_version
    {
        return 0;
    }
    let before: std::collections::HashMap<&str, &SampleScore> = previous
        .samples
        .iter()
        .map(|s| (s.id.as_str(), s))
        .collect();
    let mut carried = 0;
    for sample in &mut new.samples {
        let Some(old) = before.get(sample.id.as_str()) else {
            continue;
        };
        let room = MAX_RUNS.saturating_sub(sample.primary_runs.len());
        let runs: Vec<f64> = old
            .earlier_runs
            .iter()
            .chain(&old.primary_runs)
            .copied()
            .collect();
        sample.earlier_runs = runs[runs.len().saturating_sub(room)..].to_vec();
        carried += usize::from(!sample.earlier_runs.is_empty());
    }
    carried
}

/// One sample's pass rate over its runs, for `suite stats --flaky`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleRate {
    pub id: String,
    pub kind: crate::sample::Kind,
    pub passed: usize,
    pub runs: usize,
    pub rate: f64,
}

/// The flaky samples of a score file (a baseline), flakiest first, and how many were stable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlakyReport {
    pub sample_pass: f64,
    /// Samples whose outcome varied, the rate nearest one half first (then the most runs).
    pub flaky: Vec<SampleRate>,
    /// Samples with two or more runs that passed every time, or failed every time.
    pub stable_passing: usize,
    pub stable_failing: usize,
    /// Samples with a single run: their flakiness cannot be seen.
    pub single_run: usize,
}

/// The flaky samples of `file` at `sample_pass`.
pub fn report(file: &crate::score::ScoreFile, sample_pass: f64) -> FlakyReport {
    let mut r = FlakyReport {
        sample_pass,
        flaky: Vec::new(),
        stable_passing: 0,
        stable_failing: 0,
        single_run: 0,
    };
    for s in &file.samples {
        let o = Outcomes::of_sample(s, sample_pass);
        match (o.runs, o.varied(), o.passed == o.runs) {
            (0 | 1, ..) => r.single_run += 1,
            (_, true, _) => r.flaky.push(SampleRate {
                id: s.id.clone(),
                kind: s.kind,
                passed: o.passed,
                runs: o.runs,
                rate: o.rate().unwrap_or(0.0),
            }),
            (_, false, true) => r.stable_passing += 1,
            (_, false, false) => r.stable_failing += 1,
        }
    }
    let spread = |x: &SampleRate| (x.rate - 0.5).abs();
    r.flaky.sort_by(|a, b| {
        spread(a)
            .total_cmp(&spread(b))
            .then(b.runs.cmp(&a.runs))
            .then(a.id.cmp(&b.id))
    });
    r
}

/// A flip the analysis does not count: within the sample's spread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlakyFlip {
    pub id: String,
    /// Its mean primary score in the baseline and in the candidate.
    pub baseline: f64,
    pub candidate: f64,
    /// Whether it went from pass to fail (else fail to pass).
    pub broke: bool,
    /// How often it passed on each side.
    pub baseline_outcomes: Outcomes,
    pub candidate_outcomes: Outcomes,
}

impl FlakyFlip {
    /// `broken, flaky on main: passed 3 of 5 runs (this run: 1 of 5)`.
    pub fn describe(&self, base_name: &str) -> String {
        let (b, c) = (self.baseline_outcomes, self.candidate_outcomes);
        let what = if self.broke { "broken" } else { "fixed" };
        let here = match c.runs {
            0 | 1 => String::new(),
            _ => format!(" (this run: {} of {})", c.passed, c.runs),
        };
        match b.varied() {
            true => format!(
                "{what}, flaky on {base_name}: passed {} of {} runs{here}",
                b.passed, b.runs
            ),
            false => format!(
                "{what}, flaky in this run: passed {} of {} runs ({base_name}: {} of {})",
                c.passed, c.runs, b.passed, b.runs
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A score that is `sample_pass` up to rounding passes; a score really below it fails.
    #[test]
    fn passing_allows_for_rounding_only() {
        let four_fifths = (0.6 + 1.0) / 2.0; // 0.8 in exact arithmetic
        assert!(passes(0.7999999999999999, 0.8));
        assert!(passes(four_fifths, 0.8));
        assert!(passes(0.8, 0.8));
        assert!(!passes(0.7999, 0.8));
        assert!(!passes(0.8 - 1e-6, 0.8));
        assert!(!passes(f64::NAN, 0.8));
        assert!(passes(0.0, 0.0));
    }

    /// scipy.stats.fisher_exact, two-sided.
    #[test]
    fn fisher_matches_scipy() {
        // fisher_exact([[5, 0], [0, 5]]) = 0.007936507936507936
        assert!((fisher_exact(5, 0, 0, 5) - 0.007936507936507936).abs() < 1e-12);
        // fisher_exact([[5, 0], [1, 4]]) = 0.047619047619047616
        assert!((fisher_exact(5, 0, 1, 4) - 0.047619047619047616).abs() < 1e-12);
        // fisher_exact([[3, 2], [1, 4]]) = 0.5238095238095238
        assert!((fisher_exact(3, 2, 1, 4) - 0.5238095238095238).abs() < 1e-12);
        // fisher_exact([[8, 2], [1, 5]]) = 0.034965034965034975
        assert!((fisher_exact(8, 2, 1, 5) - 0.034965034965034975).abs() < 1e-12);
        assert_eq!(fisher_exact(1, 0, 0, 1), 1.0);
        assert_eq!(fisher_exact(0, 0, 0, 0), 1.0);
    }

    /// A stable sample that flips is a real flip; a flaky one that flips within its spread
    /// is not; a flaky one whose rate collapsed is.
    #[test]
    fn flips_within_the_spread() {
        let o = |passed, runs| Outcomes { passed, runs };
        assert!(!within_spread(o(5, 5), o(0, 5)), "stable, then broken");
        assert!(
            !within_spread(o(1, 1), o(0, 1)),
            "one run each: no spread seen"
        );
        assert!(within_spread(o(3, 5), o(1, 5)), "flaky on the baseline");
        assert!(within_spread(o(5, 5), o(2, 5)), "flaky in the candidate");
        assert!(!within_spread(o(9, 10), o(0, 10)), "a rate that collapsed");
        // One run on either side shows no spread: the flip counts.
        assert!(!within_spread(o(19, 20), o(0, 1)));
        assert!(!within_spread(o(3, 5), o(0, 1)));
        assert!(!within_spread(o(1, 1), o(1, 3)));
        assert!(within_spread(o(3, 5), o(1, 3)));
        assert_eq!(o(3, 5).rate(), Some(0.6));
        assert!(Outcomes::of([0.9, 0.1, 0.8], 0.8) == o(2, 3));
    }
}
