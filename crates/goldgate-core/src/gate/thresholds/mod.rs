//! `thresholds.toml`: defaults, per-metric rules, `[matching]` and `[rd_score]`; and the
//! built-in rules that apply when no rules file is found. Every table denies unknown keys,
//! every value is checked (in `check.rs`: metric names against the registry with a did-you-mean
//! hint, bounds against each metric's direction and range), and every error names the
//! file, line and key.

use std::collections::BTreeMap;
use std::path::Path;

use regex::Regex;
use serde::Deserialize;
use toml::Spanned;

mod check;
mod drift;

use crate::error::{Error, Location, Problem, Result};
use crate::metrics::matching::ActorClasses;
use crate::metrics::scoring::EMBEDDING_THRESHOLDS;
use crate::metrics::RdWeights;
use crate::metrics::SchemaMode;
use crate::metrics::ScoringConfig;
use crate::text::{explain_serde, norm};

/// A rule's severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    #[default]
    Fail,
    Warn,
}

/// An allowed worsening: absolute (`0.02`, in a bounded metric's own units) or relative to
/// the baseline (`"5%"`; the only kind `max_increase` takes, for metrics without an upper
/// bound).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Regression {
    Absolute(f64),
    Relative(f64),
}

impl Regression {
    /// The amount as written: the number, or the percentage.
    pub(crate) fn amount(self) -> f64 {
        match self {
            Regression::Absolute(x) => x,
            Regression::Relative(p) => p * 100.0,
        }
    }
}

impl std::fmt::Display for Regression {
    /// As written in `thresholds.toml`: `0.02` or `5%`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Regression::Absolute(x) => write!(f, "{x}"),
            Regression::Relative(_) => write!(f, "{}%", self.amount()),
        }
    }
}

/// Any number, or a number followed by `%`: values out of range are checked with the rest of
/// the file (so one run reports them all), not here.
impl<'de> Deserialize<'de> for Regression {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(f64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(x) => Ok(Regression::Absolute(x)),
            Raw::Text(s) => s
                .trim()
                .strip_suffix('%')
                .and_then(|n| n.trim().parse::<f64>().ok())
                .map(|p| Regression::Relative(p / 100.0))
                .ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "`{s}` is neither a number nor a percentage like \"5%\""
                    ))
                }),
        }
    }
}

/// `[defaults]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Applies to the listed metrics with bounded values ([`Metric::is_bounded`]).
    ///
    /// [`Metric::is_bounded`]: crate::metrics::registry::Metric::is_bounded
    #[serde(default = "default_max_regression")]
    pub max_regression: Option<Regression>,
    /// Applies to the listed metrics without an upper bound (cost, tokens, latency): a
    /// percentage of the baseline; none unless written.
    #[serde(default)]
    pub max_increase: Option<Regression>,
    #[serde(default = "yes")]
    pub require_significance: bool,
    #[serde(default = "default_confidence")]
    pub confidence: f64,
    #[serde(default = "default_sample_pass")]
    pub sample_pass: f64,
    #[serde(default)]
    pub severity: Severity,
}

fn yes() -> bool {
    true
}
/// Every key of `[defaults]` a file leaves out keeps its built-in value.
fn default_max_regression() -> Option<Regression> {
    Some(Regression::Absolute(0.02))
}
fn default_confidence() -> f64 {
    0.95
}
fn default_sample_pass() -> f64 {
    0.8
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            max_regression: default_max_regression(),
            max_increase: None,
            require_significance: true,
            confidence: default_confidence(),
            sample_pass: default_sample_pass(),
            severity: Severity::Fail,
        }
    }
}

/// `[metrics."name"]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricRule {
    pub min: Option<Spanned<f64>>,
    pub max: Option<Spanned<f64>>,
    pub max_regression: Option<Spanned<Regression>>,
    /// The rise allowed in a metric without an upper bound, relative to the baseline.
    pub max_increase: Option<Spanned<Regression>>,
    pub require_significance: Option<bool>,
    pub confidence: Option<Spanned<f64>>,
    pub severity: Option<Severity>,
    /// The cumulative worsening allowed against the pinned reference (`[drift]`): absolute
    /// or `"5%"` like `max_regression`; by default [`DRIFT_FACTOR`] times the allowed
    /// regression.
    pub max_drift: Option<Spanned<Regression>>,
}

