//! `goldgate hook install`: a real `git push` to a local bare remote runs the gate through
//! the pre-push hook on the commit being pushed (in a temporary worktree, not the working
//! tree), blocks the push when the gate fails, costs no pipeline calls when nothing changed
//! (the cache), honours `core.hooksPath`, and `uninstall` takes it away.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::project::{git, git_output};
use crate::support::{test_kind, TempDir};

const GOLDGATE: &str = env!("CARGO_BIN_EXE_goldgate");

/// The pipeline's answer that matches every sample's gold.
fn good() -> String {
    test_kind::answer(&["order status"]).to_string()
}

/// An answer that matches none.
fn bad() -> String {
    test_kind::answer(&["invoices"]).to_string()
}

/// The rule on the test kind's F1: `min`.
fn f1_rule(min: f64) -> String {
    format!(
        "version = 1\n[metrics.\"{}\"]\nmin = {min}\n",
        test_kind::metric("f1")
    )
}

/// A scratch repository with a three-sample suite, a pipeline that answers with the content
/// of `answer.json` (and counts its calls in `calls.log`, outside the repository, wherever
/// the pipeline runs), the gate's settings, and a bare remote.
struct Scratch {
    dir: TempDir,
    repo: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = TempDir::new(&format!("hook-{name}"));
        let repo = dir.0.join("repo");
        let remote = dir.0.join("remote.git");
        std::fs::create_dir_all(repo.join("suite")).unwrap();
        let sample = |id: &str| {
            test_kind::sample(
                id,
                "Customers want to track their order status.",
                &["order status"],
            )
        };
        let suite = test_kind::lines(&["a", "b", "c"].map(sample));
        std::fs::write(repo.join("suite/samples.jsonl"), suite).unwrap();
        std::fs::write(
            repo.join("pipeline.sh"),
            format!(
                "cat >/dev/null\necho call >> '{}'\ncat answer.json\n",
                dir.0.join("calls.log").display()
            ),
        )
        .unwrap();
        std::fs::write(repo.join("answer.json"), good()).unwrap();
        std::fs::write(
            repo.join("goldgate.toml"),
            "[pipeline]\nkind = \"command\"\ncommand = \"sh pipeline.sh\"\nfingerprint_files = [\"answer.json\", \"pipeline.sh\"]\n\n[check]\nsuite = \"suite\"\nthresholds = \"thresholds.toml\"\n",
        )
        .unwrap();
        std::fs::write(repo.join("thresholds.toml"), f1_rule(0.8)).unwrap();
        std::fs::write(repo.join(".gitignore"), ".goldgate/\ncalls.log\n").unwrap();
        git(&dir.0, &["init", "-q", "--bare", "remote.git"]);
        git(&repo, &["init", "-q", "-b", "main"]);
        git(
            &repo,
            &["remote", "add", "origin", remote.to_str().unwrap()],
        );
        let scratch = Scratch { dir, repo };
        scratch.commit("the suite and the pipeline");
        scratch
    }

    fn commit(&self, message: &str) {
        git(&self.repo, &["add", "-A"]);
        git(&self.repo, &["commit", "-q", "-m", message]);
    }

    fn goldgate(&self, args: &[&str]) -> Output {
        let output = Command::new(GOLDGATE)
            .args(args)
            .current_dir(&self.repo)
            .env_remove("GITHUB_ACTIONS")
            .output()
            .unwrap();
        assert!(
            !String::from_utf8_lossy(&output.stderr).contains("panicked"),
            "{output:?}"
        );
        output
    }

    /// `git push` (the hook's output arrives on git's stderr and stdout).
    fn push(&self, extra: &[&str]) -> (bool, String) {
        let mut args = vec!["push", "origin", "HEAD:main"];
        args.extend_from_slice(extra);
        let output = git_output(&self.repo, &args);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.success(), text)
    }

    fn remote_head(&self) -> String {
        let out = git_output(&self.repo, &["ls-remote", "origin", "refs/heads/main"]);
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string()
    }

    fn head(&self) -> String {
        let out = git_output(&self.repo, &["rev-parse", "HEAD"]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The worktrees git knows of (the main one included).
    fn worktrees(&self) -> Vec<String> {
        let out = git_output(&self.repo, &["worktree", "list", "--porcelain"]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("worktree "))
            .map(String::from)
            .collect()
    }

    fn calls(&self) -> usize {
        std::fs::read_to_string(self.dir.0.join("calls.log"))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    }
}

#[test]
fn the_hook_runs_the_gate_on_push_and_blocks_a_failing_one() {
    let s = Scratch::new("push");
    let installed = s.goldgate(&["hook", "install"]);
    assert!(installed.status.success(), "{installed:?}");
    assert!(
        !String::from_utf8_lossy(&installed.stderr).contains(".gitignore"),
        ".goldgate/ is ignored already: {installed:?}"
    );
    assert!(s.repo.join(".git/hooks/pre-push").is_file());

    let (ok, text) = s.push(&[]);
    assert!(ok, "a passing gate lets the push through:\n{text}");
    let gate_lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("To ") && !l.contains("->"))
        .collect();
    assert_eq!(
        gate_lines,
        ["goldgate: passed: 3 rules hold (no baseline yet: absolute rules only) (3 samples)"],
        "one line when all is well:\n{text}"
    );
    assert_eq!(
        s.calls(),
        3,
        "the first push runs the pipeline on every sample"
    );
    assert_eq!(s.remote_head(), s.head());

    // An unchanged pipeline costs nothing: the second push is answered from the cache.
    std::fs::write(s.repo.join("README"), "docs only\n").unwrap();
    s.commit("docs");
    let (ok, text) = s.push(&[]);
    assert!(ok, "{text}");
    assert_eq!(
        s.calls(),
        3,
        "no pipeline call for an unchanged pipeline:\n{text}"
    );

    // A change that breaks the pipeline's answers blocks the push.
    let before = s.remote_head();
    std::fs::write(s.repo.join("answer.json"), bad()).unwrap();
    s.commit("a prompt change that breaks the answers");
    let (ok, text) = s.push(&[]);
    assert!(!ok, "a failing gate blocks the push:\n{text}");
    let f1 = test_kind::metric("f1");
    assert!(text.contains(&format!("failed: {f1}")), "{text}");
    assert!(
        text.contains(&format!("{f1}: – → 0.0000")),
        "the broken rule is shown:\n{text}"
    );
    assert!(text.contains("push blocked"), "{text}");
    assert!(
        !text.contains(&test_kind::metric("recall")),
        "only what broke:\n{text}"
    );
    assert_eq!(s.remote_head(), before, "the remote did not move");
    assert_eq!(s.calls(), 6, "the changed pipeline was called again");

    // --no-verify skips it; uninstall removes it.
    let (ok, text) = s.push(&["--no-verify"]);
    assert!(ok, "{text}");
    let removed = s.goldgate(&["hook", "uninstall"]);
    assert!(removed.status.success(), "{removed:?}");
    assert!(!s.repo.join(".git/hooks/pre-push").exists());
}

