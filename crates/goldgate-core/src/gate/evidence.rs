//! What a rule needs before it can hold or break. A rule whose metric has no value in the
//! candidate run cannot hold: [`no_data`] says why the value is missing (the run has no sample
//! of the kind, every call failed, no answer could be read, the judge gave no valid review,
//! nothing the metric is measured on), for the reason that makes the run incomplete. A change
//! is called significant only when the paired test could reach the rule's confidence with the
//! pairs it has: [`min_paired`] is how many it needs (docs/thresholds.md derives it); below
//! it, a change the baseline had the samples to test makes the run incomplete ([`shrunk`]).
//! Above it, [`detectable`] says the smallest drop the comparison could have seen.

use super::verdict::Detectable;
use crate::kinds::keys::{Keyless, MAX_FOUND};
use crate::metrics::registry::{Direction, Metric};
use crate::metrics::stats::Sums;
use crate::sample::Kind;
use crate::score::file::ScoreFile;

/// The fewest paired samples with which a paired test of "no change" can reach
/// `confidence`. Under no change, each pair's two runs are exchangeable, so an exact paired
/// test (flipping the sign of each pair's difference) gives the most extreme outcome —
/// every pair moved the same way — a two-sided p-value of 2 / 2ⁿ, and nothing it could
/// observe is rarer. No test of the change on fewer pairs can be significant at
/// `1 − confidence`: the smallest n with 2 / 2ⁿ ≤ 1 − confidence, that is
/// ⌈log₂(2 / (1 − confidence))⌉ (6 at 95%, 5 at 90%, 8 at 99%).
pub fn min_paired(confidence: f64) -> usize {
    let alpha = 1.0 - confidence;
    (1..=64)
        .find(|&n| 2.0 * 0.5_f64.powi(n) <= alpha + 1e-12)
        .map_or(usize::MAX, |n| n as usize)
}

/// `too few samples to test: n = 1, at least 6 needed at 95%`.
pub fn too_few_text(samples: usize, needed: usize, confidence: f64) -> String {
    let percent = (confidence * 1000.0).round() / 10.0;
    format!("too few samples to test: n = {samples}, at least {needed} needed at {percent}%")
}

/// Why a change too few pairs can test still cannot pass: the baseline's value was measured
/// on `baseline_n` samples, enough to test it, so samples the test needs are gone (deleted
/// with the change, or unscorable now). `None` when the baseline had too few as well.
pub fn shrunk(baseline_n: Option<usize>, needed: usize) -> Option<String> {
    let n = baseline_n.filter(|&n| n >= needed)?;
    Some(format!(
        "the baseline was measured on {n} samples: samples the test needs are gone (see the samples removed since the baseline), so the run is incomplete until the baseline is refreshed"
    ))
}

/// Why `metric` has no value in `run`: the run has no sample of its kind, every call
/// failed, no answer could be read as JSON, the judge reviewed nothing or gave no valid
/// review, or nothing in the answers is what the metric is measured on.
pub fn no_data(metric: &Metric, run: &ScoreFile) -> String {
    let kind = crate::kinds::owner(metric.name);
    let samples: Vec<_> = run
        .samples
        .iter()
        .filter(|s| kind.is_none_or(|k| s.kind == k))
        .collect();
    let of = kind.map_or(String::new(), |k| format!("{} ", k.as_str()));
    if samples.is_empty() {
        return match kind {
            Some(k) => format!("the run has no {} sample", k.as_str()),
            None => "the run has no scored sample".into(),
        };
    }
    let sum = |key: &str| samples.iter().map(|s| s.stats.get(key)).sum::<f64>();
    let count = |key: &str| sum(key).max(0.0) as usize;
    let records = count("parse.records");
    let failed = samples.iter().map(|s| s.failed).sum::<usize>();
    let unreadable = count("parse.error") + count("parse.no_json");
    if records > 0 && failed >= records {
        return format!("every one of the {records} {of}calls failed");
    }
    if records > 0 && unreadable >= records {
        let calls = match failed {
            0 => String::new(),
            1 => " (1 call failed)".into(),
            n => format!(" ({n} calls failed)"),
        };
        return format!("none of the {records} {of}answers could be read as JSON{calls}");
    }
    if metric.name.starts_with("judge.") {
        let judgements = count("judge.judgements");
        if judgements == 0 {
            return format!("no {of}answer was reviewed by the judge");
        }
        if sum("judge.records") <= 0.0 {
            return format!(
                "the judge gave no valid review: all {judgements} judgements were invalid"
            );
        }
    }
    if sum(metric.support) > 0.0 {
        return format!(
            "it is undefined on the run's {} {of}samples (nothing to divide by)",
            samples.len()
        );
    }
    if !metric.unsupported.is_empty() {
        return metric.unsupported.into();
    }
    match metric.support {
        s if s.ends_with(".cal.n") => format!("no {of}answer gave a confidence"),
        support => format!(
            "none of the run's {} {of}samples counts towards it (`{support}` is 0)",
            samples.len()
        ),
    }
}

