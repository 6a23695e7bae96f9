//! Hostile suites: links that leave the suite, directory cycles, files that are not regular
//! files (a FIFO, `/dev/zero`) and samples too large to read are input errors (exit 2) that
//! name what they found, quickly and without blocking, on every command that reads a suite.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::output::said;
use crate::support::{test_kind, TempDir};

/// The one sample of the suite, a sample of the test kind, as JSON text.
fn sample() -> String {
    test_kind::sample(
        "ext-001",
        "Customers want to track their orders.",
        &["order status"],
    )
    .to_string()
}

/// A project directory with a one-sample suite in `suite/`.
fn project(name: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new(name);
    let suite = dir.0.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::write(suite.join("ext-001.json"), sample()).unwrap();
    (dir, suite)
}

/// Run goldgate in `dir`; a command still running after 20 s is killed and fails the test
/// (today's walk hangs on a directory cycle, and reading a FIFO blocks).
fn goldgate(dir: &Path, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            let output = child.wait_with_output().unwrap();
            panic!("goldgate {args:?} did not finish in 20 s: {output:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (output, started.elapsed())
}

#[test]
fn a_directory_cycle_is_named_at_once() {
    let (dir, suite) = project("cycle");
    symlink(".", suite.join("a")).unwrap();
    symlink(".", suite.join("b")).unwrap();
    let (out, took) = goldgate(&dir.0, &["suite", "lint", "suite"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        took < Duration::from_secs(5),
        "a cycle is found at once, not after walking it: {took:?}"
    );
    let text = said(&out);
    assert!(
        text.contains("suite/a") && text.contains("cycle"),
        "the link and the cycle are named: {text}"
    );
    assert!(text.contains("suite/b"), "every problem at once: {text}");
}

#[test]
fn links_that_leave_the_suite_are_refused() {
    let (dir, suite) = project("outside");
    // A perfectly valid sample outside the suite is still not part of it.
    let outside = dir.0.join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("x.json"),
        sample().replace("ext-001", "ext-002"),
    )
    .unwrap();
    symlink(outside.join("x.json"), suite.join("x.json")).unwrap();
    symlink(&outside, suite.join("more")).unwrap();
    symlink("/etc/passwd", suite.join("passwd.yaml")).unwrap();
    let (out, _) = goldgate(&dir.0, &["suite", "lint", "suite"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let text = said(&out);
    for (link, target) in [
        ("suite/x.json", "elsewhere/x.json"),
        ("suite/more", "elsewhere"),
        ("suite/passwd.yaml", "/etc/passwd"),
    ] {
        assert!(
            text.lines()
                .any(|l| l.contains(link) && l.contains(target) && l.contains("outside")),
            "{link} -> {target} is named: {text}"
        );
    }
    assert!(
        !text.contains("root:"),
        "the outside file is not read: {text}"
    );
}

#[test]
fn links_inside_the_suite_are_followed() {
    let (dir, suite) = project("inside");
    std::fs::create_dir_all(suite.join("data")).unwrap();
    std::fs::write(
        suite.join("data/second.txt"),
        sample().replace("ext-001", "ext-002"),
    )
    .unwrap();
    symlink("data/second.txt", suite.join("second.json")).unwrap();
    std::fs::create_dir_all(suite.join(".v2")).unwrap();
    std::fs::write(
        suite.join(".v2/third.json"),
        sample().replace("ext-001", "ext-003"),
    )
    .unwrap();
    symlink(".v2", suite.join("current")).unwrap();
    let (out, _) = goldgate(&dir.0, &["suite", "lint", "suite"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("3 samples in 3 files"),
        "{out:?}"
    );
}

#[test]
fn fifos_and_devices_are_refused_without_blocking() {
    let (dir, suite) = project("fifo");
    let made = Command::new("mkfifo")
        .arg(suite.join("pipe.jsonl"))
        .status()
        .unwrap();
    assert!(made.success());
    let (out, took) = goldgate(&dir.0, &["suite", "lint", "suite"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let text = said(&out);
    assert!(
        text.contains("suite/pipe.jsonl") && text.contains("FIFO"),
        "{text}"
    );

    // /dev/zero through a link: outside the suite, and not a regular file either.
    let (dir, suite) = project("zero");
    symlink("/dev/zero", suite.join("zero.yaml")).unwrap();
    let (out, took) = goldgate(&dir.0, &["suite", "stats", "suite"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let text = said(&out);
    assert!(
        text.contains("suite/zero.yaml") && text.contains("/dev/zero"),
        "{text}"
    );
}

/// A sample of about `bytes` bytes: valid JSON, padded with whitespace.
fn padded_sample(bytes: usize) -> String {
    let sample = sample();
    let padding = " ".repeat(bytes.saturating_sub(sample.len()));
    format!("{}{padding}}}", &sample[..sample.len() - 1])
}

#[test]
fn samples_over_the_size_cap_are_refused_and_the_cap_can_be_raised() {
    let (dir, suite) = project("big");
    let big = padded_sample(17 << 20).replace("ext-001", "ext-008");
    std::fs::write(suite.join("big.json"), &big).unwrap();
    std::fs::write(
        suite.join("lines.jsonl"),
        big.replace("ext-008", "ext-009") + "\n",
    )
    .unwrap();
    let (out, _) = goldgate(&dir.0, &["suite", "lint", "suite"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let text = said(&out);
    assert!(
        text.contains("suite/big.json")
            && text.contains(&format!("{} bytes", big.len()))
            && text.contains("16 MiB")
            && text.contains("--max-sample-bytes")
            && text.contains("max_sample_bytes"),
        "the file, its size, the cap and how to raise it: {text}"
    );
    assert!(
        text.contains("suite/lines.jsonl:1") && text.contains("16 MiB"),
        "a JSONL line over the cap is named by its line: {text}"
    );

    // Raised on the command line, the samples are read.
    let (out, _) = goldgate(
        &dir.0,
        &["suite", "lint", "suite", "--max-sample-bytes", "20000000"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");

    // A smaller cap in goldgate.toml applies to the run inside `check` as well.
    std::fs::remove_file(suite.join("big.json")).unwrap();
    std::fs::remove_file(suite.join("lines.jsonl")).unwrap();
    std::fs::write(
        dir.0.join("goldgate.toml"),
        "[pipeline]\nkind = \"command\"\ncommand = \"cat >/dev/null; echo '{}'\"\n\n[check]\nsuite = \"suite\"\n\n[suite]\nmax_sample_bytes = 100\n",
    )
    .unwrap();
    let (out, _) = goldgate(&dir.0, &["check", "--format", "brief"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let text = said(&out);
    assert!(
        text.contains("suite/ext-001.json") && text.contains("100 bytes"),
        "{text}"
    );
    assert!(text.contains("max_sample_bytes"), "{text}");
}

/// One common path: `run`, `score` and `check` refuse the same suite as `lint`.
#[test]
fn every_command_that_reads_a_suite_refuses_it() {
    let (dir, suite) = project("commands");
    symlink(".", suite.join("loop")).unwrap();
    std::fs::write(dir.0.join("answers.jsonl"), "").unwrap();
    for args in [
        &["run", "--suite", "suite", "--command", "cat"][..],
        &["score", "--suite", "suite", "--run", "answers.jsonl"],
        &["check", "--suite", "suite", "--command", "cat"],
        &[
            "baseline",
            "refresh",
            "--suite",
            "suite",
            "--command",
            "cat",
        ],
        &["suite", "agreement", "suite"],
    ] {
        let (out, took) = goldgate(&dir.0, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(took < Duration::from_secs(5), "{args:?}: {took:?}");
        let text = said(&out);
        assert!(
            text.contains("suite/loop") && text.contains("cycle"),
            "{args:?}: {text}"
        );
    }
}
