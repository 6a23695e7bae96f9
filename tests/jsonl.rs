//! The jsonl protocol against real pipelines (`tests/pipelines/jsonl_*.py`): requests and
//! responses carry the repeat index, a response of the wrong shape fails its sample at
//! once, and a crash costs only the sample that caused it.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::pipelines::{python, run_with, suite};
use crate::support::project::run_lines;
use crate::support::TempDir;

#[test]
fn requests_and_responses_carry_the_repeat_index() {
    let dir = TempDir::new("jsonl-repeats");
    suite(&dir.0, 2);
    // The pipeline answers each batch of three requests in reverse order: only the repeat
    // in the response says which request an answer belongs to.
    let (out, _) = run_with(
        &dir.0,
        &python("jsonl_repeats.py", "3"),
        &["--mode", "jsonl", "--repeat", "3", "--jobs", "3"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records = run_lines(&dir.0.join("run.jsonl"));
    assert_eq!(records.len(), 6);
    for r in &records {
        assert!(r["error"].is_null(), "{r}");
        assert_eq!(r["prediction"]["answered_repeat"], r["repeat"], "{r}");
    }
}

#[test]
fn responses_without_a_repeat_still_work() {
    let dir = TempDir::new("jsonl-no-repeat");
    suite(&dir.0, 3);
    let (out, _) = run_with(
        &dir.0,
        &python("jsonl_echo.py", ""),
        &["--mode", "jsonl", "--repeat", "2", "--jobs", "6"],
    );
    assert_eq!(out.status.code(), Some(0));
    let records = run_lines(&dir.0.join("run.jsonl"));
    assert_eq!(records.len(), 6);
    for r in &records {
        assert!(r["error"].is_null(), "{r}");
        // The request line carries the repeat next to the sample's own keys.
        assert_eq!(
            r["prediction"]["keys"],
            serde_json::json!(["conversation", "domain", "id", "kind", "repeat"])
        );
    }
}

#[test]
fn a_response_of_the_wrong_shape_fails_its_sample_at_once() {
    let dir = TempDir::new("jsonl-shapes");
    suite(&dir.0, 6);
    let started = Instant::now();
    let (out, recs) = run_with(
        &dir.0,
        &python("jsonl_shapes.py", ""),
        &["--mode", "jsonl", "--jobs", "1", "--timeout", "8"],
    );
    assert!(
        started.elapsed() < Duration::from_secs(7),
        "samples waited out their timeout: {:?}",
        started.elapsed()
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "five of six calls failed: incomplete"
    );
    assert_eq!(recs.len(), 6);
    let expected = [
        ("s-0", "is not JSON: Sure! Here is the answer"),
        ("s-1", "has no `id`"),
        ("s-2", "for `s-2` (repeat 0) has no `output`"),
        ("s-3", "for `s-3` has a `repeat` that is not a whole number"),
        (
            "s-4",
            "answered `S-4-mangled`, which no request in flight is",
        ),
    ];
    for (id, why) in expected {
        let error = &recs[id]["error"];
        assert_eq!(error["kind"], "output", "{id}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(why), "{id}: {message}");
    }
    assert!(recs["s-5"]["error"].is_null(), "{}", recs["s-5"]);
    assert_eq!(recs["s-5"]["prediction"]["got_repeat"], 0);
}

#[test]
fn samples_in_flight_when_the_process_crashes_are_sent_again() {
    let dir = TempDir::new("jsonl-crash-once");
    suite(&dir.0, 5);
    let marker = dir.0.join("crashed");
    // The first process reads all five requests, answers none and exits.
    let args = format!("--crash-once {} --hold 5", marker.display());
    let (out, recs) = run_with(
        &dir.0,
        &python("jsonl_crash.py", &args),
        &["--mode", "jsonl", "--jobs", "5"],
    );
    assert!(marker.exists(), "the first process crashed");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(recs.len(), 5);
    for (id, r) in &recs {
        assert!(r["error"].is_null(), "{id}: {r}");
    }
}

#[test]
fn a_crash_costs_only_the_sample_that_causes_it() {
    let dir = TempDir::new("jsonl-poison");
    suite(&dir.0, 8);
    // A sequential pipeline, slow enough that the requests after s-3 are in flight when
    // s-3 kills it (every time).
    let (_, recs) = run_with(
        &dir.0,
        &python("jsonl_crash.py", "--poison s-3 --delay 0.2"),
        &["--mode", "jsonl", "--jobs", "5"],
    );
    assert_eq!(recs.len(), 8);
    let error = &recs["s-3"]["error"];
    assert_eq!(error["kind"], "exit");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("exited with code 1 while `s-3` (repeat 0) was in flight")
            && message.contains("sent again to a restarted process"),
        "{message}"
    );
    for (id, r) in &recs {
        if id != "s-3" {
            assert!(r["error"].is_null(), "{id}: {r}");
        }
    }
}

/// One stray log line on stdout costs at most the one request it can be pinned on (when
/// it is the only one in flight; with several in flight it fails nobody): blaming the
/// oldest failed a request whose answer was still coming, handed that answer to the next
/// request, and so on down the run (9 to 40 of 40 samples failed, differently each time).
#[test]
fn a_stray_line_never_fails_more_than_one_request() {
    let dir = TempDir::new("jsonl-stray");
    suite(&dir.0, 40);
    let (out, _) = run_with(
        &dir.0,
        &python("jsonl_stray.py", ""),
        &["--mode", "jsonl", "--jobs", "16"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let records = run_lines(&dir.0.join("run.jsonl"));
    let failed: Vec<&Value> = records.iter().filter(|r| !r["error"].is_null()).collect();
    assert!(failed.len() <= 1, "{failed:?}\n{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(records.len(), 40);
}
