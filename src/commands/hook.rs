//! `goldgate hook install | uninstall`: the pre-push hook.

use crate::error::{Error, Exit, Result};
use crate::output::Reporter;
use crate::settings::HookInstallSettings;

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
        "every `git push` now runs `goldgate check` first; `git push --no-verify` skips it once\n",
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

fn current_dir() -> Result<std::path::PathBuf> {
    std::env::current_dir().map_err(|source| Error::Read {
        path: ".".into(),
        source,
    })
}
