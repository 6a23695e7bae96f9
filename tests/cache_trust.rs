//! Cache entries are goldgate's own untracked files, never evidence from anywhere else: an
//! answer or judge review committed to git (a pull request planting "good" answers under the
//! right keys), a symbolic link (to `/dev/zero`, or to a forged entry outside), a special
//! file or an entry over its size cap is never used — the pipeline or the judge is asked
//! again, the gate decides on real answers, and goldgate says once which entries it ignored
//! and why.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::output::stderr;
use crate::support::project::{commit_all, git, git_repo, goldgate_capped, run_lines, test_suite};
use crate::support::{test_kind, TempDir};

/// The answer that matches the gold of every sample of `test_suite`.
fn perfect() -> String {
    test_kind::answer(&["Track orders"]).to_string()
}

/// A project whose pipeline answers nothing (F1 0), counting its calls, under a rule that
/// needs F1 ≥ 0.5: its gate must fail.
fn failing_project(dir: &Path) {
    test_suite(dir, 3);
    std::fs::write(
        dir.join("pipeline.sh"),
        "cat >/dev/null\necho call >> calls.log\nprintf '{\"marks\": []}\\n'\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("thresholds.toml"),
        format!(
            "version = 1\n[metrics.\"{}\"]\nmin = 0.5\n",
            test_kind::metric("f1")
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("goldgate.toml"),
        "[pipeline]\nkind = \"command\"\ncommand = \"sh pipeline.sh\"\n\n[check]\nsuite = \"suite\"\n",
    )
    .unwrap();
    // The pull request force-adds the cache, so .goldgate/ is ignored as init sets it up.
    std::fs::write(dir.join(".gitignore"), "calls.log\n.goldgate/\n").unwrap();
    git_repo(dir);
}

fn calls(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("calls.log")).map_or(0, |t| t.lines().count())
}

/// Every answer entry of the cache (not the judge's or the vectors').
fn answer_entries(cache: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for shard in std::fs::read_dir(cache).unwrap() {
        let shard = shard.unwrap().path();
        if shard.file_name().unwrap().len() != 2 {
            continue;
        }
        for entry in std::fs::read_dir(shard).unwrap() {
            out.push(entry.unwrap().path());
        }
    }
    out.sort();
    assert!(!out.is_empty());
    out
}

/// An answer entry rewritten to hold the perfect answer.
fn forged_answer(entry: &Path) -> Value {
    let mut value: Value = serde_json::from_slice(&std::fs::read(entry).unwrap()).unwrap();
    value["text"] = json!(perfect());
    value
}

fn check(dir: &Path) -> Output {
    goldgate_capped(dir, &["check"], &[])
}

/// The one warning line about ignored entries, which must be there exactly once.
pub(crate) fn ignored_line(out: &Output) -> String {
    let text = stderr(out);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("cache entries") || l.contains("cache entry"))
        .collect();
    assert_eq!(lines.len(), 1, "said once: {text}");
    lines[0].to_string()
}

#[test]
fn planted_answers_committed_to_git_are_never_used_and_the_gate_fails() {
    let dir = TempDir::new("trust-planted");
    let d = &dir.0;
    failing_project(d);
    let first = check(d);
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    assert_eq!(calls(d), 3);

    // A pull request rewrites every cached answer to the perfect one (same keys) and commits
    // them; it is merged.
    let cache = d.join(".goldgate/cache");
    for entry in answer_entries(&cache) {
        std::fs::write(&entry, forged_answer(&entry).to_string()).unwrap();
    }
    git(d, &["add", "-f", ".goldgate/cache"]);
    commit_all(d, "faster CI: keep the answer cache");

    let out = check(d);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the gate decides on the pipeline's real answers: {}",
        stderr(&out)
    );
    assert_eq!(calls(d), 6, "the pipeline was asked again");
    let text = stderr(&out);
    assert!(text.contains("0 from the cache"), "{text}");
    let line = ignored_line(&out);
    assert!(
        line.starts_with("warning:")
            && line.contains("3 cache entries")
            && line.contains("tracked by git"),
        "{line}"
    );
    assert!(line.contains(".goldgate/cache/"), "names a few: {line}");
    let records = run_lines(&d.join(".goldgate/out/run.jsonl"));
    assert!(records.iter().all(|r| r["cached"] == json!(false)));
    // The tracked files were left as they are (goldgate never rewrites a tracked file).
    assert_eq!(
        git(d, &["status", "--porcelain", "--", ".goldgate/cache"]),
        ""
    );
}

