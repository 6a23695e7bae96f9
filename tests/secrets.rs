//! Secrets: a command pipeline never gets the CI's tokens (unless passed through), every
//! secret goldgate knows is `***` in everything it writes (run file, cache, score, verdict,
//! report, summary, JUnit, HTML, the PR comment, its own output), and an HTTP pipeline's
//! credentials never follow a redirect to another origin.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::support::mock_http::{MockServer, Response};
use crate::support::output::said;
use crate::support::pipelines::{python, records, suite};
use crate::support::{test_kind, TempDir};

const GITHUB_TOKEN: &str = "ghp_test0GITHUB0TOKEN0never0written";
const OTHER_TOKENS: [(&str, &str); 3] = [
    ("GH_TOKEN", "gho_test0GH0TOKEN0never0written"),
    ("ACTIONS_RUNTIME_TOKEN", "runtime0TOKEN0never0written"),
    (
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "idreq0TOKEN0never0written",
    ),
];

/// goldgate in `dir` with the CI's tokens (and `KEEP_ME`) in its environment.
fn goldgate(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    command
        .args(args)
        .current_dir(dir)
        .env("GITHUB_TOKEN", GITHUB_TOKEN)
        .env("KEEP_ME", "kept-value")
        .env("OTHER_VAR", "other-value");
    for (name, value) in OTHER_TOKENS {
        command.env(name, value);
    }
    command
}

