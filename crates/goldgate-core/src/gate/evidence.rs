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
use crate::score::file::ScoreFile;
use crate::suite::Kind;

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
    match metric.support {
        s if s.ends_with(".cal.n") => format!("no {of}answer gave a confidence"),
        "run.cost_known" => "no call reported its cost".into(),
        "judge.cost_known" => "no judge call reported its cost".into(),
        "run.tokens_known" => "no call reported its token usage".into(),
        "run.latency_known" => "no call's latency was measured".into(),
        "ext.type_pairs" => "no requirement was matched, so no types were compared".into(),
        "val.severity_pairs" => "no issue was matched, so no severities were compared".into(),
        "judge.spread_records" => "no answer was reviewed more than once".into(),
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::gate::compare::{compare, CompareOptions};
    use crate::gate::thresholds::Thresholds;
    use crate::gate::verdict::{by_name, Outcome, Status};
    use crate::metrics::bootstrap::BootstrapConfig;
    use crate::testkit::file;

    /// 40 extraction samples of 5 gold items, `found` of each found.
    fn run(found: usize) -> ScoreFile {
        let f = found as f64;
        file(&vec![(f, 0.0, 5.0 - f, false); 40], "1")
    }

    fn rules(text: &str) -> Thresholds {
        Thresholds::parse(
            &format!("version = 1\n{text}"),
            std::path::Path::new("t.toml"),
        )
        .unwrap()
    }

    fn options() -> CompareOptions {
        CompareOptions {
            bootstrap: BootstrapConfig {
                resamples: 400,
                ..BootstrapConfig::default()
            },
            allow_version_change: false,
            ratchet: vec![],
        }
    }

    /// A judge whose every call failed leaves every judgement invalid: `judge.*` has no
    /// value. A rule on it used to read "no data in this run" and pass; the run is
    /// incomplete, naming the metric and why it has no data.
    /// Deleting samples from a suite the baseline could test a change on cannot switch the
    /// regression rule off: the built-in rules have no floors, and "too few samples to test"
    /// would otherwise pass a collapse.
    #[test]
    fn a_suite_shrunk_below_the_minimum_is_incomplete_not_passed() {
        let base = file(&[(2.0, 0.0, 0.0, false); 6], "1");
        let collapsed = file(&[(0.0, 0.0, 2.0, false); 5], "1");
        let v = compare(&collapsed, Some(&base), &Thresholds::built_in(), &options()).unwrap();
        let f1 = by_name(&v)["extraction.f1"].clone();
        assert_eq!(f1.status, Status::Incomplete, "{:?}", f1.reasons);
        assert!(
            f1.reasons[0].contains("too few samples to test: n = 5"),
            "{:?}",
            f1.reasons
        );
        assert!(
            f1.reasons[0].contains("measured on 6 samples"),
            "{:?}",
            f1.reasons
        );
        assert_eq!((v.verdict, v.exit_code), (Outcome::Incomplete, 3));
        // A baseline that had too few as well: the change is untested, floors still apply.
        let small = file(&[(2.0, 0.0, 0.0, false); 5], "1");
        let v = compare(
            &collapsed,
            Some(&small),
            &Thresholds::built_in(),
            &options(),
        )
        .unwrap();
        let f1 = by_name(&v)["extraction.f1"].clone();
        assert_eq!(f1.status, Status::Pass, "{:?}", f1.reasons);
        assert!(f1.too_few.is_some());
    }

    #[test]
    fn a_rule_whose_metric_has_no_data_makes_the_run_incomplete() {
        let mut judged = file(&[(1.0, 0.0, 0.0, false); 4], "1");
        judged.provenance.scoring.judge = Some(crate::score::file::JudgeSummary {
            model: "judge".into(),
            prompt_fingerprint: "sha256:0".into(),
        });
        for s in &mut judged.samples {
            s.kind = crate::suite::Kind::E2e;
            s.stats.add("parse.records", 1.0);
            s.stats.add("parse.raw", 1.0);
            s.stats.add("judge.judgements", 1.0);
            s.stats.add("judge.invalid", 1.0);
        }
        let v = compare(
            &judged,
            None,
            &rules("[metrics.\"judge.comprehensive_weighted\"]\nmin = 0.6\n"),
            &options(),
        )
        .unwrap();
        let m = &by_name(&v)["judge.comprehensive_weighted"];
        assert_eq!(
            (v.verdict, v.exit_code),
            (Outcome::Incomplete, 3),
            "{}",
            v.summary
        );
        assert_eq!(m.status, Status::Incomplete, "{:?}", m.reasons);
        assert_eq!(
            m.reasons,
            ["no data in this run: the judge gave no valid review: all 4 judgements were invalid"]
        );
        assert!(
            v.summary.contains("judge.comprehensive_weighted"),
            "{}",
            v.summary
        );
        // A kind the run does not have, under a rules file: the same.
        let v = compare(
            &run(5),
            None,
            &rules("[metrics.\"inference.recall\"]\nmin = 0.5\n"),
            &options(),
        )
        .unwrap();
        let m = &by_name(&v)["inference.recall"];
        assert_eq!(
            (v.verdict, m.status),
            (Outcome::Incomplete, Status::Incomplete)
        );
        assert_eq!(
            m.reasons,
            ["no data in this run: the run has no inference sample"]
        );
        // Every call failed: said as such.
        let mut failed = run(0);
        for s in &mut failed.samples {
            s.failed = 1;
            s.stats.add("parse.records", 1.0);
            s.stats.add("parse.no_json", 1.0);
        }
        let v = compare(
            &failed,
            None,
            &rules("[metrics.\"extraction.ece\"]\nmax = 0.2\n"),
            &options(),
        )
        .unwrap();
        assert_eq!(
            by_name(&v)["extraction.ece"].reasons,
            ["no data in this run: every one of the 40 extraction calls failed"]
        );
        // A warning rule without data warns: it never passes, and never blocks more than
        // its severity says.
        let v = compare(
            &run(5),
            None,
            &rules("[metrics.\"extraction.ece\"]\nmax = 0.2\nseverity = \"warn\"\n"),
            &options(),
        )
        .unwrap();
        let m = &by_name(&v)["extraction.ece"];
        assert_eq!((v.verdict, m.status), (Outcome::Warn, Status::Warn));
        assert_eq!(
            m.reasons,
            ["no data in this run: no extraction answer gave a confidence"]
        );
    }

    /// One sample, recall 1.0 → 0.8: the paired bootstrap draws that one sample every time,
    /// a zero-width interval that used to make the drop "significant". No paired test on
    /// one pair can reach 95%: the regression is not tested, and the rule is judged by its
    /// floor alone. With six pairs that all dropped the exact paired test can (2/2⁶ < 5%).
    #[test]
    fn a_change_is_significant_only_with_enough_paired_samples() {
        let sig = rules(
            "[metrics.\"extraction.recall\"]\nmin = 0.5\nmax_regression = 0.02\nrequire_significance = true\n",
        );
        let one = |found: usize| file(&[(found as f64, 0.0, 5.0 - found as f64, false)], "1");
        let v = compare(&one(4), Some(&one(5)), &sig, &options()).unwrap();
        let m = by_name(&v)["extraction.recall"].clone();
        assert_eq!(
            (v.verdict, m.status),
            (Outcome::Pass, Status::Pass),
            "{:?}",
            m.reasons
        );
        assert_eq!(
            m.reasons,
            ["1.0000 → 0.8000 is worse by 0.2000, more than the 0.0200 allowed, but too few samples to test: n = 1, at least 6 needed at 95%"]
        );
        assert_eq!(
            (m.delta_ci, m.detectable),
            (None, None),
            "no interval from one sample"
        );
        // Floors still apply.
        let v = compare(&one(2), Some(&one(5)), &sig, &options()).unwrap();
        let m = &by_name(&v)["extraction.recall"];
        assert_eq!(m.status, Status::Fail);
        assert!(m.reasons[0].contains("below the floor"), "{:?}", m.reasons);
        // Five pairs are still too few at 95%; six are enough, and so are five at 90%.
        let many = |found: usize, n: usize| {
            file(
                &vec![(found as f64, 0.0, 5.0 - found as f64, false); n],
                "1",
            )
        };
        let status = |n: usize, rules: &Thresholds| {
            let v = compare(&many(4, n), Some(&many(5, n)), rules, &options()).unwrap();
            by_name(&v)["extraction.recall"].status
        };
        assert_eq!(status(5, &sig), Status::Pass);
        assert_eq!(status(6, &sig), Status::Fail);
        let ninety =
            rules("[metrics.\"extraction.recall\"]\nmax_regression = 0.02\nconfidence = 0.9\n");
        assert_eq!(status(5, &ninety), Status::Fail);
        assert_eq!(status(4, &ninety), Status::Pass);
        // Without significance a drop beyond its allowance fails whatever the samples.
        let plain = rules(
            "[metrics.\"extraction.recall\"]\nmax_regression = 0.02\nrequire_significance = false\n",
        );
        assert_eq!(status(1, &plain), Status::Fail);
    }

    /// Two extraction answers held `extracted_requirements` beside 38 inference answers
    /// that were fine: 5% of the run, but every extraction answer. `parse.keyless_rate` is
    /// judged per kind, so the built-in ceiling sees extraction at 1.0 and the run is
    /// incomplete, naming the kind, the keys it reads and the keys found.
    #[test]
    fn keyless_answers_are_judged_per_kind() {
        use crate::kinds::keys::Keyless;
        use crate::score::file::Metrics;
        let mut mixed = run(5);
        let rate = |v: f64| crate::metrics::aggregate::Aggregate {
            value: Some(v),
            n: 1,
            ci: None,
            spread: None,
        };
        mixed
            .metrics
            .insert("parse.keyless_rate".into(), rate(0.05));
        let kinds = mixed.groups.entry("kind".into()).or_default();
        for (kind, value) in [("extraction", 1.0), ("inference", 0.0)] {
            let mut metrics = Metrics::new();
            metrics.insert("parse.keyless_rate".into(), rate(value));
            kinds.insert(kind.into(), metrics);
        }
        mixed.keyless = vec![Keyless {
            kind: crate::suite::Kind::Extraction,
            task: None,
            answers: 2,
            samples: 2,
            expected: vec!["requirements".into()],
            found: vec!["extracted_requirements".into()],
            examples: vec!["s-0".into(), "s-1".into()],
        }];
        let v = compare(&mixed, None, &Thresholds::built_in(), &options()).unwrap();
        let m = &by_name(&v)["parse.keyless_rate"];
        assert_eq!(
            (v.verdict, m.status),
            (Outcome::Incomplete, Status::Incomplete)
        );
        assert_eq!(
            m.reasons,
            ["extraction: 1.0000 is above the ceiling 0.5000: 2 answers hold none of the keys extraction reads (requirements); found: extracted_requirements"]
        );
        // The same under a rules file that says nothing of it; its own rule replaces it.
        let v = compare(&mixed, None, &rules(""), &options()).unwrap();
        assert_eq!(v.verdict, Outcome::Incomplete);
        let lenient = rules("[metrics.\"parse.keyless_rate\"]\nmax = 1.0\n");
        let v = compare(&mixed, None, &lenient, &options()).unwrap();
        assert_eq!(v.verdict, Outcome::Pass, "{}", v.summary);
    }

    /// 2 / 2ⁿ ≤ 1 − confidence: 2/32 > 5% ≥ 2/64, 2/16 > 10% ≥ 2/32, 2/128 > 1% ≥ 2/256.
    #[test]
    fn the_paired_samples_needed_follow_the_exact_paired_test() {
        assert_eq!(min_paired(0.95), 6);
        assert_eq!(min_paired(0.90), 5);
        assert_eq!(min_paired(0.99), 8);
        assert_eq!(min_paired(0.75), 3);
        assert_eq!(min_paired(0.5), 2);
        for c in [0.5, 0.8, 0.9, 0.95, 0.975, 0.99, 0.999] {
            let n = min_paired(c) as i32;
            assert!(2.0 * 0.5_f64.powi(n) <= 1.0 - c + 1e-12, "{c}");
            assert!(
                2.0 * 0.5_f64.powi(n - 1) > 1.0 - c,
                "{c}: {n} is the fewest"
            );
        }
        assert_eq!(
            too_few_text(1, 6, 0.95),
            "too few samples to test: n = 1, at least 6 needed at 95%"
        );
    }
}
