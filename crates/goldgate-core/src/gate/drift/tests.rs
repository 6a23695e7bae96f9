//! The drift budget against a pinned reference, judged in `compare` and again in
//! `rederive`.

use std::sync::Arc;

use crate::gate::compare::compare;
use crate::gate::drift::Reference;
use crate::gate::verdict::{by_name, Outcome, Status};
use crate::score::file::ScoreFile;
use crate::testkit::{found_marks as run, metric, options, rules, test_kind_file};

/// `found` marks found on 40 samples, `fewer` of them one mark short.
fn recall_run(fewer: usize) -> ScoreFile {
    let mut found = vec![5; 40];
    for f in found.iter_mut().take(fewer) {
        *f = 4;
    }
    run(&found)
}

fn reference(file: ScoreFile, refreshes: Option<usize>) -> Arc<Reference> {
    let mut file = file;
    file.provenance.created_at = "2026-10-01T09:00:00Z".into();
    Arc::new(Reference {
        file,
        path: "baselines/reference.json".into(),
        refreshes,
    })
}

/// The rules of a drift budget on the test kind's recall, against `r.json`, the rule's own
/// lines `rule`: the recall metric's name and the rules.
fn recall_budget(rule: &str) -> (String, crate::gate::thresholds::Thresholds) {
    let recall = metric("recall");
    let t = rules(&format!(
        "[drift]\nreference = \"r.json\"\n[metrics.\"{recall}\"]\n{rule}"
    ));
    (recall, t)
}

/// The comparison's options with `file` pinned as the reference.
fn against(file: ScoreFile, refreshes: Option<usize>) -> crate::gate::compare::CompareOptions {
    let mut o = options();
    o.reference = Some(reference(file, refreshes));
    o
}

/// Each step within the per-PR allowance, the sum beyond the budget: the drift breaks the
/// rule, naming the reference, its date, the budget and the refreshes since.
#[test]
fn a_slow_leak_within_every_allowance_fails_on_drift() {
    let recall = metric("recall");
    let t = rules(&format!(
        "[drift]\nreference = \"baselines/reference.json\"\n[metrics.\"{recall}\"]\nmax_regression = 0.02\n"
    ));
    // Reference 1.0, baseline 0.98, candidate 0.97: 0.01 against the baseline (within),
    // 0.03 against the reference (within the 0.05 budget): passes.
    let o = against(recall_run(0), Some(3));
    let v = compare(&recall_run(6), Some(&recall_run(4)), &t, &o).unwrap();
    assert_eq!(v.verdict, Outcome::Pass, "{:?}", v.metrics);
    let d = v.drift.as_ref().unwrap();
    assert_eq!(d.metrics.len(), 1);
    assert_eq!(
        (d.metrics[0].status, d.metrics[0].budget.as_str()),
        (Status::Pass, "0.05")
    );
    // Baseline 0.94, candidate 0.93: within the allowance of the baseline, 0.07 below the
    // reference, beyond its budget.
    let v = compare(&recall_run(14), Some(&recall_run(12)), &t, &o).unwrap();
    assert_eq!(v.verdict, Outcome::Fail);
    let m = &by_name(&v)[recall.as_str()];
    assert_eq!(m.status, Status::Fail);
    assert_eq!(
        m.reasons,
        vec!["0.070 below the reference of 2026-10-01 (budget 0.05), 3 refreshes ago; the baseline itself is already 0.060 below it".to_string()]
    );
    // Without the reference, the same comparison passes: the per-PR rule alone sees 0.01.
    let mut plain = options();
    plain.reference = None;
    let v = compare(&recall_run(14), Some(&recall_run(12)), &t, &plain).unwrap();
    assert_eq!((v.verdict, v.drift.is_none()), (Outcome::Pass, true));
}

