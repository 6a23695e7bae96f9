//! Tuple-task metrics checked against an independent implementation: every case under
//! `tests/fixtures/tuples/cases/` (a suite with its task definitions, a run file and the
//! values `tests/fixtures/tuples/reference.py` computes from the definitions) is scored by
//! `goldgate score`, and every value — overall, per task and per tag, and the spread over
//! repeats — must equal the reference to 1e-9.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::TempDir;

const TOLERANCE: f64 = 1e-9;

fn score(case: &Path, out: &Path) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(["score", "--resamples", "0", "--suite"])
        .arg(case.join("suite"))
        .arg("--run")
        .arg(case.join("run.jsonl"))
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}: {}",
        case.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// Every expected value of one scope against the score file's aggregates there.
fn compare(case: &str, scope: &str, expected: &Value, actual: &Value, wrong: &mut Vec<String>) {
    for (name, want) in expected.as_object().unwrap() {
        let got = &actual[name]["value"];
        let same = match (want.as_f64(), got.as_f64()) {
            (Some(w), Some(g)) => (w - g).abs() <= TOLERANCE,
            (None, None) => want.is_null() && (got.is_null() || actual.get(name).is_none()),
            _ => false,
        };
        if !same {
            wrong.push(format!(
                "{case} {scope} {name}: reference {want}, goldgate {got}"
            ));
        }
    }
}

#[test]
fn every_tuple_metric_equals_the_reference_implementation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tuples/cases");
    let tmp = TempDir::new("tuples-reference");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 15, "the reference cases are there");
    let mut wrong = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap())
                .unwrap();
        let scored = score(case, &tmp.0.join(format!("{name}.json")));
        compare(
            &name,
            "all",
            &expected["metrics"],
            &scored["metrics"],
            &mut wrong,
        );
        for (dimension, groups) in expected["groups"].as_object().unwrap() {
            for (group, metrics) in groups.as_object().unwrap() {
                let actual = &scored["groups"][dimension][group];
                compare(
                    &name,
                    &format!("{dimension}:{group}"),
                    metrics,
                    actual,
                    &mut wrong,
                );
            }
        }
        if let Some(spread) = expected.get("spread").and_then(Value::as_object) {
            for (metric, want) in spread {
                for stat in ["mean", "std"] {
                    let got = &scored["metrics"][metric][stat];
                    let same = match (want[stat].as_f64(), got.as_f64()) {
                        (Some(w), Some(g)) => (w - g).abs() <= TOLERANCE,
                        (None, None) => true,
                        _ => false,
                    };
                    if !same {
                        wrong.push(format!(
                            "{name} spread {metric}.{stat}: reference {}, goldgate {got}",
                            want[stat]
                        ));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
