//! The rule a metric is gated by: its `[metrics."name"]` table in `thresholds.toml` with
//! `[defaults]` filled in, or a built-in run-health rule; what the built-in rules are; and
//! how a rule reads in reports.

use serde::{Deserialize, Serialize};

use super::thresholds::{Regression, Severity, Thresholds};
use crate::metrics::registry::Metric;

/// The rule applied to a metric, as configured (defaults filled in).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// As written: `0.02` or `"5%"`.
    pub max_regression: Option<String>,
    pub require_significance: bool,
    pub confidence: f64,
    pub severity: String,
}

impl Rule {
    /// `≥ 0.8, ≤ 0.1, Δ ≤ 0.02 (sig.)`: the rule in a few characters.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(x) = self.min {
            parts.push(format!("≥ {x}"));
        }
        if let Some(x) = self.max {
            parts.push(format!("≤ {x}"));
        }
        if let Some(x) = &self.max_regression {
            parts.push(format!(
                "Δ ≤ {x}{}",
                if self.require_significance {
                    " (sig.)"
                } else {
                    ""
                }
            ));
        }
        parts.join(", ")
    }
}

/// The built-in run-health ceiling: more than this share of failed calls makes a run
/// incomplete unless `thresholds.toml` has its own rule for `run.error_rate`; under the
/// built-in rules (no rules file) the same holds for answers that do not parse
/// (`parse.error_rate`) or hold no JSON at all (`parse.no_json_rate`).
pub const DEFAULT_MAX_ERROR_RATE: f64 = 0.10;

/// The built-in ceiling on `parse.keyless_rate`, for each kind apart: when most of a kind's
/// answers hold none of the keys it reads, its scores measure a misnamed key, not quality,
/// and the run is incomplete unless `thresholds.toml` has its own `parse.keyless_rate` rule.
pub const DEFAULT_MAX_KEYLESS_RATE: f64 = 0.5;

/// The built-in run-health ceiling `metric` gets when no rule names it.
fn built_in_health(metric: &Metric, thresholds: &Thresholds) -> Option<f64> {
    match metric.name {
        "run.error_rate" => Some(DEFAULT_MAX_ERROR_RATE),
        "parse.keyless_rate" => Some(DEFAULT_MAX_KEYLESS_RATE),
        "parse.error_rate" | "parse.no_json_rate" if thresholds.is_built_in() => {
            Some(DEFAULT_MAX_ERROR_RATE)
        }
        _ => None,
    }
}

/// What the built-in rules are, in a sentence, for reports that say they were used.
pub fn built_in_rules() -> String {
    let primaries: Vec<&str> = crate::kinds::ALL
        .iter()
        .map(|k| k.primary_metric())
        .collect();
    format!(
        "a significant drop of more than 0.02 in a kind's primary metric ({}) fails; more than {}% failed calls, answers that do not parse or answers without JSON make the run incomplete, and so do more than {}% of a kind's answers holding none of the keys it reads",
        primaries.join(", "),
        DEFAULT_MAX_ERROR_RATE * 100.0,
        DEFAULT_MAX_KEYLESS_RATE * 100.0
    )
}

/// Where writing a `thresholds.toml` is explained.
pub const RULES_DOCS: &str = concat!(
    env!("CARGO_PKG_REPOSITORY"),
    "/blob/main/docs/thresholds.md"
);

/// The rule for a metric: its `[metrics."name"]` table with `[defaults]` filled in, or a
/// built-in run-health rule. `None`: the metric is reported, not gated.
pub fn rule_for(
    metric: &Metric,
    thresholds: &Thresholds,
) -> Option<(Rule, Option<Regression>, Severity)> {
    let defaults = thresholds.defaults();
    let configured = thresholds
        .metrics
        .iter()
        .find(|(k, _)| k.get_ref() == metric.name)
        .map(|(_, r)| r.clone());
    let configured = match configured {
        Some(r) => r,
        None if built_in_health(metric, thresholds).is_some() => {
            let rule = Rule {
                min: None,
                max: built_in_health(metric, thresholds),
                max_regression: None,
                require_significance: false,
                confidence: defaults.confidence,
                severity: "fail".into(),
            };
            return Some((rule, None, Severity::Fail));
        }
        None => return None,
    };
    // A metric with no better direction has bounds only (the default allowance is not its).
    let regression = configured
        .max_regression()
        .or(defaults.max_regression)
        .filter(|_| metric.direction != crate::metrics::registry::Direction::Neither);
    let severity = configured.severity.unwrap_or(defaults.severity);
    let rule = Rule {
        min: configured.min(),
        max: configured.max(),
        max_regression: regression.map(|r| r.to_string()),
        require_significance: configured
            .require_significance
            .unwrap_or(defaults.require_significance),
        confidence: configured.confidence().unwrap_or(defaults.confidence),
        severity: match severity {
            Severity::Fail => "fail".into(),
            Severity::Warn => "warn".into(),
        },
    };
    Some((rule, regression, severity))
}
