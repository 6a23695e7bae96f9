//! Settings of the commands that take a suite directory (`suite lint | stats | agreement`,
//! `annotate`): which suite a directory argument names, and the agreement bar.

use std::path::{Path, PathBuf};

use super::defaults;
use crate::cli::{self, SuiteFormat};
use crate::config::ConfigFile;
use goldgate_core::error::Error;

/// `goldgate suite lint` and `suite stats`.
#[derive(Clone, Debug)]
pub struct SuiteSettings {
    /// The suite directory, or a project directory whose goldgate.toml names it (default:
    /// the working directory, when it is either).
    pub dir: PathBuf,
    pub format: SuiteFormat,
    /// `--max-sample-bytes`; without it, the project's `[suite] max_sample_bytes` or the
    /// default ([`super::max_sample_bytes`], once the project is known).
    pub max_sample_bytes: Option<u64>,
}

impl TryFrom<cli::SuiteArgs> for SuiteSettings {
    type Error = Error;

    fn try_from(a: cli::SuiteArgs) -> Result<Self, Error> {
        Ok(SuiteSettings {
            dir: match a.dir {
                Some(dir) => dir,
                None => working_suite()?,
            },
            format: a.format.unwrap_or(SuiteFormat::Text),
            max_sample_bytes: a.max_sample_bytes,
        })
    }
}

/// Without a directory argument: the working directory when it is a project
/// (`goldgate.toml`, whose `[check] suite` names the suite) or a suite (`suite.toml`).
fn working_suite() -> Result<PathBuf, Error> {
    let here = Path::new(".");
    if here.join(defaults::CONFIG_FILE).is_file() || here.join("suite.toml").is_file() {
        return Ok(here.to_path_buf());
    }
    Err(Error::usage(
        format!(
            "no suite given, and the working directory has neither a {} nor a suite.toml",
            defaults::CONFIG_FILE
        ),
        "pass the suite directory (goldgate suite lint suite/), or run it in a project whose goldgate.toml names the suite under [check] suite",
    ))
}

/// `goldgate suite stats`.
#[derive(Clone, Debug)]
pub struct StatsSettings {
    pub suite: SuiteSettings,
    /// `--flaky`: the baseline whose flaky samples to list (`--baseline`, else the project's
    /// `[check] baseline`, else the default, resolved once the project is known).
    pub flaky: Option<Option<PathBuf>>,
}

impl TryFrom<cli::StatsArgs> for StatsSettings {
    type Error = Error;

    fn try_from(a: cli::StatsArgs) -> Result<Self, Error> {
        Ok(StatsSettings {
            suite: a.suite.try_into()?,
            flaky: a.flaky.then_some(a.baseline),
        })
    }
}

/// The baseline and the `sample_pass` of the project a suite argument named: `flag`, else
/// its `[check] baseline`, else the default; its rules' `[defaults] sample_pass`.
pub fn flaky_inputs(named: &NamedSuite, flag: Option<PathBuf>) -> Result<(PathBuf, f64), Error> {
    let baseline = flag
        .or(named.config.check.baseline.clone())
        .unwrap_or_else(|| defaults::BASELINE.into());
    let file = super::rules_file(None, named.config.check.thresholds.as_deref());
    Ok((baseline, super::rules(file.as_deref())?.sample_pass()))
}

/// `goldgate suite agreement`.
#[derive(Clone, Debug)]
pub struct AgreementSettings {
    pub suite: SuiteSettings,
    pub min_kappa: f64,
}

impl TryFrom<cli::AgreementArgs> for AgreementSettings {
    type Error = Error;

    fn try_from(a: cli::AgreementArgs) -> Result<Self, Error> {
        Ok(AgreementSettings {
            suite: a.suite.try_into()?,
            min_kappa: min_kappa(a.min_kappa)?,
        })
    }
}

/// The most items matching takes from one sample (`[matching] max_items`), as the rules
/// `check` would apply say: the project's `[check] thresholds`, else ./thresholds.toml when
/// it exists, else the default. `suite lint` holds the gold to it.
pub fn max_items(named: &NamedSuite) -> Result<usize, Error> {
    let file = super::rules_file(None, named.config.check.thresholds.as_deref());
    Ok(super::rules(file.as_deref())?.scoring().max_items)
}

/// The suite a directory argument names.
pub struct NamedSuite {
    pub dir: PathBuf,
    /// The project's settings when they named the suite, else the defaults.
    pub config: ConfigFile,
    /// The `goldgate.toml` that named it.
    pub named_by: Option<PathBuf>,
}

/// `dir` itself, or, when it is a project directory (a `goldgate.toml` whose `[check] suite`
/// names another directory, and no `suite.toml`), the suite it names, under that file's
/// settings.
pub fn named_suite(dir: &Path) -> Result<NamedSuite, Error> {
    let config = dir.join(defaults::CONFIG_FILE);
    if config.is_file() && !dir.join("suite.toml").is_file() {
        let file = ConfigFile::load(&config)?;
        if let Some(named) = file.check.suite.clone().filter(|named| named != dir) {
            return Ok(NamedSuite {
                dir: named,
                config: file,
                named_by: Some(config),
            });
        }
    }
    Ok(NamedSuite {
        dir: dir.to_path_buf(),
        config: ConfigFile::default(),
        named_by: None,
    })
}

/// `--min-kappa`, else the labelling guide's bar; a kappa outside [-1, 1] is refused.
pub fn min_kappa(flag: Option<f64>) -> Result<f64, Error> {
    let min_kappa = flag.unwrap_or(defaults::MIN_KAPPA);
    if !(-1.0..=1.0).contains(&min_kappa) {
        return Err(Error::usage(
            format!("--min-kappa {min_kappa} is outside [-1, 1]"),
            "the labelling guide's bar is 0.75",
        ));
    }
    Ok(min_kappa)
}
