//! What a rule needs before it can hold or break, through `compare`: too few pairs, no
//! data, a shrunk suite, the smallest detectable change.

use crate::gate::evidence::*;
use crate::score::file::ScoreFile;

use super::{compare, CompareOptions};
use crate::gate::thresholds::Thresholds;
use crate::gate::verdict::{by_name, Outcome, Status};
use crate::metrics::bootstrap::BootstrapConfig;
use crate::testkit::{built_in_rules, metric, test_kind, test_kind_file};

/// 40 samples of the test kind of 5 gold marks, `found` of each found.
fn run(found: usize) -> ScoreFile {
    let f = found as f64;
    test_kind_file(&vec![(f, 0.0, 5.0 - f, false); 40], "1")
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
        reference: None,
    }
}

/// Deleting samples from a suite the baseline could test a change on cannot switch the
/// regression rule off: the built-in rules have no floors, and "too few samples to test"
/// would otherwise pass a collapse.
#[test]
fn a_suite_shrunk_below_the_minimum_is_incomplete_not_passed() {
    let base = test_kind_file(&[(2.0, 0.0, 0.0, false); 6], "1");
    let collapsed = test_kind_file(&[(0.0, 0.0, 2.0, false); 5], "1");
    let v = compare(&collapsed, Some(&base), &built_in_rules(), &options()).unwrap();
    let f1 = by_name(&v)[metric("f1").as_str()].clone();
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
    let small = test_kind_file(&[(2.0, 0.0, 0.0, false); 5], "1");
    let v = compare(&collapsed, Some(&small), &built_in_rules(), &options()).unwrap();
    let f1 = by_name(&v)[metric("f1").as_str()].clone();
    assert_eq!(f1.status, Status::Pass, "{:?}", f1.reasons);
    assert!(f1.too_few.is_some());
}

/// A judge whose every call failed leaves every judgement invalid: `judge.*` has no
/// value. A rule on it used to read "no data in this run" and pass; the run is
/// incomplete, naming the metric and why it has no data.
#[test]
fn a_rule_whose_metric_has_no_data_makes_the_run_incomplete() {
    let mut judged = test_kind_file(&[(1.0, 0.0, 0.0, false); 4], "1");
    judged.provenance.scoring.judge = Some(crate::score::file::JudgeSummary {
        model: "judge".into(),
        prompt_fingerprint: "sha256:0".into(),
    });
    // Samples of the kind the judge's metrics belong to.
    let reviewed = crate::kinds::owner("judge.comprehensive_weighted").unwrap();
    for s in &mut judged.samples {
        s.kind = reviewed;
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
    let absent = crate::kinds::listed().next().unwrap();
    let absent_metric = crate::kinds::of(absent).primary_metric();
    let v = compare(
        &run(5),
        None,
        &rules(&format!("[metrics.\"{absent_metric}\"]\nmin = 0.5\n")),
        &options(),
    )
    .unwrap();
    let m = &by_name(&v)[absent_metric];
    assert_eq!(
        (v.verdict, m.status),
        (Outcome::Incomplete, Status::Incomplete)
    );
    assert_eq!(
        m.reasons,
        [format!(
            "no data in this run: the run has no {} sample",
            absent.as_str()
        )]
    );
    let (kind, ece) = (test_kind().name(), metric("ece"));
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
        &rules(&format!("[metrics.\"{ece}\"]\nmax = 0.2\n")),
        &options(),
    )
    .unwrap();
    assert_eq!(
        by_name(&v)[ece.as_str()].reasons,
        [format!(
            "no data in this run: every one of the 40 {kind} calls failed"
        )]
    );
    // A warning rule without data warns: it never passes, and never blocks more than
    // its severity says.
    let v = compare(
        &run(5),
        None,
        &rules(&format!(
            "[metrics.\"{ece}\"]\nmax = 0.2\nseverity = \"warn\"\n"
        )),
        &options(),
    )
    .unwrap();
    let m = &by_name(&v)[ece.as_str()];
    assert_eq!((v.verdict, m.status), (Outcome::Warn, Status::Warn));
    assert_eq!(
        m.reasons,
        [format!(
            "no data in this run: no {kind} answer gave a confidence"
        )]
    );
    // A metric in its own words: no call reported a cost.
    let v = compare(
        &run(5),
        None,
        &rules("[metrics.\"run.cost_usd\"]\nmax = 5\n"),
        &options(),
    )
    .unwrap();
    assert_eq!(
        by_name(&v)["run.cost_usd"].reasons,
        ["no data in this run: no call reported its cost"]
    );
}

