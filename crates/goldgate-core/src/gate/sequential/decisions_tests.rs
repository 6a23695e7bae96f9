//! The questions of a gate decided on samples as they come: a clear drop breaks a
//! regression early, a clear improvement holds every rule early, and a question across
//! strata is decided early only when every stratum agrees.

use crate::gate::sequential::decide::{Decisions, Outcome, Planned};
use crate::gate::sequential::questions::{keys, questions, DriftBasis};
use crate::rng::Rng;
use crate::score::ScoreFile;
use crate::testkit::{metric, parsed_test_kind_file, planned_test_kind, rules, test_kind};

const MAX_ITEMS: f64 = 20.0;

/// (tp, fp, fn) of `n` samples of 5 gold marks, each found with probability `p`.
fn counts(rng: &mut Rng, n: usize, p: f64) -> Vec<(f64, f64, f64, bool)> {
    (0..n)
        .map(|_| {
            let tp = (0..5)
                .filter(|_| (rng.below(1000) as f64) < p * 1000.0)
                .count();
            let fp = f64::from(u8::from(rng.below(4) == 0));
            (tp as f64, fp, (5 - tp) as f64, false)
        })
        .collect()
}

/// Feed `candidate`'s samples in order until every question is decided: the samples
/// seen and where each question stands.
fn decide(
    text: &str,
    baseline: &ScoreFile,
    candidate: &ScoreFile,
) -> (usize, Vec<(String, Outcome)>) {
    let decisions = decided(text, baseline, None, candidate);
    let outcomes = decisions
        .tracked()
        .iter()
        .map(|t| (t.question.describe(), t.outcome.clone()))
        .collect();
    (decisions.answered(), outcomes)
}

/// The decisions once `candidate`'s samples were fed in order until every question was
/// decided, against `baseline` and, with a drift budget, the pinned `reference`.
fn decided(
    text: &str,
    baseline: &ScoreFile,
    reference: Option<&ScoreFile>,
    candidate: &ScoreFile,
) -> Decisions {
    let kind = crate::kinds::kind_of(test_kind());
    let suite: std::collections::HashSet<String> =
        candidate.samples.iter().map(|s| s.id.clone()).collect();
    let drift = reference.map(|reference| DriftBasis {
        reference,
        suite: &suite,
    });
    let asked = questions(&rules(text), Some(baseline), drift, &[kind]);
    let keys = keys(&asked);
    let planned: Vec<Planned> = candidate
        .samples
        .iter()
        .map(|s| planned_test_kind(&s.id, "", 5.0, MAX_ITEMS, &keys))
        .collect();
    let partners = (Some(baseline), reference);
    let mut decisions = Decisions::new(asked, keys, planned, &[], partners);
    for sample in &candidate.samples {
        if decisions.all_decided() {
            break;
        }
        decisions.observe(sample);
    }
    decisions
}

fn rule() -> String {
    format!(
        "[metrics.\"{}\"]\nmin = 0.5\nmax_regression = 0.02\nrequire_significance = true\n",
        metric("f1")
    )
}

#[test]
fn a_clear_drop_breaks_the_regression_rule_early() {
    let mut rng = Rng::new(7);
    let baseline = parsed_test_kind_file(&counts(&mut rng, 400, 0.8));
    let candidate = parsed_test_kind_file(&counts(&mut rng, 400, 0.6));
    let (seen, outcomes) = decide(&rule(), &baseline, &candidate);
    let regression = outcomes.iter().find(|(q, _)| q.contains('Δ')).unwrap();
    assert_eq!(regression.1, Outcome::Breaks, "{outcomes:?}");
    assert!(seen < 200, "{seen} samples: {outcomes:?}");
}

#[test]
fn a_clear_improvement_holds_every_rule_early() {
    let mut rng = Rng::new(8);
    let baseline = parsed_test_kind_file(&counts(&mut rng, 400, 0.6));
    let candidate = parsed_test_kind_file(&counts(&mut rng, 400, 0.8));
    let (seen, outcomes) = decide(&rule(), &baseline, &candidate);
    assert!(
        outcomes.iter().all(|(_, o)| *o == Outcome::Holds),
        "{outcomes:?}"
    );
    assert!(seen < 200, "{seen} samples: {outcomes:?}");
}

