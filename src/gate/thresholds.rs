//! `thresholds.toml`: defaults, per-metric rules, `[matching]` and `[rd_score]`.
//! Every table denies unknown keys, metric names are checked against the registry with a
//! did-you-mean hint, and every error names the file, line and key.

use std::collections::BTreeMap;
use std::path::Path;

use regex::Regex;
use serde::Deserialize;
use toml::Spanned;

use crate::error::{Error, Location, Problem, Result};
use crate::metrics::matching::ActorClasses;
use crate::metrics::RdWeights;
use crate::metrics::SchemaMode;
use crate::metrics::ScoringConfig;
use crate::text::{did_you_mean, explain_serde, norm};

/// A rule's severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    #[default]
    Fail,
    Warn,
}

/// An allowed worsening: absolute (`0.02`) or relative to the baseline (`"5%"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Regression {
    Absolute(f64),
    Relative(f64),
}

impl<'de> Deserialize<'de> for Regression {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(f64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(x) if x >= 0.0 && x.is_finite() => Ok(Regression::Absolute(x)),
            Raw::Number(x) => Err(serde::de::Error::custom(format!(
                "max_regression must be >= 0, got {x}"
            ))),
            Raw::Text(s) => s
                .trim()
                .strip_suffix('%')
                .and_then(|n| n.trim().parse::<f64>().ok())
                .filter(|p| *p >= 0.0 && p.is_finite())
                .map(|p| Regression::Relative(p / 100.0))
                .ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "max_regression `{s}` is neither a number nor a percentage like \"5%\""
                    ))
                }),
        }
    }
}

/// `[defaults]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    #[serde(default = "default_max_regression")]
    pub max_regression: Option<Regression>,
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
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub max_regression: Option<Regression>,
    pub require_significance: Option<bool>,
    pub confidence: Option<f64>,
    pub severity: Option<Severity>,
}

/// `[matching]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Matching {
    pub similarity: Option<String>,
    pub requirement_threshold: Option<f64>,
    pub ac_threshold: Option<f64>,
    pub type_rule: Option<bool>,
    pub actor_rule: Option<bool>,
    pub actor_synonyms: Option<Vec<Vec<String>>>,
    pub generic_actors: Option<Vec<String>>,
    pub schema: Option<SchemaMode>,
    pub id_pattern: Option<Spanned<String>>,
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
}

impl Thresholds {
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

    /// Read and validate a thresholds file.
    pub fn load(path: &Path) -> Result<Thresholds> {
        let text = crate::io::read(path)?;
        Thresholds::parse(&text, path)
    }

