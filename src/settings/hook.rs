//! Settings of the pre-push hook: `goldgate hook install` (the check arguments the hook
//! will pass, validated now) and `goldgate hook run` (the check of each pushed commit, with
//! the cache and output directories of the repository made absolute so the check in a
//! temporary worktree shares them).

use std::path::PathBuf;

use super::{cache_dir, config_file, out_dir};
use crate::cli;
use goldgate_core::error::Error;

/// The goldgate binary running now (the hook runs the same one).
fn this_binary() -> PathBuf {
    std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .unwrap_or_else(|_| PathBuf::from("goldgate"))
}

/// `goldgate hook run`: how each pushed commit is checked.
#[derive(Clone, Debug)]
pub struct HookRunSettings {
    /// The remote pushed to, when git named it.
    pub remote: Option<String>,
    /// The check: the user's arguments, with the cache and output directory that `check`
    /// would use here, made absolute so the check in the temporary worktree shares them.
    pub check: crate::hook::push::CheckWith,
}

impl TryFrom<cli::HookRunArgs> for HookRunSettings {
    type Error = Error;

    fn try_from(a: cli::HookRunArgs) -> Result<Self, Error> {
        let check = cli::parse_check_args(&a.check_args).map_err(|why| {
            Error::usage(
                format!("the hook's check arguments are not valid: {why}"),
                "reinstall the hook with valid `goldgate check` options: goldgate hook install -- OPTIONS",
            )
        })?;
        // A goldgate.toml that does not load here fails the check itself, with its message.
        let file = config_file(check.pipeline.config.as_deref()).unwrap_or_default();
        let here = std::env::current_dir().map_err(|source| Error::Read {
            path: ".".into(),
            source,
        })?;
        Ok(HookRunSettings {
            remote: a.remote,
            check: crate::hook::push::CheckWith {
                goldgate: this_binary(),
                cache_dir: here.join(cache_dir(check.pipeline.cache_dir, &file)),
                out_dir: here.join(out_dir(check.out_dir, &file)),
                check_args: a.check_args,
            },
        })
    }
}

/// `goldgate hook install`.
#[derive(Clone, Debug)]
pub struct HookInstallSettings {
    pub force: bool,
    /// Arguments for `goldgate check`, already checked by clap.
    pub check_args: Vec<String>,
    /// The binary the hook runs (this one).
    pub goldgate: PathBuf,
}

impl TryFrom<cli::HookInstallArgs> for HookInstallSettings {
    type Error = Error;

    fn try_from(a: cli::HookInstallArgs) -> Result<Self, Error> {
        cli::validate_check_args(&a.check_args).map_err(|why| {
            Error::usage(
                format!("the hook's check arguments are not valid: {why}"),
                "pass `goldgate check` options after `--`, e.g. goldgate hook install -- --config ci/goldgate.toml",
            )
        })?;
        Ok(HookInstallSettings {
            force: a.force,
            check_args: a.check_args,
            goldgate: this_binary(),
        })
    }
}