impl MetricRule {
    /// The floor as a number.
    pub fn min(&self) -> Option<f64> {
        self.min.as_ref().map(|v| *v.get_ref())
    }
    /// The ceiling as a number.
    pub fn max(&self) -> Option<f64> {
        self.max.as_ref().map(|v| *v.get_ref())
    }
    /// The allowed regression.
    pub fn max_regression(&self) -> Option<Regression> {
        self.max_regression.as_ref().map(|v| *v.get_ref())
    }
    /// The allowed rise, relative to the baseline.
    pub fn max_increase(&self) -> Option<Regression> {
        self.max_increase.as_ref().map(|v| *v.get_ref())
    }
    /// The confidence of the paired interval.
    pub fn confidence(&self) -> Option<f64> {
        self.confidence.as_ref().map(|v| *v.get_ref())
    }
    /// The cumulative worsening allowed against the reference, as written.
    pub fn max_drift(&self) -> Option<Regression> {
        self.max_drift.as_ref().map(|v| *v.get_ref())
    }
}

/// A metric's drift budget, unless its rule writes one: this many times its allowed
/// regression (or rise), so ten pull requests that each lose just under the allowance
/// cannot add up to a loss the team never agreed to.
pub const DRIFT_FACTOR: f64 = 2.5;

/// `[drift]`: the pinned reference baseline every gated metric's cumulative drift is
/// measured against.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriftTable {
    /// The reference score file, relative to the rules file's directory.
    pub reference: Spanned<String>,
}

/// `[matching]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Matching {
    pub similarity: Option<String>,
    /// `minilm`: a model directory (relative to this file) or a Hugging Face model id.
    pub model: Option<Spanned<String>>,
    /// `openai`: the embedding model's name.
    pub embedding_model: Option<Spanned<String>>,
    /// `openai`: the API root (else `OPENAI_BASE_URL`, else OpenAI's).
    pub embedding_base_url: Option<Spanned<String>>,
    /// `openai`: the environment variable holding the API key.
    pub embedding_api_key_env: Option<Spanned<String>>,
    /// `openai`: texts per request.
    pub embedding_batch_size: Option<Spanned<u32>>,
    /// `openai`: requests started per minute, at most.
    pub embedding_requests_per_minute: Option<Spanned<u32>>,
    pub requirement_threshold: Option<f64>,
    pub ac_threshold: Option<f64>,
    pub type_rule: Option<bool>,
    pub actor_rule: Option<bool>,
    pub actor_synonyms: Option<Vec<Vec<String>>>,
    pub generic_actors: Option<Vec<String>>,
    pub schema: Option<SchemaMode>,
    pub id_pattern: Option<Spanned<String>>,
    /// The most items matching takes from one sample (gold or answer).
    pub max_items: Option<Spanned<u64>>,
}

/// `[rd_score]` weights.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RdScore {
    pub coverage: f64,
    pub accuracy: f64,
    pub structure: f64,
    pub traceability: f64,
}

/// A whole `thresholds.toml`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    pub version: u32,
    #[serde(default)]
    pub defaults: Option<Spanned<Defaults>>,
    #[serde(default)]
    pub metrics: BTreeMap<Spanned<String>, MetricRule>,
    #[serde(default)]
    pub matching: Option<Spanned<Matching>>,
    #[serde(default)]
    pub rd_score: Option<Spanned<RdScore>>,
    #[serde(default)]
    pub drift: Option<Spanned<DriftTable>>,
    /// Where the rules came from.
    #[serde(skip)]
    pub source: RulesSource,
    /// The file's text, for locating a rule in later messages (empty for the built-in rules).
    #[serde(skip)]
    pub text: String,
}

/// The line and column of a byte offset in `text`.
fn locate(text: &str, path: &Path, offset: usize) -> Location {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Location::new(path, line, column)
}

/// How the built-in rules are named where a verdict says where its rules came from.
pub const BUILT_IN_SOURCE: &str = "built-in defaults";

/// Where a gate's rules came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum RulesSource {
    /// No rules file was found: [`Thresholds::built_in`].
    #[default]
    BuiltIn,
    /// A `thresholds.toml`.
    File(std::path::PathBuf),
}

impl std::fmt::Display for RulesSource {
    /// `built-in defaults`, or the file's path.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RulesSource::BuiltIn => f.write_str(BUILT_IN_SOURCE),
            RulesSource::File(path) => write!(f, "{}", path.display()),
        }
    }
}

impl Thresholds {
    /// The names the rules are written for.
    pub fn rule_names(&self) -> impl Iterator<Item = &str> {
        self.metrics.keys().map(|k| k.get_ref().as_str())
    }

