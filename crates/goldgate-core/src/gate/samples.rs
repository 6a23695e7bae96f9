//! Per-sample regression analysis: with pass = primary score ≥ `sample_pass` (within
//! [`PASS_TOLERANCE`]), each sample both runs scored is a fix (fail → pass), a break
//! (pass → fail), a keep or a still; rates of each, score changes, and McNemar's exact test
//! on the flips. A sample the candidate has no answer for (every call failed: it crashed,
//! timed out, …) is none of these: it is counted and listed apart with how its call failed
//! and why, never compared as an empty answer.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::runfile::record::RecordError;
use crate::score::file::ScoreFile;

/// How far below `sample_pass` a primary score may be from rounding alone and still pass:
/// a score of 4/5 computed as 0.7999999999999999 passes `sample_pass = 0.8`.
pub const PASS_TOLERANCE: f64 = 1e-9;

/// Whether a sample with this primary score passes (`primary ≥ sample_pass`, within
/// [`PASS_TOLERANCE`]). Every report and the analysis decide through this.
pub fn passes(primary: f64, sample_pass: f64) -> bool {
    primary >= sample_pass - PASS_TOLERANCE
}

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
}

/// Compare the per-sample primary scores of two runs.
pub fn analyse(baseline: &ScoreFile, candidate: &ScoreFile, sample_pass: f64) -> SampleAnalysis {
    let before: HashMap<&str, f64> = baseline
        .samples
        .iter()
        .map(|s| (s.id.as_str(), s.primary))
        .collect();
    let after = candidate
        .samples
        .iter()
        .map(|s| (s.id.as_str(), s.primary, s.unanswered()));
    analyse_primaries(&before, after, sample_pass)
}

/// Compare per-sample primary scores: the baseline's by sample id, and the candidate's
/// (id, primary, and how its calls failed when it has no answer) in report order.
pub fn analyse_primaries<'a>(
    before: &HashMap<&str, f64>,
    candidate: impl Iterator<Item = (&'a str, f64, Option<&'a RecordError>)>,
    sample_pass: f64,
) -> SampleAnalysis {
    let mut a = SampleAnalysis {
        sample_pass,
        ..SampleAnalysis::default()
    };
    let (mut changed, mut improved, mut degraded) = (0usize, 0usize, 0usize);
    for (id, c, unanswered) in candidate {
        let Some(&b) = before.get(id) else {
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
        match (passes(b, sample_pass), passes(c, sample_pass)) {
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