/// A budget of its own, a warning severity, a ceiling metric (lower is better) and a drift
/// the paired test calls noise.
#[test]
fn budgets_severities_directions_and_noise() {
    let recall = metric("recall");
    let own = rules(&format!(
        "[drift]\nreference = \"r.json\"\n[metrics.\"{recall}\"]\nmax_drift = 0.2\nseverity = \"warn\"\n"
    ));
    let mut o = against(recall_run(0), None);
    let v = compare(&recall_run(26), None, &own, &o).unwrap();
    assert_eq!(v.verdict, Outcome::Pass, "0.13 is within 0.2");
    let v = compare(&run(&[3; 40]), None, &own, &o).unwrap();
    assert_eq!(v.verdict, Outcome::Warn);
    assert!(by_name(&v)[recall.as_str()].reasons[0]
        .starts_with("0.400 below the reference of 2026-10-01 (budget 0.2)"));
    // One sample of 40 much worse: 0.1 below the reference, and noise.
    let mut one = vec![5; 40];
    one[0] = 1;
    one[1] = 1;
    let t = rules(&format!(
        "[drift]\nreference = \"r.json\"\n[metrics.\"{recall}\"]\nmax_drift = 0.01\n"
    ));
    let v = compare(&run(&one), None, &t, &o).unwrap();
    let d = &v.drift.as_ref().unwrap().metrics[0];
    assert_eq!(d.status, Status::Pass, "{d:?}");
    assert!(
        d.reason.as_deref().unwrap().contains("not significant"),
        "{d:?}"
    );
    // Lower is better: a rise is the drift.
    let flagged = metric("flagged_rate");
    let clean = test_kind_file(&vec![(5.0, 0.0, 0.0, false); 40], "1");
    let dirty = test_kind_file(&vec![(5.0, 0.0, 0.0, true); 40], "1");
    let t = rules(&format!(
        "[drift]\nreference = \"r.json\"\n[metrics.\"{flagged}\"]\nmax_regression = 0.1\n"
    ));
    o.reference = Some(reference(clean, None));
    let v = compare(&dirty, None, &t, &o).unwrap();
    let m = &by_name(&v)[flagged.as_str()];
    assert_eq!(m.status, Status::Fail);
    assert!(
        m.reasons[0].contains("above the reference"),
        "{:?}",
        m.reasons
    );
}

/// A verdict file that drops its drift, or claims another reference value, is judged
/// again against the trusted reference: the drift still fails.
#[test]
fn a_forged_verdict_cannot_hide_its_drift() {
    use crate::gate::rederive::{rederive, RederiveOptions};
    let (recall, t) = recall_budget("max_regression = 0.02\n");
    let trusted = reference(recall_run(0), Some(7));
    let mut o = options();
    o.reference = Some(trusted.clone());
    let honest = compare(&recall_run(14), Some(&recall_run(12)), &t, &o).unwrap();
    assert_eq!(honest.verdict, Outcome::Fail);
    let again = |v: &crate::gate::verdict::Verdict| {
        let options = RederiveOptions {
            ratchet: &[],
            allow_version_change: false,
            reference: Some(&trusted),
        };
        rederive(v, Some(&recall_run(12)), &t, options)
            .unwrap()
            .verdict
    };
    assert_eq!(again(&honest).verdict, Outcome::Fail);
    let mut hidden = honest.clone();
    hidden.drift = None;
    hidden.verdict = Outcome::Pass;
    for m in &mut hidden.metrics {
        m.status = Status::Pass;
        m.reasons.clear();
    }
    let derived = again(&hidden);
    assert_eq!(derived.verdict, Outcome::Fail);
    assert!(by_name(&derived)[recall.as_str()].reasons[0].contains("counted as significant"));
    let mut shifted = honest.clone();
    for d in &mut shifted.drift.as_mut().unwrap().metrics {
        d.reference = Some(0.9);
    }
    assert_eq!(again(&shifted).verdict, Outcome::Fail);
    // A drift value no recall can have is not believed.
    let mut inflated = honest.clone();
    for d in &mut inflated.drift.as_mut().unwrap().metrics {
        d.candidate = Some(1e308);
        d.delta_ci = Some([1e308, 1e308]);
    }
    assert_eq!(again(&inflated).verdict, Outcome::Fail);
    // Nor one that contradicts the file's own value of the metric when every sample of the
    // file is the reference's (the drift is then measured on the whole run): a drift value at
    // the reference's with an interval around it.
    let mut contradicted = honest.clone();
    for d in &mut contradicted.drift.as_mut().unwrap().metrics {
        d.candidate = d.reference;
        d.delta_ci = Some([-0.001, 0.001]);
    }
    assert_eq!(again(&contradicted).verdict, Outcome::Fail);
}

