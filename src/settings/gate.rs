//! The gate's settings, shared by `compare`, `check` and `publish`: the rules and where
//! they came from, the ratchet against the base branch's rules (read where the base branch
//! keeps them), the bootstrap, and how the verdict is reported and published.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{bootstrap, defaults, retry_backoff, rules, rules_file};
use crate::check::ReportOptions;
use crate::cli::{self, CommentOn};
use crate::config::ConfigFile;
use crate::publish::{self, PublishOptions};
use goldgate_core::error::Error;
use goldgate_core::gate::compare::CompareOptions;
use goldgate_core::gate::thresholds::Thresholds;

/// The rules, how to apply them, and how to report and publish the verdict (`compare`,
/// `check`, `publish`).
#[derive(Clone, Debug)]
pub struct GateSettings {
    pub thresholds: Thresholds,
    /// The file the rules came from; `None`: the built-in rules.
    pub thresholds_path: Option<PathBuf>,
    /// With `--base-ref`: the drift reference the base branch's rules name (read where the
    /// base branch keeps them, wherever this change moved them), as a path from here.
    pub base_reference: Option<PathBuf>,
    pub compare: CompareOptions,
    pub report: ReportOptions,
    pub publish: PublishOptions,
}

impl GateSettings {
    /// `--thresholds`, else `[check] thresholds` in `file`, else ./thresholds.toml when it
    /// exists, else the built-in rules; and the ratchet against `--base-thresholds` or the
    /// rules the base branch gates with at `--base-ref` (see [`base_rules_file`]).
    pub fn resolve(a: &cli::GateArgs, file: Option<&ConfigFile>) -> Result<Self, Error> {
        let configured = file.and_then(|f| f.check.thresholds.as_deref());
        let path = rules_file(a.thresholds.as_deref(), configured);
        let thresholds = rules(path.as_deref())?;
        let mut ratchet = Vec::new();
        let mut base_reference = None;
        let base = match (&a.base_thresholds, &a.base_ref) {
            (Some(file), _) => {
                let text = goldgate_core::io::read(file)?;
                Some(Thresholds::parse_unchecked(&text, file)?)
            }
            (None, Some(rev)) => {
                use goldgate_core::gate::ratchet::normal;
                let was = base_rules_file(rev, a.thresholds.as_deref(), file)?;
                let base = goldgate_core::gate::ratchet::at_revision(rev, &was)?;
                let now = path
                    .clone()
                    .unwrap_or_else(|| PathBuf::from(defaults::THRESHOLDS_FILE));
                if base.is_some() && normal(&was) != normal(&now) {
                    ratchet.push(format!(
                        "rules file moved by this change from {} to {}: its rules are compared with {rev}'s {}",
                        was.display(),
                        now.display(),
                        was.display()
                    ));
                }
                base_reference = base.as_ref().and_then(|b| {
                    let written = b.drift.as_ref()?.get_ref().reference.get_ref();
                    Some(was.parent().unwrap_or(Path::new("")).join(written))
                });
                base
            }
            (None, None) => None,
        };
        ratchet.extend(
            base.map(|b| goldgate_core::gate::ratchet::loosened(&b, &thresholds))
                .unwrap_or_default(),
        );
        if a.resamples == Some(0) {
            return Err(Error::usage(
                "--resamples 0 (or GOLDGATE_RESAMPLES=0) would draw no paired interval, and so turn off every rule that requires a significant regression",
                format!(
                    "use at least 1 resample (the default, {}, is plenty for a 95% interval); a rule that should fail without significance says require_significance = false in thresholds.toml",
                    defaults::RESAMPLES
                ),
            ));
        }
        Ok(GateSettings {
            thresholds,
            thresholds_path: path,
            base_reference,
            compare: CompareOptions {
                bootstrap: bootstrap(a.resamples, a.seed)?,
                allow_version_change: a.allow_version_change,
                ratchet,
                reference: None,
            },
            report: ReportOptions {
                gate_name: a
                    .gate_name
                    .clone()
                    .unwrap_or_else(|| defaults::GATE_NAME.into()),
                templates: a.templates.clone(),
                reproduce: Vec::new(),
            },
            publish: PublishOptions {
                gate_name: a
                    .gate_name
                    .clone()
                    .unwrap_or_else(|| defaults::GATE_NAME.into()),
                comment_on: match a.comment_on.unwrap_or(CommentOn::Always) {
                    CommentOn::Always => publish::CommentOn::Always,
                    CommentOn::Regression => publish::CommentOn::Regression,
                    CommentOn::Never => publish::CommentOn::Never,
                },
                pr: a.pr,
                check_run: a.check_run,
                backoff: retry_backoff(),
                rate_limit_wait: Duration::from_secs(
                    a.github_max_wait.unwrap_or(defaults::GITHUB_MAX_WAIT_SECS),
                ),
                secrets: goldgate_core::secrets::Secrets::from_env(defaults::WITHHELD_ENV),
            },
        })
    }
}

/// The rules file the base branch gates with as of `rev`: `--thresholds` (the workflow's
/// choice), else what the base's own `goldgate.toml` names under `[check] thresholds`, else
/// ./thresholds.toml. A change that points its `goldgate.toml` at a new rules file is
/// compared with the rules it left, never with nothing.
fn base_rules_file(
    rev: &str,
    flag: Option<&Path>,
    file: Option<&ConfigFile>,
) -> Result<PathBuf, Error> {
    if let Some(flag) = flag {
        return Ok(flag.to_path_buf());
    }
    let default = PathBuf::from(defaults::THRESHOLDS_FILE);
    let Some(config) = file.and_then(|f| f.path.as_deref()) else {
        return Ok(default);
    };
    let named = config_at(rev, config)?.and_then(|table| {
        let written = table.get("check")?.get("thresholds")?.as_str()?.to_string();
        Some(config.parent().unwrap_or(Path::new("")).join(written))
    });
    Ok(named.unwrap_or(default))
}

/// The `goldgate.toml` at `config` as of `rev`, as a TOML table; `None` when it did not
/// exist there or does not parse (its rules file is then the default).
pub(crate) fn config_at(rev: &str, config: &Path) -> Result<Option<toml::Table>, Error> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let config = config.strip_prefix(&cwd).unwrap_or(config);
    let before = goldgate_core::gate::ratchet::text_at_revision(rev, config)?;
    Ok(before.and_then(|(text, _)| text.parse::<toml::Table>().ok()))
}