/// One sample, recall 1.0 → 0.8: the paired bootstrap draws that one sample every time,
/// a zero-width interval that used to make the drop "significant". No paired test on
/// one pair can reach 95%: the regression is not tested, and the rule is judged by its
/// floor alone. With six pairs that all dropped the exact paired test can (2/2⁶ < 5%).
#[test]
fn a_change_is_significant_only_with_enough_paired_samples() {
    let recall = metric("recall");
    let rule = |text: &str| rules(&format!("[metrics.\"{recall}\"]\n{text}\n"));
    let sig = rule("min = 0.5\nmax_regression = 0.02\nrequire_significance = true");
    let one = |found: usize| test_kind_file(&[(found as f64, 0.0, 5.0 - found as f64, false)], "1");
    let v = compare(&one(4), Some(&one(5)), &sig, &options()).unwrap();
    let m = by_name(&v)[recall.as_str()].clone();
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
    let m = &by_name(&v)[recall.as_str()];
    assert_eq!(m.status, Status::Fail);
    assert!(m.reasons[0].contains("below the floor"), "{:?}", m.reasons);
    // Five pairs are still too few at 95%; six are enough, and so are five at 90%.
    let many = |found: usize, n: usize| {
        test_kind_file(
            &vec![(found as f64, 0.0, 5.0 - found as f64, false); n],
            "1",
        )
    };
    let status = |n: usize, rules: &Thresholds| {
        let v = compare(&many(4, n), Some(&many(5, n)), rules, &options()).unwrap();
        by_name(&v)[recall.as_str()].status
    };
    assert_eq!(status(5, &sig), Status::Pass);
    assert_eq!(status(6, &sig), Status::Fail);
    let ninety = rule("max_regression = 0.02\nconfidence = 0.9");
    assert_eq!(status(5, &ninety), Status::Fail);
    assert_eq!(status(4, &ninety), Status::Pass);
    // Without significance a drop beyond its allowance fails whatever the samples.
    let plain = rule("max_regression = 0.02\nrequire_significance = false");
    assert_eq!(status(1, &plain), Status::Fail);
}

/// Two answers of the test kind held another key (the one its `init` files cite) beside 38
/// answers of another kind that were fine: 5% of the run, but every answer of the test
/// kind. `parse.keyless_rate` is judged per kind, so the built-in ceiling sees the test kind
/// at 1.0 and the run is incomplete, naming the kind, the keys it reads and the keys found.
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
    let keyless = test_kind();
    let fine = crate::kinds::listed().next().unwrap();
    let (expected, found) = (keyless.answer_keys(), keyless.init_files().example.1);
    let kinds = mixed.groups.entry("kind".into()).or_default();
    for (kind, value) in [(keyless.name(), 1.0), (fine.as_str(), 0.0)] {
        let mut metrics = Metrics::new();
        metrics.insert("parse.keyless_rate".into(), rate(value));
        kinds.insert(kind.into(), metrics);
    }
    mixed.keyless = vec![Keyless {
        kind: crate::kinds::kind_of(keyless),
        task: None,
        answers: 2,
        samples: 2,
        expected: expected.iter().map(|k| k.to_string()).collect(),
        found: vec![found.into()],
        examples: vec!["s-0".into(), "s-1".into()],
    }];
    let v = compare(&mixed, None, &Thresholds::built_in(), &options()).unwrap();
    let m = &by_name(&v)["parse.keyless_rate"];
    assert_eq!(
        (v.verdict, m.status),
        (Outcome::Incomplete, Status::Incomplete)
    );
    let (kind, reads) = (keyless.name(), expected.join(", "));
    assert_eq!(
        m.reasons,
        [format!("{kind}: 1.0000 is above the ceiling 0.5000: 2 answers hold none of the keys {kind} reads ({reads}); found: {found}")]
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