/// Both values are taken on the samples the candidate and the reference share: easy samples
/// added since the pin cannot lift a drift back inside the budget.
#[test]
fn samples_added_since_the_pin_do_not_hide_a_drift() {
    let (_, t) = recall_budget("max_regression = 0.02\n");
    let o = against(run(&[5; 40]), None);
    // The 40 pinned samples lose one mark in 26 (recall 0.87 on them); 200 easy new ones
    // lift the whole suite's recall to about 0.98.
    let mut found = vec![5; 240];
    for f in found.iter_mut().take(26) {
        *f = 4;
    }
    let mut grown = run(&found);
    for (i, s) in grown.samples.iter_mut().enumerate().skip(40) {
        s.id = format!("new-{i}");
    }
    let v = compare(&grown, None, &t, &o).unwrap();
    let d = &v.drift.as_ref().unwrap().metrics[0];
    assert_eq!(d.status, Status::Fail, "{d:?}");
    assert!((d.candidate.unwrap() - 0.87).abs() < 1e-9, "{d:?}");
    assert_eq!(d.paired, 40);
}

/// A run that shares too few samples with a reference that had enough is incomplete: the
/// budget is not switched off by renaming the samples.
#[test]
fn renamed_samples_do_not_switch_the_budget_off() {
    let (recall, t) = recall_budget("max_regression = 0.02\n");
    let o = against(run(&[5; 40]), None);
    let mut renamed = run(&[3; 40]);
    for s in &mut renamed.samples {
        s.id = format!("renamed-{}", s.id);
    }
    let v = compare(&renamed, None, &t, &o).unwrap();
    assert_eq!(v.verdict, Outcome::Incomplete, "{:?}", v.drift);
    let m = &by_name(&v)[recall.as_str()];
    assert!(
        m.reasons.iter().any(|r| r.contains("pin a new reference")),
        "{:?}",
        m.reasons
    );
}

/// Keeping a single good sample of the reference's 40 does not make a drift without
/// significance pass on that sample: fewer than half of the reference's samples are shared.
#[test]
fn one_shared_sample_is_not_a_drift_measured() {
    let (_, t) = recall_budget("max_regression = 0.02\nrequire_significance = false\n");
    let o = against(run(&[5; 40]), None);
    let mut kept_one = run(&[5; 40]);
    for s in kept_one.samples.iter_mut().skip(1) {
        s.id = format!("renamed-{}", s.id);
    }
    let v = compare(&kept_one, None, &t, &o).unwrap();
    assert_eq!(v.verdict, Outcome::Incomplete, "{:?}", v.drift);
    // Half of them shared, and unchanged: measured, and within the budget.
    let mut kept_half = run(&[5; 40]);
    for s in kept_half.samples.iter_mut().skip(20) {
        s.id = format!("renamed-{}", s.id);
    }
    let v = compare(&kept_half, None, &t, &o).unwrap();
    assert_eq!(v.verdict, Outcome::Pass, "{:?}", v.drift);
}

/// Samples that keep their ids but change kind are other samples: they are not shared with
/// the reference, so moving most of the suite to another kind leaves too few shared samples
/// (the run is incomplete), never a drift measured on the few left.
#[test]
fn samples_whose_kind_changed_are_not_shared() {
    let (_, t) = recall_budget("max_regression = 0.02\n");
    let o = against(run(&[5; 40]), None);
    let ours = crate::kinds::kind_of(crate::testkit::test_kind());
    let other = crate::kinds::ALL
        .iter()
        .map(|k| crate::kinds::kind_of(*k))
        .find(|k| *k != ours)
        .expect("another kind is registered");
    let mut moved = run(&[5; 40]);
    for s in moved.samples.iter_mut().skip(10) {
        s.kind = other;
    }
    let v = compare(&moved, None, &t, &o).unwrap();
    assert_eq!(v.verdict, Outcome::Incomplete, "{:?}", v.drift);
    let d = &v.drift.as_ref().expect("a drift report").metrics[0];
    assert!(d.paired <= 10, "{d:?}");
}
