//! Scoring inference samples through the library: relevance by necessity, false
//! inferences and calibration, checked by hand.

use serde_json::json;

use crate::kinds::extraction::scoring::req;
use crate::support::scoring::{conversation, run, value};

#[test]
fn inference_relevance_by_necessity() {
    let inferred = |id: &str, title: &str, necessity: &str| json!({"requirement": req(id, title, "security", "system", &format!("{title} for every login"), &[0]), "inference_type": "security", "necessity": necessity});
    let sample = json!({"id": "i", "kind": "inference", "domain": "bank", "conversation": conversation(1),
        "labels": {"inferred_requirements": [inferred("REQ-101", "Two factor authentication", "necessary"), inferred("REQ-102", "Audit log", "optional")]}});
    let pred = |id: &str, title: &str, c: f64| json!({"requirement": req(id, title, "security", "system", &format!("{title} for every login"), &[0]), "confidence": c});
    let answer = json!({"inferred_requirements": [pred("X-1", "Two factor authentication", 0.9), pred("X-2", "Audit log", 0.8), pred("X-3", "Quantum encryption everywhere", 0.3)]});
    let file = run("inference", &[sample], &[("i", answer)]);
    // Scores 2 + 0 + 0 over 2·3.
    assert!((value(&file, "inference.relevance").unwrap() - 2.0 / 6.0).abs() < 1e-12);
    assert!((value(&file, "inference.false_inference_rate").unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(value(&file, "inference.recall"), Some(1.0));
    assert!(value(&file, "inference.ece").is_some());
}
