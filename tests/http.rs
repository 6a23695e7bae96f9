//! `goldgate run --http` against a fake pipeline server started here on 127.0.0.1:
//! retries honour `Retry-After`, a server that fails forever gives error records, and a
//! token passed through `${ENV}` never appears in run files, logs or messages.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::mock_http::{MockServer, Response};
use crate::support::pipelines::run_args;
use crate::support::project::goldgate;
use crate::support::{test_kind, TempDir};

const SECRET: &str = "tok-9f8e7d-SECRET";

/// What the server received: (path, authorization header, body) per request.
type Seen = Arc<Mutex<Vec<(String, Option<String>, String)>>>;

/// A fake pipeline server; stops when dropped.
struct FakeServer {
    port: u16,
    seen: Seen,
    _server: MockServer,
}

/// `/down` always fails (500), `/flaky` is rate limited once per sample (429 with
/// `Retry-After: 1`), `/check` wants the secret token; otherwise an empty answer.
fn start() -> FakeServer {
    let seen: Seen = Arc::default();
    let counts: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let recorded = seen.clone();
    let server = MockServer::start(move |request| {
        let path = request.target.clone();
        let auth = request.header("authorization").map(String::from);
        let body = String::from_utf8(request.body.clone()).unwrap();
        let id = serde_json::from_str::<Value>(&body)
            .ok()
            .and_then(|v| v["id"].as_str().map(str::to_string))
            .unwrap_or_default();
        recorded
            .lock()
            .unwrap()
            .push((path.clone(), auth.clone(), body));
        let attempt = {
            let mut c = counts.lock().unwrap();
            let n = c.entry(format!("{path}#{id}")).or_default();
            *n += 1;
            *n
        };
        let response = if path.starts_with("/down") {
            Response::new("500 Internal Server Error", "upstream exploded")
        } else if path.starts_with("/flaky") && attempt == 1 {
            Response::new("429 Too Many Requests", "slow down").with_header("Retry-After", "1")
        } else if path.starts_with("/check") && auth.as_deref() != Some(&format!("Bearer {SECRET}"))
        {
            Response::new("401 Unauthorized", "bad token")
        } else {
            Response::new("200 OK", "{\"marks\": []}")
        };
        response.with_header("Content-Type", "application/json")
    });
    FakeServer {
        port: server.port,
        seen,
        _server: server,
    }
}

/// `n` samples of the test kind whose gold (`GOLD-ONLY`) must never reach the pipeline.
fn suite(dir: &Path, n: usize) {
    std::fs::create_dir_all(dir.join("suite")).unwrap();
    let samples: Vec<Value> = (0..n)
        .map(|i| test_kind::sample(&format!("s-{i}"), "hi", &["GOLD-ONLY"]))
        .collect();
    std::fs::write(dir.join("suite/s.jsonl"), test_kind::lines(&samples)).unwrap();
}

fn run(dir: &Path, url: &str, extra: &[&str]) -> (std::process::Output, Vec<Value>) {
    let args = run_args(&[&["--http", url], extra].concat());
    let out = goldgate(dir, &args, &[("PIPELINE_TOKEN", SECRET)]);
    let records = std::fs::read_to_string(dir.join("run.jsonl"))
        .map(|t| {
            t.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        })
        .unwrap_or_default();
    (out, records)
}

fn assert_no_secret(dir: &Path, out: &std::process::Output) {
    let run = std::fs::read_to_string(dir.join("run.jsonl")).unwrap_or_default();
    for (what, text) in [
        ("run.jsonl", run),
        ("stdout", String::from_utf8_lossy(&out.stdout).into()),
        ("stderr", String::from_utf8_lossy(&out.stderr).into()),
    ] {
        assert!(
            !text.contains(SECRET),
            "the token leaked into {what}: {text}"
        );
    }
}

