//! Per-sample regression analysis: with pass = primary score ≥ `sample_pass` (within
//! [`PASS_TOLERANCE`]), each sample both runs scored is a fix (fail → pass), a break
//! (pass → fail), a keep or a still; rates of each, score changes, and McNemar's exact test
//! on the flips. A flip within the sample's observed spread (it is flaky: see
//! [`super::flaky`]) is listed apart and counted as neither. A sample the candidate has no answer for (every call failed: it crashed,
//! timed out, …) is none of these: it is counted and listed apart with how its call failed
//! and why, never compared as an empty answer.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

pub use super::flaky::{passes, PASS_TOLERANCE};
use super::flaky::{within_spread, FlakyFlip, Outcomes};
use crate::runfile::record::RecordError;
use crate::score::file::ScoreFile;

/// One sample that flipped or changed, for the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub id: String,
    pub baseline: f64,
    pub candidate: f64,
}

/// A sample both runs have that the candidate has no answer for: every call failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unanswered {
    pub id: String,
    /// Its primary score in the baseline.
    pub baseline: f64,
    /// How its first call failed (a crash, a timeout …) and why: the cause as recorded
    /// (its first line, cut).
    pub error: RecordError,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleAnalysis {
    pub sample_pass: f64,
    /// Samples both runs scored: the fixed, broken, kept and still failing ones, and those
    /// the candidate has no answer for.
    pub shared: usize,
    pub fix: usize,
    #[serde(rename = "break")]
    pub break_: usize,
    pub keep: usize,
    pub still: usize,
    /// fix / (fix + still); `null` when nothing was failing.
    pub fix_rate: Option<f64>,
    /// break / (break + keep); `null` when nothing was passing.
    pub break_rate: Option<f64>,
    /// (fix − break) / the samples compared (shared, less those without an answer).
    pub net_gain: Option<f64>,
    /// Share of the samples compared whose primary score changed, rose, fell.
    pub changed_rate: Option<f64>,
    pub changed_and_improved_rate: Option<f64>,
    pub changed_and_degraded_rate: Option<f64>,
    /// McNemar's exact two-sided p-value on fixes against breaks (1 when nothing flipped).
    pub mcnemar_p: f64,
    pub fixed: Vec<Change>,
    pub broken: Vec<Change>,
    pub still_failing: Vec<Change>,
    /// The samples the candidate has no answer for, in report order.
    #[serde(default)]
    pub unanswered: Vec<Unanswered>,
    /// Flips within a sample's observed spread (it passed and failed under an unchanged
    /// pipeline): neither fixed nor broken, listed apart.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flaky: Vec<FlakyFlip>,
}

/// Compare the per-sample primary scores of two runs, with each sample's outcomes over its
/// runs (the baseline's earlier runs included) for the flips within its spread.
pub fn analyse(baseline: &ScoreFile, candidate: &ScoreFile, sample_pass: f64) -> SampleAnalysis {
    let before: HashMap<&str, (f64, Outcomes)> = baseline
        .samples
        .iter()
        .map(|s| {
            (
                s.id.as_str(),
                (s.primary, Outcomes::of_sample(s, sample_pass)),
            )
        })
        .collect();
    let after = candidate.samples.iter().map(|s| {
        let outcomes = Outcomes::of(s.primary_runs.iter().copied(), sample_pass);
        (s.id.as_str(), s.primary, outcomes, s.unanswered())
    });
    analyse_primaries(&before, after, sample_pass)
}

/// Compare per-sample primary scores: the baseline's (with its outcomes over its runs) by
/// sample id, and the candidate's (id, primary, outcomes over its runs, and how its calls
/// failed when it has no answer) in report order. A flip within the sample's observed
/// spread ([`within_spread`]) is listed in `flaky`, not counted as fixed or broken.
pub fn analyse_primaries<'a>(
    before: &HashMap<&str, (f64, Outcomes)>,
    candidate: impl Iterator<Item = (&'a str, f64, Outcomes, Option<&'a RecordError>)>,
    sample_pass: f64,
) -> SampleAnalysis {
    let mut a = SampleAnalysis {
        sample_pass,
        ..SampleAnalysis::default()
    };
    let (mut changed, mut improved, mut degraded) = (0usize, 0usize, 0usize);
    for (id, c, outcomes, unanswered) in candidate {
        let Some(&(b, base_outcomes)) = before.get(id) else {
            continue;
        };
        a.shared += 1;
        if let Some(error) = unanswered {
            a.unanswered.push(Unanswered {
                id: id.to_string(),
                baseline: b,
                // The score file keeps the cause with `<id>` for the sample (so causes
                // group); one sample's row names it.
                error: RecordError {
                    kind: error.kind,
                    message: error.message.replace("<id>", id),
                },
            });
            continue;
        }
        let change = Change {
            id: id.to_string(),
            baseline: b,
            candidate: c,
        };
        let (was, is) = (passes(b, sample_pass), passes(c, sample_pass));
        if was != is && within_spread(base_outcomes, outcomes) {
            a.flaky.push(FlakyFlip {
                id: id.to_string(),
                baseline: b,
                candidate: c,
                broke: was,
                baseline_outcomes: base_outcomes,
                candidate_outcomes: outcomes,
            });
        } else {
            match (was, is) {
                (false, true) => {
                    a.fix += 1;
                    a.fixed.push(change);
                }
                (true, false) => {
                    a.break_ += 1;
                    a.broken.push(change);
                }
                (true, true) => a.keep += 1,
                (false, false) => {
                    a.still += 1;
                    a.still_failing.push(change);
                }
            }
        }
        if (c - b).abs() > 1e-12 {
            changed += 1;
            improved += usize::from(c > b);
            degraded += usize::from(c < b);
        }
    }
    let rate = |x: usize, of: usize| (of > 0).then(|| x as f64 / of as f64);
    let compared = a.shared - a.unanswered.len();
    a.fix_rate = rate(a.fix, a.fix + a.still);
    a.break_rate = rate(a.break_, a.break_ + a.keep);
    a.net_gain = (compared > 0).then(|| (a.fix as f64 - a.break_ as f64) / compared as f64);
    a.changed_rate = rate(changed, compared);
    a.changed_and_improved_rate = rate(improved, compared);
    a.changed_and_degraded_rate = rate(degraded, compared);
    a.mcnemar_p = mcnemar_exact(a.fix, a.break_);
    a.broken
        .sort_by(|x, y| (y.baseline - y.candidate).total_cmp(&(x.baseline - x.candidate)));
    a
}

/// McNemar's exact test: two-sided binomial test of `b` against `b + c` flips at p = 1/2.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    // P(X <= k) for X ~ Binomial(n, 1/2), in log space to stay finite for large n.
    let k = b.min(c);
    let ln_half_n = n as f64 * 0.5f64.ln();
    let mut ln_choose = 0.0; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose + ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcnemar_matches_the_binomial() {
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // b = 1, c = 9: 2 · (1 + 10) / 1024.
        assert!((mcnemar_exact(1, 9) - 22.0 / 1024.0).abs() < 1e-12);
        assert!((mcnemar_exact(9, 1) - 22.0 / 1024.0).abs() < 1e-12);
        assert_eq!(mcnemar_exact(5, 5), 1.0);
        // scipy.stats.binomtest(0, 20).pvalue = 1.9073486328125e-06
        assert!((mcnemar_exact(0, 20) - 1.9073486328125e-06).abs() < 1e-15);
        assert!(mcnemar_exact(500, 700) < 1e-6);
    }
}
