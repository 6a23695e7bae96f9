//! A pipeline configured by its environment is keyed on it: the variables listed in
//! `fingerprint_env` (names and `PREFIX_*`) and those its command, URL or headers name as
//! `${NAME}` go into the cache key, hashed, their values never written anywhere; other
//! variables are not seen. `check --print-fingerprint` names the variables, never a value.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;

use crate::support::mock_http::{MockServer, Response};
use crate::support::project::{git_repo, goldgate, run_lines, test_suite};
use crate::support::TempDir;

/// A pipeline that behaves by its environment but never prints a variable's value.
fn env_project(dir: &Path, pipeline: &str) {
    test_suite(dir, 3);
    std::fs::write(
        dir.join("pipeline.sh"),
        "cat >/dev/null\necho call >> calls.log\nif [ -n \"$REQPIPE_DROP_LAST\" ]; then v=drop; else v=keep; fi\nprintf '{\"marks\": [], \"mode\": \"%s\"}\\n' \"$v\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("goldgate.toml"),
        format!("[pipeline]\n{pipeline}\n[check]\nsuite = \"suite\"\n"),
    )
    .unwrap();
    std::fs::write(dir.join(".gitignore"), "calls.log\n.goldgate/\nrun.jsonl\n").unwrap();
    git_repo(dir);
}

fn calls(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("calls.log")).map_or(0, |t| t.lines().count())
}

fn run(dir: &Path, env: &[(&str, &str)]) -> Vec<Value> {
    let out = goldgate(
        dir,
        &["run", "--suite", "suite", "--output", "run.jsonl"],
        env,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    run_lines(&dir.join("run.jsonl"))
}

fn all_cached(records: &[Value]) -> bool {
    records.iter().all(|r| r["cached"] == true)
}

/// No file below `dir` holds `needle`.
fn nowhere_in(dir: &Path, needle: &str) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            nowhere_in(&path, needle);
        } else if meta.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(needle),
                "{} holds the value {needle}",
                path.display()
            );
        }
    }
}

