//! `goldgate run` against real misbehaving pipelines (scripts in `tests/pipelines/`): every
//! sample gets a record saying what happened, nothing panics, interrupted runs resume, a
//! broken pipeline trips the circuit breaker, the jsonl mode routes answers by id, and the
//! calls keep to the rate limit. The cache, repeats and shards are in `run_cache`; the
//! pipeline from `goldgate.toml` and the gate around a run in `run_gate`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::pipelines::{python, records, run_with, script, suite};
use crate::support::project::goldgate;
use crate::support::TempDir;

/// Wait (at most 20 s) until a run has appended `n` records to `partial`.
fn wait_for_records(partial: &Path, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(partial).map_or(0, |t| t.lines().count()) < n
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_request_never_contains_labels_or_annotations() {
    let dir = TempDir::new("run-echo");
    suite(&dir.0, 3);
    let (out, recs) = run_with(&dir.0, &script("echo.sh"), &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(recs.len(), 3);
    for r in recs.values() {
        let raw = r["raw_output"].as_str().unwrap();
        assert!(
            !raw.contains("SECRET") && !raw.contains("labels") && !raw.contains("annotations"),
            "{raw}"
        );
        let request: Value = serde_json::from_str(raw).unwrap();
        assert_eq!(
            request["conversation"][0]["content"],
            "Customers track orders."
        );
        assert_eq!(r["parse"]["outcome"], "raw");
    }
}

#[test]
fn replay_sends_nothing_and_reports_missing_answers() {
    let dir = TempDir::new("run-replay");
    suite(&dir.0, 3);
    let answers = "{\"id\": \"s-0\", \"output\": {\"requirements\": []}}\n{\"id\": \"s-1\", \"output\": \"not json\"}\n";
    std::fs::write(dir.0.join("answers.jsonl"), answers).unwrap();
    let out = goldgate(
        &dir.0,
        &[
            "run",
            "--suite",
            "suite",
            "--output",
            "run.jsonl",
            "--replay",
            "answers.jsonl",
        ],
        &[],
    );
    // One of three samples has no answer: more failed calls than run.error_rate allows.
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&dir.0.join("run.jsonl"));
    assert_eq!(recs["s-0"]["parse"]["outcome"], "raw");
    assert_eq!(recs["s-1"]["parse"]["outcome"], "no_json_found");
    assert_eq!(recs["s-2"]["error"]["kind"], "missing");
}

#[test]
fn crashes_are_recorded_per_sample_with_stderr() {
    let dir = TempDir::new("run-crash");
    suite(&dir.0, 6);
    let (out, recs) = run_with(&dir.0, &script("crash_some.sh"), &[]);
    assert_eq!(out.status.code(), Some(3), "half the calls failed");
    assert_eq!(recs.len(), 6);
    for (id, r) in &recs {
        let even = id.ends_with(['0', '2', '4']);
        if even {
            assert_eq!(r["error"]["kind"], "exit", "{id}");
            assert!(r["error"]["message"].as_str().unwrap().contains("code 3"));
            assert!(r["stderr"].as_str().unwrap().contains("boom"));
        } else {
            assert!(r["error"].is_null(), "{id}");
        }
    }
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 failed"));
}

#[test]
fn a_hanging_pipeline_times_out_and_its_process_group_is_killed() {
    let dir = TempDir::new("run-hang");
    suite(&dir.0, 2);
    let pidfile = dir.0.join("grandchild.pid");
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args([
            "run",
            "--suite",
            "suite",
            "--output",
            "run.jsonl",
            "--timeout",
            "1",
            "--jobs",
            "2",
            "--command",
            &script("hang.sh"),
        ])
        .env("HANG_PIDFILE", &pidfile)
        .current_dir(&dir.0)
        .output()
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the run waited for the hang"
    );
    assert_eq!(out.status.code(), Some(3), "every call timed out");
    let recs = records(&dir.0.join("run.jsonl"));
    assert!(recs.values().all(|r| r["error"]["kind"] == "timeout"));
    // The grandchild (`sleep 300 &`) died with its group.
    std::thread::sleep(Duration::from_millis(200));
    let pid = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .to_string();
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap()
                .contains(") Z "),
        "grandchild {pid} still running"
    );
}