#[test]
fn a_symlink_an_oversized_entry_and_a_fifo_are_ignored_fast() {
    let dir = TempDir::new("trust-links");
    let d = &dir.0;
    failing_project(d);
    let first = check(d);
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    let entries = answer_entries(&d.join(".goldgate/cache"));
    assert_eq!(entries.len(), 3);

    // A symbolic link to /dev/zero (read whole, it never ends).
    std::fs::remove_file(&entries[0]).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &entries[0]).unwrap();
    // A symbolic link to a forged entry outside the cache directory.
    let elsewhere = TempDir::new("trust-links-outside");
    let outside = elsewhere.0.join("forged.json");
    std::fs::write(&outside, forged_answer(&entries[1]).to_string()).unwrap();
    std::fs::remove_file(&entries[1]).unwrap();
    std::os::unix::fs::symlink(&outside, &entries[1]).unwrap();
    // A forged entry over the answers' cap (4 × max_output_bytes + 64 KiB; here 1,000 bytes).
    let mut big = forged_answer(&entries[2]);
    big["padding"] = json!("x".repeat(80_000));
    std::fs::write(&entries[2], big.to_string()).unwrap();

    let started = Instant::now();
    let out = goldgate_capped(d, &["check", "--max-output-bytes", "1000"], &[]);
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(calls(d), 6, "every answer was asked again");
    let line = ignored_line(&out);
    assert!(line.contains("3 cache entries"), "{line}");
    assert!(
        line.contains("symbolic link") && line.contains("too large"),
        "{line}"
    );
    assert_eq!(
        std::fs::read_link(&entries[0]).unwrap(),
        Path::new("/dev/zero"),
        "a link is left alone, never written through"
    );

    // A FIFO where an entry should be: never opened for reading (it would block).
    std::fs::remove_file(&entries[0]).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&entries[0])
        .status()
        .unwrap();
    assert!(made.success());
    let started = Instant::now();
    let out = goldgate_capped(d, &["check", "--max-output-bytes", "1000"], &[]);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let line = ignored_line(&out);
    assert!(line.contains("not a regular file"), "{line}");
}

/// A shard directory that is a symbolic link leads outside the cache: nothing under it is
/// read, and nothing is written through it.
#[test]
fn a_shard_directory_linked_elsewhere_is_neither_read_nor_written() {
    let dir = TempDir::new("trust-shard-link");
    let d = &dir.0;
    failing_project(d);
    assert_eq!(check(d).status.code(), Some(1));
    let entries = answer_entries(&d.join(".goldgate/cache"));
    // Move one shard elsewhere, forge its entries, and link it back in.
    let shard = entries[0].parent().unwrap().to_path_buf();
    let outside = TempDir::new("trust-shard-outside");
    let elsewhere = outside.0.join("elsewhere");
    std::fs::rename(&shard, &elsewhere).unwrap();
    for entry in std::fs::read_dir(&elsewhere).unwrap() {
        let entry = entry.unwrap().path();
        std::fs::write(&entry, forged_answer(&entry).to_string()).unwrap();
    }
    let before: Vec<PathBuf> = std::fs::read_dir(&elsewhere)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    std::os::unix::fs::symlink(&elsewhere, &shard).unwrap();
    let out = check(d);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        calls(d),
        3 + before.len(),
        "the linked shard's answers were asked again"
    );
    let line = ignored_line(&out);
    assert!(line.contains("outside the cache directory"), "{line}");
    let after: Vec<PathBuf> = std::fs::read_dir(&elsewhere)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        before.len(),
        after.len(),
        "nothing was written through the link"
    );
}
