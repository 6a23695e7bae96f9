//! Publishing to a fake GitHub REST API started here on 127.0.0.1: one sticky comment per
//! gate (created, then updated), other comments left alone, pagination past 100 comments,
//! a read-only token (403) that does not fail the gate, a 502 that is retried, and a token
//! that never shows in any output.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::support::mock_http::{MockServer, Response};
use crate::support::{check_example_in_actions, TempDir};

pub(crate) const TOKEN: &str = "ghs_fake_TOKEN_never_printed";
pub(crate) const MARKER: &str = "<!-- goldgate:goldgate -->";

#[derive(Default)]
pub(crate) struct State {
    pub(crate) comments: Vec<Value>,
    pub(crate) next_id: u64,
    /// (method, path, authorization)
    pub(crate) requests: Vec<(String, String, Option<String>)>,
    pub(crate) forbid_writes: bool,
    pub(crate) fail_next: Option<u16>,
    pub(crate) check_runs: Vec<Value>,
    /// Comment creates to apply and then answer 502 to (a write GitHub applied before the
    /// connection failed).
    pub(crate) apply_then_fail: u32,
    /// From the first request on, for this many seconds, every request is refused by the
    /// primary rate limit (403, `x-ratelimit-remaining: 0`, `x-ratelimit-reset`).
    pub(crate) rate_limit_secs: Option<u64>,
    /// When the rate limit resets (seconds since the epoch).
    pub(crate) rate_limited_until: Option<u64>,
    /// When the comment was created (seconds since the epoch).
    pub(crate) posted_at: Option<u64>,
    /// The next comment write is refused as too long (422).
    pub(crate) too_long_next: bool,
    /// Comment bodies of more bytes than this are refused as too long (422).
    pub(crate) max_body_bytes: Option<usize>,
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn too_long() -> (String, Vec<(String, String)>, Option<String>, Value) {
    (
        "422 Unprocessable Entity".into(),
        vec![],
        None,
        json!({"message": "Validation Failed", "errors": [{"resource": "IssueComment", "code": "custom", "field": "body", "message": "body is too long (maximum is 65536 characters)"}]}),
    )
}

pub(crate) struct FakeGitHub {
    pub(crate) port: u16,
    pub(crate) state: Arc<Mutex<State>>,
    _server: MockServer,
}

fn comment(id: u64, login: &str, kind: &str, body: &str) -> Value {
    json!({"id": id, "user": {"login": login, "type": kind}, "body": body})
}

pub(crate) fn start(comments: Vec<Value>) -> FakeGitHub {
    let next_id = comments
        .iter()
        .filter_map(|c| c["id"].as_u64())
        .max()
        .unwrap_or(0)
        + 1;
    let state = Arc::new(Mutex::new(State {
        comments,
        next_id,
        ..State::default()
    }));
    let shared = state.clone();
    let port = Arc::new(std::sync::OnceLock::new());
    let own_port = port.clone();
    let server = MockServer::start(move |request| {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let auth = request.header("authorization").map(String::from);
        let port = *own_port.get().unwrap();
        let (status, headers, link, reply) =
            route(&request.method, &request.target, &body, auth, port, &shared);
        let mut response = Response::json(&status, &reply);
        for (name, value) in headers {
            response = response.with_header(&name, &value);
        }
        match link {
            Some(link) => response.with_header("Link", &link),
            None => response,
        }
    });
    port.set(server.port).unwrap();
    FakeGitHub {
        port: server.port,
        state,
        _server: server,
    }
}

fn route(
    method: &str,
    target: &str,
    body: &Value,
    auth: Option<String>,
    port: u16,
    state: &Mutex<State>,
) -> (String, Vec<(String, String)>, Option<String>, Value) {
    let mut s = state.lock().unwrap();
    let path = target.split('?').next().unwrap().to_string();
    s.requests.push((method.into(), target.into(), auth));
    if let Some(secs) = s.rate_limit_secs.take() {
        s.rate_limited_until = Some(now_secs() + secs);
    }
    if let Some(until) = s.rate_limited_until.filter(|u| now_secs() < *u) {
        let headers = vec![
            ("x-ratelimit-remaining".to_string(), "0".to_string()),
            ("x-ratelimit-reset".to_string(), until.to_string()),
        ];
        let message = json!({"message": "API rate limit exceeded for installation ID 1."});
        return ("403 Forbidden".into(), headers, None, message);
    }
    if let Some(code) = s.fail_next.take() {
        return (
            format!("{code} Bad Gateway"),
            vec![],
            None,
            json!({"message": "upstream"}),
        );
    }
    let writes_comment = (method == "POST" && path == "/repos/o/r/issues/7/comments")
        || (method == "PATCH" && path.starts_with("/repos/o/r/issues/comments/"));
    let text = body["body"].as_str().unwrap_or("");
    let too_big = s.max_body_bytes.is_some_and(|max| text.len() > max);
    if writes_comment && !s.forbid_writes && (s.too_long_next || too_big) {
        s.too_long_next = false;
        return too_long();
    }
    if method == "POST" && path == "/repos/o/r/check-runs" {
        // GitHub's limit on a check run's summary, counted in bytes.
        if body["output"]["summary"].as_str().unwrap_or("").len() > 65_535 {
            return too_long();
        }
    }
    let (status, link, reply) = match (method, path.as_str()) {
        ("GET", "/user") => (
            "200 OK".into(),
            None,
            json!({"login": "goldgate-bot", "type": "Bot"}),
        ),
        ("GET", "/repos/o/r/issues/7/comments") => {
            let page: usize = target
                .split("page=")
                .nth(2)
                .or_else(|| target.split("&page=").nth(1))
                .and_then(|p| p.parse().ok())
                .unwrap_or(1);
            let chunk: Vec<Value> = s
                .comments
                .iter()
                .skip((page - 1) * 100)
                .take(100)
                .cloned()
                .collect();
            let link = (s.comments.len() > page * 100).then(|| format!("<http://127.0.0.1:{port}/repos/o/r/issues/7/comments?per_page=100&page={}>; rel=\"next\"", page + 1));
            ("200 OK".into(), link, Value::Array(chunk))
        }
        ("POST", "/repos/o/r/issues/7/comments") | ("PATCH", _) if s.forbid_writes => (
            "403 Forbidden".into(),
            None,
            json!({"message": "Resource not accessible by integration"}),
        ),
        ("POST", "/repos/o/r/check-runs") => {
            s.check_runs.push(body.clone());
            ("201 Created".into(), None, json!({"id": 99}))
        }
        ("POST", "/repos/o/r/issues/7/comments") => {
            let id = s.next_id;
            s.next_id += 1;
            let c = comment(
                id,
                "goldgate-bot",
                "Bot",
                body["body"].as_str().unwrap_or(""),
            );
            s.comments.push(c.clone());
            s.posted_at = Some(now_secs());
            if s.apply_then_fail > 0 {
                s.apply_then_fail -= 1;
                (
                    "502 Bad Gateway".into(),
                    None,
                    json!({"message": "upstream"}),
                )
            } else {
                ("201 Created".into(), None, c)
            }
        }
        ("PATCH", p) if p.starts_with("/repos/o/r/issues/comments/") => {
            let id: u64 = p.rsplit('/').next().unwrap().parse().unwrap();
            let c = s.comments.iter_mut().find(|c| c["id"] == id).unwrap();
            c["body"] = body["body"].clone();
            ("200 OK".into(), None, c.clone())
        }
        _ => (
            "404 Not Found".into(),
            None,
            json!({"message": "Not Found"}),
        ),
    };
    (status, vec![], link, reply)
}

fn check(dir: &Path, server: &FakeGitHub) -> std::process::Output {
    check_with(dir, server, &[])
}

fn check_with(dir: &Path, server: &FakeGitHub, extra: &[&str]) -> std::process::Output {
    check_env(dir, server, extra, &[])
}

/// `check` as in a pull request's workflow, with some variables set to `env`'s values.
fn check_env(
    dir: &Path,
    server: &FakeGitHub,
    extra: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    let root = env!("CARGO_MANIFEST_DIR");
    std::fs::write(
        dir.join("event.json"),
        r#"{"pull_request": {"number": 7, "head": {"sha": "abc123"}}}"#,
    )
    .unwrap();
    check_example_in_actions(
        dir,
        &format!("{root}/examples/requirements/thresholds.toml"),
    )
    .env(
        "GITHUB_API_URL",
        format!("http://127.0.0.1:{}", server.port),
    )
    .env("GITHUB_REPOSITORY", "o/r")
    .env("GITHUB_TOKEN", TOKEN)
    .env("GITHUB_EVENT_PATH", dir.join("event.json"))
    .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
    .env("GITHUB_OUTPUT", dir.join("output.txt"))
    .env("GOLDGATE_TEST_BACKOFF_MS", "10")
    .envs(env.iter().copied())
    .args(extra)
    .output()
    .unwrap()
}

fn no_token(out: &std::process::Output) {
    for text in [
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    ] {
        assert!(!text.contains(TOKEN), "the token leaked: {text}");
    }
}

#[test]
fn one_sticky_comment_is_created_then_updated_and_others_are_left_alone() {
    let others = vec![
        comment(
            1,
            "alice",
            "User",
            &format!("{MARKER}\nsomeone quoting our marker"),
        ),
        comment(
            2,
            "goldgate-bot",
            "Bot",
            "<!-- goldgate:nightly -->\nanother gate's comment",
        ),
    ];
    let server = start(others);
    let dir = TempDir::new("github-sticky");
    let out = check(&dir.0, &server);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("posted the goldgate comment on #7"));
    let out2 = check(&dir.0, &server);
    assert!(String::from_utf8_lossy(&out2.stderr).contains("updated the goldgate comment on #7"));
    no_token(&out);
    no_token(&out2);
    let s = server.state.lock().unwrap();
    assert_eq!(
        s.comments.len(),
        3,
        "one comment of ours, however often the gate runs"
    );
    assert_eq!(
        s.comments[0]["body"],
        format!("{MARKER}\nsomeone quoting our marker")
    );
    assert_eq!(
        s.comments[1]["body"],
        "<!-- goldgate:nightly -->\nanother gate's comment"
    );
    assert!(s.comments[2]["body"].as_str().unwrap().starts_with(MARKER));
    assert!(s
        .requests
        .iter()
        .all(|(_, _, auth)| auth.as_deref() == Some(&format!("Bearer {TOKEN}"))));
    assert_eq!(s.requests.iter().filter(|(m, _, _)| m == "POST").count(), 1);
    assert_eq!(
        s.requests.iter().filter(|(m, _, _)| m == "PATCH").count(),
        1
    );
}

