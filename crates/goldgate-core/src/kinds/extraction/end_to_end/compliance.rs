//! `schema_compliance` explains itself and agrees with the published schemas: a sample whose
//! answer breaks a rule says, in the score file and in the diff of a broken sample, which
//! JSON pointer broke which constraint; `schemas/answer-extraction.schema.json` and
//! goldgate's compliance rules judge every answer alike (every example answer, the
//! documented ones, and variants that break each rule once); and every pattern of every
//! schema is in the subset of regular expressions that ajv, Python's `re` (`jsonschema`) and
//! `check-jsonschema` read alike. The extraction schema's constraints are made from the
//! rules (`SNAPSHOTS=overwrite` rewrites them). `tests/schema_corpus.rs` keeps the corpus
//! the three validators are run on (scripts/schema-validators.sh).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::answers::{answer_variants, compliant, compliant_requirement, example_answers};
use crate::schema_drift::settle;
use crate::support::project::goldgate;
use crate::support::schema::{dir, load, problems};
use crate::support::TempDir;

/// A suite of `n` extraction samples `s-0` … under `dir/suite`.
fn extraction_suite(dir: &Path, n: usize) -> PathBuf {
    let root = dir.join("suite");
    std::fs::create_dir_all(&root).unwrap();
    let lines: String = (0..n)
        .map(|i| extraction_sample(i, "Customers track orders.") + "\n")
        .collect();
    std::fs::write(root.join("samples.jsonl"), lines).unwrap();
    root
}

/// Sample `s-{i}` as one JSON line, its conversation saying `text`.
fn extraction_sample(i: usize, text: &str) -> String {
    json!({"id": format!("s-{i}"), "kind": "extraction",
        "conversation": [{"role": "user", "content": text}],
        "labels": {"requirements": [{"id": "REQ-001", "title": "Track orders", "type": "functional",
            "actor": "customer", "action": "track orders", "source_messages": [0]}]}})
    .to_string()
}