#[test]
fn the_hook_respects_core_hooks_path_and_other_peoples_hooks() {
    let s = Scratch::new("hookspath");
    git(&s.repo, &["config", "core.hooksPath", ".githooks"]);
    std::fs::create_dir_all(s.repo.join(".githooks")).unwrap();
    std::fs::write(s.repo.join(".githooks/pre-push"), "#!/bin/sh\nexit 0\n").unwrap();

    std::fs::write(s.repo.join(".gitignore"), "calls.log\n").unwrap();
    let refused = s.goldgate(&["hook", "install", "--", "--jobs", "2"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("was not written by goldgate") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(s.repo.join(".githooks/pre-push")).unwrap(),
        "#!/bin/sh\nexit 0\n",
        "someone else's hook is untouched"
    );

    let bad_args = s.goldgate(&["hook", "install", "--force", "--", "--no-such-flag"]);
    assert_eq!(bad_args.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_args.stderr).contains("--no-such-flag"));

    let forced = s.goldgate(&["hook", "install", "--force", "--", "--jobs", "2"]);
    assert!(forced.status.success(), "{forced:?}");
    assert!(
        String::from_utf8_lossy(&forced.stderr).contains("add `.goldgate/` to .gitignore"),
        "{forced:?}"
    );
    let hook = std::fs::read_to_string(s.repo.join(".githooks/pre-push")).unwrap();
    assert!(hook.contains("hook run \"$@\" -- --jobs 2"), "{hook}");
    assert!(s.repo.join(".githooks/pre-push.goldgate-backup").is_file());

    std::fs::write(s.repo.join("answer.json"), bad()).unwrap();
    s.commit("bad answers");
    let (ok, text) = s.push(&[]);
    assert!(
        !ok,
        "the hook in core.hooksPath ran and blocked the push:\n{text}"
    );

    let removed = s.goldgate(&["hook", "uninstall"]);
    assert!(removed.status.success());
    assert!(String::from_utf8_lossy(&removed.stdout).contains("restored"));
    assert_eq!(
        std::fs::read_to_string(s.repo.join(".githooks/pre-push")).unwrap(),
        "#!/bin/sh\nexit 0\n",
        "the replaced hook is back"
    );
    let (ok, text) = s.push(&[]);
    assert!(ok, "without goldgate's hook the push goes through:\n{text}");
}

