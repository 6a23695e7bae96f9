//! What the installed pre-push hook runs (`goldgate hook run`): the commits a push sends,
//! read from the lines git writes on the hook's stdin, each checked out in a temporary
//! worktree and gated there by a `goldgate check` child that uses the repository's own
//! answer cache and output directory; the worktree is removed afterwards, also when the
//! check fails or is interrupted. Uncommitted changes are not part of a push, so they are
//! not checked; [`plan`] lists them for a warning.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};

use goldgate_core::error::{Error, Location, Problem, Result};

/// One line git writes on a pre-push hook's stdin:
/// `<local ref> <local sha> <remote ref> <remote sha>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushedRef {
    pub local_ref: String,
    pub local_sha: String,
    pub remote_ref: String,
}

impl PushedRef {
    /// A push that deletes the remote ref (the local sha is all zeros) sends nothing.
    pub fn is_deletion(&self) -> bool {
        self.local_sha.bytes().all(|b| b == b'0')
    }
}

/// Read git's pre-push lines; a line of another shape is an input error.
pub fn parse_pushed(text: &str) -> Result<Vec<PushedRef>> {
    let mut refs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [local_ref, local_sha, remote_ref, remote_sha] = fields[..] else {
            return Err(bad_line(i + 1, line));
        };
        let is_sha = |s: &str| s.len() >= 40 && s.bytes().all(|b| b.is_ascii_hexdigit());
        if !is_sha(local_sha) || !is_sha(remote_sha) {
            return Err(bad_line(i + 1, line));
        }
        refs.push(PushedRef {
            local_ref: local_ref.to_string(),
            local_sha: local_sha.to_string(),
            remote_ref: remote_ref.to_string(),
        });
    }
    Ok(refs)
}

fn bad_line(line: usize, text: &str) -> Error {
    let problem = Problem::new(
        Location::new(Path::new("(stdin)"), line, 0),
        None,
        format!("`{text}` is not a line git writes to a pre-push hook"),
    )
    .with_hint("git passes `<local ref> <local sha> <remote ref> <remote sha>` lines; `goldgate hook run` is meant to be run by the hook");
    Error::invalid("pushed refs", problem)
}

/// A commit the push sends, and the remote refs it goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushedCommit {
    pub sha: String,
    pub refs: Vec<String>,
}

impl PushedCommit {
    /// The abbreviated sha people read.
    pub fn short(&self) -> &str {
        &self.sha[..self.sha.len().min(12)]
    }
}

/// What a push sends, as the hook sees it.
#[derive(Clone, Debug)]
pub struct Push {
    /// The top of the working tree.
    pub root: PathBuf,
    /// Where the hook runs, relative to `root` (the check runs at the same place in the
    /// worktree).
    pub prefix: PathBuf,
    /// Each distinct commit pushed (tags peeled to their commit), in the order git listed
    /// them; deletions send nothing and are left out.
    pub commits: Vec<PushedCommit>,
    /// `git status` lines of the changes that are not committed (so not pushed and not
    /// checked), the hook's own directories left out.
    pub uncommitted: Vec<String>,
}

/// Read what a push sends: `stdin` is what git wrote to the hook. `own_dirs` are goldgate's
/// output and cache directories, left out of the uncommitted changes.
pub fn plan(cwd: &Path, stdin: &str, own_dirs: &[PathBuf]) -> Result<Push> {
    let not_a_repository = |e: String| {
        Error::usage(
            format!("{} is not inside a git working tree: {e}", cwd.display()),
            "`goldgate hook run` is what the pre-push hook runs, from your repository",
        )
    };
    let root = PathBuf::from(
        git(cwd, &["rev-parse", "--show-toplevel"])
            .map_err(not_a_repository)?
            .trim(),
    );
    let prefix = PathBuf::from(
        git(cwd, &["rev-parse", "--show-prefix"])
            .map_err(not_a_repository)?
            .trim(),
    );
    let mut commits: Vec<PushedCommit> = Vec::new();
    for pushed in parse_pushed(stdin)? {
        if pushed.is_deletion() {
            continue;
        }
        // A tag may point at a tag object: what is checked out is the commit it names. A
        // ref that names no commit (a tagged tree or blob) has nothing to gate.
        let peeled = format!("{}^{{commit}}", pushed.local_sha);
        let Ok(sha) = git(cwd, &["rev-parse", "--verify", "--quiet", &peeled]) else {
            continue;
        };
        let sha = sha.trim().to_string();
        match commits.iter_mut().find(|c| c.sha == sha) {
            Some(commit) => commit.refs.push(pushed.remote_ref),
            None => commits.push(PushedCommit {
                sha,
                refs: vec![pushed.remote_ref],
            }),
        }
    }
    let status = git(
        &root,
        &[
            "--no-optional-locks",
            "status",
            "--porcelain",
            "-z",
            "--untracked-files=normal",
        ],
    )
    .map_err(not_a_repository)?;
    let uncommitted = status_entries(&status)
        .into_iter()
        .filter(|(_, path)| {
            let path = root.join(path);
            // Inside goldgate's directories, or an untracked directory holding them.
            !own_dirs
                .iter()
                .any(|d| path.starts_with(d) || d.starts_with(&path))
        })
        .map(|(code, path)| format!("{code} {path}"))
        .collect();
    Ok(Push {
        root,
        prefix,
        commits,
        uncommitted,
    })
}

