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
    /// Neither: a count that describes the answers (where their tuples were read) without
    /// being better or worse. Rules on it are bounds only, never regressions.
    Neither,
}

/// The values a metric can take: a bound written outside them can never hold, or never
/// break, so `thresholds.toml` refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Range {
    /// A rate, share or score in [0, 1] (precision, recall, F1, calibration errors, …).
    Unit,
    /// An agreement coefficient (Cohen's kappa) in [-1, 1].
    Agreement,
    /// A non-negative quantity with no upper bound (latency, tokens, cost, counts).
    NonNegative,
    /// A difference of two shares (a gain from one stage to the next) in [-1, 1].
    Difference,
}

impl Range {
    /// The lowest and highest value (`None`: unbounded).
    pub fn bounds(self) -> (f64, Option<f64>) {
        match self {
            Range::Unit => (0.0, Some(1.0)),
            Range::Agreement | Range::Difference => (-1.0, Some(1.0)),
            Range::NonNegative => (0.0, None),
        }
    }

    /// Whether `x` is one of the values.
    pub fn contains(self, x: f64) -> bool {
        let (lo, hi) = self.bounds();
        x >= lo && hi.is_none_or(|hi| x <= hi)
    }

    /// `[0, 1]`, `[-1, 1]`, `≥ 0`: the range as people read it.
    pub fn describe(self) -> String {
        match self.bounds() {
            (lo, Some(hi)) => format!("[{lo}, {hi}]"),
            (lo, None) => format!("≥ {lo}"),
        }
    }
}

/// How a metric's value is computed.
#[derive(Clone, Copy, Debug)]
pub enum Eval {
    /// A function of summed statistics.
    Sums(fn(&dyn Sums) -> Option<f64>),
    /// A quantile (0–1) of per-record latencies.
    LatencyQuantile(f64),
    /// The sum under a key made at run time (a family of counts, one per name).
    Count(&'static str),
}

/// A metric's value as a ratio of two weighted sums of statistics,
/// `Σ wₖ·numeratorₖ / Σ wₖ·denominatorₖ`, written beside its function when the value is one.
/// A bound `θ` on such a metric is a bound on a plain total, `Σ numerator − θ·Σ denominator`,
/// which the sequential gate can decide before every sample is in.
#[derive(Clone, Copy, Debug)]
pub struct Ratio {
    pub numerator: &'static [(&'static str, f64)],
    pub denominator: &'static [(&'static str, f64)],
}

impl Ratio {
    /// The numerator's and the denominator's weighted sums over `sums`.
    pub fn parts(&self, sums: &dyn Sums) -> (f64, f64) {
        let total = |terms: &[(&str, f64)]| terms.iter().map(|(k, w)| w * sums.get(k)).sum();
        (total(self.numerator), total(self.denominator))
    }
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
    /// The values it can take.
    pub range: Range,
    /// The unit of a metric without an upper bound (`USD`, `tokens`, `ms`), said beside its
    /// bounds; empty for shares, scores and counts.
    pub unit: &'static str,
    /// Why it has no value when its support statistic is 0 over a run, in the words of
    /// what it counts (`no issue was matched, …`); empty: the gate says it in general terms.
    pub unsupported: &'static str,
    /// The value as a ratio of weighted sums, when it is one (a test holds every metric that
    /// declares one to its function).
    pub ratio: Option<Ratio>,
}

impl Metric {
    /// The same metric with another range (a metric made by [`m`] is in [0, 1]).
    pub const fn in_range(mut self, range: Range) -> Metric {
        self.range = range;
        self
    }

    /// The same metric measured in `unit` (`USD`, `tokens`, `ms`).
    pub const fn in_unit(mut self, unit: &'static str) -> Metric {
        self.unit = unit;
        self
    }

    /// The same metric, whose value is `numerator / denominator` (weighted sums of
    /// statistics) wherever the denominator is positive.
    pub const fn as_ratio(
        mut self,
        numerator: &'static [(&'static str, f64)],
        denominator: &'static [(&'static str, f64)],
    ) -> Metric {
        self.ratio = Some(Ratio {
            numerator,
            denominator,
        });
        self
    }

    /// The same metric saying `why` it has no value when nothing supports it.
    pub const fn unsupported_when(mut self, why: &'static str) -> Metric {
        self.unsupported = why;
        self
    }

    /// Whether the metric's values have an upper bound (shares and scores in [0, 1],
    /// agreements and gains in [-1, 1]): only then is an absolute change, such as the
    /// default `max_regression = 0.02`, in units every such metric shares. Unbounded ones
    /// (cost, tokens, latency) change relative to the baseline (`max_increase = "10%"`).
    pub fn is_bounded(&self) -> bool {
        self.range.bounds().1.is_some()
    }

    /// Whether a broken rule on this metric makes the run incomplete (exit 3) rather than
    /// failed: calls that failed, answers that could not be read as JSON at all, answers
    /// that hold none of the keys their kind reads, and usage no call can have (a cost rule
    /// cannot be judged on it). A broken pipeline is never mistaken for a quality
    /// regression, and a pipeline that got slower or dearer (`run.latency_p95_ms`,
    /// `run.tokens_total`, `run.cost_usd`) fails the gate like any regression.
    pub fn is_run_health(&self) -> bool {
        matches!(
            self.name,
            "run.error_rate"
                | "parse.error_rate"
                | "parse.no_json_rate"
                | "parse.keyless_rate"
                | "run.usage_invalid_rate"
        )
    }

    /// Whether its floors and ceilings hold for each kind of the run apart rather than for
    /// the run as a whole: answers without their kind's keys are a kind's problem, which a
    /// suite with many samples of other kinds would otherwise dilute.
    pub fn is_judged_per_kind(&self) -> bool {
        self.name == "parse.keyless_rate"
    }

    /// The values the metric can take, inclusive, as numbers (`f64::INFINITY`: no upper
    /// bound). Files that claim a value outside them (a verdict from elsewhere) are refused.
    pub fn bounds(&self) -> (f64, f64) {
        let (lo, hi) = self.range.bounds();
        (lo, hi.unwrap_or(f64::INFINITY))
    }

    /// The metric's value over summed statistics (`None` without support).
    pub fn value(&self, sums: &dyn Sums) -> Option<f64> {
        match self.eval {
            _ if sums.get(self.support) <= 0.0 => None,
            Eval::Sums(f) => f(sums).filter(|v| v.is_finite()),
            Eval::Count(key) => Some(sums.get(key)).filter(|v| v.is_finite()),
            Eval::LatencyQuantile(_) => None,
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
        range: Range::Unit,
        unit: "",
        unsupported: "",
        ratio: None,
    }
}

