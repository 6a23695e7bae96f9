//! The answer cache never replays a stale answer: inside git the pipeline fingerprint covers
//! the repository's tracked files (committed and uncommitted changes) but not goldgate's own
//! files; outside git without `fingerprint_files` the cache is off and the run says why;
//! `http` pipelines are cached only when asked, and not past `cache_ttl`; `baseline refresh`
//! never reads the cache; every record says what its key was made of.

use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;

use crate::support::mock_http::{MockServer, Response};
use crate::support::pipelines::run_args;
use crate::support::project::{commit_all, git, git_repo, goldgate, run_lines, test_suite};
use crate::support::TempDir;

/// A pipeline kept in the project: it answers with its version and counts its calls.
fn write_pipeline(dir: &Path, version: &str) {
    std::fs::write(
        dir.join("pipeline.sh"),
        format!("cat >/dev/null\necho call >> calls.log\nprintf '{{\"marks\": [], \"version\": \"{version}\"}}\\n'\n"),
    )
    .unwrap();
}

fn calls(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("calls.log")).map_or(0, |t| t.lines().count())
}

/// `goldgate run` of `sh pipeline.sh` in `dir`; it must exit 0.
fn run(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> (Output, Vec<Value>) {
    let args = run_args(&[&["--command", "sh pipeline.sh"], extra].concat());
    let out = goldgate(dir, &args, env);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out, run_lines(&dir.join("run.jsonl")))
}

fn versions(records: &[Value]) -> Vec<&str> {
    records
        .iter()
        .map(|r| r["prediction"]["version"].as_str().unwrap())
        .collect()
}

fn all_cached(records: &[Value]) -> bool {
    records.iter().all(|r| r["cached"] == true)
}

fn none_cached(records: &[Value]) -> bool {
    records.iter().all(|r| r["cached"] == false)
}

#[test]
fn inside_git_a_change_to_the_pipeline_committed_or_not_is_never_replayed() {
    let dir = TempDir::new("cache-git");
    let d = &dir.0;
    test_suite(d, 3);
    write_pipeline(d, "v1");
    std::fs::write(d.join(".gitignore"), "calls.log\n.goldgate/\nrun.jsonl\n").unwrap();
    std::fs::write(d.join("thresholds.toml"), "version = 1\n").unwrap();
    git_repo(d);

    let (_, first) = run(d, &[], &[]);
    assert_eq!((calls(d), versions(&first)), (3, vec!["v1"; 3]));
    assert!(none_cached(&first));
    let (out, second) = run(d, &[], &[]);
    assert_eq!(
        calls(d),
        3,
        "an unchanged repository is answered from the cache"
    );
    assert!(all_cached(&second));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("cache is off"));

    // A committed change to the pipeline's code.
    write_pipeline(d, "v2");
    commit_all(d, "v2");
    let (_, third) = run(d, &[], &[]);
    assert_eq!(
        versions(&third),
        vec!["v2"; 3],
        "a committed change is not replayed"
    );
    assert!(none_cached(&third));
    assert_eq!(calls(d), 6);

    // An uncommitted one.
    write_pipeline(d, "v3");
    let (_, fourth) = run(d, &[], &[]);
    assert_eq!(
        versions(&fourth),
        vec!["v3"; 3],
        "an uncommitted change is not replayed"
    );
    assert!(fourth[0]["provenance"]["fingerprint"]["git_worktree"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));
    assert_ne!(
        fourth[0]["pipeline_fingerprint"],
        third[0]["pipeline_fingerprint"]
    );
    let (_, again) = run(d, &[], &[]);
    assert!(
        all_cached(&again),
        "the same uncommitted change is answered from the cache"
    );
    assert_eq!(calls(d), 9);

    // What the key was made of is in every record.
    let record = &again[0];
    let provenance = &record["provenance"];
    assert_eq!(provenance["fingerprint"]["source"], "git", "{record}");
    assert!(provenance["fingerprint"]["git_index"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));
    assert_eq!(provenance["cache"], "read-write");
    assert_eq!(provenance["repeats"], 1);
    let key = record["cache_key"].as_str().unwrap();
    assert!(
        d.join(".goldgate/cache")
            .join(&key[..2])
            .join(format!("{key}.json"))
            .is_file(),
        "the record names its cache entry: {key}"
    );

    // goldgate's own files are not the pipeline: the rules, the baseline and the suite's
    // directory may change (tracked or not) without invalidating anything.
    std::fs::write(
        d.join("thresholds.toml"),
        "version = 1\n[defaults]\nconfidence = 0.9\n",
    )
    .unwrap();
    std::fs::create_dir_all(d.join("baselines")).unwrap();
    std::fs::write(d.join("baselines/main.json"), "{}").unwrap();
    std::fs::write(d.join("suite/README.md"), "notes\n").unwrap();
    git(d, &["add", "baselines", "suite/README.md"]);
    let (_, own) = run(d, &[], &[]);
    assert!(all_cached(&own), "{:?}", own[0]["provenance"]);
    assert_eq!(calls(d), 9);

    // Any other tracked file counts (config, prompts, docs: goldgate cannot tell which the
    // pipeline reads; `fingerprint_files` narrows it).
    std::fs::write(d.join("prompt.txt"), "be brief\n").unwrap();
    git(d, &["add", "prompt.txt"]);
    let (_, prompt) = run(d, &[], &[]);
    assert!(none_cached(&prompt));
    let (_, narrowed) = run(d, &["--fingerprint-file", "pipeline.sh"], &[]);
    assert!(none_cached(&narrowed), "another key: only pipeline.sh");
    assert_eq!(narrowed[0]["provenance"]["fingerprint"]["source"], "files");
    std::fs::write(d.join("prompt.txt"), "be verbose\n").unwrap();
    let (_, narrowed) = run(d, &["--fingerprint-file", "pipeline.sh"], &[]);
    assert!(
        all_cached(&narrowed),
        "prompt.txt is not a fingerprint file"
    );
}