/// Every file below `dir`, with its text.
fn files(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            let bytes = std::fs::read(&path).unwrap();
            out.push((path, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    out
}

fn assert_clean(what: &str, text: &str, secrets: &[&str]) {
    for secret in secrets {
        assert!(!text.contains(secret), "{what} holds {secret}:\n{text}");
    }
}

fn all_tokens() -> Vec<&'static str> {
    std::iter::once(GITHUB_TOKEN)
        .chain(OTHER_TOKENS.iter().map(|(_, v)| *v))
        .collect()
}

#[test]
fn a_command_pipeline_never_gets_the_ci_tokens() {
    let dir = TempDir::new("secrets-withheld");
    suite(&dir.0, 2);
    let out = goldgate(
        &dir.0,
        &[
            "run",
            "--suite",
            "suite",
            "--command",
            &python("env_echo.py", ""),
        ],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let recs = records(&dir.0.join("run.jsonl"));
    for r in recs.values() {
        let env = r["prediction"]["env"].as_object().unwrap();
        for name in [
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "ACTIONS_RUNTIME_TOKEN",
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        ] {
            assert!(!env.contains_key(name), "{name} reached the pipeline");
        }
        assert_eq!(env["KEEP_ME"], "kept-value", "the rest is inherited");
    }
    assert_clean(
        "run.jsonl",
        &std::fs::read_to_string(dir.0.join("run.jsonl")).unwrap(),
        &all_tokens(),
    );
    assert_clean("the output", &said(&out), &all_tokens());
}

#[test]
fn env_clear_and_env_passthrough_decide_the_pipelines_environment() {
    let dir = TempDir::new("secrets-env-clear");
    suite(&dir.0, 2);
    std::fs::write(
        dir.0.join("goldgate.toml"),
        format!(
            "[pipeline]\nkind = \"command\"\ncommand = \"{}\"\nenv_clear = true\nenv_passthrough = [\"GH_TOKEN\", \"KEEP_*\"]\n",
            python("env_echo.py", "")
        ),
    )
    .unwrap();
    let out = goldgate(&dir.0, &["run", "--suite", "suite"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let recs = records(&dir.0.join("run.jsonl"));
    for r in recs.values() {
        let env = r["prediction"]["env"].as_object().unwrap();
        for kept in ["PATH", "HOME", "KEEP_ME", "GH_TOKEN"] {
            assert!(env.contains_key(kept), "{kept} was not passed: {env:?}");
        }
        // Everything else of goldgate's environment stays behind (the shell and the
        // interpreter may set a few of their own, such as PWD).
        for dropped in [
            "OTHER_VAR",
            "GITHUB_TOKEN",
            "ACTIONS_RUNTIME_TOKEN",
            "CARGO_MANIFEST_DIR",
        ] {
            assert!(!env.contains_key(dropped), "{dropped} was passed: {env:?}");
        }
        // Passed through on purpose, and still a secret: never written.
        assert_eq!(env["GH_TOKEN"], "***");
    }
    // A flag does the same.
    let out = goldgate(
        &dir.0,
        &[
            "run",
            "--suite",
            "suite",
            "--output",
            "flags.jsonl",
            "--no-cache",
            "--command",
            &python("env_echo.py", ""),
            "--env-clear",
            "--env-passthrough",
            "OTHER_VAR",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    for r in records(&dir.0.join("flags.jsonl")).values() {
        let env = r["prediction"]["env"].as_object().unwrap();
        assert!(
            env.contains_key("OTHER_VAR") && env.contains_key("PATH"),
            "{env:?}"
        );
        assert!(
            !env.contains_key("KEEP_ME") && !env.contains_key("GH_TOKEN"),
            "{env:?}"
        );
    }
}

/// A fake GitHub that accepts everything and keeps every request body.
fn fake_github(bodies: Arc<Mutex<Vec<String>>>) -> MockServer {
    MockServer::start(move |request| {
        bodies
            .lock()
            .unwrap()
            .push(String::from_utf8_lossy(&request.body).into_owned());
        let path = request.target.split('?').next().unwrap_or_default();
        match (request.method.as_str(), path) {
            ("GET", "/user") => {
                Response::json("200 OK", &json!({"login": "goldgate-bot", "type": "Bot"}))
            }
            ("GET", _) => Response::json("200 OK", &json!([])),
            _ => Response::json(
                "201 Created",
                &json!({"id": 1, "html_url": "http://example.invalid/c/1"}),
            ),
        }
    })
}

/// An echoing pipeline: by default it never sees the CI's tokens; given them on purpose
/// (`env_passthrough`), it puts them in its answers (so in the diffs of the samples it
/// broke) and its stderr, and `check` writes them nowhere — not in its files, the cache,
/// the job summary, the step outputs, the PR comment, the JUnit, the HTML or its own output.
#[test]
fn an_echoed_token_is_written_nowhere_by_check() {
    let dir = TempDir::new("secrets-check");
    suite(&dir.0, 4);
    let good = test_kind::answer(&["SECRET-GOLD-TITLE"]);
    let answers: String = (0..4)
        .map(|i| json!({"id": format!("s-{i}"), "output": good}).to_string() + "\n")
        .collect();
    std::fs::write(dir.0.join("good.jsonl"), answers).unwrap();
    let out = goldgate(
        &dir.0,
        &[
            "baseline",
            "refresh",
            "--suite",
            "suite",
            "--replay",
            "good.jsonl",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    std::fs::write(
        dir.0.join("thresholds.toml"),
        format!(
            "version = 1\n[metrics.\"{}\"]\nmin = 0.9\n[metrics.\"run.error_rate\"]\nmax = 0.5\n",
            test_kind::metric("f1")
        ),
    )
    .unwrap();
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let github = fake_github(bodies.clone());
    let tokens = all_tokens();
    let passthrough = "env_passthrough = [\"GITHUB_TOKEN\", \"GH_TOKEN\", \"ACTIONS_*\"]\n";
    for (case, extra) in [("withheld", ""), ("passed through", passthrough)] {
        std::fs::write(
            dir.0.join("goldgate.toml"),
            format!(
                "[pipeline]\nkind = \"command\"\ncommand = \"{}\"\n{extra}\n[check]\nsuite = \"suite\"\nout_dir = \"out\"\n",
                python("env_echo.py", "")
            ),
        )
        .unwrap();
        let mut outputs = Vec::new();
        for format in ["text", "markdown", "junit", "html", "json"] {
            // Fresh answers each time (the environment is not part of the cache key), and
            // the cache written.
            let out = goldgate(
                &dir.0,
                &["check", "--format", format, "--pr", "7", "--refresh-cache"],
            )
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_REPOSITORY", "o/r")
            .env("GITHUB_API_URL", github.url(""))
            .env("GITHUB_STEP_SUMMARY", dir.0.join("summary.md"))
            .env("GITHUB_OUTPUT", dir.0.join("outputs.txt"))
            .env_remove("GITHUB_EVENT_PATH")
            .output()
            .unwrap();
            assert_eq!(
                out.status.code(),
                Some(1),
                "the gate fails ({case}, {format}): {}",
                said(&out)
            );
            outputs.push((format, said(&out)));
        }
        for (format, output) in &outputs {
            assert_clean(
                &format!("check --format {format} ({case})"),
                output,
                &tokens,
            );
        }
        for (path, content) in files(&dir.0) {
            assert_clean(&format!("{} ({case})", path.display()), &content, &tokens);
        }
        for body in bodies.lock().unwrap().iter() {
            assert_clean(&format!("a request to GitHub ({case})"), body, &tokens);
        }
        if extra.is_empty() {
            continue;
        }
        let run = std::fs::read_to_string(dir.0.join("out/run.jsonl")).unwrap();
        assert!(
            run.contains("GITHUB_TOKEN=***"),
            "the pipeline did echo the token: {run}"
        );
        assert!(
            outputs[1].1.contains("GITHUB_TOKEN=***"),
            "the diffs show the answers: {}",
            outputs[1].1
        );
    }
    let bodies = bodies.lock().unwrap();
    assert!(
        bodies.iter().any(|b| b.contains("goldgate")),
        "a comment was posted"
    );
}

/// A server that echoes what it was sent (target and headers) as the answer on `/ok` and in
/// a 500 on `/fail`.
fn echo_server() -> MockServer {
    MockServer::start(|request| {
        let echo = json!({"marks": [], "target": request.target, "headers": request.headers});
        if request.target.starts_with("/fail") {
            Response::new("500 Internal Server Error", format!("cannot serve {echo}"))
        } else {
            Response::json("200 OK", &echo)
        }
    })
}

#[test]
fn an_http_pipelines_url_and_header_secrets_are_redacted() {
    let dir = TempDir::new("secrets-http");
    suite(&dir.0, 2);
    let server = echo_server();
    let (query, key, password) = (
        "q-TOKEN-in-the-query",
        "k-TOKEN-in-a-header",
        "pa55-word-in-userinfo",
    );
    let basic = "Ym90OnBhNTUtd29yZC1pbi11c2VyaW5mbw=="; // base64("bot:pa55-word-in-userinfo")
    let secrets = [query, key, password, basic];
    for path in ["ok", "fail"] {
        let url = format!(
            "http://bot:{password}@127.0.0.1:{}/{path}?token=${{GG_QUERY_TOKEN}}",
            server.port
        );
        let output = format!("{path}.jsonl");
        let out = goldgate(
            &dir.0,
            &[
                "run",
                "--suite",
                "suite",
                "--output",
                &output,
                "--retries",
                "0",
                "--http",
                &url,
                "--header",
                "X-Api-Key: ${GG_HEADER_KEY}",
            ],
        )
        .env("GG_QUERY_TOKEN", query)
        .env("GG_HEADER_KEY", key)
        .output()
        .unwrap();
        let run = std::fs::read_to_string(dir.0.join(&output)).unwrap();
        assert_clean(&output, &run, &secrets);
        assert_clean("the output", &said(&out), &secrets);
        let recs = records(&dir.0.join(&output));
        if path == "ok" {
            assert_eq!(out.status.code(), Some(0), "{}", said(&out));
            let echoed = recs["s-0"]["raw_output"].as_str().unwrap();
            assert!(
                echoed.contains("token=***") && echoed.contains("Basic ***"),
                "{echoed}"
            );
        } else {
            assert_eq!(out.status.code(), Some(3), "{}", said(&out));
            let message = recs["s-0"]["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(&format!(
                    "POST http://bot:***@127.0.0.1:{}/fail?token=${{GG_QUERY_TOKEN}} answered 500",
                    server.port
                )) && message.contains("token=***"),
                "{message}"
            );
        }
    }
}

/// What a server saw: (target, headers).
type Seen = Arc<Mutex<Vec<(String, Vec<(String, String)>)>>>;

#[test]
fn redirects_never_carry_credentials_or_query_tokens_to_another_origin() {
    let dir = TempDir::new("secrets-redirect");
    suite(&dir.0, 2);
    let seen: Seen = Arc::default();
    let other_seen = seen.clone();
    let other = MockServer::start(move |request| {
        other_seen
            .lock()
            .unwrap()
            .push((request.target.clone(), request.headers.clone()));
        Response::json("200 OK", &json!({"marks": []}))
    });
    let other_port = other.port;
    let origin = MockServer::start(move |request| {
        let path = request
            .target
            .split('?')
            .next()
            .unwrap_or_default()
            .to_string();
        match path.as_str() {
            "/cross" => Response::new("307 Temporary Redirect", "")
                .with_header("Location", &format!("http://127.0.0.1:{other_port}/steal")),
            "/same" => {
                Response::new("307 Temporary Redirect", "").with_header("Location", "/final")
            }
            _ => Response::json(
                "200 OK",
                &json!({"marks": [], "referer": request.header("referer")}),
            ),
        }
    });
    let (token, key) = ("redirect-TOKEN-query", "redirect-KEY-header");
    let run = |path: &str, output: &str| {
        let url = format!(
            "http://127.0.0.1:{}/{path}?token=${{GG_REDIRECT_TOKEN}}",
            origin.port
        );
        goldgate(
            &dir.0,
            &[
                "run",
                "--suite",
                "suite",
                "--output",
                output,
                "--retries",
                "0",
                "--http",
                &url,
                "--header",
                "X-Api-Key: ${GG_REDIRECT_KEY}",
                "--header",
                "Authorization: Bearer ${GG_REDIRECT_KEY}",
            ],
        )
        .env("GG_REDIRECT_TOKEN", token)
        .env("GG_REDIRECT_KEY", key)
        .output()
        .unwrap()
    };
    let out = run("cross", "cross.jsonl");
    for (target, headers) in seen.lock().unwrap().iter() {
        let all = format!("{target} {headers:?}");
        assert_clean("a request to the other origin", &all, &[token, key]);
    }
    assert_eq!(out.status.code(), Some(3), "{}", said(&out));
    let recs = records(&dir.0.join("cross.jsonl"));
    let message = recs["s-0"]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "a redirect to http://127.0.0.1:{other_port}, which goldgate does not follow"
        )),
        "{message}"
    );
    // Within the origin, a redirect is followed, and no Referer carries the query on.
    let out = run("same", "same.jsonl");
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    for r in records(&dir.0.join("same.jsonl")).values() {
        assert!(r["error"].is_null(), "{r}");
        assert_eq!(r["prediction"]["referer"], Value::Null, "{r}");
    }
}