    /// The rules that apply when no rules file is found: a significant drop of more than
    /// the default allowed regression in each listed kind's primary metric fails (only
    /// kinds the run has are judged), and [`super::rule`] adds the run-health ceilings.
    pub fn built_in() -> Thresholds {
        let metrics = crate::kinds::ALL
            .iter()
            .filter(|k| k.listed())
            .map(|k| {
                (
                    Spanned::new(0..0, k.primary_metric().to_string()),
                    MetricRule::default(),
                )
            })
            .collect();
        Thresholds {
            version: 1,
            defaults: None,
            metrics,
            matching: None,
            rd_score: None,
            drift: None,
            source: RulesSource::BuiltIn,
            text: String::new(),
        }
    }

    /// The similarity `[matching]` selects (`lexical` when it says nothing).
    pub fn similarity(&self) -> &str {
        self.matching
            .as_ref()
            .and_then(|m| m.get_ref().similarity.as_deref())
            .unwrap_or("lexical")
    }

    /// Whether these are the built-in rules (no rules file was found).
    pub fn is_built_in(&self) -> bool {
        self.source == RulesSource::BuiltIn
    }

    /// The primary score at or above which a sample passes (`[defaults] sample_pass`).
    pub fn sample_pass(&self) -> f64 {
        self.defaults().sample_pass
    }

    /// `[defaults]` as written, or the built-in defaults without one.
    pub fn defaults(&self) -> Defaults {
        self.defaults
            .as_ref()
            .map(|d| d.get_ref().clone())
            .unwrap_or_default()
    }

    /// The pinned reference `[drift]` names: its path (relative to the rules file's
    /// directory) and where the rules name it. `None`: no drift budget applies.
    pub fn reference(&self) -> Option<(std::path::PathBuf, Location)> {
        let RulesSource::File(path) = &self.source else {
            return None;
        };
        let reference = &self.drift.as_ref()?.get_ref().reference;
        let dir = path.parent().unwrap_or(Path::new(""));
        let at = locate(&self.text, path, reference.span().start);
        Some((dir.join(reference.get_ref()), at))
    }

    /// The rules on the judge's metrics (`judge.*`), each with where it is written (the
    /// built-in rules have none).
    pub fn judge_rules(&self) -> Vec<(&str, Location)> {
        let RulesSource::File(path) = &self.source else {
            return Vec::new();
        };
        self.metrics
            .keys()
            .filter(|name| name.get_ref().starts_with("judge."))
            .map(|name| {
                let at = locate(&self.text, path, name.span().start);
                (name.get_ref().as_str(), Location::new(path, at.line, 0))
            })
            .collect()
    }

    /// Read and validate a thresholds file.
    pub fn load(path: &Path) -> Result<Thresholds> {
        let text = crate::io::read(path)?;
        Thresholds::parse(&text, path)
    }

    /// Parse and validate thresholds text (`path` is used in messages).
    pub fn parse(text: &str, path: &Path) -> Result<Thresholds> {
        let thresholds = Thresholds::parse_unchecked(text, path)?;
        let at = |offset: usize| locate(text, path, offset);
        let mut problems = check::check(&thresholds, text, &at);
        problems.sort_by(|a, b| a.location.cmp(&b.location));
        if problems.is_empty() {
            Ok(thresholds)
        } else {
            Err(Error::Invalid {
                what: "thresholds file",
                problems,
            })
        }
    }

    /// Parse thresholds text without checking its values: the base branch's rules, which the
    /// ratchet compares with and never applies (a file an older goldgate accepted must not
    /// stop every pull request that fixes it).
    pub fn parse_unchecked(text: &str, path: &Path) -> Result<Thresholds> {
        let mut thresholds: Thresholds = toml::from_str(text).map_err(|e| {
            let location = e
                .span()
                .map_or(Location::file(path), |s| locate(text, path, s.start));
            let (message, hint) = explain_serde(e.message().trim());
            let mut problem = Problem::new(location, None, message);
            problem.hint = hint;
            Error::invalid("thresholds file", problem)
        })?;
        thresholds.source = RulesSource::File(path.to_path_buf());
        thresholds.text = text.to_string();
        Ok(thresholds)
    }

