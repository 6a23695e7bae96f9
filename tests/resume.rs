//! `--resume` is safe: it refuses a partial run made by another pipeline or with another
//! repeat count, drops the records of samples that left the suite (or whose input changed),
//! and two runs never write one output at once: the second stops at once (exit 2).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::output::stderr;
use crate::support::pipelines::{calls, run_args, script};
use crate::support::project::{goldgate, run_lines, test_sample, test_suite};
use crate::support::TempDir;

/// `goldgate run` of the counting pipeline with `prompt.txt` as its fingerprint file.
fn run(dir: &Path, extra: &[&str]) -> std::process::Output {
    let command = script("count.sh");
    let fingerprint = ["--command", &command, "--fingerprint-file", "prompt.txt"];
    let args = run_args(&[&fingerprint[..], extra].concat());
    let count = dir.join("calls.txt");
    goldgate(dir, &args, &[("COUNT_FILE", count.to_str().unwrap())])
}

#[test]
fn resume_refuses_a_run_of_another_pipeline_or_repeat_count() {
    let dir = TempDir::new("resume-refuse");
    let d = &dir.0;
    test_suite(d, 4);
    std::fs::write(d.join("prompt.txt"), "v1").unwrap();
    assert_eq!(run(d, &[]).status.code(), Some(0));
    let before = std::fs::read_to_string(d.join("run.jsonl")).unwrap();
    // An interrupted run's partial file.
    std::fs::rename(d.join("run.jsonl"), d.join("run.jsonl.partial")).unwrap();

    std::fs::write(d.join("prompt.txt"), "v2").unwrap();
    let out = run(d, &["--resume"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(
        text.contains("cannot resume run.jsonl.partial")
            && text.contains("the pipeline changed")
            && text.contains("prompt.txt")
            && text.contains("hint:")
            && text.contains("without --resume"),
        "{text}"
    );
    assert_eq!(calls(d), 4, "nothing ran");
    assert_eq!(
        std::fs::read_to_string(d.join("run.jsonl.partial")).unwrap(),
        before
    );

    std::fs::write(d.join("prompt.txt"), "v1").unwrap();
    let out = run(d, &["--resume", "--repeat", "2"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(
        text.contains("1 repeat") && text.contains("--repeat 2") && text.contains("hint:"),
        "{text}"
    );
    assert_eq!(calls(d), 4);

    let out = run(d, &["--resume"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("resuming: 4 records already done, 0 to run"),
        "{}",
        stderr(&out)
    );
    assert_eq!(calls(d), 4);

    // A partial file from an older goldgate says nothing of its pipeline: refused too.
    let old: String = run_lines(&d.join("run.jsonl"))
        .into_iter()
        .map(|mut r| {
            let r = r.as_object_mut().unwrap();
            r.remove("provenance");
            r.remove("cache_key");
            Value::Object(r.clone()).to_string() + "\n"
        })
        .collect();
    std::fs::write(d.join("run.jsonl.partial"), old).unwrap();
    let out = run(d, &["--resume"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("older goldgate"), "{}", stderr(&out));
}

#[test]
fn resume_drops_the_records_of_samples_no_longer_in_the_suite() {
    let dir = TempDir::new("resume-drop");
    let d = &dir.0;
    test_suite(d, 5);
    std::fs::write(d.join("prompt.txt"), "v1").unwrap();
    assert_eq!(run(d, &[]).status.code(), Some(0));
    std::fs::rename(d.join("run.jsonl"), d.join("run.jsonl.partial")).unwrap();
    // s-3 and s-4 left the suite, s-1's input changed, s-5 is new.
    let suite: String = [
        test_sample(0, "Customers track orders."),
        test_sample(1, "Customers cancel orders."),
        test_sample(2, "Customers track orders."),
        test_sample(5, "Customers track orders."),
    ]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect();
    std::fs::write(d.join("suite/samples.jsonl"), suite).unwrap();

    let out = run(d, &["--resume"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(
        text.contains("the suite changed") && text.contains("dropped 3 records"),
        "{text}"
    );
    assert!(
        text.contains("resuming: 2 records already done, 2 to run"),
        "{text}"
    );
    assert_eq!(calls(d), 7, "s-1 and s-5 ran");
    let lines = run_lines(&d.join("run.jsonl"));
    assert_eq!(
        lines[0]["provenance"]["repeats"], 1,
        "the resumed file's first record says which run started it"
    );
    let mut ids: Vec<String> = lines
        .iter()
        .map(|r| r["sample_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    assert_eq!(ids, ["s-0", "s-1", "s-2", "s-5"]);
    let out = goldgate(d, &["score", "--suite", "suite", "--run", "run.jsonl"], &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the resumed file scores: {}",
        stderr(&out)
    );
}

/// Start a slow `check` in `dir` (2 samples at a time, 0.3 s each).
fn slow_check(dir: &Path, samples: usize) -> std::process::Child {
    test_suite(dir, samples);
    let slow = format!("sh {}/tests/pipelines/slow.sh", env!("CARGO_MANIFEST_DIR"));
    Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args([
            "check",
            "--suite",
            "suite",
            "--jobs",
            "1",
            "--command",
            &slow,
        ])
        .env("SLOW_SECONDS", "0.3")
        .env_remove("GITHUB_ACTIONS")
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_second_run_on_the_same_output_stops_at_once() {
    let dir = TempDir::new("resume-lock");
    let d = &dir.0;
    let mut first = slow_check(d, 8);
    let lock = d.join(".goldgate/out/run.jsonl.lock");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !d.join(".goldgate/out/run.jsonl.partial").exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(lock.is_file(), "the running check holds a lock");
    assert_eq!(
        std::fs::read_to_string(&lock).unwrap().trim(),
        first.id().to_string(),
        "the lock names its process"
    );

    let slow = format!("sh {}/tests/pipelines/slow.sh", env!("CARGO_MANIFEST_DIR"));
    let started = Instant::now();
    let second = goldgate(d, &["check", "--suite", "suite", "--command", &slow], &[]);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    let text = stderr(&second);
    assert!(
        text.contains("another goldgate")
            && text.contains(&format!("pid {}", first.id()))
            && text.contains(".goldgate/out/run.jsonl")
            && text.contains("hint:"),
        "{text}"
    );
    let status = first.wait().unwrap();
    assert!(
        status.code().is_some_and(|c| c != 2),
        "the first check went on: {status:?}"
    );
    assert!(!lock.exists(), "the lock is removed when the run ends");
    assert!(d.join(".goldgate/out/verdict.json").is_file());
}

#[test]
fn a_lock_left_by_a_dead_process_is_taken_over() {
    let dir = TempDir::new("resume-stale");
    let d = &dir.0;
    test_suite(d, 2);
    std::fs::write(d.join("prompt.txt"), "v1").unwrap();
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    std::fs::write(d.join("run.jsonl.lock"), format!("{}\n", gone.id())).unwrap();
    let out = run(d, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!d.join("run.jsonl.lock").exists());

    // A live process's lock is respected.
    std::fs::write(
        d.join("run.jsonl.lock"),
        format!("{}\n", std::process::id()),
    )
    .unwrap();
    let out = run(d, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("pid {}", std::process::id())));
    assert!(
        d.join("run.jsonl.lock").exists(),
        "someone else's lock is left alone"
    );
}