/// The note that the cache is off fits on one line of a terminal (100 columns): it says
/// why and what turns the cache on, nothing more.
fn assert_one_short_line(stderr: &str) {
    let note = stderr
        .lines()
        .find(|l| l.contains("cache is off"))
        .unwrap_or_else(|| panic!("no note that the cache is off:\n{stderr}"));
    assert!(
        note.chars().count() <= 100,
        "{} characters: {note}",
        note.chars().count()
    );
}

#[test]
fn outside_git_without_fingerprint_files_the_cache_is_off_and_the_run_says_why_once() {
    let dir = TempDir::new("cache-no-git");
    let d = &dir.0;
    test_suite(d, 3);
    write_pipeline(d, "v1");
    let ceiling = d.parent().unwrap().to_str().unwrap().to_string();
    let env = [("GIT_CEILING_DIRECTORIES", ceiling.as_str())];
    run(d, &[], &env);
    let (out, second) = run(d, &[], &env);
    assert_eq!(calls(d), 6, "nothing was replayed");
    assert!(none_cached(&second));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("cache is off").count(), 1, "{stderr}");
    assert!(
        stderr.contains("not inside a git repository") && stderr.contains("fingerprint_files"),
        "{stderr}"
    );
    assert_one_short_line(&stderr);
    assert!(
        !d.join(".goldgate/cache").exists(),
        "nothing was written to the cache"
    );
    let provenance = &second[0]["provenance"];
    assert_eq!(provenance["cache"], "off");
    assert!(provenance["cache_off"]
        .as_str()
        .unwrap()
        .contains("not inside a git repository"));

    // `check` says it too, once.
    let out = goldgate(
        d,
        &["check", "--suite", "suite", "--command", "sh pipeline.sh"],
        &env,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("cache is off").count(), 1, "{stderr}");
    assert_one_short_line(&stderr);

    // Fingerprint files are enough to key answers on.
    run(d, &["--fingerprint-file", "pipeline.sh"], &env);
    let (out, keyed) = run(d, &["--fingerprint-file", "pipeline.sh"], &env);
    assert!(all_cached(&keyed));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("cache is off"));
}

/// A pipeline service counting its requests.
fn http_service() -> (MockServer, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    let server = MockServer::start(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
        Response::new("200 OK", "{\"marks\": []}").with_header("Content-Type", "application/json")
    });
    (server, count)
}