    /// Parse and validate thresholds text (`path` is used in messages).
    pub fn parse(text: &str, path: &Path) -> Result<Thresholds> {
        let at = |offset: usize| {
            let before = &text[..offset.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            Location::new(path, line, column)
        };
        let thresholds: Thresholds = toml::from_str(text).map_err(|e| {
            let location = e.span().map_or(Location::file(path), |s| at(s.start));
            let (message, hint) = explain_serde(e.message().trim());
            let mut problem = Problem::new(location, None, message);
            problem.hint = hint;
            Error::invalid("thresholds file", problem)
        })?;
        let problems = thresholds.check(&at);
        if problems.is_empty() {
            Ok(thresholds)
        } else {
            Err(Error::Invalid {
                what: "thresholds file",
                problems,
            })
        }
    }

    fn check(&self, at: &dyn Fn(usize) -> Location) -> Vec<Problem> {
        let mut problems = Vec::new();
        if self.version != 1 {
            problems.push(
                Problem::new(
                    at(0),
                    Some("version".into()),
                    format!("unsupported version {}", self.version),
                )
                .with_hint("this goldgate reads `version = 1`"),
            );
        }
        if let Some(defaults) = &self.defaults {
            problems.extend(check_defaults(defaults, at));
        }
        for (name, rule) in &self.metrics {
            let location = at(name.span().start);
            let field = Some(format!("metrics.\"{}\"", name.get_ref()));
            if crate::kinds::find(name.get_ref()).is_none() {
                let hint = match did_you_mean(name.get_ref(), crate::kinds::names()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "`goldgate score` writes every metric name into score.json".to_string(),
                };
                problems.push(
                    Problem::new(
                        location.clone(),
                        field.clone(),
                        format!("unknown metric `{}`", name.get_ref()),
                    )
                    .with_hint(hint),
                );
            }
            for (key, value) in [("min", rule.min), ("max", rule.max)] {
                if let Some(v) = value.filter(|v| !v.is_finite()) {
                    problems.push(
                        Problem::new(
                            location.clone(),
                            field.clone(),
                            format!("{key} {v} is not a finite number"),
                        )
                        .with_hint(
                            "a bound is a number in the metric's own range, e.g. `min = 0.8`",
                        ),
                    );
                }
            }
            if let (Some(min), Some(max)) = (rule.min, rule.max) {
                if min > max {
                    problems.push(Problem::new(
                        location.clone(),
                        field.clone(),
                        format!("min {min} is above max {max}"),
                    ));
                }
            }
            if let Some(c) = rule.confidence.filter(|c| !(c > &0.0 && c < &1.0)) {
                problems.push(
                    Problem::new(
                        location,
                        field,
                        format!("confidence {c} must be between 0 and 1"),
                    )
                    .with_hint(CONFIDENCE_HINT),
                );
            }
        }
        if let Some(m) = &self.matching {
            problems.extend(check_matching(m, at));
        }
        if let Some(rd) = &self.rd_score {
            let w = rd.get_ref();
            let sum = w.coverage + w.accuracy + w.structure + w.traceability;
            if (sum - 1.0).abs() > 1e-9
                || [w.coverage, w.accuracy, w.structure, w.traceability]
                    .iter()
                    .any(|x| *x < 0.0)
            {
                problems.push(Problem::new(at(rd.span().start), Some("rd_score".into()), format!("weights must be non-negative and sum to 1, they sum to {sum}")).with_hint("the defaults are coverage 0.4, accuracy 0.3, structure 0.2, traceability 0.1"));
            }
        }
        problems
    }

    /// The scoring configuration these thresholds ask for.
    pub fn scoring(&self) -> ScoringConfig {
        let mut cfg = ScoringConfig::default();
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

const CONFIDENCE_HINT: &str = "a confidence level strictly between 0 and 1, e.g. 0.95";

/// `[defaults]` values in their ranges: a confidence level in (0, 1), `sample_pass` a primary
/// score in [0, 1] (`nan` and infinities are out of every range).
fn check_defaults(defaults: &Spanned<Defaults>, at: &dyn Fn(usize) -> Location) -> Vec<Problem> {
    let d = defaults.get_ref();
    let location = at(defaults.span().start);
    let mut problems = Vec::new();
    if !(d.confidence > 0.0 && d.confidence < 1.0) {
        problems.push(
            Problem::new(
                location.clone(),
                Some("defaults.confidence".into()),
                format!("confidence {} must be between 0 and 1", d.confidence),
            )
            .with_hint(CONFIDENCE_HINT),
        );
    }
    if !(0.0..=1.0).contains(&d.sample_pass) {
        problems.push(
            Problem::new(
                location,
                Some("defaults.sample_pass".into()),
                format!("sample_pass {} must be between 0 and 1", d.sample_pass),
            )
            .with_hint("a primary score from 0 to 1 at or above which a sample passes, e.g. 0.8"),
        );
    }
    problems
}

fn check_matching(m: &Spanned<Matching>, at: &dyn Fn(usize) -> Location) -> Vec<Problem> {
    let mut problems = Vec::new();
    let location = at(m.span().start);
    let m = m.get_ref();
    match m.similarity.as_deref() {
        None | Some("lexical") => {}
        Some(other @ ("minilm" | "openai")) => problems.push(
            Problem::new(
                location.clone(),
                Some("matching.similarity".into()),
                format!("the `{other}` similarity is not available in this version of goldgate"),
            )
            .with_hint("use `lexical` (thresholds 0.60 / 0.50)"),
        ),
        Some(other) => problems.push(
            Problem::new(
                location.clone(),
                Some("matching.similarity".into()),
                format!("unknown similarity `{other}`"),
            )
            .with_hint(crate::text::hint_for(
                other,
                &["lexical", "minilm", "openai"],
            )),
        ),
    }
    for (key, value) in [
        ("requirement_threshold", m.requirement_threshold),
        ("ac_threshold", m.ac_threshold),
    ] {
        if let Some(v) = value.filter(|v| !(*v > 0.0 && *v <= 1.0)) {
            let problem = Problem::new(
                location.clone(),
                Some(format!("matching.{key}")),
                format!("{v} is outside (0, 1]"),
            );
            problems.push(
                problem
                    .with_hint("a threshold of 0 would match unrelated, even empty, requirements"),
            );
        }
    }
    if let Some(p) = &m.id_pattern {
        if let Err(e) = Regex::new(p.get_ref()) {
            problems.push(Problem::new(
                at(p.span().start),
                Some("matching.id_pattern".into()),
                format!("invalid regular expression: {e}"),
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Thresholds> {
        Thresholds::parse(text, Path::new("thresholds.toml"))
    }

    #[test]
    fn reads_the_spec_example() {
        let t = parse("version = 1\n[defaults]\nmax_regression = 0.02\nrequire_significance = true\nconfidence = 0.95\nsample_pass = 0.8\n\n[metrics.\"extraction.f1\"]\nmin = 0.80\nmax_regression = \"5%\"\nseverity = \"fail\"\n\n[metrics.\"extraction.ece\"]\nmax = 0.10\n\n[matching]\nsimilarity = \"lexical\"\n").unwrap();
        assert_eq!(t.metrics.len(), 2);
        let f1 = t
            .metrics
            .iter()
            .find(|(k, _)| k.get_ref() == "extraction.f1")
            .unwrap()
            .1;
        assert_eq!(f1.max_regression, Some(Regression::Relative(0.05)));
    }

    #[test]
    fn unknown_metric_and_key_fail_loudly() {
        let e = parse("version = 1\n\n[metrics.\"extraction.f2\"]\nmin = 0.8\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("thresholds.toml:3:") && e.contains("did you mean `extraction.f1`?"),
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
    fn rd_weights_must_sum_to_one() {
        let e = parse("version = 1\n[rd_score]\ncoverage = 0.5\naccuracy = 0.3\nstructure = 0.2\ntraceability = 0.1\n").unwrap_err().to_string();
        assert!(e.contains("sum to 1"), "{e}");
        let t = parse("version = 1\n[rd_score]\ncoverage = 0.25\naccuracy = 0.25\nstructure = 0.25\ntraceability = 0.25\n").unwrap();
        assert_eq!(t.scoring().rd_weights.coverage, 0.25);
    }
}
