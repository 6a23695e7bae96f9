//! How an inference answer's diff lines up: by the pairs its scoring made.

use serde_json::{json, Value};

use super::Inference;
use crate::error::Location;
use crate::kinds::aligned::Aligned;
use crate::kinds::{Parsed, TaskKind};
use crate::metrics::ScoringConfig;
use crate::parse::json::Json;
use crate::parse::parse_answer_as;
use crate::sample::{Difficulty, Message, Sample, Written};

/// A sample with one requirement and one requirement inferred from it as its gold.
fn sample() -> Sample {
    Sample {
        id: "s".into(),
        kind: crate::kinds::kind_of(&Inference),
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
        labels: crate::testkit::labels(json!({
            "requirements": [{"id": "REQ-001", "title": "Track orders", "type": "functional", "actor": "customer",
                              "action": "track orders", "acceptance_criteria": ["a", "b"], "source_messages": [0]}],
            "inferred_requirements": [{"requirement": {"id": "REQ-101", "title": "Audit", "type": "security", "actor": "system",
                              "action": "log access"}, "inference_type": "security", "necessity": "necessary"}]
        })),
        annotations: vec![],
        discussion: vec![],
        review: None,
        written: Written::default(),
        origin: Location::file(std::path::Path::new("s.yaml")),
    }
}

/// The answer scored as the scorer scores a record, and its items lined up by the pairs
/// that scoring made.
fn lined(output: Value) -> Aligned {
    let (sample, cfg, text) = (sample(), ScoringConfig::default(), output.to_string());
    let parsed = parse_answer_as::<Json>(&text);
    let answer = Parsed {
        value: parsed.value.as_ref(),
        outcome: parsed.outcome,
        text: &text,
        region: parsed.region.as_ref(),
    };
    let gold = Inference.prepare(&sample, &cfg);
    let record = Inference.score(&sample, &gold, &answer, &cfg);
    Inference.aligned(&sample, parsed.value.as_ref(), &record.pairs)
}

/// Inferred requirements pair by similarity, and each gold item shows its necessity.
#[test]
fn the_pairs_a_record_scored_line_its_diff_up() {
    let i = lined(
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
