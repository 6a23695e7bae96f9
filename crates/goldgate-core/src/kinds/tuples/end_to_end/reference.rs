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

/// `goldgate check` on an example project, its main answers or another recording replayed.
fn check_example(name: &str, replay: Option<&str>, dir: &Path) -> (i32, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let mut command = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    command
        .current_dir(dir)
        .arg("check")
        .arg("--config")
        .arg(root.join("goldgate.toml"))
        .arg("--out-dir")
        .arg(dir.join("out"));
    if let Some(file) = replay {
        command.arg("--replay").arg(root.join(file));
    }
    let output = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().unwrap_or(-1), text)
}

#[test]
fn the_tuple_examples_pass_on_main_and_their_candidates_fail_naming_what_broke() {
    let cases: [(&str, &[&str], &[&str]); 2] = [
        (
            "events",
            &["tuples.strict_f1", "tuples.relaxed_f1"],
            &["ev-002", "ev-004", "ev-007", "ev-012", "ev-013", "ev-016"],
        ),
        (
            "reviews",
            &[
                "tuples.strict_f1",
                "tuples.stage_break_rate",
                "tuples.stage_net_gain",
            ],
            &[
                "rv-003", "rv-004", "rv-007", "rv-009", "rv-010", "rv-020", "rv-023",
            ],
        ),
    ];
    for (name, failed, broken) in cases {
        let tmp = TempDir::new(&format!("tuples-{name}"));
        let (code, text) = check_example(name, None, &tmp.0);
        assert_eq!(code, 0, "{name} on main passes:\n{text}");
        let (code, text) = check_example(name, Some("answers/candidate.jsonl"), &tmp.0);
        assert_eq!(code, 1, "{name}'s candidate fails the gate:\n{text}");
        let headline = text
            .lines()
            .find(|l| l.starts_with("FAIL:"))
            .unwrap_or_default();
        for metric in failed {
            assert!(
                headline.contains(metric),
                "{name}: {metric} named in `{headline}`"
            );
        }
        let broken_line = text
            .lines()
            .find(|l| l.trim_start().starts_with("broken:"))
            .unwrap_or_default();
        for id in broken {
            assert!(
                broken_line.contains(id),
                "{name}: {id} named broken in `{broken_line}`"
            );
        }
    }
}

/// The rendered artefacts of a tuple example's failing gate: the PR comment, the terminal
/// verdict, the HTML report and JUnit XML, each snapshotted.
#[test]
fn the_tuple_examples_render_their_headline_diagnostics_and_aligned_diffs() {
    use goldgate::report::{html, junit, markdown, terminal};
    use goldgate_core::gate::verdict::Verdict;
    for name in ["events", "reviews"] {
        let tmp = TempDir::new(&format!("tuples-render-{name}"));
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        // No commit in the reports' run context: not the CI's, and the directory is no
        // repository.
        let output = Command::new(env!("CARGO_BIN_EXE_goldgate"))
            .current_dir(&tmp.0)
            .env("SOURCE_DATE_EPOCH", "0")
            .env_remove("GITHUB_SHA")
            .env_remove("GITHUB_REF")
            .args(["check", "--config"])
            .arg(root.join("goldgate.toml"))
            .arg("--replay")
            .arg(root.join("answers/candidate.jsonl"))
            .arg("--out-dir")
            .arg(tmp.0.join("out"))
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let read = |file: &str| std::fs::read_to_string(tmp.0.join("out").join(file)).unwrap();
        let verdict: Verdict = serde_json::from_str(&read("verdict.json")).unwrap();
        let score: goldgate_core::score::ScoreFile =
            serde_json::from_str(&read("score.json")).unwrap();
        let comment = markdown::comment(&verdict, "goldgate", None).unwrap();
        let page = html::report(&verdict, &score, None).unwrap();
        let mut settings = crate::snapshots::settings();
        settings.add_filter(r"sha256:[0-9a-f]{64}", "sha256:[HASH]");
        // The fingerprints' first digits, as the HTML report's run context shows them.
        settings.add_filter(r"sha256:[0-9a-f]{12}<", "sha256:[SHORT]<");
        settings.bind(|| {
            insta::assert_snapshot!(format!("tuples_{name}_comment"), comment);
            insta::assert_snapshot!(
                format!("tuples_{name}_verdict_text"),
                terminal::verdict(&verdict)
            );
            insta::assert_snapshot!(format!("tuples_{name}_report_html"), page);
            insta::assert_snapshot!(format!("tuples_{name}_junit"), junit::junit(&verdict));
        });
    }
}

#[test]
fn a_per_pointer_source_count_takes_bounds_and_no_regression() {
    let tmp = TempDir::new("tuples-pred-source");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/reviews");
    let rules = tmp.0.join("thresholds.toml");
    std::fs::write(
        &rules,
        "version = 1\n[defaults]\nmax_regression = 0.02\n\
         [metrics.\"tuples.pred_source[/tuples]\"]\nmax = 0\nseverity = \"warn\"\n\
         [metrics.\"tuples.pred_source[/final_tuples]\"]\nmin = 1\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .current_dir(&tmp.0)
        .args(["check", "--config"])
        .arg(root.join("goldgate.toml"))
        .arg("--thresholds")
        .arg(&rules)
        .arg("--out-dir")
        .arg(tmp.0.join("out"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(
        text.starts_with("WARN: tuples.pred_source[/tuples]"),
        "{text}"
    );
    let row = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_default()
            .to_string()
    };
    let fallback = row("tuples.pred_source[/tuples]");
    assert!(
        fallback.contains("≤ 0 ") && !fallback.contains('Δ'),
        "bounds only: {fallback}"
    );
    assert!(
        row("tuples.pred_source[/final_tuples]").contains("≥ 1"),
        "{text}"
    );
}
