//! How each rule is decided: floors, ceilings, regressions against the baseline, too few
//! samples, no data, and the noise of repeats.

use super::super::compare::{compare, CompareOptions};
use super::super::verdict::{by_name, Outcome, Status};
use super::*;
use crate::metrics::bootstrap::BootstrapConfig;
use crate::testkit::{built_in_rules, metric, test_kind, test_kind_file};

/// A rule's metric with no data in the candidate while the baseline has it (the
/// samples it came from were deleted in the pull request) breaks the rule: it used to
/// read "no data in this run" and hold, so deleting a kind's samples passed the gate.
/// Never measured on either side (a kind the suite does not have), a rule in a rules
/// file cannot hold either: the run is incomplete.
#[test]
fn a_gated_metric_the_candidate_lacks_never_holds() {
    // The test kind's F1, and the primary metric of a kind the suite does not have.
    let f1 = metric("f1");
    let absent = crate::kinds::of(crate::kinds::listed().next().unwrap()).primary_metric();
    let rules = Thresholds::parse(
        &format!("version = 1\n[metrics.\"{f1}\"]\nmin = 0.5\n[metrics.\"{absent}\"]\nmin = 0.5\n"),
        std::path::Path::new("t.toml"),
    )
    .unwrap();
    let judge = |name: &str, baseline: Option<f64>| {
        let metric = crate::kinds::find(name).unwrap();
        let values = Values {
            candidate: None,
            baseline,
            n: 0,
            paired: None,
            baseline_n: None,
            by_kind: &[],
            keyless: &[],
        };
        judge_values(
            metric,
            values,
            &rules,
            |_| Noise::Interval(None),
            || "the run has no sample of its kind".into(),
        )
    };
    let gone = judge(&f1, Some(0.8));
    assert_eq!(gone.status, Status::Incomplete, "{:?}", gone.reasons);
    assert!(
        gone.reasons[0].contains("the baseline has 0.8000"),
        "{:?}",
        gone.reasons
    );
    assert_eq!(
        gone.no_data.as_deref(),
        Some("the run has no sample of its kind")
    );
    let never = judge(absent, None);
    assert_eq!(never.status, Status::Incomplete, "{:?}", never.reasons);
    assert_eq!(
        never.reasons,
        ["no data in this run: the run has no sample of its kind"]
    );
}

/// 40 samples of the test kind of 5 gold marks, `found` of each found.
fn run(found: usize) -> ScoreFile {
    let f = found as f64;
    test_kind_file(&vec![(f, 0.0, 5.0 - f, false); 40], "1")
}

#[test]
fn built_in_rules_gate_the_primary_metric_of_the_kinds_present() {
    let options = CompareOptions {
        bootstrap: BootstrapConfig {
            resamples: 200,
            ..BootstrapConfig::default()
        },
        allow_version_change: false,
        ratchet: vec![],
        reference: None,
    };
    let rules = built_in_rules();
    let mut candidate = run(3);
    for parse in ["parse.error_rate", "parse.no_json_rate"] {
        candidate.metrics.get_mut(parse).unwrap().value = Some(0.0);
    }
    let v = compare(&candidate, Some(&run(5)), &rules, &options).unwrap();
    let m = by_name(&v);
    let f1 = test_kind().primary_metric();
    assert_eq!(v.verdict, Outcome::Fail, "{}", v.summary);
    assert_eq!(m[f1].status, Status::Fail);
    assert!(m[f1].reasons[0].contains("more than the 0.0200 allowed"));
    assert!(v.built_in_rules() && v.rules_source == "built-in defaults");
    // Kinds the runs do not have are not judged; run health is.
    let tested = crate::kinds::kind_of(test_kind());
    for other in crate::kinds::all().filter(|k| *k != tested) {
        let primary = crate::kinds::of(other).primary_metric();
        assert!(m[primary].rule.is_none(), "{primary}");
    }
    for health in ["run.error_rate", "parse.error_rate", "parse.no_json_rate"] {
        assert_eq!(m[health].status, Status::Pass, "{health}");
    }
    // The same run with a rules file that says nothing of its F1: not gated.
    let file_rules = Thresholds::parse("version = 1\n", std::path::Path::new("t.toml")).unwrap();
    let v = compare(&candidate, Some(&run(5)), &file_rules, &options).unwrap();
    assert_eq!(v.verdict, Outcome::Pass);
    assert!(!v.built_in_rules() && v.rules_source == "t.toml");
    assert!(by_name(&v)["parse.error_rate"].rule.is_none());
}