#[test]
fn headers_carry_the_token_which_never_leaks_and_labels_are_never_sent() {
    let server = start();
    let dir = TempDir::new("http-check");
    suite(&dir.0, 4);
    let url = format!("http://127.0.0.1:{}/check", server.port);
    let (out, records) = run(
        &dir.0,
        &url,
        &["--header", "Authorization: Bearer ${PIPELINE_TOKEN}"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(records.len(), 4);
    assert!(records
        .iter()
        .all(|r| r["error"].is_null() && r["parse"]["outcome"] == "raw"));
    for (_, auth, body) in server.seen.lock().unwrap().iter() {
        assert_eq!(auth.as_deref(), Some(format!("Bearer {SECRET}").as_str()));
        assert!(
            !body.contains("labels") && !body.contains("GOLD-ONLY"),
            "{body}"
        );
    }
    assert_no_secret(&dir.0, &out);
}

#[test]
fn a_secret_in_the_url_stays_out_of_error_messages() {
    let server = start();
    let dir = TempDir::new("http-url-secret");
    suite(&dir.0, 2);
    let url = format!(
        "http://127.0.0.1:{}/down?key=${{PIPELINE_TOKEN}}",
        server.port
    );
    let (out, records) = run(&dir.0, &url, &["--retries", "0"]);
    assert_eq!(out.status.code(), Some(3), "every call failed: incomplete");
    assert!(records.iter().all(|r| r["error"]["kind"] == "http"));
    assert!(records[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("${PIPELINE_TOKEN}"));
    assert_no_secret(&dir.0, &out);
    // The server did get the real key.
    assert!(server
        .seen
        .lock()
        .unwrap()
        .iter()
        .all(|(path, _, _)| path.contains(SECRET)));
}

#[test]
fn rate_limited_then_ok_honours_retry_after() {
    let server = start();
    let dir = TempDir::new("http-flaky");
    suite(&dir.0, 3);
    let started = Instant::now();
    let (out, records) = run(
        &dir.0,
        &format!("http://127.0.0.1:{}/flaky", server.port),
        &["--jobs", "3"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 was not honoured"
    );
    assert_eq!(records.len(), 3);
    assert!(records.iter().all(|r| r["error"].is_null()), "{records:?}");
    assert_eq!(
        server.seen.lock().unwrap().len(),
        6,
        "one 429 and one 200 per sample"
    );
}

#[test]
fn a_server_failing_forever_gives_error_records_after_the_retries() {
    let server = start();
    let dir = TempDir::new("http-down");
    suite(&dir.0, 2);
    let (out, records) = run(
        &dir.0,
        &format!("http://127.0.0.1:{}/down", server.port),
        &["--retries", "2", "--jobs", "2"],
    );
    assert_eq!(out.status.code(), Some(3), "every call failed: incomplete");
    assert_eq!(records.len(), 2);
    for r in &records {
        assert_eq!(r["error"]["kind"], "http");
        let message = r["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("500") && message.contains("after 3 attempts"),
            "{message}"
        );
    }
    assert_eq!(server.seen.lock().unwrap().len(), 6);
}

#[test]
fn an_unset_variable_is_a_usage_error_naming_it() {
    let dir = TempDir::new("http-unset");
    suite(&dir.0, 1);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args([
            "run",
            "--suite",
            "suite",
            "--http",
            "http://127.0.0.1:9/x",
            "--header",
            "X-Key: ${GOLDGATE_SURELY_UNSET}",
        ])
        .current_dir(&dir.0)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GOLDGATE_SURELY_UNSET"));
}

/// A server that refuses the pipeline's credentials: the run summary says how many calls
/// failed, and why, with the samples that hit it (a 401 was only in run.jsonl before).
#[test]
fn failed_calls_are_grouped_by_cause_in_the_run_summary() {
    let server = start();
    let dir = TempDir::new("http-401");
    suite(&dir.0, 6);
    let url = format!("http://127.0.0.1:{}/check", server.port);
    let (out, records) = run(&dir.0, &url, &["--retries", "0"]);
    assert!(records.iter().all(|r| r["error"]["kind"] == "http"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "6 calls failed — http: POST {url} answered 401 Unauthorized: bad token (6): s-0, s-1, s-2, s-3, s-4, …\n"
        )),
        "{stdout}"
    );
    assert_no_secret(&dir.0, &out);
}