/// The ratchet against the base branch (`--base-ref`), in the same scratch repository: a
/// floor lowered since the base commit is called out; a rules file the base branch did not
/// have yet is not an error.
#[test]
fn base_ref_calls_out_loosened_rules_and_tolerates_a_new_rules_file() {
    let s = Scratch::new("base-ref");
    std::fs::write(s.repo.join("thresholds.toml"), f1_rule(0.5)).unwrap();
    let out = s.goldgate(&["check", "--base-ref", "HEAD", "--format", "brief"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "a loosened rule warns: {out:?}");
    assert!(
        stdout.contains("passed with warnings: 1 loosened threshold(s)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("loosened") && stdout.contains(&test_kind::metric("f1")),
        "{stdout}"
    );

    std::fs::create_dir_all(s.repo.join("ci")).unwrap();
    std::fs::write(s.repo.join("ci/rules.toml"), f1_rule(0.8)).unwrap();
    let out = s.goldgate(&[
        "check",
        "--thresholds",
        "ci/rules.toml",
        "--base-ref",
        "HEAD",
        "--format",
        "brief",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("goldgate: passed: 3 rules hold"),
        "{out:?}"
    );
}

/// The hook gates what is pushed: the committed answers, not the ones on disk. A good commit
/// with a breaking change left uncommitted goes through (with a warning that the change was
/// not checked); a bad commit with a fix left uncommitted is blocked. The check runs in a
/// temporary worktree that is gone afterwards, and uses the repository's own cache and
/// output directory.
#[test]
fn the_hook_checks_the_pushed_commit_not_the_working_tree() {
    let s = Scratch::new("pushed");
    assert!(s.goldgate(&["hook", "install"]).status.success());

    std::fs::write(s.repo.join("answer.json"), bad()).unwrap();
    let (ok, text) = s.push(&[]);
    assert!(ok, "the pushed commit answers well:\n{text}");
    assert!(
        text.contains("uncommitted") && text.contains("answer.json"),
        "the change left out is named:\n{text}"
    );
    assert!(text.contains("goldgate: passed"), "{text}");
    assert_eq!(s.remote_head(), s.head());
    assert_eq!(s.calls(), 3);
    assert_eq!(s.worktrees().len(), 1, "no worktree is left behind");
    assert!(
        s.repo.join(".goldgate/out/verdict.json").is_file(),
        "the reports land in the repository's own output directory"
    );
    assert!(
        std::fs::read_dir(s.repo.join(".goldgate/cache")).is_ok_and(|mut d| d.next().is_some()),
        "the answers land in the repository's own cache"
    );

    // The same commit pushed again (to another branch) is answered from that cache.
    let (ok, text) = s.push(&["HEAD:refs/heads/copy"]);
    assert!(ok, "{text}");
    assert_eq!(s.calls(), 3, "the shared cache answered:\n{text}");

    // The reverse: the commit breaks the answers, the working tree has the fix.
    s.commit("a prompt change that breaks the answers");
    std::fs::write(s.repo.join("answer.json"), good()).unwrap();
    let before = s.remote_head();
    let (ok, text) = s.push(&[]);
    assert!(!ok, "the pushed commit fails the gate:\n{text}");
    assert!(
        text.contains(&format!("failed: {}", test_kind::metric("f1"))),
        "{text}"
    );
    assert!(text.contains("push blocked"), "{text}");
    assert!(text.contains("uncommitted"), "{text}");
    assert_eq!(s.remote_head(), before, "the remote did not move");
    assert_eq!(s.worktrees().len(), 1, "no worktree is left behind");

    // Deleting a branch checks nothing.
    let calls = s.calls();
    let deleted = git_output(&s.repo, &["push", "origin", "--delete", "copy"]);
    assert!(deleted.status.success(), "{deleted:?}");
    assert_eq!(s.calls(), calls);
}

/// Ctrl-C while the pushed commit is being checked: the check stops, the push is blocked,
/// and the temporary worktree is removed.
#[test]
fn an_interrupted_hook_removes_its_worktree() {
    let s = Scratch::new("interrupted");
    let script = std::fs::read_to_string(s.repo.join("pipeline.sh")).unwrap();
    std::fs::write(
        s.repo.join("pipeline.sh"),
        script.replace("cat answer.json", "sleep 30\ncat answer.json"),
    )
    .unwrap();
    s.commit("a slow pipeline");
    let line = format!(
        "refs/heads/main {} refs/heads/main {}\n",
        s.head(),
        "0".repeat(40)
    );
    let mut child = Command::new(GOLDGATE)
        .args(["hook", "run", "origin", "unused-url"])
        .current_dir(&s.repo)
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(line.as_bytes())
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while s.calls() == 0 {
        assert!(
            Instant::now() < deadline && child.try_wait().unwrap().is_none(),
            "the pipeline never started: {:?}",
            child.wait_with_output()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        s.worktrees().len(),
        2,
        "the check runs in a worktree of its own"
    );
    // Ctrl-C on a terminal: SIGINT to the whole foreground process group.
    let group = i32::try_from(child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(-group, libc::SIGINT) }, 0);
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the hook did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    assert_ne!(output.status.code(), Some(0), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("push blocked"),
        "{output:?}"
    );
    assert_eq!(
        s.worktrees().len(),
        1,
        "the worktree is removed: {output:?}"
    );
}