#[test]
fn a_non_compliant_sample_says_which_path_broke_which_constraint() {
    let dir = TempDir::new("compliance-score");
    extraction_suite(&dir.0, 2);
    let good = json!({"requirements": [compliant_requirement()]});
    let mut broken = compliant_requirement();
    broken["acceptance_criteria"] = json!(["lists orders"]);
    broken.as_object_mut().unwrap().remove("confidence");
    let lines = [
        json!({"id": "s-0", "output": good}),
        json!({"id": "s-1", "output": {"requirements": [broken]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.0.join("answers.jsonl"), text).unwrap();
    let out = goldgate(
        &dir.0,
        &[
            "score",
            "--suite",
            "suite",
            "--run",
            "answers.jsonl",
            "--output",
            "score.json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let score: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.join("score.json")).unwrap()).unwrap();
    let samples = score["samples"].as_array().unwrap();
    assert_eq!(samples[0]["id"], "s-0");
    assert!(
        samples[0].get("schema_violations").is_none(),
        "a compliant sample names none: {}",
        samples[0]
    );
    assert_eq!(
        samples[1]["schema_violations"],
        json!({"repeat": 0, "total": 2, "first": [
            {"path": "/requirements/0/acceptance_criteria", "constraint": "at least 2 items, found 1"},
            {"path": "/requirements/0/confidence", "constraint": "missing"},
        ]})
    );
    assert_eq!(samples[1]["metrics"]["extraction.schema_compliance"], 0.0);
    let mut failures = Vec::new();
    crate::support::schema::check_written(&dir.0.join("score.json"), &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What a pattern uses that the three validators do not read alike, if anything: Unicode
/// properties (`\p{…}`, which Python's `re` lacks), the shorthand classes (`\s`, `\d`, `\w`
/// and their negations, whose members differ between ECMA-262 and Python), word
/// boundaries, lookaround and backreferences, `.` (which line terminators it skips
/// differs), and `\A`, `\Z`, `\z` (not ECMA-262).
fn unportable(pattern: &str) -> Option<String> {
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    return Some("a trailing backslash".into());
                };
                if "pPsSdDwWbBAZz123456789k".contains(e) {
                    return Some(format!("`\\{e}`"));
                }
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '.' if !in_class => return Some("`.`".into()),
            '(' if !in_class && chars.peek() == Some(&'?') => {
                let mut look = chars.clone();
                look.next();
                if matches!(look.next(), Some('=' | '!' | '<')) {
                    return Some("lookaround".into());
                }
            }
            _ => {}
        }
    }
    None
}

/// The last starred item of a pattern's body (`[…]*` or `(…)*`), when it ends in one.
fn last_starred(body: &str) -> Option<&str> {
    let body = body.strip_suffix('*')?;
    let (open, close) = match body.chars().last()? {
        ']' => ('[', ']'),
        ')' => ('(', ')'),
        _ => return None,
    };
    let mut depth = 0;
    for (i, c) in body.char_indices().rev() {
        if body[..i].ends_with('\\') {
            continue;
        }
        if c == close {
            depth += 1;
        } else if c == open {
            depth -= 1;
            if depth == 0 {
                return Some(&body[i..]);
            }
        }
    }
    None
}

/// Whether a pattern ending in `$` reads alike in Python, whose `$` also matches before a
/// final line break: it does when the last thing before `$` is a starred item that takes a
/// line break (so a line break more keeps any match a match), or when the schema object
/// refuses line breaks (`not: {pattern: "\n"}`).
fn end_reads_alike(pattern: &str, node: &serde_json::Map<String, Value>) -> bool {
    let Some(body) = pattern.strip_suffix('$') else {
        return true;
    };
    let guarded = node.get("not").and_then(|n| n.get("pattern")) == Some(&json!("\\n"));
    let takes_newline = last_starred(body).is_some_and(|item| {
        regex::Regex::new(&format!("^(?:{item})$"))
            .unwrap_or_else(|e| panic!("{item}: {e}"))
            .is_match("\n")
    });
    guarded || takes_newline
}

fn patterns<'v>(
    v: &'v Value,
    at: &str,
    out: &mut Vec<(String, &'v str, &'v serde_json::Map<String, Value>)>,
) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(p)) = map.get("pattern") {
                out.push((at.to_string(), p, map));
            }
            for (k, child) in map {
                patterns(child, &format!("{at}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                patterns(child, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_schema_pattern_is_in_the_portable_subset() {
    let mut failures = Vec::new();
    let mut seen = 0;
    for name in crate::support::schema::schema_names() {
        let schema = load(&name);
        let mut found = Vec::new();
        patterns(&schema, "", &mut found);
        for (at, pattern, node) in found {
            seen += 1;
            if let Some(what) = unportable(pattern) {
                failures.push(format!("schemas/{name} at {at}: {pattern:?} uses {what}"));
            }
            if !end_reads_alike(pattern, node) {
                failures.push(format!("schemas/{name} at {at}: {pattern:?} ends in `$`, which Python's re also matches before a final line break: add `\"not\": {{\"pattern\": \"\\\\n\"}}` beside it, or end it with a starred class that takes a line break"));
            }
        }
    }
    assert!(
        seen > 20,
        "only {seen} patterns found in {}",
        dir().display()
    );
    // The checks catch what they are for.
    assert!(unportable(r"^[^\p{L}]$").is_some());
    assert!(unportable(r"\S").is_some());
    assert!(unportable(r"^a.b$").is_some());
    assert!(unportable(r"^a(?!b)").is_some());
    assert!(unportable(r"^[a.]+(?:x|y)[\x00-\x2F]$").is_none());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The published answer schema and goldgate's compliance rules judge every answer alike:
/// the example answers (some compliant, some not) and every variant that breaks a rule.
#[test]
fn the_answer_schema_is_the_compliance_rules() {
    let examples = example_answers();
    assert!(
        examples.len() > 50,
        "only {} example answers",
        examples.len()
    );
    let variants = answer_variants();
    let mut failures = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    for (what, answer) in examples.iter().chain(&variants) {
        let by_schema = problems("answer-extraction.schema.json", answer, false);
        let by_goldgate = compliant(answer);
        match by_goldgate {
            true => valid += 1,
            false => invalid += 1,
        }
        if by_schema.is_empty() != by_goldgate {
            failures.push(format!(
                "{what}: goldgate says {}, the schema {}: {answer}",
                if by_goldgate {
                    "compliant"
                } else {
                    "not compliant"
                },
                if by_schema.is_empty() {
                    "valid".to_string()
                } else {
                    format!("invalid ({})", by_schema.join("; "))
                },
            ));
        }
    }
    assert!(
        valid >= 10 && invalid >= 40,
        "{valid} compliant, {invalid} not"
    );
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The schema fragment of one compliance rule (its description is the schema's own).
fn rule_schema(rule: goldgate_core::kinds::extraction::compliance::Rule) -> Value {
    use goldgate_core::kinds::extraction::compliance::{Rule, MIN_CRITERIA};
    use goldgate_core::kinds::extraction::labels::enums;
    match rule {
        Rule::Id => {
            json!({"type": "string", "pattern": goldgate_core::metrics::DEFAULT_ID_PATTERN, "not": {"pattern": "\\n"}})
        }
        Rule::Text => json!({"type": "string", "minLength": 1}),
        Rule::AnyText => json!({"type": "string"}),
        Rule::TextOrNull => json!({"type": ["string", "null"]}),
        Rule::OneOf(values) if values == enums::REQUIREMENT_TYPE => {
            json!({"$ref": "#/$defs/requirementType"})
        }
        Rule::OneOf(values) if values == enums::PRIORITY => json!({"$ref": "#/$defs/priority"}),
        Rule::OneOf(values) => panic!("no definition in the schema for {values:?}"),
        Rule::Criteria => {
            json!({"type": "array", "minItems": MIN_CRITERIA, "items": {"type": "string"}})
        }
        Rule::Sources => json!({"type": "array", "items": {"type": "integer", "minimum": 0}}),
        Rule::Confidence => json!({"type": "number", "minimum": 0, "maximum": 1}),
    }
}

/// `fragment` with the description `old` has.
fn described(mut fragment: Value, old: Option<&Value>) -> Value {
    if let Some(d) = old.and_then(|o| o.get("description")) {
        fragment["description"] = d.clone();
    }
    fragment
}

/// The extraction answer schema states goldgate's compliance rules: each requirement field
/// with its rule, all of them required, and the optional `usage` object, made from the
/// rules themselves (`the_answer_schema_is_the_compliance_rules`, above, runs both on the
/// same answers).
#[test]
fn the_extraction_answer_schema_is_made_from_the_compliance_rules() {
    use goldgate_core::kinds::extraction::compliance::{FIELDS, USAGE_COUNTS};
    let name = "answer-extraction.schema.json";
    let before = load(name);
    let mut after = before.clone();
    let requirement = &mut after["$defs"]["requirement"];
    requirement["required"] = json!(FIELDS.iter().map(|(k, _)| *k).collect::<Vec<_>>());
    let old = requirement["properties"].clone();
    let properties: serde_json::Map<String, Value> = FIELDS
        .iter()
        .map(|(key, rule)| {
            (
                key.to_string(),
                described(rule_schema(*rule), old.get(*key)),
            )
        })
        .collect();
    requirement["properties"] = Value::Object(properties);
    let usage = &mut after["properties"]["usage"];
    let old = usage["properties"].clone();
    let mut properties: serde_json::Map<String, Value> = USAGE_COUNTS
        .iter()
        .map(|k| {
            (
                k.to_string(),
                described(json!({"type": "integer", "minimum": 0}), old.get(*k)),
            )
        })
        .collect();
    properties.insert(
        "cost_usd".into(),
        described(json!({"type": "number"}), old.get("cost_usd")),
    );
    usage["properties"] = Value::Object(properties);
    usage["type"] = json!("object");
    after["required"] = json!(["requirements"]);
    after["type"] = json!(["object", "array"]);
    let mut failures = Vec::new();
    settle(
        name,
        &before,
        &after,
        &["$defs/requirement".into(), "properties/usage".into()],
        &mut failures,
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
