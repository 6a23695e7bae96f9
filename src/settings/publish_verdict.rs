//! The settings of `goldgate publish`: the verdict file to post (untrusted), the trusted
//! baseline and rules its values are judged again under, and the trusted checkout's commit.

use std::path::PathBuf;

use super::{config_file, defaults, provenance_facts, GateSettings};
use crate::cli::{self, PublishFormat};
use goldgate_core::error::Error;

/// `goldgate publish`.
#[derive(Clone, Debug)]
pub struct PublishSettings {
    /// The verdict file to post (untrusted: its values are judged again).
    pub verdict: PathBuf,
    /// The trusted baseline its values are compared with; `None`: the file's own baseline
    /// values.
    pub baseline: Option<PathBuf>,
    pub gate: GateSettings,
    pub format: PublishFormat,
    /// The commit of the trusted checkout (`GITHUB_SHA`, else git's `HEAD`).
    pub git_sha: Option<String>,
}

impl TryFrom<cli::PublishArgs> for PublishSettings {
    type Error = Error;

    /// The rules as `check` finds them (`--thresholds`, `[check] thresholds`,
    /// ./thresholds.toml); the baseline from `--baseline` (which must exist), else
    /// `[check] baseline` or baselines/main.json when it exists.
    fn try_from(a: cli::PublishArgs) -> Result<Self, Error> {
        let file = config_file(a.config.as_deref())?;
        let baseline = match a.baseline {
            Some(path) if path.is_file() => Some(path),
            Some(path) => {
                return Err(Error::usage(
                    format!("the baseline {} is not a file", path.display()),
                    "pass the trusted baseline score file (e.g. baselines/main.json from the default branch), or leave --baseline out to use the verdict file's own baseline values",
                ))
            }
            None => Some(
                file.check
                    .baseline
                    .clone()
                    .unwrap_or_else(|| defaults::BASELINE.into()),
            )
            .filter(|p| p.is_file()),
        };
        let mut gate = GateSettings::resolve(&a.gate, Some(&file))?;
        let trusted = baseline
            .clone()
            .unwrap_or_else(|| defaults::BASELINE.into());
        gate.with_reference(&trusted, None)?;
        Ok(PublishSettings {
            gate,
            verdict: a.verdict,
            baseline,
            format: a.format.unwrap_or(PublishFormat::Text),
            git_sha: provenance_facts().git_sha,
        })
    }
}
