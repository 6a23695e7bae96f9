//! `goldgate hook install | uninstall | run`: the pre-push hook, and what it runs.

use crate::hook::push::{self, Checked, Push};
use crate::output::Reporter;
use crate::settings::{HookInstallSettings, HookRunSettings};
use goldgate_core::error::{Error, Exit, Result};

pub fn install(s: HookInstallSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    use crate::hook::Installed;
    let cwd = current_dir()?;
    let line = match crate::hook::install(&cwd, &s.goldgate, &s.check_args, s.force)? {
        Installed::Created(p) => {
            format!("installed the goldgate pre-push hook at {}\n", p.display())
        }
        Installed::Updated(p) => format!("updated the goldgate pre-push hook at {}\n", p.display()),
        Installed::Replaced(p, kept) => format!(
            "installed the goldgate pre-push hook at {} (the previous hook is kept at {})\n",
            p.display(),
            kept.display()
        ),
    };
    reporter.out(&line);
    reporter.note(
        "every `git push` now runs `goldgate check` on the pushed commit first; `git push --no-verify` skips it once\n",
    );
    if !crate::hook::ignored(&cwd, ".goldgate/") {
        reporter.note(
            "note: add `.goldgate/` to .gitignore: goldgate keeps its answer cache and reports there\n",
        );
    }
    Ok(Exit::Ok)
}

pub fn uninstall(force: bool, reporter: &mut Reporter<'_>) -> Result<Exit> {
    use crate::hook::Uninstalled;
    let line = match crate::hook::uninstall(&current_dir()?, force)? {
        Uninstalled::Removed(p) => format!("removed the goldgate pre-push hook {}\n", p.display()),
        Uninstalled::Restored(p) => format!(
            "removed the goldgate pre-push hook and restored the hook it had replaced at {}\n",
            p.display()
        ),
        Uninstalled::NotInstalled(p) => format!("no pre-push hook at {}\n", p.display()),
    };
    reporter.out(&line);
    Ok(Exit::Ok)
}

/// The pre-push hook: check each pushed commit (git's lines on stdin) in a temporary
/// worktree; the first that does not pass blocks the push with its exit code.
pub fn run(s: HookRunSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let stdin = std::io::read_to_string(std::io::stdin()).map_err(|source| Error::Read {
        path: "(stdin)".into(),
        source,
    })?;
    let own = [s.check.cache_dir.clone(), s.check.out_dir.clone()];
    let push = push::plan(&current_dir()?, &stdin, &own)?;
    if push.commits.is_empty() {
        return Ok(Exit::Ok);
    }
    if !push.uncommitted.is_empty() {
        reporter.note(&uncommitted_warning(&push));
    }
    let to = s.remote.as_deref().unwrap_or("the remote");
    for commit in &push.commits {
        if push.commits.len() > 1 {
            reporter.note(&format!(
                "goldgate: checking {} ({} on {to})\n",
                commit.short(),
                commit.refs.join(", ")
            ));
        }
        let checked = push::check_commit(&push, commit, &s.check)?;
        if let Some(exit) = blocked(checked) {
            reporter.note(&why_blocked(checked, commit.short()));
            return Ok(exit);
        }
    }
    Ok(Exit::Ok)
}

/// The exit code a check's end blocks the push with; `None` when it passed.
fn blocked(checked: Checked) -> Option<Exit> {
    match (checked.interrupted, checked.code) {
        (false, Some(0)) => None,
        (_, Some(1)) => Some(Exit::Failed),
        (_, Some(2)) => Some(Exit::Input),
        (_, Some(101)) => Some(Exit::Internal),
        _ => Some(Exit::Incomplete),
    }
}

fn why_blocked(checked: Checked, commit: &str) -> String {
    match (checked.interrupted, checked.code) {
        (true, _) => "goldgate: interrupted; push blocked\n".to_string(),
        (_, Some(1)) => format!(
            "goldgate: the gate failed on {commit}; push blocked (fix it, or push with --no-verify)\n"
        ),
        (_, Some(3)) => format!(
            "goldgate: the run on {commit} was incomplete; push blocked (is the pipeline reachable?)\n"
        ),
        (_, Some(code)) => {
            format!("goldgate: check could not run on {commit} (exit {code}); push blocked\n")
        }
        (_, None) => format!("goldgate: check on {commit} was killed; push blocked\n"),
    }
}

/// The warning that uncommitted changes are not what the push sends, naming a few.
fn uncommitted_warning(push: &Push) -> String {
    const SHOWN: usize = 5;
    let names: Vec<&str> = push
        .uncommitted
        .iter()
        .take(SHOWN)
        .map(|line| line.split_once(' ').map_or(line.as_str(), |(_, path)| path))
        .collect();
    let more = match push.uncommitted.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "goldgate: warning: uncommitted changes are not part of the push and were not checked: {}{more}\n",
        names.join(", ")
    )
}

fn current_dir() -> Result<std::path::PathBuf> {
    std::env::current_dir().map_err(|source| Error::Read {
        path: ".".into(),
        source,
    })
}