#[test]
fn our_comment_is_found_past_the_first_page() {
    let mut comments: Vec<Value> = (1..=150)
        .map(|i| comment(i, "someone", "User", "lgtm"))
        .collect();
    comments[139] = comment(140, "goldgate-bot", "Bot", &format!("{MARKER}\nold report"));
    let server = start(comments);
    let dir = TempDir::new("github-pages");
    let out = check(&dir.0, &server);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("updated the goldgate comment on #7 (comment 140)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = server.state.lock().unwrap();
    assert!(
        s.requests
            .iter()
            .any(|(m, t, _)| m == "GET" && t.contains("page=2")),
        "the second page was read"
    );
    assert_eq!(s.requests.iter().filter(|(m, _, _)| m == "POST").count(), 0);
}

#[test]
fn a_read_only_token_does_not_fail_the_gate_and_explains_workflow_run() {
    let server = start(vec![]);
    server.state.lock().unwrap().forbid_writes = true;
    let dir = TempDir::new("github-403");
    let out = check(&dir.0, &server);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the verdict decides the exit code, not the comment"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("pull-requests: write")
            && stderr.contains("workflow_run")
            && stderr.contains("goldgate publish"),
        "{stderr}"
    );
    assert!(
        std::fs::read_to_string(dir.0.join("summary.md"))
            .unwrap()
            .starts_with(MARKER),
        "the report still reaches the job summary"
    );
    no_token(&out);
}

