//! Validated settings of each command, converted from the command line with `TryFrom`.

use std::path::PathBuf;

use crate::cli::{self, Format};
use crate::error::Error;
use crate::metrics::bootstrap::BootstrapConfig;

/// `goldgate score`.
#[derive(Clone, Debug)]
pub struct ScoreSettings {
    pub suite: PathBuf,
    pub run: PathBuf,
    pub output: PathBuf,
    pub thresholds: Option<PathBuf>,
    pub bootstrap: BootstrapConfig,
    pub allow_missing: bool,
    pub format: Format,
}

/// Most resamples accepted (beyond this the CI does not change, only the wait).
pub const MAX_RESAMPLES: usize = 100_000;

impl TryFrom<cli::ScoreArgs> for ScoreSettings {
    type Error = Error;

    fn try_from(a: cli::ScoreArgs) -> Result<Self, Error> {
        if a.resamples > MAX_RESAMPLES {
            return Err(Error::usage(
                format!("--resamples {} is too many", a.resamples),
                format!("use at most {MAX_RESAMPLES}; 1000 is plenty for a 95% interval"),
            ));
        }
        Ok(ScoreSettings {
            suite: a.suite,
            run: a.run,
            output: a.output,
            thresholds: a.thresholds,
            bootstrap: BootstrapConfig {
                resamples: a.resamples,
                seed: a.seed,
                ..BootstrapConfig::default()
            },
            allow_missing: a.allow_missing,
            format: a.format,
        })
    }
}

/// `goldgate suite agreement`.
#[derive(Clone, Debug)]
pub struct AgreementSettings {
    pub dir: PathBuf,
    pub min_kappa: f64,
    pub format: Format,
}

impl TryFrom<cli::AgreementArgs> for AgreementSettings {
    type Error = Error;

    fn try_from(a: cli::AgreementArgs) -> Result<Self, Error> {
        if !(-1.0..=1.0).contains(&a.min_kappa) {
            return Err(Error::usage(
                format!("--min-kappa {} is outside [-1, 1]", a.min_kappa),
                "the seed's bar is 0.75",
            ));
        }
        Ok(AgreementSettings {
            dir: a.suite.dir,
            min_kappa: a.min_kappa,
            format: a.suite.format,
        })
    }
}