/// 7 samples whose recall moves both ways: the drop is not significant, and the verdict
/// says the smallest drop the paired interval could have called significant — the
/// interval's reach above the delta. Ten times the samples see a drop about √10 times
/// smaller; a significant drop carries no such statement.
#[test]
fn a_change_that_is_not_significant_states_the_smallest_detectable_one() {
    let recall = metric("recall");
    let rules = Thresholds::parse(
        &format!("version = 1\n[metrics.\"{recall}\"]\nmax_regression = 0.02\n"),
        std::path::Path::new("t.toml"),
    )
    .unwrap();
    let options = CompareOptions {
        bootstrap: BootstrapConfig {
            resamples: 2000,
            ..BootstrapConfig::default()
        },
        allow_version_change: false,
        ratchet: vec![],
        reference: None,
    };
    let runs = |found: &[usize], times: usize| {
        let samples: Vec<_> = (0..times)
            .flat_map(|_| {
                found
                    .iter()
                    .map(|&f| (f as f64, 0.0, 5.0 - f as f64, false))
            })
            .collect();
        test_kind_file(&samples, "1")
    };
    let (base, cand) = ([5, 4, 5, 5, 5, 4, 5], [4, 5, 4, 5, 5, 5, 4]);
    let judged = |times: usize| {
        let v = compare(
            &runs(&cand, times),
            Some(&runs(&base, times)),
            &rules,
            &options,
        )
        .unwrap();
        by_name(&v)[recall.as_str()].clone()
    };
    let small = judged(1);
    assert_eq!(small.status, Status::Pass, "{:?}", small.reasons);
    assert!(
        small.reasons[0].contains("not significant"),
        "{:?}",
        small.reasons
    );
    let d = small
        .detectable
        .expect("the smallest detectable drop is stated");
    let [_, hi] = small.delta_ci.unwrap();
    assert_eq!((d.samples, d.confidence), (7, 0.95));
    assert!(
        (d.change - (hi - small.delta.unwrap())).abs() < 1e-12,
        "{d:?}"
    );
    assert!(d.change > 0.05, "7 samples see only large drops: {d:?}");
    let large = judged(10).detectable.unwrap();
    assert_eq!(large.samples, 70);
    let ratio = d.change / large.change;
    assert!((2.0..4.5).contains(&ratio), "about √10 smaller: {ratio}");
    // A significant drop states none.
    let dropped = compare(&runs(&[3; 7], 3), Some(&runs(&[5; 7], 3)), &rules, &options).unwrap();
    let m = &by_name(&dropped)[recall.as_str()];
    assert_eq!((m.status, m.detectable), (Status::Fail, None));
}

#[test]
fn unreadable_answers_make_a_run_incomplete_not_failed() {
    let options = CompareOptions {
        bootstrap: BootstrapConfig::default(),
        allow_version_change: false,
        ratchet: vec![],
        reference: None,
    };
    let mut prose = run(5);
    prose.metrics.get_mut("parse.no_json_rate").unwrap().value = Some(0.5);
    let v = compare(&prose, None, &Thresholds::built_in(), &options).unwrap();
    assert_eq!((v.verdict, v.exit_code), (Outcome::Incomplete, 3));
    let rules = Thresholds::parse(
        "version = 1\n[metrics.\"parse.error_rate\"]\nmax = 0.05\n",
        std::path::Path::new("t.toml"),
    )
    .unwrap();
    let mut broken = run(5);
    broken.metrics.get_mut("parse.error_rate").unwrap().value = Some(0.2);
    let v = compare(&broken, None, &rules, &options).unwrap();
    assert_eq!(by_name(&v)["parse.error_rate"].status, Status::Incomplete);
    assert_eq!(v.verdict, Outcome::Incomplete);
}

/// A rise in cost is judged against the baseline's cost: 20% more fails a 10%
/// allowance, 5% more holds it; without `max_increase` a rise of any size is not a
/// regression the default allowance judges (only the ceiling is).
#[test]
fn a_relative_increase_is_judged_against_the_baseline() {
    use crate::gate::decide::{judge_values, Noise, Values};
    use crate::gate::verdict::Status;
    let cost = crate::kinds::find("run.cost_usd").unwrap();
    let judged = |t: &Thresholds, candidate: f64| {
        let values = Values {
            candidate: Some(candidate),
            baseline: Some(1.0),
            n: 20,
            paired: Some(20),
            baseline_n: None,
            by_kind: &[],
            keyless: &[],
        };
        let ci = [candidate - 1.0 - 0.01, candidate - 1.0 + 0.01];
        judge_values(cost, values, t, |_| Noise::Interval(Some(ci)), String::new).status
    };
    let rules = |text: &str| {
        Thresholds::parse(
            &format!("version = 1\n{text}"),
            std::path::Path::new("thresholds.toml"),
        )
    };
    let t = rules("[metrics.\"run.cost_usd\"]\nmax_increase = \"10%\"\n").unwrap();
    assert_eq!(judged(&t, 1.2), Status::Fail);
    assert_eq!(judged(&t, 1.05), Status::Pass);
    let ceiling = rules("[metrics.\"run.cost_usd\"]\nmax = 5\n").unwrap();
    assert_eq!(judged(&ceiling, 1.2), Status::Pass);
    assert_eq!(judged(&ceiling, 5.5), Status::Fail);
}