#[test]
fn a_502_is_retried() {
    let server = start(vec![]);
    server.state.lock().unwrap().fail_next = Some(502);
    let dir = TempDir::new("github-502");
    let out = check(&dir.0, &server);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("posted the goldgate comment"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = server.state.lock().unwrap();
    assert_eq!(s.comments.len(), 1);
    let lists = s
        .requests
        .iter()
        .filter(|(m, t, _)| m == "GET" && t.contains("/comments"))
        .count();
    assert_eq!(lists, 2, "the failed list request was tried again");
}

#[test]
fn a_check_run_goes_to_the_head_commit() {
    let server = start(vec![]);
    let dir = TempDir::new("github-check-run");
    let out = check_with(&dir.0, &server, &["--check-run"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("created check run 99 (success)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = server.state.lock().unwrap();
    let run = &s.check_runs[0];
    assert_eq!(
        (
            run["name"].as_str(),
            run["head_sha"].as_str(),
            run["status"].as_str(),
            run["conclusion"].as_str()
        ),
        (
            Some("goldgate"),
            Some("abc123"),
            Some("completed"),
            Some("success")
        )
    );
    assert!(run["output"]["summary"]
        .as_str()
        .unwrap()
        .starts_with(MARKER));
    no_token(&out);
}

/// A malformed environment is an input error, never a quiet "nothing to post": a
/// repository with path segments cannot steer a request elsewhere, the API must be
/// http(s), and an event file that is not JSON is not "not a pull request".
#[test]
fn malformed_github_variables_are_input_errors_and_send_nothing() {
    let dir = TempDir::new("github-bad-env");
    std::fs::write(dir.0.join("broken-event.json"), "{not json").unwrap();
    let broken = dir.0.join("broken-event.json");
    let cases: [(&str, &str, &str); 3] = [
        (
            "GITHUB_REPOSITORY",
            "o/r/../../../user",
            "is not `owner/name`",
        ),
        (
            "GITHUB_API_URL",
            "file:///etc/passwd",
            "is not an http(s) URL",
        ),
        (
            "GITHUB_EVENT_PATH",
            broken.to_str().unwrap(),
            "is not a JSON event",
        ),
    ];
    for (key, value, says) in cases {
        let server = start(vec![]);
        let out = check_env(&dir.0, &server, &[], &[(key, value)]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{key}: {stderr}");
        assert!(
            stderr.contains(key) && stderr.contains(says),
            "{key}: {stderr}"
        );
        assert!(!stderr.contains("no PR comment"), "{key}: {stderr}");
        assert!(
            server.state.lock().unwrap().requests.is_empty(),
            "{key}: a request was sent"
        );
        no_token(&out);
    }
}

/// A create GitHub applied before answering 502 is not repeated: the comments are listed
/// again first and the comment found there is ours (it used to be posted once per retry).
#[test]
fn a_create_github_applied_before_a_502_is_not_posted_twice() {
    let server = start(vec![]);
    server.state.lock().unwrap().apply_then_fail = 3;
    let dir = TempDir::new("github-applied-502");
    let out = check(&dir.0, &server);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("posted the goldgate comment on #7"),
        "{stderr}"
    );
    let s = server.state.lock().unwrap();
    assert_eq!(
        s.comments.len(),
        1,
        "one sticky comment, not one per attempt"
    );
    assert_eq!(
        s.requests.iter().filter(|(m, _, _)| m == "POST").count(),
        1,
        "the applied create was found by listing, not repeated"
    );
}

/// A primary rate limit (403, no requests left) is waited out until its reset, and the
/// comment is posted (it used to be reported as a permission problem).
#[test]
fn a_primary_rate_limit_is_waited_out_until_its_reset() {
    let server = start(vec![]);
    server.state.lock().unwrap().rate_limit_secs = Some(2);
    let dir = TempDir::new("github-rate-limit");
    let out = check(&dir.0, &server);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("posted the goldgate comment on #7"),
        "{stderr}"
    );
    assert!(!stderr.contains("pull-requests: write"), "{stderr}");
    let s = server.state.lock().unwrap();
    assert_eq!(s.comments.len(), 1);
    assert!(
        s.posted_at >= s.rate_limited_until,
        "posted after the reset"
    );
    let refused = s.requests.len() - 3; // the list, the login and the create got through
    assert!(
        refused <= 2,
        "the limit was waited out, not hammered: {:?}",
        s.requests
    );
}

/// A rate limit that resets later than goldgate waits fails at once as a rate limit, not as
/// a permission problem, and does not change the gate's exit code.
#[test]
fn a_rate_limit_beyond_the_bound_is_reported_as_a_rate_limit() {
    let server = start(vec![]);
    server.state.lock().unwrap().rate_limit_secs = Some(3600);
    let dir = TempDir::new("github-rate-limit-long");
    let started = std::time::Instant::now();
    let out = check_with(&dir.0, &server, &["--github-max-wait", "5"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("rate limit") && stderr.contains("--github-max-wait"),
        "{stderr}"
    );
    assert!(!stderr.contains("pull-requests: write"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert!(server.state.lock().unwrap().comments.is_empty());
    no_token(&out);
}

/// A 422 for the comment's size is tried once more, with the shorter rendering.
#[test]
fn a_comment_refused_as_too_long_is_sent_again_shorter() {
    let server = start(vec![]);
    server.state.lock().unwrap().too_long_next = true;
    let dir = TempDir::new("github-422");
    let out = check(&dir.0, &server);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("posted the goldgate comment on #7"),
        "{stderr}"
    );
    let s = server.state.lock().unwrap();
    assert_eq!(s.comments.len(), 1);
    let posts = s.requests.iter().filter(|(m, _, _)| m == "POST").count();
    assert_eq!(posts, 2, "once refused, once shorter");
    let body = s.comments[0]["body"].as_str().unwrap();
    assert!(body.starts_with(MARKER) && body.len() <= 65_535);
}
