//! Whether `check` runs sequentially and with which batch: `--sequential`, `--full`,
//! `--batch` and `[check] sequential`/`batch` in goldgate.toml, with the combinations a
//! sequential check cannot honour refused.

use crate::check::SequentialSettings;

/// The variable holding a secret mixed into the sending order's seed.
pub const SALT: &str = "GOLDGATE_SEQUENTIAL_SALT";
use goldgate_core::error::Error;

/// Whether `check` runs sequentially (`--sequential`, or `[check] sequential = true` unless
/// `--full`), and its batch. A sequential check decides about the whole suite from one run:
/// it cannot go on from a partial run (`--resume`) or cover one shard.
pub(super) fn settings(
    flag: bool,
    full: bool,
    batch: Option<u32>,
    table: &crate::config::CheckTable,
    run: &goldgate_run::plan::RunSettings,
) -> Result<Option<SequentialSettings>, Error> {
    if table.batch == Some(0) {
        return Err(Error::usage(
            "[check] batch = 0 in goldgate.toml: the rules are tested after every batch, and a batch of no samples is never complete",
            "a batch is at least 1 sample; leave it out for the default (the larger of --jobs and 1% of the suite)",
        ));
    }
    let on = flag || (table.sequential == Some(true) && !full);
    if !on {
        if batch.is_some() {
            return Err(Error::usage(
                "--batch applies to a sequential check only",
                "add --sequential (or set sequential = true under [check] in goldgate.toml)",
            ));
        }
        return Ok(None);
    }
    if run.resume {
        return Err(Error::usage(
            "a sequential check cannot go on from an earlier run (--resume)",
            "run it again without --resume (answers already made come from the cache), or pass --full",
        ));
    }
    if run.shard.is_some() {
        return Err(Error::usage(
            "a sequential check decides about the whole suite and cannot run one shard",
            "drop --shard, or pass --full",
        ));
    }
    let salt = std::env::var(SALT).ok().filter(|s| !s.is_empty());
    Ok(Some(SequentialSettings {
        batch: batch.or(table.batch).map(|b| b as usize),
        salt,
    }))
}

/// A ratchet finding when the change itself switched the sequential check on: `goldgate.toml`
/// says `sequential = true` under `[check]` (and no `--sequential` was given) while the file
/// at `--base-ref` does not. Deciding on part of the suite lets each rule be wrong with
/// probability α, so a pull request that turns it on for itself loosens its own gate.
pub(super) fn loosened(
    flag: bool,
    base_ref: Option<&str>,
    file: &crate::config::ConfigFile,
) -> Result<Option<String>, Error> {
    let (Some(rev), Some(path), false) = (base_ref, file.path.as_deref(), flag) else {
        return Ok(None);
    };
    if file.check.sequential != Some(true) {
        return Ok(None);
    }
    let on_before = super::gate::config_at(rev, path)?
        .and_then(|t| t.get("check")?.get("sequential")?.as_bool())
        == Some(true);
    let cwd = std::env::current_dir().unwrap_or_default();
    let path = path.strip_prefix(&cwd).unwrap_or(path);
    Ok((!on_before).then(|| {
        format!(
            "[check] sequential = true in {} is new since {rev}: rules are decided on part of the suite (pass --full to send every sample)",
            path.display()
        )
    }))
}