#[test]
fn listed_variables_and_prefixes_key_the_cache_and_their_values_are_never_written() {
    let dir = TempDir::new("cache-env-listed");
    let d = &dir.0;
    env_project(
        d,
        "kind = \"command\"\ncommand = \"sh pipeline.sh\"\nfingerprint_env = [\"REQPIPE_DROP_LAST\", \"REQPIPE_OPT_*\"]\n",
    );
    let first = run(d, &[]);
    assert_eq!(calls(d), 3);
    assert_eq!(first[0]["prediction"]["mode"], "keep");
    assert!(all_cached(&run(d, &[])), "unchanged: from the cache");

    // REQPIPE_DROP_LAST=1 changes the pipeline: never answered from the cache built without it.
    let drop = [("REQPIPE_DROP_LAST", "s3cret-drop-value")];
    let records = run(d, &drop);
    assert_eq!(calls(d), 6, "a listed variable set: another key");
    assert_eq!(records[0]["prediction"]["mode"], "drop");
    assert!(all_cached(&run(d, &drop)));
    let records = run(d, &[("REQPIPE_DROP_LAST", "s3cret-other-value")]);
    assert_eq!(calls(d), 9, "another value: another key");
    assert!(!all_cached(&records));
    // The provenance names the variables, never their values.
    let env = &records[0]["provenance"]["fingerprint"]["env"];
    assert_eq!(
        env,
        &serde_json::json!(["REQPIPE_DROP_LAST"]),
        "{}",
        records[0]
    );

    // A prefix: any variable starting with it counts.
    let opt = [("REQPIPE_OPT_FAST", "s3cret-opt-value")];
    run(d, &opt);
    assert_eq!(
        calls(d),
        12,
        "a variable matching REQPIPE_OPT_* is part of the key"
    );
    assert!(all_cached(&run(d, &opt)));
    // Other variables are not seen.
    let other = [
        ("REQPIPE_OPT_FAST", "s3cret-opt-value"),
        ("REQPIPE_UNLISTED", "x"),
    ];
    assert!(
        all_cached(&run(d, &other)),
        "an unlisted variable is not part of the key"
    );
    assert_eq!(calls(d), 12);

    // --print-fingerprint names the variables used, never their values.
    let out = goldgate(
        d,
        &["check", "--print-fingerprint"],
        &[
            ("REQPIPE_DROP_LAST", "s3cret-drop-value"),
            ("REQPIPE_OPT_FAST", "s3cret-opt-value"),
        ],
    );
    let p = crate::support::printed_fingerprint(&out);
    assert_eq!(
        p["fingerprint_env"], "REQPIPE_DROP_LAST,REQPIPE_OPT_FAST",
        "{p:?}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("s3cret"));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("s3cret"));
    let changed = crate::support::printed_fingerprint(&goldgate(
        d,
        &["check", "--print-fingerprint"],
        &[
            ("REQPIPE_DROP_LAST", "s3cret-other-value"),
            ("REQPIPE_OPT_FAST", "s3cret-opt-value"),
        ],
    ));
    assert_ne!(changed["pipeline_fingerprint"], p["pipeline_fingerprint"]);

    nowhere_in(d, "s3cret");
}

#[test]
fn a_bad_fingerprint_env_name_is_a_config_error_with_its_line() {
    let dir = TempDir::new("cache-env-bad");
    let d = &dir.0;
    env_project(
        d,
        "kind = \"command\"\ncommand = \"sh pipeline.sh\"\nfingerprint_env = [\"A*B\"]\n",
    );
    let out = goldgate(d, &["run", "--suite", "suite"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("goldgate.toml:4")
            && stderr.contains("fingerprint_env")
            && stderr.contains("hint:"),
        "{stderr}"
    );
}

#[test]
fn variables_a_command_names_key_the_cache_without_being_listed() {
    let dir = TempDir::new("cache-env-command");
    let d = &dir.0;
    env_project(
        d,
        "kind = \"command\"\ncommand = \"REQPIPE_DROP_LAST=${REQPIPE_MODE} sh pipeline.sh\"\n",
    );
    run(d, &[]);
    assert!(all_cached(&run(d, &[])));
    let records = run(d, &[("REQPIPE_MODE", "s3cret-mode")]);
    assert_eq!(
        calls(d),
        6,
        "${{REQPIPE_MODE}} in the command is part of the key"
    );
    assert_eq!(records[0]["prediction"]["mode"], "drop");
    assert!(all_cached(&run(d, &[("REQPIPE_MODE", "s3cret-mode")])));
    let p =
        crate::support::printed_fingerprint(&goldgate(d, &["check", "--print-fingerprint"], &[]));
    assert_eq!(p["fingerprint_env"], "REQPIPE_MODE");
    nowhere_in(d, "s3cret");
}

#[test]
fn variables_an_http_url_or_header_names_key_the_cache_without_being_listed() {
    let dir = TempDir::new("cache-env-http");
    let d = &dir.0;
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    let server = MockServer::start(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
        Response::new("200 OK", "{\"marks\": []}").with_header("Content-Type", "application/json")
    });
    let url = server.url("/extract");
    env_project(
        d,
        &format!(
            "kind = \"http\"\nurl = \"{url}?v=${{PIPE_VERSION}}\"\nheaders = {{ X-Mode = \"${{PIPE_MODE}}\" }}\ncache = true\n"
        ),
    );
    let requests = || count.load(Ordering::SeqCst);
    let env = |version: &'static str, mode: &'static str| {
        [("PIPE_VERSION", version), ("PIPE_MODE", mode)]
    };
    run(d, &env("v1", "fast"));
    assert_eq!(requests(), 3);
    assert!(all_cached(&run(d, &env("v1", "fast"))));
    run(d, &env("v2", "fast"));
    assert_eq!(requests(), 6, "a variable in the URL is part of the key");
    run(d, &env("v2", "s3cret-careful"));
    assert_eq!(requests(), 9, "a variable in a header is part of the key");
    assert!(all_cached(&run(d, &env("v2", "s3cret-careful"))));
    let p = crate::support::printed_fingerprint(&goldgate(
        d,
        &["check", "--print-fingerprint"],
        &env("v2", "s3cret-careful"),
    ));
    assert_eq!(p["fingerprint_env"], "PIPE_MODE,PIPE_VERSION");
    nowhere_in(d, "s3cret");
}