fn http_run(dir: &Path, args: &[&str]) -> (Output, Vec<Value>) {
    let mut all = vec!["run", "--suite", "suite", "--output", "run.jsonl"];
    all.extend_from_slice(args);
    let out = goldgate(dir, &all, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out, run_lines(&dir.join("run.jsonl")))
}

#[test]
fn http_answers_are_cached_only_when_asked_and_never_past_their_ttl() {
    let dir = TempDir::new("cache-http");
    let d = &dir.0;
    test_suite(d, 3);
    git_repo(d);
    let (server, requests) = http_service();
    let url = server.url("/extract");
    let count = || requests.load(Ordering::SeqCst);

    http_run(d, &["--http", &url]);
    let (out, records) = http_run(d, &["--http", &url]);
    assert_eq!(
        count(),
        6,
        "a remote service can change: not cached by default"
    );
    assert!(none_cached(&records));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cache is off") && stderr.contains("cache = true"),
        "{stderr}"
    );
    assert_eq!(records[0]["provenance"]["cache"], "off");

    http_run(d, &["--http", &url, "--cache"]);
    let (_, records) = http_run(d, &["--http", &url, "--cache"]);
    assert_eq!(count(), 9, "--cache opts in");
    assert!(all_cached(&records));

    std::fs::write(
        d.join("goldgate.toml"),
        format!("[pipeline]\nkind = \"http\"\nurl = \"{url}\"\ncache = true\ncache_ttl = \"1h\"\n"),
    )
    .unwrap();
    let (_, records) = http_run(d, &[]);
    assert_eq!(count(), 9, "cache = true in goldgate.toml opts in");
    assert!(all_cached(&records));
    assert_eq!(records[0]["provenance"]["cache_ttl_secs"], 3600);

    // Entries stored two hours ago are past a one-hour ttl.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for entry in cache_entries(&d.join(".goldgate/cache")) {
        let mut value: Value =
            serde_json::from_str(&std::fs::read_to_string(&entry).unwrap()).unwrap();
        assert!(
            value["stored_at"].is_u64(),
            "entries carry their time: {value}"
        );
        value["stored_at"] = (now - 7200).into();
        std::fs::write(&entry, value.to_string()).unwrap();
    }
    let (_, records) = http_run(d, &[]);
    assert_eq!(count(), 12, "expired entries are not reused");
    assert!(none_cached(&records));

    std::fs::write(
        d.join("goldgate.toml"),
        format!(
            "[pipeline]\nkind = \"http\"\nurl = \"{url}\"\ncache = true\ncache_ttl = \"soon\"\n"
        ),
    )
    .unwrap();
    let out = goldgate(d, &["run", "--suite", "suite"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("goldgate.toml:5")
            && stderr.contains("cache_ttl")
            && stderr.contains("hint:"),
        "{stderr}"
    );
    let out = goldgate(
        d,
        &[
            "run",
            "--suite",
            "suite",
            "--http",
            &url,
            "--cache-ttl",
            "0x",
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn cache_entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for shard in std::fs::read_dir(dir).unwrap() {
        for entry in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            out.push(entry.unwrap().path());
        }
    }
    assert!(!out.is_empty());
    out
}

#[test]
fn baseline_refresh_never_reads_the_cache_but_fills_it() {
    let dir = TempDir::new("cache-refresh");
    let d = &dir.0;
    test_suite(d, 3);
    write_pipeline(d, "v1");
    std::fs::write(d.join(".gitignore"), "calls.log\n.goldgate/\nrun.jsonl\n").unwrap();
    git_repo(d);
    run(d, &[], &[]);
    assert_eq!(calls(d), 3);
    let out = goldgate(
        d,
        &[
            "baseline",
            "refresh",
            "--suite",
            "suite",
            "--command",
            "sh pipeline.sh",
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        calls(d),
        6,
        "the baseline is made of fresh answers, whatever the cache holds"
    );
    let kept = run_lines(&d.join("baselines/main.run.jsonl"));
    assert!(none_cached(&kept));
    assert_eq!(kept[0]["provenance"]["cache"], "write-only");

    // What it wrote is reused by the next gate (the baseline itself is not the pipeline).
    let out = goldgate(
        d,
        &["check", "--suite", "suite", "--command", "sh pipeline.sh"],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(calls(d), 6);
    assert!(String::from_utf8_lossy(&out.stderr).contains("100% hit rate"));
}

/// What the GitHub Action keys its copy of the answer cache on: `check --print-fingerprint`
/// prints, before anything runs, the pipeline fingerprint the run then keys every answer on
/// (the one its records carry), whether the run uses the cache, and the cache directory in
/// effect (`--cache-dir`, else `[run] cache_dir` of goldgate.toml, else the default).
#[test]
fn print_fingerprint_names_the_fingerprint_the_check_records_and_its_cache() {
    let dir = TempDir::new("cache-print-fingerprint");
    let d = &dir.0;
    test_suite(d, 3);
    write_pipeline(d, "v1");
    std::fs::create_dir_all(d.join("ci")).unwrap();
    std::fs::write(
        d.join("ci/goldgate.toml"),
        "[check]\nsuite = \"../suite\"\n\n[pipeline]\nkind = \"command\"\ncommand = \"sh pipeline.sh\"\nworkdir = \"..\"\n\n[run]\ncache_dir = \"../answers\"\n",
    )
    .unwrap();
    std::fs::write(d.join(".gitignore"), "calls.log\n.goldgate/\nanswers/\n").unwrap();
    git_repo(d);
    // An uncommitted change to the pipeline is part of the fingerprint too.
    write_pipeline(d, "v2");
    let config = ["--config", "ci/goldgate.toml"];

    let before = crate::support::printed_fingerprint(&goldgate(
        d,
        &["check", config[0], config[1], "--print-fingerprint"],
        &[],
    ));
    assert_eq!(calls(d), 0, "nothing runs");
    assert!(!d.join(".goldgate/out").exists());
    assert!(
        before["pipeline_fingerprint"].starts_with("sha256:"),
        "{before:?}"
    );
    assert_eq!(before["cache"], "read-write");
    assert_eq!(
        Path::new(&before["cache_dir"]),
        Path::new("ci/../answers"),
        "relative to goldgate.toml"
    );

    let out = goldgate(d, &["check", config[0], config[1]], &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(calls(d), 3);
    let records = run_lines(&d.join(".goldgate/out/run.jsonl"));
    let keyed: Vec<&Value> = records
        .iter()
        .filter_map(|r| r.get("pipeline_fingerprint"))
        .collect();
    assert_eq!(keyed.len(), 3, "{records:?}");
    for fingerprint in keyed {
        assert_eq!(fingerprint, &before["pipeline_fingerprint"]);
    }
    assert!(
        d.join("answers").read_dir().unwrap().next().is_some(),
        "the answers went to the printed cache directory"
    );
    // After the run (its outputs and cache are goldgate's own files): the same fingerprint.
    let after = crate::support::printed_fingerprint(&goldgate(
        d,
        &["check", config[0], config[1], "--print-fingerprint"],
        &[],
    ));
    assert_eq!(after, before);

    // The flag wins over goldgate.toml; a run without the cache says so.
    let flags = crate::support::printed_fingerprint(&goldgate(
        d,
        &[
            "check",
            config[0],
            config[1],
            "--cache-dir",
            "elsewhere",
            "--print-fingerprint",
        ],
        &[],
    ));
    assert_eq!(flags["cache_dir"], "elsewhere");
    assert_eq!(
        flags["pipeline_fingerprint"],
        before["pipeline_fingerprint"]
    );
    let off = goldgate(
        d,
        &[
            "check",
            config[0],
            config[1],
            "--no-cache",
            "--print-fingerprint",
        ],
        &[],
    );
    assert_eq!(crate::support::printed_fingerprint(&off)["cache"], "off");
    // A changed pipeline is another fingerprint.
    write_pipeline(d, "v3");
    let changed = crate::support::printed_fingerprint(&goldgate(
        d,
        &["check", config[0], config[1], "--print-fingerprint"],
        &[],
    ));
    assert_ne!(
        changed["pipeline_fingerprint"],
        before["pipeline_fingerprint"]
    );
}
