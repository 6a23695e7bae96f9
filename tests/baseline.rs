//! `goldgate baseline refresh` never stores a broken run: a run whose calls failed or whose
//! answers cannot be read is refused (exit 3) and the old baseline is left byte for byte; a
//! healthy run that already breaks an absolute rule is stored, with a warning.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::json;

use crate::support::{test_kind, TempDir};

/// A suite of `n` samples of the test kind with one gold mark each.
fn suite(dir: &Path, n: usize) {
    let root = dir.join("suite");
    std::fs::create_dir_all(&root).unwrap();
    let samples: Vec<_> = (0..n)
        .map(|i| test_kind::sample(&format!("s-{i}"), "Customers track orders.", &["orders"]))
        .collect();
    std::fs::write(root.join("samples.jsonl"), test_kind::lines(&samples)).unwrap();
}

/// Answers for `s-0` … `s-{n-1}`: the gold mark for the first `right`, none after.
fn answers(dir: &Path, n: usize, right: usize) {
    let lines: String = (0..n)
        .map(|i| {
            let output = test_kind::answer(if i < right { &["orders"] } else { &[] });
            json!({"id": format!("s-{i}"), "output": output}).to_string() + "\n"
        })
        .collect();
    std::fs::write(dir.join("answers.jsonl"), lines).unwrap();
}

fn refresh(dir: &Path, pipeline: &[&str]) -> Output {
    let mut args = vec!["baseline", "refresh", "--suite", "suite"];
    args.extend_from_slice(pipeline);
    // A refused refresh keeps its run in the temporary directory: make that one the test's.
    Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(&args)
        .env("TMPDIR", dir)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// A stored baseline of `n` samples, made by a healthy refresh; its bytes.
fn stored_baseline(dir: &Path, n: usize) -> Vec<u8> {
    answers(dir, n, n);
    let out = refresh(dir, &["--replay", "answers.jsonl"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(dir.join("baselines/main.json")).unwrap()
}

#[test]
fn a_refresh_whose_calls_fail_is_refused_and_the_old_baseline_kept() {
    let dir = TempDir::new("refresh-failing");
    suite(&dir.0, 6);
    let before = stored_baseline(&dir.0, 6);
    let run_before = std::fs::read(dir.0.join("baselines/main.run.jsonl")).unwrap();
    let out = refresh(&dir.0, &["--command", "exit 1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("the baseline was not changed")
            && stderr.contains("run.error_rate: 1.0000 is above the ceiling 0.1000"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("baseline written"));
    assert_eq!(
        std::fs::read(dir.0.join("baselines/main.json")).unwrap(),
        before,
        "the old baseline is byte for byte untouched"
    );
    assert_eq!(
        std::fs::read(dir.0.join("baselines/main.run.jsonl")).unwrap(),
        run_before
    );
}

#[test]
fn a_refresh_whose_answers_are_not_json_is_refused() {
    let dir = TempDir::new("refresh-prose");
    suite(&dir.0, 6);
    let before = stored_baseline(&dir.0, 6);
    let out = refresh(&dir.0, &["--command", "echo 'Here are the requirements.'"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("parse.no_json_rate: 1.0000 is above the ceiling"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(dir.0.join("baselines/main.json")).unwrap(),
        before
    );
}

#[test]
fn a_refresh_over_its_error_rule_is_refused_under_a_rules_file_too() {
    let dir = TempDir::new("refresh-rules-file");
    suite(&dir.0, 20);
    let before = stored_baseline(&dir.0, 20);
    // One failed call in twenty (5%): under the built-in 10% ceiling, over the file's 2%.
    std::fs::write(
        dir.0.join("thresholds.toml"),
        "version = 1\n[metrics.\"run.error_rate\"]\nmax = 0.02\n",
    )
    .unwrap();
    let answer = test_kind::answer(&[]);
    let command = format!("grep -q '\"s-0\"' && exit 1; echo '{answer}'");
    let out = refresh(&dir.0, &["--command", &command]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("run.error_rate: 0.0500 is above the ceiling 0.0200"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(dir.0.join("baselines/main.json")).unwrap(),
        before
    );
}

#[test]
fn a_healthy_refresh_under_a_floor_it_breaks_is_stored_with_a_warning() {
    let dir = TempDir::new("refresh-floor");
    suite(&dir.0, 6);
    answers(&dir.0, 6, 3);
    std::fs::write(
        dir.0.join("thresholds.toml"),
        format!(
            "version = 1\n[metrics.\"{}\"]\nmin = 0.8\n",
            test_kind::metric("recall")
        ),
    )
    .unwrap();
    let out = refresh(&dir.0, &["--replay", "answers.jsonl"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "warning: the new baseline already breaks 1 absolute rule(s) of thresholds.toml"
        ) && stderr.contains(&format!(
            "{}: 0.5000 is below the floor 0.8000",
            test_kind::metric("recall")
        )),
        "{stderr}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("baseline written to baselines/main.json")
    );
    assert!(dir.0.join("baselines/main.json").is_file());
}

/// A refresh runs in a temporary directory and removes it: what it prints names the files
/// it wrote (the baseline and the run kept beside it) and never the temporary run once it
/// is gone — neither after a stored baseline nor after a run refused for missing samples.
/// (It printed "wrote 4 records to <tmp>/goldgate-refresh-…/run.jsonl" either way, and
/// named the removed file again in the missing-samples error.)
#[test]
fn a_refresh_names_the_files_it_wrote_and_no_removed_temporary_run() {
    let dir = TempDir::new("names-of-written-files");
    suite(&dir.0, 4);
    answers(&dir.0, 4, 4);
    let out = refresh(&dir.0, &["--replay", "answers.jsonl"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let said = format!("{stdout}{stderr}");
    assert!(!said.contains("goldgate-refresh-"), "{said}");
    assert!(
        stderr.contains("wrote 4 records to baselines/main.run.jsonl (")
            && stdout.contains(
                "baseline written to baselines/main.json (4 samples, 4 records; its run to baselines/main.run.jsonl)"
            ),
        "{said}"
    );
    // One shard of two: samples without an answer, refused, and the temporary run removed
    // unnamed.
    let out = refresh(&dir.0, &["--replay", "answers.jsonl", "--shard", "1/2"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(
        said.contains("samples of suite have no answer: s-") && !said.contains("goldgate-refresh-"),
        "{said}"
    );
    let left: Vec<_> = std::fs::read_dir(&dir.0)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("goldgate-refresh-")
        })
        .collect();
    assert!(left.is_empty(), "the temporary run is removed");
}