/// Characters of one key said at most in a reason (a verdict file may come from a fork).
const MAX_KEY_CHARS: usize = 80;

/// What a kind's keyless answers held, after a broken `parse.keyless_rate` bound: `: 14
/// answers hold none of the keys extraction reads (requirements); found:
/// extracted_requirements` (one clause per tuple task; empty when `keyless` has none of
/// the kind's). Lists and keys are cut to what goldgate itself writes.
pub fn keyless_reason(kind: Kind, keyless: &[Keyless]) -> String {
    let cut = |keys: &[String]| -> Vec<String> {
        keys.iter()
            .take(MAX_FOUND)
            .map(|k| match k.char_indices().nth(MAX_KEY_CHARS) {
                Some((at, _)) => format!("{}…", &k[..at]),
                None => k.clone(),
            })
            .collect()
    };
    let said: Vec<String> = keyless
        .iter()
        .filter(|k| k.kind == kind)
        .take(MAX_FOUND)
        .map(|k| {
            Keyless {
                expected: cut(&k.expected),
                found: cut(&k.found),
                task: k
                    .task
                    .as_ref()
                    .map(|t| cut(std::slice::from_ref(t)).remove(0)),
                ..k.clone()
            }
            .describe()
        })
        .collect();
    match said.is_empty() {
        true => String::new(),
        false => format!(": {}", said.join("; ")),
    }
}

/// Why a metric has no value in a verdict file's candidate (`publish`): the file lists no
/// sample of the metric's kind, or it claims no value.
pub fn no_data_in_verdict(metric: &Metric, kinds: &[Kind]) -> String {
    match crate::kinds::owner(metric.name) {
        Some(k) if !kinds.contains(&k) => format!("the run has no {} sample", k.as_str()),
        _ => "the verdict file has no value for it".into(),
    }
}

/// The smallest change for the worse this comparison could call significant, when the
/// change it saw is not (its interval holds 0): how far the interval reaches from the delta
/// towards the better side. The paired bootstrap's deltas spread around the observed one;
/// were the true change worse by `x`, they would spread alike around a delta `x` worse,
/// and the interval would exclude 0 once `x` passes that reach (docs/thresholds.md). `None`
/// when the change is significant either way, or the resamples did not vary (no noise to
/// measure).
pub(super) fn detectable(
    direction: Direction,
    delta: Option<f64>,
    ci: Option<[f64; 2]>,
    samples: usize,
    confidence: f64,
) -> Option<Detectable> {
    let (d, [lo, hi]) = delta.zip(ci)?;
    if lo > 0.0 || hi < 0.0 {
        return None;
    }
    let change = match direction {
        Direction::Higher => hi - d,
        Direction::Lower => d - lo,
        Direction::Neither => return None,
    };
    (change > 1e-12).then_some(Detectable {
        change,
        samples,
        confidence,
    })
}