    /// The scoring configuration these thresholds ask for.
    pub fn scoring(&self) -> ScoringConfig {
        let mut cfg = ScoringConfig::default();
        if self.similarity() != "lexical" {
            (cfg.requirement_threshold, cfg.ac_threshold) = EMBEDDING_THRESHOLDS;
        }
        if let Some(m) = self.matching.as_ref().map(Spanned::get_ref) {
            cfg.requirement_threshold =
                m.requirement_threshold.unwrap_or(cfg.requirement_threshold);
            cfg.ac_threshold = m.ac_threshold.unwrap_or(cfg.ac_threshold);
            cfg.type_rule = m.type_rule.unwrap_or(cfg.type_rule);
            cfg.actor_rule = m.actor_rule.unwrap_or(cfg.actor_rule);
            if let Some(classes) = &m.actor_synonyms {
                cfg.actors = ActorClasses::new(classes);
            }
            if let Some(generic) = &m.generic_actors {
                cfg.generic_actors = generic.iter().map(|g| norm(g)).collect();
            }
            cfg.schema = m.schema.unwrap_or(cfg.schema);
            if let Some(Ok(re)) = m.id_pattern.as_ref().map(|p| Regex::new(p.get_ref())) {
                cfg.id_pattern = re;
            }
            if let Some(max) = &m.max_items {
                cfg.max_items = usize::try_from(*max.get_ref()).unwrap_or(usize::MAX);
            }
        }
        if let Some(w) = self.rd_score.as_ref().map(Spanned::get_ref) {
            cfg.rd_weights = RdWeights {
                coverage: w.coverage,
                accuracy: w.accuracy,
                structure: w.structure,
                traceability: w.traceability,
            };
        }
        cfg
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::metric;

    fn parse(text: &str) -> Result<Thresholds> {
        Thresholds::parse(text, Path::new("thresholds.toml"))
    }

    #[test]
    fn reads_the_spec_example() {
        let (f1, ece) = (metric("f1"), metric("ece"));
        let t = parse(&format!("version = 1\n[defaults]\nmax_regression = 0.02\nrequire_significance = true\nconfidence = 0.95\nsample_pass = 0.8\n\n[metrics.\"{f1}\"]\nmin = 0.80\nmax_regression = \"5%\"\nseverity = \"fail\"\n\n[metrics.\"{ece}\"]\nmax = 0.10\n\n[matching]\nsimilarity = \"lexical\"\n")).unwrap();
        assert_eq!(t.metrics.len(), 2);
        let f1 = t
            .metrics
            .iter()
            .find(|(k, _)| *k.get_ref() == f1)
            .unwrap()
            .1;
        assert_eq!(f1.max_regression(), Some(Regression::Relative(0.05)));
    }

    #[test]
    fn unknown_metric_and_key_fail_loudly() {
        // A listed kind's metric, one letter too long (only listed metrics are suggested).
        let known = crate::kinds::of(crate::kinds::listed().next().unwrap()).primary_metric();
        let e = parse(&format!(
            "version = 1\n\n[metrics.\"{known}s\"]\nmin = 0.8\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("thresholds.toml:3:") && e.contains(&format!("did you mean `{known}`?")),
            "{e}"
        );
        let e = parse("version = 1\n[defaults]\nmax_regresion = 0.1\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("thresholds.toml:3:") && e.contains("did you mean `max_regression`?"),
            "{e}"
        );
    }

    #[test]
    fn bounds_in_range_on_the_metrics_side_are_accepted() {
        let (f1, recall, ece) = (metric("f1"), metric("recall"), metric("ece"));
        // An agreement in [-1, 1], of whichever kind has one.
        let kappa = crate::kinds::metrics()
            .iter()
            .find(|m| m.range == crate::metrics::registry::Range::Agreement)
            .unwrap()
            .name;
        let t = parse(&format!("version = 1\n[metrics.\"{f1}\"]\nmin = 0\n[metrics.\"{recall}\"]\nmin = 1\n[metrics.\"{kappa}\"]\nmin = -0.5\n[metrics.\"{ece}\"]\nmax = 0\n[metrics.\"run.latency_p95_ms\"]\nmax = 30000\n[metrics.\"run.cost_usd\"]\nmax = 12.5\nmax_increase = \"10%\"\n")).unwrap();
        assert_eq!(t.metrics.len(), 6);
        let e = parse(&format!("version = 1\n[metrics.\"{f1}\"]\nmin = 80\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("thresholds.toml:3:7:") && e.contains("[0, 1]") && e.contains("not 80"),
            "{e}"
        );
    }

    #[test]
    fn rd_weights_must_sum_to_one() {
        let e = parse("version = 1\n[rd_score]\ncoverage = 0.5\naccuracy = 0.3\nstructure = 0.2\ntraceability = 0.1\n").unwrap_err().to_string();
        assert!(e.contains("sum to 1"), "{e}");
        let t = parse("version = 1\n[rd_score]\ncoverage = 0.25\naccuracy = 0.25\nstructure = 0.25\ntraceability = 0.25\n").unwrap();
        assert_eq!(t.scoring().rd_weights.coverage, 0.25);
    }
}
