//! Tests of scoring one sample: answers of every shape through the scorer, diffs lined up
//! by the pairs scoring made.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::error::Location;
use crate::sample::{Difficulty, Kind};
use crate::sample::{Labels, Message, Written};

fn sample(kind: Kind) -> Sample {
    let labels: Labels = crate::testkit::labels(json!({
        "requirements": [{"id": "REQ-001", "title": "Track orders", "type": "functional", "actor": "customer",
                          "action": "track orders", "acceptance_criteria": ["a", "b"], "source_messages": [0]}],
        "inferred_requirements": [{"requirement": {"id": "REQ-101", "title": "Audit", "type": "security", "actor": "system",
                          "action": "log access"}, "inference_type": "security", "necessity": "necessary"}],
        "issues": [{"issue_type": "pii", "severity": "error", "field": "description"}],
        "pii": ["Jane Doe"]
    }));
    Sample {
        id: "s".into(),
        kind,
        domain: "d".into(),
        difficulty: Difficulty::Medium,
        conversation: vec![Message {
            role: "user".into(),
            content: "the customer tracks orders".into(),
        }],
        user_input: None,
        reference_srs: None,
        task: None,
        text: None,
        tags: vec![],
        labels,
        annotations: vec![],
        discussion: vec![],
        review: None,
        written: Written::default(),
        origin: Location::file(std::path::Path::new("s.yaml")),
    }
}

/// A record's diff items are lined up by the pairs its scoring made: validation pairs
/// issues of one type and field (their severities shown apart) and personal data equal
/// after `norm`; inference pairs inferred requirements by similarity and shows each
/// gold item's necessity.
#[test]
fn the_pairs_a_record_scored_line_its_diff_up() {
    use crate::kinds::aligned::Paired;
    let lined = |kind: Kind, output: Value| {
        let answer = Answer {
            text: output.to_string(),
            ..Answer::default()
        };
        let (_, _, pairs) = score_sample(
            &sample(kind),
            &[answer],
            &ScoringConfig::default(),
            &mut Vec::new(),
            &mut Vec::new(),
        );
        let parsed = Json::parse_owned(&output.to_string()).unwrap();
        kinds::of(kind).aligned(&sample(kind), Some(&parsed), &pairs)
    };
    let v = lined(
        crate::kinds::named("validation").unwrap(),
        json!({"issues": [{"issue_type": "ambiguity", "field": "title", "severity": "minor"},
            {"issue_type": "PII", "field": "Description", "severity": "warning"}], "pii": ["Bob", "jane  DOE"]}),
    );
    assert_eq!(v.pairs, [Paired::exact(0, 1), Paired::exact(1, 3)]);
    assert_eq!(v.gold[0].text, "pii | description | error");
    assert_eq!(
        v.predicted[1].fields[2],
        ("severity".into(), "warning".into())
    );
    assert_eq!(v.gold[1].text, "pii: Jane Doe");
    let i = lined(
        crate::kinds::named("inference").unwrap(),
        json!({"inferred_requirements": [{"requirement": {"id": "INF-1", "title": "Audit log",
            "type": "security", "actor": "system", "action": "log every access"}}]}),
    );
    assert_eq!(
        (i.pairs.len(), i.pairs[0].gold, i.pairs[0].predicted),
        (1, 0, 0)
    );
    assert!(
        i.pairs[0].similarity.is_some_and(|s| s >= 0.6),
        "{:?}",
        i.pairs
    );
    assert_eq!(
        i.gold[0].text,
        "security | system | Audit: log access (necessary)"
    );
    assert_eq!(i.predicted[0].name, "INF-1");
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
    fn any_answer_scores_in_range(value in json_value(), wrap in 0..3usize, kind in 0..4usize, failed in any::<bool>()) {
        let kind = crate::kinds::all().nth(kind).unwrap();
        let body = value.to_string();
        let text = match wrap {
            0 => body,
            1 => format!("Here you go:\n```json\n{body}\n```"),
            _ => format!("{{{body},}}"),
        };
        let error = failed.then(|| crate::runfile::record::RecordError { kind: crate::runfile::record::ErrorKind::Exit, message: "x".into() });
        let answer = Answer { text, error, latency_ms: Some(5.0), ..Answer::default() };
        let (score, runs, _) = score_sample(&sample(kind), &[answer], &ScoringConfig::default(), &mut Vec::new(), &mut Vec::new());
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
