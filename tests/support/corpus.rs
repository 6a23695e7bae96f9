//! The corpus JSON Schema validators are run on, as the tests build it: an instance (its
//! name, value and label), instances made from example files and edits of the first, the
//! example answers of one kind, and each kind's answer corpus (its folder's
//! `end_to_end/answer_corpus.rs`, which `build.rs` lists in `crate::kinds::answer_corpora`).

use std::path::PathBuf;

use serde_json::{json, Value};

use super::answers::{answer_text, sample_id};
use super::files_below;

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One kind's answer corpus: its instances (for `schemas/answer-KIND.schema.json`) and,
/// where the kind's schema states its compliance rules, goldgate's own judgement of an
/// answer (`None` for a schema that only describes what goldgate reads).
pub struct AnswerCorpus {
    pub kind: &'static str,
    pub instances: fn() -> Vec<Instance>,
    pub compliant: Option<fn(&Value) -> bool>,
}

/// One instance: its name, the value, and whether it is meant to be valid.
pub struct Instance {
    pub name: String,
    pub value: Value,
    pub valid: bool,
}

/// `base` with `value` set at the JSON pointer `at` (its parent must exist).
pub fn edited(base: &Value, at: &str, value: Value) -> Value {
    let mut out = base.clone();
    let (parent, key) = at.rsplit_once('/').unwrap();
    let key = key.replace("~1", "/").replace("~0", "~");
    match out.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.insert(key, value);
        }
        Some(Value::Array(items)) => items[key.parse::<usize>().unwrap()] = value,
        _ => panic!("cannot set {at} in {base}"),
    }
    out
}

/// An answer that is not an object: invalid for every answer schema.
pub fn a_number() -> Instance {
    Instance {
        name: "a-number".into(),
        value: json!(3),
        valid: false,
    }
}

/// The first `n` sample files of example project `project`, read as goldgate reads them.
pub fn sample_files(project: &str, n: usize) -> Vec<(String, Value)> {
    let dir = root().join("examples").join(project).join("suite");
    let paths: Vec<PathBuf> = files_below(&dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json"))
        .collect();
    paths
        .into_iter()
        .take(n)
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let name = p.strip_prefix(root()).unwrap().display().to_string();
            (
                name,
                goldgate_core::document::parse_yaml(&text).unwrap().value,
            )
        })
        .collect()
}

/// Answers of one kind in the example runs (`kind` as the run's samples have it).
pub fn answers_of(project: &str, run: &str, kind: &str, n: usize) -> Vec<(String, Value)> {
    let ids: std::collections::HashSet<String> = sample_files(project, usize::MAX)
        .into_iter()
        .filter(|(_, s)| s["kind"] == kind)
        .map(|(_, s)| s["id"].as_str().unwrap().to_string())
        .collect();
    let path = root().join("examples").join(project).join(run);
    let mut out = Vec::new();
    for (i, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
        let record: Value = serde_json::from_str(line).unwrap();
        let id = sample_id(&record).unwrap();
        let Some(text) = answer_text(&record) else {
            continue;
        };
        if !ids.contains(id) {
            continue;
        }
        if let Some(v) = goldgate_core::parse::parse_answer(&text).value {
            out.push((format!("examples/{project}/{run}:{}", i + 1), v));
        }
        if out.len() == n {
            break;
        }
    }
    assert!(
        !out.is_empty(),
        "no {kind} answers in examples/{project}/{run}"
    );
    out
}

/// `valid` instances from their sources, and the edits of the first: each
/// `[name, JSON pointer, value, valid]`.
pub fn set(valid: Vec<(String, Value)>, edits: Value) -> Vec<Instance> {
    let base = valid[0].1.clone();
    let mut out: Vec<Instance> = valid
        .into_iter()
        .map(|(name, value)| Instance {
            name,
            value,
            valid: true,
        })
        .collect();
    for edit in edits.as_array().unwrap() {
        let [name, at, value, valid] = edit.as_array().unwrap().as_slice() else {
            panic!("an edit is [name, pointer, value, valid]: {edit}");
        };
        out.push(Instance {
            name: name.as_str().unwrap().to_string(),
            value: edited(&base, at.as_str().unwrap(), value.clone()),
            valid: valid.as_bool().unwrap(),
        });
    }
    out
}
