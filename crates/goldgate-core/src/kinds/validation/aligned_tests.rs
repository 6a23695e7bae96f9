//! How a validation answer's diff lines up: by the pairs its scoring made.

use serde_json::{json, Value};

use super::Validation;
use crate::error::Location;
use crate::kinds::aligned::{Aligned, Paired};
use crate::kinds::{Parsed, TaskKind};
use crate::metrics::ScoringConfig;
use crate::parse::json::Json;
use crate::parse::parse_answer_as;
use crate::sample::{Difficulty, Message, Sample, Written};

/// A sample with one issue and one piece of personal data as its gold.
fn sample() -> Sample {
    Sample {
        id: "s".into(),
        kind: crate::kinds::kind_of(&Validation),
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
            "issues": [{"issue_type": "pii", "severity": "error", "field": "description"}],
            "pii": ["Jane Doe"]
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
    let gold = Validation.prepare(&sample, &cfg);
    let record = Validation.score(&sample, &gold, &answer, &cfg);
    Validation.aligned(&sample, parsed.value.as_ref(), &record.pairs)
}

/// Issues pair when of one type and field (their severities shown apart), personal data
/// when equal after `norm`.
#[test]
fn the_pairs_a_record_scored_line_its_diff_up() {
    let v = lined(
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
}
