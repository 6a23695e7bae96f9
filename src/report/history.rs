//! The baseline's history for people: each gated metric's values over the versions
//! ([`series`]), a sparkline row per metric in the terminal ([`text`]) and the JSON of
//! `history --format json` ([`json`]). The HTML page is [`super::history_html`]; the last
//! values of a failing metric in the other reports are [`super::drift::trend_lines`].

use goldgate_core::error::Result;
use goldgate_core::gate::rule::{drift_for, rule_for};
use goldgate_core::gate::thresholds::{Regression, Thresholds};
use goldgate_core::metrics::registry::Direction;

use crate::history::{History, Point};
use goldgate_core::escape::one_line;

/// Sparkline levels, lowest first.
const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// One gated metric over the versions.
#[derive(Clone, Debug)]
pub struct Series {
    pub metric: &'static str,
    pub direction: Direction,
    /// One per version, oldest first: its value and interval.
    pub values: Vec<(Option<f64>, Option<[f64; 2]>)>,
    /// The rule, in a few characters.
    pub rule: String,
    /// The pinned reference's value and the lowest (or highest) value its drift budget
    /// allows, when `[drift]` gives the metric one and a version is pinned.
    pub budget: Option<(f64, f64)>,
}

impl Series {
    /// The values there are, with their version's index.
    pub fn known(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.values
            .iter()
            .enumerate()
            .filter_map(|(i, (v, _))| Some((i, (*v)?)))
    }
}

/// The last `last` versions (all without it).
pub fn keep_last(history: &mut History, last: Option<usize>) {
    if let Some(n) = last {
        let cut = history.points.len().saturating_sub(n);
        history.points.drain(..cut);
    }
}

/// Every gated metric (a rule of `thresholds` holds it) with a value in some version, in the
/// rules' order.
pub fn series(history: &History, thresholds: &Thresholds) -> Vec<Series> {
    let names = history
        .points
        .iter()
        .flat_map(|p| p.metrics.keys().map(String::as_str))
        .chain(thresholds.rule_names());
    let pinned = history.points.iter().rev().find(|p| p.pinned);
    goldgate_core::kinds::catalog(names)
        .iter()
        .filter_map(|metric| {
            let (rule, _, _) = rule_for(metric, thresholds)?;
            let values: Vec<_> = history
                .points
                .iter()
                .map(|p| {
                    let v = p.metrics.get(metric.name);
                    (v.and_then(|v| v.value), v.and_then(|v| v.ci))
                })
                .collect();
            if values.iter().all(|(v, _)| v.is_none()) {
                return None;
            }
            let budget = pinned.and_then(|p| {
                let reference = p.metrics.get(metric.name)?.value?;
                let allowed = match drift_for(metric, thresholds)? {
                    Regression::Absolute(x) => x,
                    Regression::Relative(r) => r * reference.abs(),
                };
                let worst = match metric.direction {
                    Direction::Lower => reference + allowed,
                    _ => reference - allowed,
                };
                Some((reference, worst))
            });
            Some(Series {
                metric: metric.name,
                direction: metric.direction,
                values,
                rule: rule.describe(),
                budget,
            })
        })
        .collect()
}

/// A sparkline of `values`, scaled from their lowest to their highest (a flat series sits in
/// the middle); a version without a value is a space.
pub fn sparkline(values: &[Option<f64>]) -> String {
    let known: Vec<f64> = values.iter().flatten().copied().collect();
    let (lo, hi) = known
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    values
        .iter()
        .map(|v| match v {
            None => ' ',
            Some(_) if hi - lo <= 1e-12 => LEVELS[3],
            Some(v) => {
                let t = (v - lo) / (hi - lo);
                LEVELS[((t * 7.0).round() as usize).min(7)]
            }
        })
        .collect()
}

fn value(v: f64) -> String {
    goldgate_core::number::value(v, 4)
}

/// The version a point is, for people: `2026-10-01 3f2a9c1` (`working copy` when not
/// committed).
pub fn version(p: &Point) -> String {
    let day = one_line(p.created_at.get(..10).unwrap_or(&p.created_at));
    match &p.commit {
        Some(c) => format!("{day} {}", one_line(c.get(..7).unwrap_or(c))),
        None => format!("{day} working copy"),
    }
}

/// The terminal view: what was read, a sparkline row per gated metric with its first, last,
/// lowest and highest value, then the pins and the accepted drifts.
pub fn text(history: &History, thresholds: &Thresholds) -> String {
    let points = &history.points;
    let mut out = match (points.first(), points.last()) {
        (Some(first), Some(last)) => format!(
            "{}: {} version{}, {} → {}\n",
            one_line(&history.baseline),
            points.len(),
            if points.len() == 1 { "" } else { "s" },
            version(first),
            version(last)
        ),
        _ => format!("{}: no committed version yet\n", history.baseline),
    };
    if history.shallow {
        out.push_str("note: this clone is shallow: older versions may be missing (fetch the whole history, e.g. actions/checkout with fetch-depth: 0)\n");
    }
    let all = series(history, thresholds);
    let width = all.iter().map(|s| s.metric.len()).max().unwrap_or(0);
    if !all.is_empty() {
        out.push('\n');
    }
    for s in &all {
        let values: Vec<Option<f64>> = s.values.iter().map(|(v, _)| *v).collect();
        let known: Vec<f64> = values.iter().flatten().copied().collect();
        let (lo, hi) = known
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                (l.min(v), h.max(v))
            });
        let budget = s.budget.map_or(String::new(), |(_, worst)| {
            format!("  budget {}", value(worst))
        });
        out.push_str(&format!(
            "{:width$}  {}  first {}  last {}  min {}  max {}{budget}\n",
            s.metric,
            sparkline(&values),
            value(known[0]),
            value(known[known.len() - 1]),
            value(lo),
            value(hi),
        ));
    }
    let events: Vec<String> = points
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            let pin = p
                .pinned
                .then(|| format!("  #{} {}: pinned as the reference", i + 1, version(p)));
            let accepted = p.accepted_drift.as_ref().map(|a| {
                format!(
                    "  #{} {}: drift accepted by {}: {} ({})",
                    i + 1,
                    version(p),
                    one_line(&a.by),
                    one_line(&a.reason),
                    one_line(&a.drifts.join("; "))
                )
            });
            pin.into_iter().chain(accepted)
        })
        .collect();
    if !events.is_empty() {
        out.push('\n');
        for e in events {
            out.push_str(&e);
            out.push('\n');
        }
    }
    for s in &history.skipped {
        out.push_str(&format!(
            "note: {} is not a score file this goldgate reads ({}): left out\n",
            one_line(s.commit.get(..7).unwrap_or(&s.commit)),
            one_line(&s.why)
        ));
    }
    out
}

/// `history --format json`.
pub fn json(history: &History) -> Result<String> {
    serde_json::to_string_pretty(history)
        .map(|s| s + "\n")
        .map_err(|e| {
            goldgate_core::error::Error::internal(format!("cannot render the history: {e}"))
        })
}
