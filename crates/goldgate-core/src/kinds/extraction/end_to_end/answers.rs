//! Extraction answers for the tests of schema compliance (`compliance.rs`) and the answer
//! schema's corpus (`answer_corpus.rs`): a compliant requirement, every variant of it
//! that breaks one rule (or keeps them in an unusual spelling), every extraction answer of
//! the examples and the docs, and goldgate's own verdict on an answer.

use serde_json::{json, Value};

use crate::support::answers::{answer_text, sample_id};

/// A requirement that keeps every rule.
pub fn compliant_requirement() -> Value {
    json!({"id": "REQ-001", "title": "Track orders", "type": "functional", "actor": "customer",
        "action": "track orders", "condition": null, "acceptance_criteria": ["lists orders", "shows status"],
        "priority": "must", "source_messages": [0], "rationale": "asked for", "confidence": 0.9})
}

/// Whether goldgate counts `answer` as compliant, leaving out the range of source indexes
/// (the one rule that needs the sample's conversation, which no schema can state).
pub fn compliant(answer: &Value) -> bool {
    let json = goldgate_core::parse::json::Json::parse_owned(&answer.to_string()).unwrap();
    let cfg = goldgate_core::metrics::ScoringConfig::default();
    goldgate_core::kinds::extraction::compliance::check(Some(&json), None, &cfg).is_empty()
}

/// Every answer that breaks one rule of a compliant answer (or keeps them in an unusual
/// spelling), named: what schema and goldgate must judge alike.
pub fn answer_variants() -> Vec<(String, Value)> {
    use goldgate_core::kinds::extraction::compliance::FIELDS;
    let base = compliant_requirement();
    let wrap = |r: Value| json!({"requirements": [r]});
    let mut out = vec![
        ("compliant".to_string(), wrap(base.clone())),
        ("bare-list".into(), json!([base.clone()])),
        ("no-requirements".into(), json!({"reqs": [base.clone()]})),
        (
            "requirements-not-a-list".into(),
            json!({"requirements": base.clone()}),
        ),
        ("a-string".into(), json!("requirements")),
        ("null".into(), Value::Null),
        ("empty-list".into(), json!({"requirements": []})),
        (
            "requirement-not-an-object".into(),
            json!({"requirements": ["REQ-001"]}),
        ),
        (
            "extra-keys".into(),
            json!({"requirements": [base.clone()], "notes": "x"}),
        ),
        (
            "usage".into(),
            json!({"requirements": [], "usage": {"prompt_tokens": 10, "completion_tokens": 0, "total_tokens": 10.0, "cost_usd": 0.25}}),
        ),
        (
            "usage-not-an-object".into(),
            json!({"requirements": [], "usage": [1]}),
        ),
        (
            "usage-negative-tokens".into(),
            json!({"requirements": [], "usage": {"prompt_tokens": -1}}),
        ),
        (
            "usage-fractional-tokens".into(),
            json!({"requirements": [], "usage": {"completion_tokens": 1.5}}),
        ),
        (
            "usage-cost-as-text".into(),
            json!({"requirements": [], "usage": {"cost_usd": "0.1"}}),
        ),
        (
            "usage-null-cost".into(),
            json!({"requirements": [], "usage": {"cost_usd": null}}),
        ),
    ];
    for (key, _) in FIELDS {
        let mut r = base.clone();
        r.as_object_mut().unwrap().remove(key);
        out.push((format!("{key}-missing"), wrap(r)));
        let mut r = base.clone();
        r[key] = json!(true);
        out.push((format!("{key}-a-boolean"), wrap(r)));
    }
    let edits: Vec<(&str, &str, Value)> = vec![
        ("id", "other-prefix", json!("R-1")),
        ("id", "fr", json!("FR-01")),
        ("id", "short-number", json!("REQ-01")),
        ("id", "trailing-line-break", json!("REQ-001\n")),
        ("id", "trailing-space", json!("REQ-001 ")),
        ("id", "inside", json!("see REQ-001")),
        ("title", "empty", json!("")),
        ("title", "blank", json!(" ")),
        ("actor", "empty", json!("")),
        ("action", "empty", json!("")),
        ("type", "canonical", json!("non-functional")),
        ("type", "other-spelling", json!(" Non_Functional ")),
        ("type", "trailing-line-break", json!("functional\n")),
        ("type", "unknown", json!("feature")),
        ("type", "joined", json!("nonfunctional")),
        ("type", "unicode-separator", json!("non\u{2011}functional")),
        ("type", "accented", json!("é-functional")),
        ("type", "fullwidth", json!("ｆｕｎｃｔｉｏｎａｌ")),
        ("priority", "upper-case", json!("MUST")),
        ("priority", "unknown", json!("urgent")),
        ("condition", "text", json!("when logged in")),
        ("condition", "a-number", json!(1)),
        ("acceptance_criteria", "one", json!(["only"])),
        ("acceptance_criteria", "empty", json!([])),
        ("acceptance_criteria", "three", json!(["a", "b", "c"])),
        (
            "acceptance_criteria",
            "a-number-among-them",
            json!(["a", 2]),
        ),
        ("source_messages", "empty", json!([])),
        ("source_messages", "negative", json!([-1])),
        ("source_messages", "whole-float", json!([1.0])),
        ("source_messages", "fraction", json!([0.5])),
        ("source_messages", "huge", json!([1e300])),
        ("source_messages", "text", json!(["0"])),
        ("rationale", "empty", json!("")),
        ("confidence", "zero", json!(0)),
        ("confidence", "one", json!(1.0)),
        ("confidence", "above-one", json!(1.0000001)),
        ("confidence", "negative", json!(-0.1)),
        ("confidence", "text", json!("0.9")),
        ("confidence", "null", Value::Null),
    ];
    for (key, what, value) in edits {
        let mut r = base.clone();
        r[key] = value;
        out.push((format!("{key}-{what}"), wrap(r)));
    }
    out
}