/// A floor of 0.5 on a question whose samples are sent in two strata, `first` and
/// `second`, alternately, found with probabilities `p` and `q`: where it stands after
/// each half and at the end.
fn strata(p: f64, q: f64) -> Vec<Outcome> {
    let mut rng = Rng::new(11);
    let firsts = counts(&mut rng, 300, p);
    let seconds = counts(&mut rng, 300, q);
    let mixed: Vec<_> = firsts
        .iter()
        .zip(&seconds)
        .flat_map(|(a, b)| [*a, *b])
        .collect();
    let candidate = parsed_test_kind_file(&mixed);
    let kind = crate::kinds::kind_of(test_kind());
    let text = format!("[metrics.\"{}\"]\nmin = 0.5\n", metric("f1"));
    let asked: Vec<_> = questions(&rules(&text), None, None, &[kind])
        .into_iter()
        .filter(|q| q.metric.name == metric("f1"))
        .collect();
    let keys = keys(&asked);
    let planned = candidate
        .samples
        .iter()
        .enumerate()
        .map(|(i, s)| planned_test_kind(&s.id, ["first", "second"][i % 2], 5.0, MAX_ITEMS, &keys))
        .collect();
    let mut decisions = Decisions::new(asked, keys, planned, &[], (None, None));
    let mut seen = Vec::new();
    for (i, sample) in candidate.samples.iter().enumerate() {
        decisions.observe(sample);
        if i + 1 == 300 || i + 1 == 600 {
            seen.push(decisions.tracked()[0].outcome.clone());
        }
    }
    seen
}

#[test]
fn a_question_across_strata_is_decided_early_only_when_every_stratum_agrees() {
    // Both strata well above the floor: decided within the first half.
    assert_eq!(strata(0.9, 0.85), [Outcome::Holds, Outcome::Holds]);
    // One far above, one far below: the suite is above (F1 about 0.6), but no stratum
    // alone shows it; only the full suite does.
    assert_eq!(strata(0.95, 0.3), [Outcome::Open, Outcome::Holds]);
    // Both below: breaks early.
    assert_eq!(strata(0.15, 0.1), [Outcome::Breaks, Outcome::Breaks]);
}

/// A drift budget is a question against the pinned reference, on the samples the suite
/// shares with it: a pipeline far below the reference (though level with its baseline)
/// breaks it early; one above the reference holds it early; a reference that shares
/// no sample with the suite leaves it to the full check.
#[test]
fn a_drift_budget_is_decided_against_the_reference() {
    let text = format!(
        "[drift]\nreference = \"r.json\"\n[metrics.\"{}\"]\nmax_regression = 0.02\n",
        metric("f1")
    );
    let kind = crate::kinds::kind_of(test_kind());
    let mut rng = Rng::new(21);
    let reference = parsed_test_kind_file(&counts(&mut rng, 400, 0.8));
    for (p, expected) in [(0.6, Outcome::Breaks), (0.9, Outcome::Holds)] {
        let baseline = parsed_test_kind_file(&counts(&mut rng, 400, p));
        let candidate = parsed_test_kind_file(&counts(&mut rng, 400, p));
        let decisions = decided(&text, &baseline, Some(&reference), &candidate);
        let drift = decisions
            .tracked()
            .iter()
            .find(|t| t.question.describe().contains("drift"))
            .unwrap();
        assert_eq!(
            drift.outcome,
            expected,
            "p = {p}: {}",
            drift.question.describe()
        );
        // The budget is decided early; the unchanged baseline's regression takes longer.
        let at = drift.decided_at.unwrap();
        assert!(at < 250, "p = {p}: decided after {at}");
    }
    // A reference that shares none of the suite's samples cannot decide early: it waits.
    let other: std::collections::HashSet<String> = ["elsewhere".to_string()].into();
    let drift = Some(DriftBasis {
        reference: &reference,
        suite: &other,
    });
    let asked = questions(&rules(&text), Some(&reference), drift, &[kind]);
    let q = asked
        .iter()
        .find(|q| q.describe().contains("drift"))
        .unwrap();
    assert!(q.waits.is_some(), "{}", q.describe());
}