/// The `(status, path)` entries of `git status --porcelain -z` (a rename's second path, its
/// origin, is skipped).
fn status_entries(text: &str) -> Vec<(String, String)> {
    let mut entries = Vec::new();
    let mut fields = text.split('\0').filter(|f| !f.is_empty());
    while let Some(field) = fields.next() {
        if field.len() < 4 {
            continue;
        }
        let (code, path) = field.split_at(3);
        let code = code.trim().to_string();
        if code.starts_with('R') || code.starts_with('C') {
            fields.next();
        }
        entries.push((code, path.to_string()));
    }
    entries
}

/// How the pushed commits are checked: `goldgate check --format brief --comment-on never`
/// with the user's arguments, sharing the repository's cache and output directory.
#[derive(Clone, Debug)]
pub struct CheckWith {
    /// The goldgate binary to run.
    pub goldgate: PathBuf,
    /// The user's `goldgate check` arguments (`--cache-dir` and `--out-dir` are replaced by
    /// the two below).
    pub check_args: Vec<String>,
    /// The answer cache, absolute.
    pub cache_dir: PathBuf,
    /// Where the check's files go, absolute.
    pub out_dir: PathBuf,
}

impl CheckWith {
    /// The arguments of the `goldgate check` child.
    pub fn arguments(&self) -> Vec<std::ffi::OsString> {
        let mut args: Vec<std::ffi::OsString> =
            ["check", "--format", "brief", "--comment-on", "never"]
                .into_iter()
                .map(Into::into)
                .collect();
        args.extend(without_flags(&self.check_args, &["--cache-dir", "--out-dir"]).map(Into::into));
        args.push("--cache-dir".into());
        args.push(self.cache_dir.clone().into_os_string());
        args.push("--out-dir".into());
        args.push(self.out_dir.clone().into_os_string());
        args
    }
}

/// `args` without the options in `flags` (`--flag VALUE` and `--flag=VALUE`).
fn without_flags<'a>(args: &'a [String], flags: &'a [&str]) -> impl Iterator<Item = String> + 'a {
    let mut skip_value = false;
    args.iter()
        .filter(move |arg| {
            if std::mem::take(&mut skip_value) {
                return false;
            }
            if flags.contains(&arg.as_str()) {
                skip_value = true;
                return false;
            }
            !flags.iter().any(|f| {
                arg.strip_prefix(f)
                    .is_some_and(|rest| rest.starts_with('='))
            })
        })
        .cloned()
}

/// How the check of one pushed commit ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The check's exit code; `None` when it was killed by a signal or never started.
    pub code: Option<i32>,
    /// A signal (Ctrl-C, SIGTERM, SIGHUP) arrived while checking.
    pub interrupted: bool,
}

/// Check out `commit` in a temporary worktree and run the check there; the worktree is
/// removed before this returns, whatever happened. The check's own output goes straight to
/// this process's stdout and stderr.
pub fn check_commit(push: &Push, commit: &PushedCommit, with: &CheckWith) -> Result<Checked> {
    let signals = Signals::install();
    let interrupted = Checked {
        code: None,
        interrupted: true,
    };
    let worktree = match Worktree::add(&push.root, &commit.sha) {
        // Ctrl-C reaches `git worktree add` too.
        Err(_) if signals.caught() => return Ok(interrupted),
        Err(e) => return Err(e),
        Ok(_) if signals.caught() => return Ok(interrupted),
        Ok(worktree) => worktree,
    };
    let mut child = Command::new(&with.goldgate)
        .args(with.arguments())
        .current_dir(worktree.path.join(&push.prefix))
        .env("GITHUB_ACTIONS", "false")
        // git inside the worktree must see the worktree, not a repository named outside it.
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_COMMON_DIR")
        .env_remove("GIT_PREFIX")
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| {
            Error::environment(
                format!("cannot start {}: {e}", with.goldgate.display()),
                "reinstall the hook with `goldgate hook install`, or set GOLDGATE_BIN",
            )
        })?;
    signals.forward_to(child.id());
    let status = child.wait();
    signals.forward_to(0);
    let status = status.map_err(|e| Error::internal(format!("waiting for the check: {e}")))?;
    drop(worktree);
    Ok(Checked {
        code: status.code(),
        interrupted: signals.caught(),
    })
}

/// A detached worktree of one commit in the temporary directory, removed when dropped.
struct Worktree {
    root: PathBuf,
    path: PathBuf,
}