pub use Direction::{Higher, Lower, Neither};

/// Metrics that count or sum without an upper bound.
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
    )
    .as_ratio(&[("parse.raw", 1.0)], &[("parse.records", 1.0)]),
    m(
        "parse.repair_success_rate",
        Higher,
        "parse.records",
        |s| rate(s, "parse.repaired", "parse.records"),
        "answers that parsed after repair",
    )
    .as_ratio(&[("parse.repaired", 1.0)], &[("parse.records", 1.0)]),
    m(
        "parse.error_rate",
        Lower,
        "parse.records",
        |s| rate(s, "parse.error", "parse.records"),
        "answers with JSON that did not parse",
    )
    .as_ratio(&[("parse.error", 1.0)], &[("parse.records", 1.0)]),
    m(
        "parse.no_json_rate",
        Lower,
        "parse.records",
        |s| rate(s, "parse.no_json", "parse.records"),
        "answers with no JSON at all",
    )
    .as_ratio(&[("parse.no_json", 1.0)], &[("parse.records", 1.0)]),
    m(
        "parse.keyless_rate",
        Lower,
        "parse.records",
        |s| rate(s, "parse.keyless", "parse.records"),
        "answers that parsed but hold none of the keys their kind reads",
    )
    .as_ratio(&[("parse.keyless", 1.0)], &[("parse.records", 1.0)]),
    m(
        "run.error_rate",
        Lower,
        "run.records",
        |s| rate(s, "run.errors", "run.records"),
        "records whose pipeline call failed",
    )
    .as_ratio(&[("run.errors", 1.0)], &[("run.records", 1.0)]),
    Metric {
        name: "run.latency_p50_ms",
        direction: Lower,
        support: "run.latency_known",
        eval: Eval::LatencyQuantile(0.50),
        about: "median latency",
        range: Range::NonNegative,
        unit: "ms",
        unsupported: "no call's latency was measured",
        ratio: None,
    },
    Metric {
        name: "run.latency_p95_ms",
        direction: Lower,
        support: "run.latency_known",
        eval: Eval::LatencyQuantile(0.95),
        about: "95th percentile latency",
        range: Range::NonNegative,
        unit: "ms",
        unsupported: "no call's latency was measured",
        ratio: None,
    },
    m(
        "run.cache_hit_rate",
        Higher,
        "run.records",
        |s| rate(s, "run.cached", "run.records"),
        "records answered from the cache",
    )
    .as_ratio(&[("run.cached", 1.0)], &[("run.records", 1.0)]),
    m(
        "run.tokens_total",
        Lower,
        "run.tokens_known",
        |s| Some(s.get("run.tokens")),
        "tokens used, where known",
    )
    .in_range(Range::NonNegative)
    .in_unit("tokens")
    .unsupported_when("no call reported its token usage"),
    m(
        "run.cost_usd",
        Lower,
        "run.cost_known",
        |s| Some(s.get("run.cost")),
        "cost in USD, where known",
    )
    .in_range(Range::NonNegative)
    .in_unit("USD")
    .unsupported_when("no call reported its cost"),
    m(
        "run.tokens_estimated_rate",
        Neither,
        "run.tokens_estimated",
        |s| rate(s, "run.tokens_estimated", "run.records"),
        "records whose tokens goldgate counted itself (their cost is an estimate)",
    )
    .as_ratio(&[("run.tokens_estimated", 1.0)], &[("run.records", 1.0)]),
    m(
        "run.usage_invalid_rate",
        Lower,
        "run.usage_invalid",
        |s| rate(s, "run.usage_invalid", "run.records"),
        "records whose pipeline reported token counts or a cost no call can have",
    )
    .as_ratio(&[("run.usage_invalid", 1.0)], &[("run.records", 1.0)]),
];
