//! The registry of every metric name goldgate reports: its direction (higher or lower is
//! better), the statistic whose presence counts a sample towards `n`, and how its value is
//! computed. Thresholds, reports and the gate look metrics up here.

use super::stats::Sums;

/// Which way is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Higher,
    Lower,
}

/// How a metric's value is computed.
#[derive(Clone, Copy, Debug)]
pub enum Eval {
    /// A function of summed statistics.
    Sums(fn(&dyn Sums) -> Option<f64>),
    /// A quantile (0–1) of per-record latencies.
    LatencyQuantile(f64),
}

/// One metric.
#[derive(Clone, Copy, Debug)]
pub struct Metric {
    pub name: &'static str,
    pub direction: Direction,
    /// A sample counts towards `n` when this statistic is non-zero for it; the value is
    /// `null` when it is zero over the whole scope.
    pub support: &'static str,
    pub eval: Eval,
    pub about: &'static str,
}

impl Metric {
    /// The values the metric can take, inclusive: kappas lie in [-1, 1]; latencies, token
    /// counts and costs are non-negative with no upper bound; every other metric is a rate,
    /// a share, a mean of scores in [0, 1] or a calibration error, in [0, 1]. Files that
    /// claim a value outside it (a verdict from elsewhere) are refused.
    pub fn range(&self) -> (f64, f64) {
        match self.eval {
            Eval::LatencyQuantile(_) => (0.0, f64::INFINITY),
            Eval::Sums(_) if UNBOUNDED.contains(&self.name) => (0.0, f64::INFINITY),
            Eval::Sums(_) if self.name.ends_with("kappa") => (-1.0, 1.0),
            Eval::Sums(_) => (0.0, 1.0),
        }
    }

    /// The metric's value over summed statistics (`None` without support).
    pub fn value(&self, sums: &dyn Sums) -> Option<f64> {
        match self.eval {
            Eval::Sums(f) if sums.get(self.support) > 0.0 => f(sums).filter(|v| v.is_finite()),
            _ => None,
        }
    }
}

pub const fn m(
    name: &'static str,
    direction: Direction,
    support: &'static str,
    f: fn(&dyn Sums) -> Option<f64>,
    about: &'static str,
) -> Metric {
    Metric {
        name,
        direction,
        support,
        eval: Eval::Sums(f),
        about,
    }
}

pub use Direction::{Higher, Lower};

/// Metrics that count or sum without an upper bound.
const UNBOUNDED: &[&str] = &["run.tokens_total", "run.cost_usd"];

pub fn rate(s: &dyn Sums, key: &str, of: &str) -> Option<f64> {
    Some(s.get(key) / s.get(of))
}

/// The metrics every kind shares, in report order: parse outcomes and run health.
pub static SHARED: &[Metric] = &[
    m(
        "parse.raw_success_rate",
        Higher,
        "parse.records",
        |s| rate(s, "parse.raw", "parse.records"),
        "answers that were strict JSON",
    ),
    m(
        "parse.repair_success_rate",
        Higher,
        "parse.records",
        |s| rate(s, "parse.repaired", "parse.records"),
        "answers that parsed after repair",
    ),
    m(
        "parse.error_rate",
        Lower,
        "parse.records",
        |s| rate(s, "parse.error", "parse.records"),
        "answers with JSON that did not parse",
    ),
    m(
        "parse.no_json_rate",
        Lower,
        "parse.records",
        |s| rate(s, "parse.no_json", "parse.records"),
        "answers with no JSON at all",
    ),
    m(
        "run.error_rate",
        Lower,
        "run.records",
        |s| rate(s, "run.errors", "run.records"),
        "records whose pipeline call failed",
    ),
    Metric {
        name: "run.latency_p50_ms",
        direction: Lower,
        support: "run.latency_known",
        eval: Eval::LatencyQuantile(0.50),
        about: "median latency",
    },
    Metric {
        name: "run.latency_p95_ms",
        direction: Lower,
        support: "run.latency_known",
        eval: Eval::LatencyQuantile(0.95),
        about: "95th percentile latency",
    },
    m(
        "run.cache_hit_rate",
        Higher,
        "run.records",
        |s| rate(s, "run.cached", "run.records"),
        "records answered from the cache",
    ),
    m(
        "run.tokens_total",
        Lower,
        "run.tokens_known",
        |s| Some(s.get("run.tokens")),
        "tokens used, where known",
    ),
    m(
        "run.cost_usd",
        Lower,
        "run.cost_known",
        |s| Some(s.get("run.cost")),
        "cost in USD, where known",
    ),
];

#[cfg(test)]
mod tests {
    #[test]
    fn every_metric_has_the_range_its_values_take() {
        let range = |name: &str| crate::kinds::find(name).unwrap().range();
        assert_eq!(range("extraction.f1"), (0.0, 1.0));
        assert_eq!(range("extraction.ece"), (0.0, 1.0));
        assert_eq!(range("run.error_rate"), (0.0, 1.0));
        assert_eq!(range("e2e.rd_score"), (0.0, 1.0));
        assert_eq!(range("extraction.kappa"), (-1.0, 1.0));
        assert_eq!(range("validation.severity_kappa"), (-1.0, 1.0));
        for unbounded in ["run.latency_p95_ms", "run.tokens_total", "run.cost_usd"] {
            assert_eq!(range(unbounded), (0.0, f64::INFINITY), "{unbounded}");
        }
        for name in super::UNBOUNDED {
            assert!(crate::kinds::find(name).is_some(), "{name} is a metric");
        }
    }
}
