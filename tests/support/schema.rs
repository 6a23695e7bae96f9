//! The JSON Schemas of `schemas/`, compiled once, and checks of documents and written files
//! against them. A file goldgate writes is held to the strict form of its schema: every
//! object the schema describes with `properties` refuses a member it does not name, so a
//! field added to the code but not to the schema fails the tests.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde_json::{json, Value};

/// What a kind's code defines in the published sample schema, as its own folder says
/// (`end_to_end/schema_defs.rs`): the keys its reader knows of each object it reads (by
/// JSON pointer), and the values of each enum it compares after `norm` (by `$defs` name).
pub struct KindDefs {
    pub objects: Vec<(&'static str, BTreeSet<String>)>,
    pub enums: Vec<(&'static str, &'static [&'static str])>,
}

/// Where the schemas are.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

/// Every schema file's name.
pub fn schema_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".schema.json"))
        .collect();
    names.sort();
    names
}

/// A schema file as JSON.
pub fn load(name: &str) -> Value {
    let path = dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The schema with `unevaluatedProperties: false` on every object schema that names its
/// properties and says nothing about others.
pub fn strict(mut schema: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                let is_object = match map.get("type") {
                    Some(Value::String(t)) => t == "object",
                    Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                    _ => false,
                };
                let open = [
                    "additionalProperties",
                    "unevaluatedProperties",
                    "patternProperties",
                ]
                .iter()
                .all(|k| !map.contains_key(*k));
                if is_object && open && map.contains_key("properties") {
                    map.insert("unevaluatedProperties".into(), json!(false));
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut schema);
    schema
}

/// The compiled schema `name` (strict: see [`strict`]), built once per test binary.
fn validator(name: &str, strict_form: bool) -> &'static jsonschema::Validator {
    static BUILT: OnceLock<Mutex<HashMap<(String, bool), &'static jsonschema::Validator>>> =
        OnceLock::new();
    let mut built = BUILT.get_or_init(Mutex::default).lock().unwrap();
    built
        .entry((name.to_string(), strict_form))
        .or_insert_with(|| {
            let schema = match strict_form {
                true => strict(load(name)),
                false => load(name),
            };
            let v = jsonschema::draft202012::new(&schema)
                .unwrap_or_else(|e| panic!("schemas/{name} does not compile: {e}"));
            Box::leak(Box::new(v))
        })
}

/// Every way `value` breaks schema `name`, one line each (empty: it validates).
pub fn problems(name: &str, value: &Value, strict_form: bool) -> Vec<String> {
    validator(name, strict_form)
        .iter_errors(value)
        .map(|e| format!("at `{}`: {e}", e.instance_path()))
        .collect()
}

/// Check `value` (from `what`) against schema `name`, adding a failure per problem.
pub fn check(name: &str, value: &Value, strict_form: bool, what: &str, failures: &mut Vec<String>) {
    for p in problems(name, value, strict_form) {
        failures.push(format!("{what} against schemas/{name}: {p}"));
    }
}

/// A file goldgate wrote, checked against the strict form of its schema by what it is: a
/// run file (`*.jsonl`: every line), a score file or a verdict (by their `schema`). Other
/// files (reports, JUnit) have no schema and are skipped; returns whether it was checked.
pub fn check_written(path: &Path, failures: &mut Vec<String>) -> bool {
    let what = path.display().to_string();
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    if path.extension().is_some_and(|e| e == "jsonl") {
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            match serde_json::from_str::<Value>(line) {
                Ok(v) => check(
                    "run-record.schema.json",
                    &v,
                    true,
                    &format!("{what}:{}", i + 1),
                    failures,
                ),
                Err(e) => failures.push(format!("{what}:{}: not JSON: {e}", i + 1)),
            }
        }
        return true;
    }
    if path.extension().is_none_or(|e| e != "json") {
        return false;
    }
    let Ok(value) = serde_json::from_str::<Value>(&text) else {
        failures.push(format!("{what}: not JSON"));
        return true;
    };
    let name = match value.get("schema").and_then(Value::as_str) {
        Some("goldgate.score/1") => "score.schema.json",
        Some("goldgate.verdict/1") => "verdict.schema.json",
        _ => return false,
    };
    check(name, &value, true, &what, failures);
    true
}

/// The rule table of one metric in the thresholds schema: the bound its direction allows,
/// within the values the metric can take.
pub fn metric_rule(m: &goldgate_core::metrics::registry::Metric, percent: &Value) -> Value {
    use goldgate_core::metrics::registry::Direction;
    let (lo, hi) = m.range.bounds();
    let mut bound = json!({"type": "number", "minimum": lo});
    if let Some(hi) = hi {
        bound["maximum"] = json!(hi);
    }
    let range = m.range.describe();
    let unit = match m.unit {
        "" => String::new(),
        unit => format!(", in {unit}"),
    };
    let (direction, mut properties) = match m.direction {
        Direction::Higher => (
            "higher is better",
            json!({"max": false, "min": with(&bound, &format!("A floor (values: {range}{unit})."))}),
        ),
        Direction::Lower => (
            "lower is better",
            json!({"min": false, "max": with(&bound, &format!("A ceiling (values: {range}{unit})."))}),
        ),
        Direction::Neither => (
            "a count, better neither way: bounds only",
            json!({"max_regression": false, "max_increase": false, "max_drift": false, "min": with(&bound, &format!("A floor (values: {range})."))
            , "max": with(&bound, &format!("A ceiling (values: {range})."))}),
        ),
    };
    // A bounded metric's change is `max_regression`, in its own units; an unbounded one's is
    // `max_increase`, relative to the baseline.
    let other = match m.is_bounded() {
        true => "max_increase",
        false => "max_regression",
    };
    properties[other] = json!(false);
    // A drift budget of a metric without an upper bound is relative to the reference.
    if !m.is_bounded() && m.direction != Direction::Neither {
        properties["max_drift"] = json!({"type": "string", "pattern": percent, "description": "A drift budget relative to the reference value (`\"25%\"`): the metric has no upper bound."});
    }
    json!({"description": format!("{} ({direction}; values {range}).", m.about), "$ref": "#/$defs/rule", "properties": properties})
}

pub fn with(bound: &Value, description: &str) -> Value {
    let mut b = bound.clone();
    b["description"] = json!(description);
    b
}
