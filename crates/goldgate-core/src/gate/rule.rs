//! The rule a metric is gated by: its `[metrics."name"]` table in `thresholds.toml` with
//! `[defaults]` filled in, or a built-in run-health rule; what the built-in rules are; and
//! how a rule reads in reports.

use serde::{Deserialize, Serialize};

use super::thresholds::{MetricRule, Regression, Severity, Thresholds, DRIFT_FACTOR};
use crate::metrics::registry::Metric;

/// The rule applied to a metric, as configured (defaults filled in).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// As written: `0.02` or `"5%"` (metrics with bounded values).
    pub max_regression: Option<String>,
    /// As written, `"10%"`: the rise allowed in a metric without an upper bound, relative
    /// to the baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_increase: Option<String>,
    pub require_significance: bool,
    pub confidence: f64,
    pub severity: String,
    /// The unit of the bounds (`USD`, `tokens`, `ms`) of a metric without an upper bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// The cumulative worsening allowed against the pinned reference (`[drift]`), as
    /// written or derived: `0.05` or `"12.5%"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_drift: Option<String>,
}

impl Rule {
    /// `≥ 0.8, ≤ 0.1, Δ ≤ 0.02 (sig.)`, `≤ 5 USD, Δ ≤ +10% (sig.)`: the rule in a few
    /// characters, with the unit of its bounds and of its allowed change.
    pub fn describe(&self) -> String {
        let unit = self
            .unit
            .as_deref()
            .map_or(String::new(), |u| format!(" {u}"));
        let mut parts = Vec::new();
        if let Some(x) = self.min {
            parts.push(format!("≥ {x}{unit}"));
        }
        if let Some(x) = self.max {
            parts.push(format!("≤ {x}{unit}"));
        }
        let change = match (&self.max_regression, &self.max_increase) {
            (Some(x), _) => Some(x.clone()),
            (None, Some(x)) => Some(format!("+{x}")),
            (None, None) => None,
        };
        if let Some(x) = change {
            parts.push(format!(
                "Δ ≤ {x}{}",
                if self.require_significance {
                    " (sig.)"
                } else {
                    ""
                }
            ));
        }
        if let Some(x) = &self.max_drift {
            parts.push(format!("drift ≤ {x}"));
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

/// Whether `metric` gets the built-in ceiling of 0 that keeps a cost or token rule from
/// being judged on usage a pipeline got wrong: `run.usage_invalid_rate`, when the rules
/// gate `run.cost_usd` or `run.tokens_total` and say nothing of it themselves. Those
/// numbers were dropped (or replaced by goldgate's count), so the sum a rule would read is
/// not the pipeline's: the run is incomplete rather than passed.
fn built_in_usage(metric: &Metric, thresholds: &Thresholds) -> bool {
    metric.name == "run.usage_invalid_rate"
        && thresholds
            .rule_names()
            .any(|n| matches!(n, "run.cost_usd" | "run.tokens_total"))
}

/// Whether `metric` gets the built-in ceiling [`DEFAULT_MAX_ERROR_RATE`] that keeps a judge
/// rule from resting on a few reviews: `judge.invalid_rate`, when the rules gate another
/// `judge.*` metric and say nothing of it themselves. A judge that failed 19 of 20 reviews
/// would otherwise pass a score floor on the one it gave.
fn built_in_judge(metric: &Metric, thresholds: &Thresholds) -> bool {
    metric.name == "judge.invalid_rate"
        && thresholds
            .rule_names()
            .any(|n| n.starts_with("judge.") && n != "judge.invalid_rate")
}

/// What the built-in rules are, in a sentence, for reports that say they were used.
pub fn built_in_rules() -> String {
    let primaries: Vec<&str> = crate::kinds::ALL
        .iter()
        .filter(|k| k.listed())
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
        None if built_in_health(metric, thresholds).is_some()
            || built_in_usage(metric, thresholds)
            || built_in_judge(metric, thresholds) =>
        {
            let ceiling = match built_in_usage(metric, thresholds) {
                true => Some(0.0),
                false if built_in_judge(metric, thresholds) => Some(DEFAULT_MAX_ERROR_RATE),
                false => built_in_health(metric, thresholds),
            };
            let rule = Rule {
                min: None,
                max: ceiling,
                max_regression: None,
                max_increase: None,
                require_significance: false,
                confidence: defaults.confidence,
                severity: "fail".into(),
                unit: None,
                max_drift: None,
            };
            return Some((rule, None, Severity::Fail));
        }
        None => return None,
    };
    // A metric with no better direction has bounds only (the default allowance is not its).
    // A bounded metric's change is in its own units (`max_regression`); one without an upper
    // bound (cost, tokens, latency) changes relative to the baseline (`max_increase`), never
    // by the default 0.02 read as dollars or milliseconds.
    let bounded = metric.is_bounded();
    let regression = match bounded {
        true => configured.max_regression().or(defaults.max_regression),
        false => configured.max_increase().or(defaults.max_increase),
    }
    .filter(|_| metric.direction != crate::metrics::registry::Direction::Neither);
    let severity = configured.severity.unwrap_or(defaults.severity);
    let written = |keep: bool| regression.filter(|_| keep).map(|r| r.to_string());
    let rule = Rule {
        min: configured.min(),
        max: configured.max(),
        max_regression: written(bounded),
        max_increase: written(!bounded),
        unit: (!metric.unit.is_empty()).then(|| metric.unit.to_string()),
        require_significance: configured
            .require_significance
            .unwrap_or(defaults.require_significance),
        confidence: configured.confidence().unwrap_or(defaults.confidence),
        severity: match severity {
            Severity::Fail => "fail".into(),
            Severity::Warn => "warn".into(),
        },
        max_drift: drift_budget(metric, &configured, regression, thresholds).map(|b| b.to_string()),
    };
    Some((rule, regression, severity))
}

/// A gated metric's drift budget: none without a `[drift]` reference or a better
/// direction; else its rule's `max_drift`, or [`DRIFT_FACTOR`] times its allowed
/// regression (or rise) when it has one and is not a run-health metric.
fn drift_budget(
    metric: &Metric,
    configured: &MetricRule,
    regression: Option<Regression>,
    thresholds: &Thresholds,
) -> Option<Regression> {
    if thresholds.drift.is_none()
        || metric.direction == crate::metrics::registry::Direction::Neither
    {
        return None;
    }
    // Run health is held to its ceiling, not to a reference: a budget only when written.
    let derived = regression.filter(|_| !metric.is_run_health());
    configured.max_drift().or(derived.map(|r| match r {
        Regression::Absolute(x) => Regression::Absolute(round(x * DRIFT_FACTOR)),
        Regression::Relative(p) => Regression::Relative(round(p * DRIFT_FACTOR)),
    }))
}

/// A derived budget as a person would write it: 0.02 × 2.5 is 0.05, not 0.05000000000000001.
fn round(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

/// A gated metric's drift budget, as [`rule_for`] derives it (`None`: no drift budget).
pub fn drift_for(metric: &Metric, thresholds: &Thresholds) -> Option<Regression> {
    let configured = thresholds
        .metrics
        .iter()
        .find(|(k, _)| k.get_ref() == metric.name)
        .map(|(_, r)| r)?;
    let (_, regression, _) = rule_for(metric, thresholds)?;
    drift_budget(metric, configured, regression, thresholds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn rules(text: &str) -> crate::error::Result<Thresholds> {
        Thresholds::parse(
            &format!("version = 1\n{text}"),
            Path::new("thresholds.toml"),
        )
    }

    fn described(t: &Thresholds, name: &str) -> Option<String> {
        let metric = crate::kinds::find(name).unwrap();
        rule_for(metric, t).map(|(rule, _, _)| rule.describe())
    }

    /// The default allowed regression is in a bounded metric's own units (0.02 of a share);
    /// a metric without an upper bound (cost, tokens, latency) never inherits it as dollars,
    /// tokens or milliseconds, and its bounds say their unit.
    #[test]
    fn defaults_for_regressions_apply_to_bounded_metrics_only() {
        // A bounded metric of a kind: the test kind's primary one.
        let f1 = crate::testkit::test_kind().primary_metric();
        let t = rules(&format!("[metrics.\"run.cost_usd\"]\nmax = 0.005\n[metrics.\"run.latency_p95_ms\"]\nmax = 30000\n[metrics.\"run.tokens_total\"]\nmax = 50000\n[metrics.\"{f1}\"]\nmin = 0.8\n")).unwrap();
        assert_eq!(described(&t, "run.cost_usd").unwrap(), "≤ 0.005 USD");
        assert_eq!(described(&t, "run.latency_p95_ms").unwrap(), "≤ 30000 ms");
        assert_eq!(described(&t, "run.tokens_total").unwrap(), "≤ 50000 tokens");
        assert_eq!(described(&t, f1).unwrap(), "≥ 0.8, Δ ≤ 0.02 (sig.)");
        let cost = crate::kinds::find("run.cost_usd").unwrap();
        assert_eq!(rule_for(cost, &t).unwrap().1, None);
    }

    /// An unbounded metric takes a change relative to the baseline, `max_increase = "10%"`
    /// (also under `[defaults]`), and says so; an absolute `max_regression` on it, a
    /// `max_increase` that is no percentage or on a bounded metric, are refused.
    #[test]
    fn unbounded_metrics_take_a_relative_increase() {
        let t = rules("[metrics.\"run.cost_usd\"]\nmax = 5\nmax_increase = \"10%\"\n").unwrap();
        assert_eq!(
            described(&t, "run.cost_usd").unwrap(),
            "≤ 5 USD, Δ ≤ +10% (sig.)"
        );
        let cost = crate::kinds::find("run.cost_usd").unwrap();
        let (rule, regression, _) = rule_for(cost, &t).unwrap();
        assert_eq!(regression, Some(Regression::Relative(0.1)));
        assert_eq!(
            (rule.max_increase.as_deref(), rule.max_regression),
            (Some("10%"), None)
        );
        assert_eq!(rule.unit.as_deref(), Some("USD"));
        let f1 = crate::testkit::test_kind().primary_metric();
        let t = rules(&format!("[defaults]\nmax_increase = \"25%\"\n[metrics.\"run.latency_p95_ms\"]\n[metrics.\"{f1}\"]\n")).unwrap();
        assert_eq!(
            described(&t, "run.latency_p95_ms").unwrap(),
            "Δ ≤ +25% (sig.)"
        );
        assert_eq!(described(&t, f1).unwrap(), "Δ ≤ 0.02 (sig.)");
        let bounded = format!("[metrics.\"{f1}\"]\nmax_increase = \"10%\"\n");
        for (text, says) in [
            (
                "[metrics.\"run.cost_usd\"]\nmax_regression = 0.02\n",
                "no upper bound",
            ),
            (
                "[metrics.\"run.cost_usd\"]\nmax_regression = \"10%\"\n",
                "no upper bound",
            ),
            (
                "[metrics.\"run.cost_usd\"]\nmax_increase = 0.5\n",
                "a percentage",
            ),
            ("[defaults]\nmax_increase = 2\n", "a percentage"),
            (bounded.as_str(), "bounded"),
            (
                "[metrics.\"run.cost_usd\"]\nmax_increase = \"-5%\"\n",
                ">= 0",
            ),
        ] {
            let e = rules(text).unwrap_err().to_string();
            assert!(
                e.contains("thresholds.toml:") && e.contains(says),
                "{text}: {e}"
            );
        }
    }

    /// A judge rule never rests on a few reviews: `judge.invalid_rate` gets a ceiling when
    /// another judge metric is gated and no rule names it.
    #[test]
    fn a_judge_rule_brings_a_ceiling_on_failed_reviews() {
        let floor = rules("[metrics.\"judge.comprehensive_weighted\"]\nmin = 0.6\n").unwrap();
        assert_eq!(
            described(&floor, "judge.invalid_rate").as_deref(),
            Some("≤ 0.1")
        );
        let f1 = crate::testkit::test_kind().primary_metric();
        let none = rules(&format!("[metrics.\"{f1}\"]\nmin = 0.6\n")).unwrap();
        assert_eq!(described(&none, "judge.invalid_rate"), None);
        let own = rules(
            "[metrics.\"judge.coverage\"]\nmin = 0.6\n[metrics.\"judge.invalid_rate\"]\nmax = 0.5\n",
        )
        .unwrap();
        assert_eq!(
            described(&own, "judge.invalid_rate").as_deref(),
            Some("≤ 0.5, Δ ≤ 0.02 (sig.)")
        );
    }

    #[test]
    fn the_built_in_rules_gate_every_kinds_primary_metric() {
        let t = Thresholds::built_in();
        assert!(
            t.is_built_in() && t.source.to_string() == super::super::thresholds::BUILT_IN_SOURCE
        );
        for kind in crate::kinds::ALL.iter().filter(|k| k.listed()) {
            let metric = crate::kinds::find(kind.primary_metric()).unwrap();
            let (rule, _, severity) = rule_for(metric, &t).unwrap();
            assert_eq!(rule.describe(), "Δ ≤ 0.02 (sig.)");
            assert_eq!((rule.confidence, severity), (0.95, Severity::Fail));
        }
        assert!(!rules("").unwrap().is_built_in());
    }
}
