//! Settings of `goldgate history` and `goldgate baseline pin`: the baseline (`--baseline`,
//! else `[check] baseline`, else the default), the rules (found as `check` finds them) and
//! the reference their `[drift]` names.

use std::path::{Path, PathBuf};

use super::{config_file, defaults, rules, rules_file, GateSettings};
use crate::cli::{BaselineRules, HistoryArgs, HistoryFormat, PinArgs};
use goldgate_core::error::Error;
use goldgate_core::gate::thresholds::Thresholds;

/// `goldgate history`.
#[derive(Clone, Debug)]
pub struct HistorySettings {
    pub baseline: PathBuf,
    /// The rules: which metrics are gated, and the reference `[drift]` names.
    pub thresholds: Thresholds,
    pub reference: Option<PathBuf>,
    pub format: HistoryFormat,
    pub output: Option<PathBuf>,
    pub last: Option<usize>,
}

/// The baseline (`--baseline`, else `[check] baseline`, else the default), the rules file
/// found as `check` finds it, and its rules.
fn resolve(files: BaselineRules) -> Result<(PathBuf, Option<PathBuf>, Thresholds), Error> {
    let file = config_file(files.config.as_deref())?;
    let path = rules_file(
        files.thresholds.as_deref(),
        file.check.thresholds.as_deref(),
    );
    let thresholds = rules(path.as_deref())?;
    let baseline = files
        .baseline
        .or(file.check.baseline)
        .unwrap_or_else(|| defaults::BASELINE.into());
    Ok((baseline, path, thresholds))
}

impl TryFrom<HistoryArgs> for HistorySettings {
    type Error = Error;

    fn try_from(a: HistoryArgs) -> Result<Self, Error> {
        let (baseline, _, thresholds) = resolve(a.files)?;
        if a.last == Some(0) {
            return Err(Error::usage(
                "--last 0 would show no version",
                "pass --last N with N of at least 1, or leave it out for every version",
            ));
        }
        Ok(HistorySettings {
            baseline,
            reference: thresholds.reference().map(|(path, _)| path),
            thresholds,
            format: a.format.unwrap_or(HistoryFormat::Text),
            output: a.output,
            last: a.last,
        })
    }
}

/// `goldgate baseline pin`.
#[derive(Clone, Debug)]
pub struct PinSettings {
    pub baseline: PathBuf,
    /// Where the pinned copy goes: `[drift] reference`.
    pub reference: PathBuf,
}

impl TryFrom<PinArgs> for PinSettings {
    type Error = Error;

    fn try_from(a: PinArgs) -> Result<Self, Error> {
        let (baseline, path, thresholds) = resolve(a.files)?;
        let Some((reference, _)) = thresholds.reference() else {
            let rules = path.map_or_else(
                || "there is no thresholds.toml here".to_string(),
                |p| format!("{} has no [drift] reference", p.display()),
            );
            return Err(Error::usage(
                format!("nowhere to pin the baseline: {rules}"),
                "add [drift] reference = \"baselines/reference.json\" to thresholds.toml (the path is relative to it), then pin",
            ));
        };
        Ok(PinSettings {
            baseline,
            reference,
        })
    }
}

impl GateSettings {
    /// Read the `[drift]` reference (as of `base_ref` when the change re-pinned it, said as
    /// a loosened rule), with the refreshes of `baseline` since it was pinned.
    pub(super) fn with_reference(
        &mut self,
        baseline: &Path,
        base_ref: Option<&str>,
    ) -> Result<(), Error> {
        let (reference, finding) = crate::history::reference(
            &self.thresholds,
            baseline,
            base_ref.zip(self.base_reference.as_deref()),
        )?;
        self.compare.reference = reference;
        self.compare.ratchet.extend(finding);
        Ok(())
    }
}
