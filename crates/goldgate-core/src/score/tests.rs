//! Tests of scoring one sample: answers of every shape through the scorer (each kind's
//! folder tests how its diffs line up by the pairs its scoring made).

use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::sample::Kind;

fn sample(kind: Kind) -> Sample {
    crate::testkit::sample(
        kind,
        "the customer tracks orders",
        json!({
        "requirements": [{"id": "REQ-001", "title": "Track orders", "type": "functional", "actor": "customer",
                          "action": "track orders", "acceptance_criteria": ["a", "b"], "source_messages": [0]}],
        "inferred_requirements": [{"requirement": {"id": "REQ-101", "title": "Audit", "type": "security", "actor": "system",
                          "action": "log access"}, "inference_type": "security", "necessity": "necessary"}],
        "issues": [{"issue_type": "pii", "severity": "error", "field": "description"}],
        "pii": ["Jane Doe"]
        }),
    )
}

const KEYS: &[&str] = &[
    "requirements",
    "inferred_requirements",
    "issues",
    "pii",
    "srs_markdown",
    "id",
    "title",
    "type",
    "actor",
    "action",
    "condition",
    "acceptance_criteria",
    "source_messages",
    "confidence",
    "requirement",
    "issue_type",
    "field",
    "severity",
    "priority",
    "rationale",
    "necessity",
];

const WORDS: &[&str] = &["functional", "REQ-001", "customer", "pii", "# Scope", ""];

fn json_value() -> impl Strategy<Value = Value> {
    crate::parse::arbitrary::json_value(KEYS, WORDS, "[a-zA-Z0-9 #_-]{0,12}")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// Any answer, of any shape, scores without panicking into finite, in-range values.
    #[test]
    fn any_answer_scores_in_range(value in json_value(), wrap in 0..3usize, kind in 0..16usize, failed in any::<bool>()) {
        let kind = crate::kinds::all().nth(kind % crate::kinds::all().count()).unwrap();
        let body = value.to_string();
        let text = match wrap {
            0 => body,
            1 => format!("Here you go:\n```json\n{body}\n```"),
            _ => format!("{{{body},}}"),
        };
        let error = failed.then(|| crate::runfile::record::RecordError { kind: crate::runfile::record::ErrorKind::Exit, message: "x".into() });
        let answer = Answer { text, error, latency_ms: Some(5.0), ..Answer::default() };
        // Few items per answer, so that answers over the cap are among those tried.
        let cfg = ScoringConfig { max_items: 3, ..ScoringConfig::default() };
        let sample = sample(kind);
        let (score, runs, _) = score_sample(&sample, &[answer], &cfg, &mut Vec::new(), &mut Vec::new());
        // No record adds more to a count than the sequential gate assumed it could.
        for (key, v) in score.stats.iter() {
            let bound = kinds::bounds::record_bound(key, &sample, &cfg);
            prop_assert!(bound.is_none_or(|b| v <= b + 1e-9), "{} = {} over its bound {:?}", key, v, bound);
        }
        let mut scores = [score];
        let few = BootstrapConfig { resamples: 10, ..BootstrapConfig::default() };
        aggregate::aggregates(&mut scores, vec![runs], &few);
        let [score] = scores;
        prop_assert!(score.metrics.contains_key("run.error_rate"), "every sample has its metric values");
        prop_assert!((0.0..=1.0).contains(&score.primary), "primary {}", score.primary);
        if failed {
            prop_assert_eq!(score.primary, 0.0);
        }
        for (name, v) in &score.metrics {
            prop_assert!(v.is_finite(), "{} = {}", name, v);
            // Within the range the registry declares (thresholds hold bounds to it).
            let metric = kinds::find(name);
            prop_assert!(metric.is_none_or(|m| m.range.contains(*v)), "{} = {}", name, v);
        }
    }
}