/// Every answer of an extraction sample in the examples and the docs, parsed as goldgate
/// parses it, named by where it is.
pub fn example_answers() -> Vec<(String, Value)> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for project in ["requirements", "reviews"] {
        let base = root.join("examples").join(project);
        let mut kinds = std::collections::HashMap::new();
        for path in crate::support::files_below(&base.join("suite")) {
            if path
                .extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                let doc = goldgate_core::document::parse_yaml(&text).unwrap().value;
                kinds.insert(
                    doc["id"].as_str().unwrap_or_default().to_string(),
                    doc["kind"].as_str().unwrap_or_default().to_string(),
                );
            }
        }
        let mut files = Vec::new();
        for sub in ["answers", "baselines"] {
            for entry in std::fs::read_dir(base.join(sub)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "jsonl") {
                    files.push(path);
                }
            }
        }
        files.sort();
        for path in files {
            let what = path.strip_prefix(&root).unwrap().display().to_string();
            for (i, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
                let record: Value = serde_json::from_str(line).unwrap();
                let id = sample_id(&record).unwrap_or_default();
                if kinds.get(id).map(String::as_str) != Some("extraction")
                    || record.get("error").is_some_and(|e| !e.is_null())
                {
                    continue;
                }
                let Some(text) = answer_text(&record) else {
                    continue;
                };
                if let Some(answer) = goldgate_core::parse::parse_answer(&text).value {
                    out.push((format!("{what}:{}", i + 1), answer));
                }
            }
        }
    }
    let docs = std::fs::read_to_string(root.join("docs/pipelines.md")).unwrap();
    let section = docs
        .split("\n### ")
        .find(|s| s.starts_with("extraction\n"))
        .expect("docs/pipelines.md has a section on extraction answers");
    let section = section.split("\n## ").next().unwrap();
    for (i, block) in section.split("```json\n").skip(1).enumerate() {
        let body = block.split("```").next().unwrap();
        out.push((
            format!("docs/pipelines.md (extraction, answer {})", i + 1),
            serde_json::from_str(body).unwrap(),
        ));
    }
    out
}