impl Worktree {
    fn add(root: &Path, sha: &str) -> Result<Worktree> {
        let path = std::env::temp_dir().join(format!(
            "goldgate-push-{}-{}",
            std::process::id(),
            &sha[..sha.len().min(12)]
        ));
        // Owned from here: whatever git leaves behind, dropping removes it.
        let worktree = Worktree {
            root: root.to_path_buf(),
            path,
        };
        let path = worktree.path.to_string_lossy().into_owned();
        git(
            root,
            &["worktree", "add", "--detach", "--quiet", &path, sha],
        )
        .map_err(|e| {
            Error::environment(
                format!("cannot check out {sha} in a temporary worktree: {e}"),
                "see `git worktree list`; `git worktree prune` cleans up stale ones",
            )
        })?;
        Ok(worktree)
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        let path = self.path.to_string_lossy().into_owned();
        let removed = git(&self.root, &["worktree", "remove", "--force", &path]).is_ok();
        if !removed || self.path.exists() {
            let _ = std::fs::remove_dir_all(&self.path);
            let _ = git(&self.root, &["worktree", "prune"]);
        }
    }
}

/// `git ARGS` in `dir`: its stdout, or its stderr as the error.
fn git(dir: &Path, args: &[&str]) -> std::result::Result<String, String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_string())
    }
}

/// The signal that arrived (0 for none), and the check to pass SIGTERM and SIGHUP on to.
static CAUGHT: AtomicI32 = AtomicI32::new(0);
static CHILD: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    CAUGHT.store(signal, Ordering::SeqCst);
    let child = CHILD.load(Ordering::SeqCst);
    // Ctrl-C reaches the check by itself (the terminal signals the whole process group).
    if child > 0 && signal != libc::SIGINT {
        // SAFETY: kill is async-signal-safe and only sends a signal.
        unsafe {
            libc::kill(child, signal);
        }
    }
}

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// While alive, Ctrl-C, SIGTERM and SIGHUP are noted instead of ending this process, so the
/// worktree is always removed; the check (a child, whose handlers exec resets) stops on its
/// own. Dropping puts the previous handlers back.
struct Signals {
    previous: Vec<(libc::c_int, libc::sigaction)>,
}

impl Signals {
    fn install() -> Signals {
        CAUGHT.store(0, Ordering::SeqCst);
        let mut previous = Vec::new();
        for signal in SIGNALS {
            // SAFETY: a zeroed sigaction is valid; the handler only touches atomics and calls
            // kill, both async-signal-safe.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                let handler: extern "C" fn(libc::c_int) = on_signal;
                action.sa_sigaction = handler as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, &action, &mut old) == 0 {
                    previous.push((signal, old));
                }
            }
        }
        Signals { previous }
    }

    fn caught(&self) -> bool {
        CAUGHT.load(Ordering::SeqCst) != 0
    }

    fn forward_to(&self, child: u32) {
        CHILD.store(i32::try_from(child).unwrap_or(0), Ordering::SeqCst);
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for (signal, old) in &self.previous {
            // SAFETY: restores the action saved by `install`.
            unsafe {
                libc::sigaction(*signal, old, std::ptr::null_mut());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const Z: &str = "0000000000000000000000000000000000000000";

    #[test]
    fn git_lines_are_read_and_deletions_send_nothing() {
        let text =
            format!("refs/heads/main {A} refs/heads/main {Z}\n(delete) {Z} refs/heads/old {A}\n");
        let refs = parse_pushed(&text).unwrap();
        assert_eq!(refs.len(), 2);
        assert_eq!(refs[0].local_sha, A);
        assert!(!refs[0].is_deletion());
        assert!(refs[1].is_deletion());
        assert!(parse_pushed("").unwrap().is_empty());
        let e = parse_pushed("main origin\n").unwrap_err().to_string();
        assert!(e.contains("(stdin):1") && e.contains("main origin"), "{e}");
    }

    #[test]
    fn the_shared_directories_replace_the_users() {
        let with = CheckWith {
            goldgate: "goldgate".into(),
            check_args: [
                "--jobs",
                "2",
                "--cache-dir",
                "c",
                "--out-dir=o",
                "--no-cache",
            ]
            .map(String::from)
            .to_vec(),
            cache_dir: "/repo/.goldgate/cache".into(),
            out_dir: "/repo/out".into(),
        };
        let args: Vec<String> = with
            .arguments()
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args.join(" "),
            "check --format brief --comment-on never --jobs 2 --no-cache --cache-dir /repo/.goldgate/cache --out-dir /repo/out"
        );
    }

    #[test]
    fn status_entries_skip_a_renames_origin() {
        let entries = status_entries(" M answer.json\0R  new.txt\0old.txt\0?? notes.md\0");
        assert_eq!(
            entries,
            [
                ("M".to_string(), "answer.json".to_string()),
                ("R".to_string(), "new.txt".to_string()),
                ("??".to_string(), "notes.md".to_string())
            ]
        );
    }
}
