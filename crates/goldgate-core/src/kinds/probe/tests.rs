//! The test kind's own scoring: the marks' counts, the answers flagged for a mark the
//! conversation does not name, the confidences its calibration error is measured on, and
//! the score files `testkit` makes of it holding the sums its scoring makes.

use serde_json::json;

use super::Probe;
use crate::kinds::{Record, TaskKind};
use crate::metrics::stats::{Stats, Sums};
use crate::sample::Sample;

/// A sample whose conversation names alpha, beta and gamma, and whose gold marks are
/// alpha and beta.
fn sample() -> Sample {
    crate::testkit::sample(
        crate::kinds::kind_of(&Probe),
        "Its marks are Alpha and beta; gamma is not one.",
        json!({"marks": ["alpha", "beta"]}),
    )
}

fn score(answer: serde_json::Value) -> Record {
    crate::testkit::scored(&Probe, &sample(), &answer.to_string())
}

fn value(name: &str, stats: &Stats) -> Option<f64> {
    let metric = Probe.metrics().iter().find(|m| m.name == name).unwrap();
    metric.value(stats)
}

#[test]
fn a_mark_the_conversation_does_not_name_flags_the_answer() {
    let named = score(json!({"marks": ["alpha", "GAMMA"]}));
    assert_eq!(
        ["probe.tp", "probe.fp", "probe.fn"].map(|k| named.stats.get(k)),
        [1.0, 1.0, 1.0]
    );
    assert_eq!(value("probe.flagged_rate", &named.stats), Some(0.0));
    let unnamed = score(json!({"marks": ["alpha", "beta", "delta"]}));
    assert_eq!(value("probe.flagged_rate", &unnamed.stats), Some(1.0));
    assert_eq!(value("probe.precision", &unnamed.stats), Some(2.0 / 3.0));
}

#[test]
fn confidences_are_calibrated_against_marks_all_right() {
    let right = score(json!({"marks": ["beta", "alpha"], "confidence": 0.9}));
    let wrong = score(json!({"marks": ["alpha"], "confidence": 0.9}));
    let ece = |records: &[&Record]| {
        let mut stats = Stats::default();
        for r in records {
            stats.merge(r.stats.clone());
        }
        value("probe.ece", &stats)
    };
    assert!((ece(&[&right]).unwrap() - 0.1).abs() < 1e-12);
    assert!((ece(&[&wrong]).unwrap() - 0.9).abs() < 1e-12);
    assert!((ece(&[&right, &wrong]).unwrap() - 0.4).abs() < 1e-12);
    // No confidence, or one outside [0, 1]: nothing to measure it on.
    for answer in [
        json!({"marks": ["alpha"]}),
        json!({"marks": [], "confidence": 2}),
    ] {
        let record = score(answer);
        assert_eq!(record.stats.get("probe.cal.n"), 0.0);
        assert_eq!(value("probe.ece", &record.stats), None);
    }
}

/// The score files tests of generic code are given hold what scoring the test kind makes:
/// the same sums (and a record) and the same primary score.
#[test]
fn the_test_kinds_score_files_hold_the_sums_its_scoring_makes() {
    let record = score(json!({"marks": ["alpha", "delta"]}));
    let file = crate::testkit::test_kind_file(&[(1.0, 1.0, 1.0, true)], "1");
    let mut expected = record.stats.clone();
    expected.add("run.records", 1.0);
    assert_eq!(file.samples[0].stats, expected);
    assert_eq!(file.samples[0].primary, record.primary);
    assert_eq!(file.metrics["probe.flagged_rate"].value, Some(1.0));
}
