//! Data-driven CLI tests. Each folder under `tests/cases/` holds a `case.toml`
//! (`args`, `status`, optional `stdout_contains` / `stderr_contains` / `files` /
//! `stdout_is_file`), optional `stdout.txt` / `stderr.txt` snapshots, and its fixture
//! files. The folder is copied to a temporary directory and the command runs there;
//! `{root}` in an argument is the repository root (for cases that run on the shipped
//! `examples/`); every run file, score and verdict listed in `files` must validate against
//! its schema in `schemas/`. Every stream has an expectation: compared with its snapshot by
//! snapbox (listed in `exact`, the default; `[ROOT]` stands for the repository root, `[..]`
//! and `...` are wildcards), checked for the `*_contains` strings, or (stdout) compared byte
//! for byte with a file the command wrote or read; a case that asserts nothing about a
//! stream fails.
//! Git does not look for a repository at or above the repository root.
//! `SNAPSHOTS=overwrite` rewrites the snapshots from the actual output.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

use crate::support::TempDir;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    args: Vec<String>,
    status: i32,
    #[serde(default)]
    stdout_contains: Vec<String>,
    #[serde(default)]
    stderr_contains: Vec<String>,
    /// Files the command must have written (relative to the case directory).
    #[serde(default)]
    files: Vec<String>,
    /// A file (relative to the case directory, read after the command ran) whose bytes
    /// stdout must be exactly: a machine output that prints what a file holds.
    #[serde(default)]
    stdout_is_file: Option<String>,
    /// Streams compared exactly with `stdout.txt` / `stderr.txt` (default: both).
    #[serde(default = "both")]
    exact: Vec<String>,
}

fn both() -> Vec<String> {
    vec!["stdout".into(), "stderr".into()]
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Compare a stream with its expectation file through snapbox: `...` on a line of its own
/// and `[..]` within a line are wildcards, `[ROOT]` is the repository root. A missing file
/// fails; `SNAPSHOTS=overwrite` writes every compared file from the actual output.
fn check_exact(expected_file: &Path, actual: &str, failures: &mut Vec<String>) {
    let mut redactions = snapbox::Redactions::new();
    redactions
        .insert("[ROOT]", env!("CARGO_MANIFEST_DIR"))
        .unwrap();
    let assert = snapbox::Assert::new()
        .action_env("SNAPSHOTS")
        .normalize_paths(false)
        .redact_with(redactions);
    let expected = snapbox::Data::read_from(expected_file, None);
    let name = expected_file.display();
    if let Err(e) = assert.try_eq(Some(&name), actual.to_string().into(), expected) {
        failures.push(e.to_string());
    }
}

fn run_case(dir: &Path) -> Vec<String> {
    let case: Case =
        toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).unwrap()).unwrap();
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let work = TempDir::new(&format!("case-{name}"));
    copy_dir(dir, &work.0);
    let root = env!("CARGO_MANIFEST_DIR");
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| a.replace("{root}", root))
        .collect();
    let output = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(&args)
        .current_dir(&work.0)
        .env_remove("GITHUB_SHA")
        .env("SOURCE_DATE_EPOCH", "0")
        // The shipped examples' baselines are committed in this repository: their history
        // (the comment's trend of a failing metric) is goldgate's own, not the case's.
        .env("GIT_CEILING_DIRECTORIES", root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let mut failures = Vec::new();
    if output.status.code() != Some(case.status) {
        failures.push(format!(
            "exit code {:?}, expected {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            output.status.code(),
            case.status
        ));
    }
    for needle in &case.stdout_contains {
        if !stdout.contains(needle.as_str()) {
            failures.push(format!("stdout lacks {needle:?}:\n{stdout}"));
        }
    }
    for needle in &case.stderr_contains {
        if !stderr.contains(needle.as_str()) {
            failures.push(format!("stderr lacks {needle:?}:\n{stderr}"));
        }
    }
    for file in &case.files {
        let path = work.0.join(file);
        if !path.is_file() {
            failures.push(format!("{file} was not written"));
        }
        // Every run file, score and verdict a case writes is held to its schema.
        crate::support::schema::check_written(&path, &mut failures);
    }
    if let Some(file) = &case.stdout_is_file {
        match std::fs::read(work.0.join(file)) {
            Ok(bytes) if bytes == output.stdout => {}
            Ok(bytes) => failures.push(format!(
                "stdout is not the bytes of {file}:\nstdout:\n{stdout}\n{file}:\n{}",
                String::from_utf8_lossy(&bytes)
            )),
            Err(e) => failures.push(format!("{file}: {e}")),
        }
    }
    if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
        failures.push(format!("the command panicked:\n{stderr}"));
    }
    for (stream, text, contains) in [
        ("stdout", &stdout, &case.stdout_contains),
        ("stderr", &stderr, &case.stderr_contains),
    ] {
        let is_file = stream == "stdout" && case.stdout_is_file.is_some();
        if case.exact.iter().any(|e| e == stream) {
            check_exact(&dir.join(format!("{stream}.txt")), text, &mut failures);
        } else if contains.is_empty() && !is_file {
            // A stream nothing is asserted about would let any output pass.
            failures.push(format!(
                "no expectation for {stream}: list it in `exact` (with {stream}.txt) or give {stream}_contains (or, for stdout, stdout_is_file)"
            ));
        }
    }
    failures
        .into_iter()
        .map(|f| format!("[{name}] {f}"))
        .collect()
}

#[test]
fn cli_cases() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.toml").is_file())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 10,
        "expected the CLI cases under {}",
        root.display()
    );
    // Each case is one goldgate process in a directory of its own: several run at once,
    // and the failures are reported in the cases' order.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get() * 2);
    let mut results: Vec<(usize, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(dir) = dirs.get(i) else { break done };
                        done.push((i, run_case(dir)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    let failures: Vec<String> = results.into_iter().flat_map(|(_, f)| f).collect();
    assert!(
        failures.is_empty(),
        "{} failing CLI expectations:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