#[test]
fn garbage_huge_and_empty_answers_are_recorded() {
    for (name, check) in [
        ("not_json.sh", "no_json_found"),
        ("silent.sh", "no_json_found"),
        ("huge.sh", "output"),
    ] {
        let dir = TempDir::new(&format!("run-{name}"));
        suite(&dir.0, 2);
        let (out, recs) = run_with(&dir.0, &script(name), &[]);
        // An answer too large is a failed call; an answer without JSON is not.
        let code = if check == "output" { 3 } else { 0 };
        assert_eq!(out.status.code(), Some(code), "{name}");
        assert_eq!(recs.len(), 2, "{name}");
        for r in recs.values() {
            if check == "output" {
                assert_eq!(r["error"]["kind"], "output", "{name}");
                assert!(r["raw_output"].as_str().unwrap().is_empty());
            } else {
                assert_eq!(r["parse"]["outcome"], check, "{name}");
                assert!(r["error"].is_null(), "{name}");
            }
        }
    }
}

#[test]
fn an_interrupted_run_resumes_to_the_same_records() {
    let dir = TempDir::new("run-resume");
    suite(&dir.0, 24);
    let args = [
        "run",
        "--suite",
        "suite",
        "--output",
        "run.jsonl",
        "--jobs",
        "2",
        "--command",
        &script("slow.sh"),
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(args)
        .current_dir(&dir.0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let partial = dir.0.join("run.jsonl.partial");
    wait_for_records(&partial, 4);
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let before = std::fs::read_to_string(&partial).unwrap().lines().count();
    assert!(
        (4..24).contains(&before),
        "{before} records before the kill"
    );
    assert!(!dir.0.join("run.jsonl").exists());

    let mut resume = args.to_vec();
    resume.push("--resume");
    let out = goldgate(&dir.0, &resume, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("resuming"));
    let resumed = records(&dir.0.join("run.jsonl"));

    let fresh = TempDir::new("run-resume-fresh");
    suite(&fresh.0, 24);
    let out = goldgate(&fresh.0, &args, &[]);
    assert_eq!(out.status.code(), Some(0));
    let uninterrupted = records(&fresh.0.join("run.jsonl"));
    assert_eq!(
        resumed.keys().collect::<Vec<_>>(),
        uninterrupted.keys().collect::<Vec<_>>()
    );
    for (id, r) in &resumed {
        assert_eq!(r["raw_output"], uninterrupted[id]["raw_output"], "{id}");
    }
    let lines = std::fs::read_to_string(dir.0.join("run.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(lines, 24, "no duplicate records after resuming");
}

#[test]
fn sigint_stops_cleanly_with_exit_3_and_keeps_finished_records() {
    let dir = TempDir::new("run-sigint");
    suite(&dir.0, 30);
    let child = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args([
            "run",
            "--suite",
            "suite",
            "--output",
            "run.jsonl",
            "--jobs",
            "2",
            "--command",
            &script("slow.sh"),
        ])
        .current_dir(&dir.0)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let partial = dir.0.join("run.jsonl.partial");
    wait_for_records(&partial, 2);
    // SAFETY: sending SIGINT to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--resume") && !stderr.contains("panicked"),
        "{stderr}"
    );
    let kept = std::fs::read_to_string(&partial).unwrap();
    assert!(kept
        .lines()
        .all(|l| serde_json::from_str::<Value>(l).is_ok()));
}

#[test]
fn the_circuit_breaker_stops_a_broken_pipeline_with_exit_3() {
    let dir = TempDir::new("run-breaker");
    suite(&dir.0, 40);
    let (out, recs) = run_with(&dir.0, "exit 7", &["--max-errors", "3", "--jobs", "1"]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("stopped after 4 failed calls (--max-errors 3)")
            && stderr.contains("exited with code 7"),
        "{stderr}"
    );
    assert!(recs.is_empty(), "an incomplete run is not made final");
    let kept = std::fs::read_to_string(dir.0.join("run.jsonl.partial")).unwrap();
    assert_eq!(
        kept.lines().count(),
        4,
        "the finished records are kept for --resume"
    );
}

#[test]
fn jsonl_mode_routes_answers_by_id_and_never_sends_labels() {
    let dir = TempDir::new("run-jsonl");
    suite(&dir.0, 30);
    let (out, recs) = run_with(
        &dir.0,
        &python("jsonl_echo.py", ""),
        &["--mode", "jsonl", "--jobs", "8"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(recs.len(), 30);
    for r in recs.values() {
        assert!(r["error"].is_null(), "{r}");
        // The sample without its labels, and the repeat index the response carries back.
        let keys = &r["prediction"]["keys"];
        assert_eq!(
            keys,
            &json!(["conversation", "domain", "id", "kind", "repeat"])
        );
    }
}

#[test]
fn a_jsonl_process_that_dies_is_restarted_and_the_sample_recorded() {
    let dir = TempDir::new("run-jsonl-dies");
    suite(&dir.0, 6);
    let (out, recs) = run_with(
        &dir.0,
        &python("jsonl_echo.py", "s-3"),
        &["--mode", "jsonl", "--jobs", "1"],
    );
    assert_eq!(out.status.code(), Some(3), "one call in six failed");
    assert_eq!(recs.len(), 6);
    assert_eq!(recs["s-3"]["error"]["kind"], "exit");
    assert!(recs["s-3"]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("in flight"));
    for id in ["s-0", "s-1", "s-2", "s-4", "s-5"] {
        assert!(recs[id]["error"].is_null(), "{id}: {}", recs[id]);
    }
}

#[test]
fn requests_per_minute_space_the_calls() {
    let dir = TempDir::new("run-rpm");
    suite(&dir.0, 6);
    let started = Instant::now();
    let (out, recs) = run_with(
        &dir.0,
        &script("count.sh"),
        &["--rpm", "120", "--jobs", "6"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(recs.len(), 6);
    // 120 a minute is one every 0.5 s: six calls take at least 2.5 s however many run at once.
    assert!(
        started.elapsed() >= Duration::from_millis(2500),
        "{:?}",
        started.elapsed()
    );
}

/// `goldgate run` judges its failed calls by `run.error_rate`'s rule, as `check` does:
/// exit 3 beyond it (today every call could fail and `run` exited 0), 0 within it.
#[test]
fn run_exits_3_when_more_calls_fail_than_the_error_rule_allows() {
    let dir = TempDir::new("run-error-rule");
    suite(&dir.0, 10);
    let (out, _) = run_with(&dir.0, &script("crash_some.sh"), &[]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "5 of 10 fail: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // One sample in ten fails: within the built-in 10%.
    let (out, recs) = run_with(
        &dir.0,
        "case \"$(cat)\" in *'\"s-1\"'*) exit 9;; esac; echo '{}'",
        &[],
    );
    assert_eq!(recs.len(), 10);
    assert_eq!(
        out.status.code(),
        Some(0),
        "1 of 10 fails: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(
        dir.0.join("thresholds.toml"),
        "version = 1\n[metrics.\"run.error_rate\"]\nmax = 0.05\n",
    )
    .unwrap();
    let (out, _) = run_with(
        &dir.0,
        "case \"$(cat)\" in *'\"s-1\"'*) exit 9;; esac; echo '{}'",
        &["--no-cache"],
    );
    assert_eq!(out.status.code(), Some(3), "over the file's 5%");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 of 10 calls failed: run.error_rate 0.1000 is above the ceiling 0.0500 (the rule in thresholds.toml)"),
        "{stderr}"
    );
}
