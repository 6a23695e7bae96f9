//! `goldgate hook install | uninstall`: the local pre-push check. The hook is a small shell
//! script that hands git's arguments and stdin to `goldgate hook run` ([`push`]), which
//! checks each pushed commit with `goldgate check --format brief --comment-on never` in a
//! temporary worktree, so an unchanged pipeline is answered from the cache and a failing
//! gate blocks the push. The hook goes where git looks for it (`git rev-parse --git-path
//! hooks`, which honours `core.hooksPath`); a hook goldgate did not write is never
//! overwritten or removed without `--force`, and a replaced hook is kept beside it and
//! restored on uninstall.

pub mod push;

use std::path::{Path, PathBuf};
use std::process::Command;

use goldgate_core::error::{Error, Result};
use goldgate_core::text::shell_quote;

/// The line that marks a hook as goldgate's own.
pub const MARKER: &str = "# goldgate-hook: pre-push v2";

/// What every version of the marker starts with (a hook written by an earlier goldgate is
/// goldgate's too).
const MARKER_PREFIX: &str = "# goldgate-hook: pre-push";

/// What `install` did.
#[derive(Debug, PartialEq, Eq)]
pub enum Installed {
    /// A new hook; no hook was there before.
    Created(PathBuf),
    /// goldgate's own earlier hook was rewritten.
    Updated(PathBuf),
    /// Someone else's hook was replaced (`--force`); it was kept at the second path.
    Replaced(PathBuf, PathBuf),
}

/// What `uninstall` did.
#[derive(Debug, PartialEq, Eq)]
pub enum Uninstalled {
    Removed(PathBuf),
    /// Removed ours and put back the hook it had replaced.
    Restored(PathBuf),
    NotInstalled(PathBuf),
}

/// The pre-push hook's path in the repository that contains `cwd`.
pub fn hook_path(cwd: &Path) -> Result<PathBuf> {
    let output = Command::new("git")
        .args(["rev-parse", "--git-path", "hooks/pre-push"])
        .current_dir(cwd)
        .output()
        .map_err(|e| {
            Error::usage(
                format!("cannot run git: {e}"),
                "install git, or run goldgate hook inside a git repository",
            )
        })?;
    if !output.status.success() {
        return Err(Error::usage(
            format!("{} is not inside a git repository", cwd.display()),
            "run `goldgate hook install` from your repository (git init creates one)",
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Ok(cwd.join(text.trim()))
}

/// Whether git ignores `path` (relative to `cwd`): goldgate's working directory,
/// `.goldgate/`, should be, or every run leaves untracked files behind.
pub fn ignored(cwd: &Path, path: &str) -> bool {
    Command::new("git")
        .args(["check-ignore", "-q", "--no-index", path])
        .current_dir(cwd)
        .status()
        .is_ok_and(|s| s.success())
}

/// Where a replaced hook is kept.
fn backup_path(hook: &Path) -> PathBuf {
    hook.with_file_name("pre-push.goldgate-backup")
}

/// Whether the file at `path` is a hook goldgate wrote.
fn is_ours(text: &str) -> bool {
    text.lines().any(|l| l.trim().starts_with(MARKER_PREFIX))
}

/// The hook script: hands git's arguments (the remote's name and URL) and stdin (the pushed
/// refs) to `goldgate hook run` (the binary that installed it, else the one on `PATH`), with
/// `check_args` for the `goldgate check` it runs on each pushed commit.
pub fn script(goldgate: &Path, check_args: &[String]) -> String {
    let args: String = check_args
        .iter()
        .map(|a| format!(" {}", shell_quote(a)))
        .collect();
    format!(
        r#"#!/bin/sh
{MARKER}
# Written by `goldgate hook install`; `goldgate hook uninstall` removes it.
# Runs the gate on each commit being pushed (checked out in a temporary worktree, so
# uncommitted changes are not what is checked) and blocks the push when it fails.
# Nothing is published. Unchanged pipelines are answered from goldgate's cache.
# Skip it once with `git push --no-verify`, or set GOLDGATE_SKIP_HOOK=1.
[ -n "$GOLDGATE_SKIP_HOOK" ] && exit 0
goldgate=${{GOLDGATE_BIN:-{bin}}}
[ -x "$goldgate" ] || goldgate=goldgate
exec "$goldgate" hook run "$@" --{args}
"#,
        bin = shell_quote(&goldgate.display().to_string()),
    )
}

/// Install the pre-push hook of the repository containing `cwd`.
pub fn install(
    cwd: &Path,
    goldgate: &Path,
    check_args: &[String],
    force: bool,
) -> Result<Installed> {
    let hook = hook_path(cwd)?;
    let existing = match std::fs::read(&hook) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(Error::Read { path: hook, source }),
    };
    let outcome = match &existing {
        None => Installed::Created(hook.clone()),
        Some(text) if is_ours(text) => Installed::Updated(hook.clone()),
        Some(_) if force => {
            let backup = backup_path(&hook);
            std::fs::rename(&hook, &backup).map_err(|source| Error::Write {
                path: backup.clone(),
                source,
            })?;
            Installed::Replaced(hook.clone(), backup)
        }
        Some(_) => {
            return Err(Error::usage(
                format!("{} exists and was not written by goldgate", hook.display()),
                "call `goldgate hook run \"$@\"` from it by hand (with its stdin), or pass --force to replace it (it is kept as pre-push.goldgate-backup and restored by `goldgate hook uninstall`)",
            ))
        }
    };
    write_executable(&hook, &script(goldgate, check_args))?;
    Ok(outcome)
}

/// Remove goldgate's pre-push hook (someone else's only with `force`), restoring the hook
/// it replaced.
pub fn uninstall(cwd: &Path, force: bool) -> Result<Uninstalled> {
    let hook = hook_path(cwd)?;
    let text = match std::fs::read(&hook) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Uninstalled::NotInstalled(hook))
        }
        Err(source) => return Err(Error::Read { path: hook, source }),
    };
    if !is_ours(&text) && !force {
        return Err(Error::usage(
            format!("{} was not written by goldgate", hook.display()),
            "leave it, or pass --force to delete it",
        ));
    }
    let remove = |path: &Path| {
        std::fs::remove_file(path).map_err(|source| Error::Write {
            path: path.to_path_buf(),
            source,
        })
    };
    remove(&hook)?;
    let backup = backup_path(&hook);
    if backup.is_file() {
        std::fs::rename(&backup, &hook).map_err(|source| Error::Write {
            path: hook.clone(),
            source,
        })?;
        return Ok(Uninstalled::Restored(hook));
    }
    Ok(Uninstalled::Removed(hook))
}

fn write_executable(path: &Path, text: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let err = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    std::fs::write(path, text).map_err(err)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_is_marked_and_hands_the_push_to_hook_run() {
        let s = script(
            Path::new("/opt/gold gate/goldgate"),
            &["--config".into(), "ci/goldgate.toml".into()],
        );
        assert!(is_ours(&s));
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.contains("goldgate=${GOLDGATE_BIN:-'/opt/gold gate/goldgate'}"));
        assert!(s.contains("exec \"$goldgate\" hook run \"$@\" -- --config ci/goldgate.toml\n"));
        assert!(!is_ours("#!/bin/sh\nnpm test\n"));
        assert!(
            is_ours("#!/bin/sh\n# goldgate-hook: pre-push v1\n"),
            "an earlier goldgate's hook is goldgate's"
        );
    }
}
