//! `goldgate run` against real misbehaving pipelines (scripts in `tests/pipelines/`): every
//! sample gets a record saying what happened, nothing panics, and interrupted runs resume.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::project::git_repo;
use crate::support::{check_example_in_actions, TempDir};

fn script(name: &str) -> String {
    format!("sh {}/tests/pipelines/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A suite of `n` extraction samples `s-0` … with labels and annotations that must never
/// reach the pipeline.
pub(crate) fn suite(dir: &Path, n: usize) -> PathBuf {
    let root = dir.join("suite");
    std::fs::create_dir_all(&root).unwrap();
    let lines: String = (0..n)
        .map(|i| {
            json!({"id": format!("s-{i}"), "kind": "extraction", "domain": "shop",
                "conversation": [{"role": "user", "content": "Customers track orders."}],
                "labels": {"requirements": [{"id": "REQ-001", "title": "SECRET-GOLD-TITLE", "type": "functional",
                    "actor": "customer", "action": "track orders", "source_messages": [0]}]},
                "annotations": [{"annotator": "SECRET-ANNOTATOR"}]})
            .to_string()
                + "\n"
        })
        .collect();
    std::fs::write(root.join("samples.jsonl"), lines).unwrap();
    root
}

pub(crate) fn goldgate(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

pub(crate) fn records(path: &Path) -> BTreeMap<String, Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["sample_id"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

/// Wait (at most 20 s) until a run has appended `n` records to `partial`.
fn wait_for_records(partial: &Path, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(partial).map_or(0, |t| t.lines().count()) < n
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(crate) fn run_with(
    dir: &Path,
    pipeline: &str,
    extra: &[&str],
) -> (Output, BTreeMap<String, Value>) {
    let mut args = vec![
        "run",
        "--suite",
        "suite",
        "--output",
        "run.jsonl",
        "--command",
        pipeline,
    ];
    args.extend_from_slice(extra);
    let out = goldgate(dir, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let recs = if dir.join("run.jsonl").exists() {
        records(&dir.join("run.jsonl"))
    } else {
        BTreeMap::new()
    };
    (out, recs)
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
    let out = goldgate(&dir.0, &resume);
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
    let out = goldgate(&fresh.0, &args);
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

fn calls(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("calls.txt")).map_or(0, |t| t.lines().count())
}

fn counted(dir: &Path, extra: &[&str]) -> (Output, BTreeMap<String, Value>) {
    let mut args = vec![
        "run",
        "--suite",
        "suite",
        "--output",
        "run.jsonl",
        "--command",
    ];
    let command = script("count.sh");
    args.push(&command);
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(&args)
        .env("COUNT_FILE", dir.join("calls.txt"))
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&dir.join("run.jsonl"));
    (out, recs)
}

#[test]
fn an_unchanged_pipeline_costs_nothing_the_second_time() {
    let dir = TempDir::new("run-cache");
    suite(&dir.0, 5);
    std::fs::write(dir.0.join("prompt.txt"), "v1").unwrap();
    let fp = ["--fingerprint-file", "prompt.txt"];
    let (_, first) = counted(&dir.0, &fp);
    assert_eq!(calls(&dir.0), 5);
    assert!(first.values().all(|r| r["cached"] == false));
    let (out, second) = counted(&dir.0, &fp);
    assert_eq!(calls(&dir.0), 5, "a warm cache makes no calls");
    assert!(second.values().all(|r| r["cached"] == true));
    assert!(String::from_utf8_lossy(&out.stdout).contains("100% hit rate"));
    for (id, r) in &second {
        assert_eq!(r["raw_output"], first[id]["raw_output"]);
    }
    counted(&dir.0, &[&fp[..], &["--refresh-cache"]].concat());
    assert_eq!(calls(&dir.0), 10, "--refresh-cache calls again");
    counted(
        &dir.0,
        &[&fp[..], &["--no-cache", "--cache-dir", "other-cache"]].concat(),
    );
    assert_eq!(calls(&dir.0), 15, "--no-cache calls again");
    assert!(
        !dir.0.join("other-cache").exists(),
        "--no-cache writes nothing"
    );
    std::fs::write(dir.0.join("prompt.txt"), "v2").unwrap();
    counted(&dir.0, &fp);
    assert_eq!(
        calls(&dir.0),
        20,
        "editing a fingerprint file invalidates the cache"
    );
}

#[test]
fn repeats_are_separate_records_and_cache_entries() {
    let dir = TempDir::new("run-repeat");
    suite(&dir.0, 3);
    git_repo(&dir.0); // answers are keyed on the repository's content
    let (_, _) = counted(&dir.0, &["--repeat", "3"]);
    assert_eq!(calls(&dir.0), 9);
    let text = std::fs::read_to_string(dir.0.join("run.jsonl")).unwrap();
    let mut keys: Vec<(String, u64)> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| {
            (
                v["sample_id"].as_str().unwrap().to_string(),
                v["repeat"].as_u64().unwrap(),
            )
        })
        .collect();
    keys.sort();
    assert_eq!(keys.len(), 9);
    assert_eq!(
        keys[..3],
        [("s-0".into(), 0), ("s-0".into(), 1), ("s-0".into(), 2)]
    );
    counted(&dir.0, &["--repeat", "3"]);
    assert_eq!(calls(&dir.0), 9, "every repeat is cached under its own key");
}

#[test]
fn shards_are_disjoint_cover_the_suite_and_merge_back() {
    let dir = TempDir::new("run-shards");
    suite(&dir.0, 20);
    let mut all = Vec::new();
    for i in 1..=3 {
        let output = format!("shard-{i}.jsonl");
        let shard = format!("{i}/3");
        let out = goldgate(
            &dir.0,
            &[
                "run",
                "--suite",
                "suite",
                "--output",
                &output,
                "--shard",
                &shard,
                "--command",
                &script("count.sh"),
            ],
        );
        assert_eq!(out.status.code(), Some(0));
        all.extend(records(&dir.0.join(&output)).into_keys());
    }
    all.sort();
    let mut expected: Vec<String> = (0..20).map(|i| format!("s-{i}")).collect();
    expected.sort();
    assert_eq!(all, expected, "every sample in exactly one shard");

    let out = goldgate(
        &dir.0,
        &[
            "merge",
            "shard-1.jsonl",
            "shard-2.jsonl",
            "shard-3.jsonl",
            "--output",
            "run.jsonl",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(records(&dir.0.join("run.jsonl")).len(), 20);

    let out = goldgate(
        &dir.0,
        &[
            "merge",
            "shard-1.jsonl",
            "shard-1.jsonl",
            "--output",
            "twice.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is also at shard-1.jsonl:") && stderr.contains("hint:"),
        "{stderr}"
    );
    assert!(!dir.0.join("twice.jsonl").exists());

    let out = goldgate(
        &dir.0,
        &[
            "run",
            "--suite",
            "suite",
            "--output",
            "other.jsonl",
            "--shard",
            "1/3",
            "--model",
            "another",
            "--command",
            &script("count.sh"),
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let out = goldgate(
        &dir.0,
        &[
            "merge",
            "other.jsonl",
            "shard-2.jsonl",
            "--output",
            "mixed.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("comes from another pipeline"));
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

fn jsonl(extra: &str) -> String {
    format!(
        "python3 {}/tests/pipelines/jsonl_echo.py {extra}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn jsonl_mode_routes_answers_by_id_and_never_sends_labels() {
    let dir = TempDir::new("run-jsonl");
    suite(&dir.0, 30);
    let (out, recs) = run_with(&dir.0, &jsonl(""), &["--mode", "jsonl", "--jobs", "8"]);
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
    let (out, recs) = run_with(&dir.0, &jsonl("s-3"), &["--mode", "jsonl", "--jobs", "1"]);
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

#[test]
fn goldgate_toml_chooses_the_pipeline_and_flags_override_it() {
    let dir = TempDir::new("run-config");
    suite(&dir.0, 3);
    std::fs::create_dir_all(dir.0.join("prompts")).unwrap();
    std::fs::write(dir.0.join("prompts/system.txt"), "be precise").unwrap();
    let toml = format!(
        "[pipeline]\nkind = \"command\"\ncommand = \"{}\"\nmode = \"jsonl\"\nfingerprint_files = [\"prompts\"]\n\n[run]\njobs = 2\n",
        jsonl("")
    );
    std::fs::write(dir.0.join("goldgate.toml"), toml).unwrap();
    let out = goldgate(
        &dir.0,
        &["run", "--suite", "suite", "--output", "run.jsonl"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&dir.0.join("run.jsonl"));
    assert!(
        recs.values().all(|r| r["prediction"]["keys"].is_array()),
        "the jsonl pipeline from the file answered"
    );

    let echo = script("echo.sh");
    let out = goldgate(
        &dir.0,
        &[
            "run",
            "--suite",
            "suite",
            "--output",
            "flag.jsonl",
            "--command",
            &echo,
            "--mode",
            "oneshot",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let recs = records(&dir.0.join("flag.jsonl"));
    assert!(
        recs.values()
            .all(|r| r["prediction"]["conversation"].is_array()),
        "the flag's pipeline answered"
    );

    std::fs::write(
        dir.0.join("goldgate.toml"),
        "[pipeline]\nkind = \"command\"\ncomand = \"x\"\n",
    )
    .unwrap();
    let out = goldgate(&dir.0, &["run", "--suite", "suite"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("goldgate.toml:3") && stderr.contains("did you mean `command`?"),
        "{stderr}"
    );
}

#[test]
fn baseline_refresh_then_show_then_check_against_it() {
    let dir = TempDir::new("run-baseline");
    suite(&dir.0, 6);
    git_repo(&dir.0); // answers are keyed on the repository's content
    let count = script("count.sh");
    let out = goldgate(
        &dir.0,
        &[
            "baseline",
            "refresh",
            "--suite",
            "suite",
            "--command",
            &count,
            "--model",
            "m-1",
            "--repeat",
            "2",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("baseline written to baselines/main.json (6 samples, 12 records; its run to baselines/main.run.jsonl)"));
    let out = goldgate(&dir.0, &["baseline", "show"]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("model             m-1")
            && shown.contains("repeats           2")
            && shown.contains("extraction.f1"),
        "{shown}"
    );
    let out = goldgate(
        &dir.0,
        &[
            "check",
            "--suite",
            "suite",
            "--command",
            &count,
            "--model",
            "m-1",
            "--repeat",
            "2",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("PASS") && !stdout.contains("provenance changed"),
        "{stdout}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("100% hit rate"),
        "the check reuses the refresh's cache"
    );
    let verdict: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.0.join(".goldgate/out/verdict.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(verdict["verdict"], "pass");
    assert_eq!(verdict["samples"]["shared"], 6);
}

#[test]
fn inside_github_actions_check_writes_the_summary_outputs_and_annotations() {
    let dir = TempDir::new("run-actions");
    std::fs::write(dir.0.join("t.toml"), "version = 1\n[metrics.\"extraction.f1\"]\nmin = 0.99\n[metrics.\"validation.f1\"]\nmin = 0.99\nseverity = \"warn\"\n").unwrap();
    let (summary, output) = (dir.0.join("summary.md"), dir.0.join("output.txt"));
    let out = check_example_in_actions(&dir.0, "t.toml")
        .args(["--format", "json"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &output)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let verdict: Value = serde_json::from_slice(&out.stdout).expect("stdout stays pure JSON");
    assert_eq!(verdict["verdict"], "fail");
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(
        summary.starts_with("<!-- goldgate:goldgate -->") && summary.contains("**fail**"),
        "{summary}"
    );
    let output = std::fs::read_to_string(&output).unwrap();
    assert!(
        output.contains("verdict<<")
            && output.contains("\nfail\n")
            && output.contains("exit-code<<"),
        "{output}"
    );
    assert!(output.contains(".goldgate/out/verdict.json"), "{output}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("::error title=goldgate%3A extraction.f1::"),
        "{stderr}"
    );
    assert!(
        stderr.contains("::warning title=goldgate%3A validation.f1::"),
        "{stderr}"
    );
}

#[test]
fn a_hostile_answer_renders_harmless_in_the_comment_and_the_html() {
    let dir = TempDir::new("run-hostile");
    suite(&dir.0, 4);
    let good = json!({"requirements": [{"id": "REQ-001", "title": "SECRET-GOLD-TITLE", "type": "functional", "actor": "customer", "action": "track orders"}]});
    let hostile = "@octocat </details><script>alert(1)</script> ```";
    let bad = json!({"requirements": [{"id": "REQ-001", "title": hostile, "type": "functional", "actor": "customer", "action": hostile}]});
    let lines = |first: &Value| -> String {
        (0..4).map(|i| json!({"id": format!("s-{i}"), "output": if i == 0 { first.clone() } else { good.clone() }}).to_string() + "\n").collect()
    };
    std::fs::write(dir.0.join("base.jsonl"), lines(&good)).unwrap();
    std::fs::write(dir.0.join("cand.jsonl"), lines(&bad)).unwrap();
    let out = goldgate(
        &dir.0,
        &[
            "baseline",
            "refresh",
            "--suite",
            "suite",
            "--replay",
            "base.jsonl",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        dir.0.join("baselines/main.run.jsonl").is_file(),
        "the baseline's run is kept beside it"
    );
    let out = goldgate(
        &dir.0,
        &[
            "check",
            "--suite",
            "suite",
            "--replay",
            "cand.jsonl",
            "--format",
            "markdown",
        ],
    );
    let body = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        body.contains("what changed") && body.contains("octocat"),
        "the broken sample's diff is shown\n{body}"
    );
    // Outside code blocks nothing is live: no mention, no tag from the answer.
    let prose = outside_fences(&body);
    assert!(
        !prose.contains("octocat") && !prose.contains("<script") && !prose.contains("```"),
        "{prose}"
    );
    assert_eq!(
        prose.matches("<details>").count(),
        prose.matches("</details>").count(),
        "details stay balanced"
    );
    // Inside, the answer's ``` cannot close the diffs' longer fences.
    assert!(
        body.lines()
            .filter(|l| l.starts_with("```") && l.ends_with("diff"))
            .all(|l| l.starts_with("````")),
        "{body}"
    );
    let out = goldgate(
        &dir.0,
        &[
            "check",
            "--suite",
            "suite",
            "--replay",
            "cand.jsonl",
            "--format",
            "html",
        ],
    );
    let html = String::from_utf8_lossy(&out.stdout);
    assert!(
        html.contains("what changed") && html.contains("&lt;script&gt;alert(1)"),
        "shown, escaped"
    );
    // The report's own script only, and every fold closed where the report closes it.
    assert_eq!(html.matches("<script").count(), 1, "{html}");
    assert!(html.contains(&format!(
        "<script>{}</script>",
        goldgate::report::html::REPORT_SCRIPT
    )));
    assert_eq!(
        html.matches("<details").count(),
        html.matches("</details>").count(),
        "no early close:\n{html}"
    );
    for (i, _) in html.match_indices("</details><") {
        assert!(
            html[i..].starts_with("</details></li>"),
            "only a trace's call ends its list item: {}",
            &html[i..html.len().min(i + 60)]
        );
    }
}

/// Markdown with its fenced code blocks removed (a fence closes on a line that starts with
/// at least as many backticks as opened it).
fn outside_fences(markdown: &str) -> String {
    let mut out = String::new();
    let mut open: Option<usize> = None;
    for line in markdown.lines() {
        let ticks = line.trim_start().chars().take_while(|c| *c == '`').count();
        match open {
            None if ticks >= 3 => open = Some(ticks),
            None => {
                out.push_str(line);
                out.push('\n');
            }
            Some(n) if ticks >= n && line.trim().chars().all(|c| c == '`') => open = None,
            Some(_) => {}
        }
    }
    out
}

/// Job files the runner cannot take (here: directories) are reported as warnings and never
/// change the gate's exit code, whichever way the gate went.
#[test]
fn unwritable_job_files_are_reported_and_keep_the_gates_exit_code() {
    let dir = TempDir::new("run-actions-unwritable");
    std::fs::write(
        dir.0.join("pass.toml"),
        "version = 1\n[metrics.\"extraction.f1\"]\nmin = 0.1\n",
    )
    .unwrap();
    std::fs::write(
        dir.0.join("fail.toml"),
        "version = 1\n[metrics.\"extraction.f1\"]\nmin = 0.99\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.0.join("a-directory")).unwrap();
    for (rules, code) in [("pass.toml", 0), ("fail.toml", 1)] {
        let out = check_example_in_actions(&dir.0, rules)
            .env("GITHUB_STEP_SUMMARY", dir.0.join("a-directory"))
            .env("GITHUB_OUTPUT", dir.0.join("a-directory"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{rules}: {stderr}");
        assert!(
            stderr.contains("warning: job summary (GITHUB_STEP_SUMMARY):"),
            "{stderr}"
        );
        assert!(
            stderr.contains("warning: step outputs (GITHUB_OUTPUT):"),
            "{stderr}"
        );
        assert!(
            stderr.contains("::warning title=goldgate%3A job file not written::"),
            "{stderr}"
        );
    }
}

/// A command from `--config some/dir/goldgate.toml` runs in that file's directory, so a
/// relative `python3 pipeline.py` works from anywhere (`check` too); `workdir` moves it.
#[test]
fn a_command_from_goldgate_toml_runs_in_the_files_directory() {
    let dir = TempDir::new("run-config-dir");
    suite(&dir.0, 3);
    let project = dir.0.join("project/ci");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("pipeline.py"),
        "import json, os, sys\nrequest = json.load(sys.stdin)\nprint(json.dumps({\"requirements\": [], \"cwd\": os.getcwd()}))\n",
    )
    .unwrap();
    std::fs::write(
        project.join("goldgate.toml"),
        "[pipeline]\nkind = \"command\"\ncommand = \"python3 pipeline.py\"\n\n[check]\nsuite = \"../../suite\"\n",
    )
    .unwrap();
    let elsewhere = dir.0.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let out = goldgate(
        &elsewhere,
        &[
            "run",
            "--config",
            "../project/ci/goldgate.toml",
            "--suite",
            "../suite",
            "--output",
            "run.jsonl",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&elsewhere.join("run.jsonl"));
    let ci = project.canonicalize().unwrap();
    for r in recs.values() {
        assert!(r["error"].is_null(), "{r}");
        assert_eq!(Path::new(r["prediction"]["cwd"].as_str().unwrap()), ci);
    }
    let out = goldgate(
        &elsewhere,
        &[
            "check",
            "--config",
            "../project/ci/goldgate.toml",
            "--out-dir",
            "out",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `workdir` (relative to the file) moves the command. (Editing goldgate.toml is a
    // change of the pipeline the cache cannot see by itself: --no-cache.)
    std::fs::rename(
        project.join("pipeline.py"),
        dir.0.join("project/pipeline.py"),
    )
    .unwrap();
    let toml = std::fs::read_to_string(project.join("goldgate.toml")).unwrap();
    std::fs::write(
        project.join("goldgate.toml"),
        toml.replace("[check]", "workdir = \"..\"\n\n[check]"),
    )
    .unwrap();
    let out = goldgate(
        &elsewhere,
        &[
            "run",
            "--config",
            "../project/ci/goldgate.toml",
            "--suite",
            "../suite",
            "--output",
            "up.jsonl",
            "--no-cache",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let up = dir.0.join("project").canonicalize().unwrap();
    for r in records(&elsewhere.join("up.jsonl")).values() {
        assert_eq!(
            Path::new(r["prediction"]["cwd"].as_str().unwrap()),
            up,
            "{r}"
        );
    }
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
