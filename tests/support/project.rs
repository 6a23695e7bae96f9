//! A scratch project for tests that run pipelines: a suite of the test kind, the goldgate binary
//! run in the project with extra environment (also under a memory cap, and against a chat
//! API), run files read back, and git.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// A suite of `n` samples `s-0` … of the test kind under `dir/suite`.
pub fn test_suite(dir: &Path, n: usize) -> PathBuf {
    let root = dir.join("suite");
    std::fs::create_dir_all(&root).unwrap();
    let lines: String = (0..n)
        .map(|i| test_sample(i, "Customers track orders.") + "\n")
        .collect();
    std::fs::write(root.join("samples.jsonl"), lines).unwrap();
    root
}

/// Sample `s-{i}` of the test kind as one JSON line, its conversation saying `text`.
pub fn test_sample(i: usize, text: &str) -> String {
    super::test_kind::sample(&format!("s-{i}"), text, &["Track orders"]).to_string()
}

/// The first `n` samples of the requirements example project (samples of listed kinds),
/// renamed `s-0` … and written to `dir/suite` as JSON.
pub fn example_suite(dir: &Path, n: usize) -> PathBuf {
    let root = dir.join("suite");
    std::fs::create_dir_all(&root).unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/requirements/suite");
    let samples = super::files_below(&example)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json"))
        .take(n);
    for (i, path) in samples.enumerate() {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut sample = goldgate_core::document::parse_yaml(&text).unwrap().value;
        sample["id"] = Value::from(format!("s-{i}"));
        std::fs::write(root.join(format!("s-{i}.json")), sample.to_string()).unwrap();
    }
    root
}

/// `goldgate ARGS` in `dir` with `env` added (and GitHub Actions' variables removed).
pub fn goldgate(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    command.args(args);
    output(command, dir, env)
}

/// `goldgate ARGS` as [`goldgate`] runs it, under a 2 GiB address-space limit, so that a
/// regression reading a device or a huge entry whole fails the test instead of taking the
/// machine's memory.
pub fn goldgate_capped(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut script = String::from("ulimit -v 2097152 && exec \"$0\"");
    for i in 1..=args.len() {
        script.push_str(&format!(" \"${i}\""));
    }
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_goldgate"))
        .args(args);
    output(command, dir, env)
}

/// `goldgate run --suite suite --chat --base-url BASE_URL ARGS` in `dir` with `env` added.
pub fn run_chat(dir: &Path, base_url: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let chat = ["run", "--suite", "suite", "--chat", "--base-url", base_url];
    goldgate(dir, &[&chat[..], args].concat(), env)
}

/// What `command` (goldgate, or a shell running it) did in `dir` with `env` added and GitHub
/// Actions' variables removed; it must not have panicked.
pub fn output(mut command: Command, dir: &Path, env: &[(&str, &str)]) -> Output {
    let out = command
        .envs(env.iter().copied())
        .env_remove("GITHUB_ACTIONS")
        .current_dir(dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    out
}

/// Every line of a run file, as JSON.
pub fn run_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `git ARGS` in `dir`, with no user or system configuration; panics when it fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_output(dir, args);
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What `git ARGS` did in `dir`, with no user or system configuration and GitHub Actions'
/// variables removed (a hook git runs is run as it is outside Actions).
pub fn git_output(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap()
}

/// Make `dir` a git repository with everything in it committed. The files the test pipelines
/// count their calls in are ignored, as a project ignores its pipeline's logs: an untracked
/// file git does not ignore is part of a command pipeline's fingerprint.
pub fn git_repo(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    let ignore = dir.join(".gitignore");
    let mut ignored = std::fs::read_to_string(&ignore).unwrap_or_default();
    ignored.push_str("calls*.txt\n");
    std::fs::write(&ignore, ignored).unwrap();
    commit_all(dir, "start");
}

/// Commit every change in `dir`.
pub fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", message]);
}
