//! How every report tells the drift from the pinned reference (`[drift]`): the reference,
//! when it was made and how many refreshes ago, each budgeted metric's drift against its
//! budget, and the last values of every failing or drifting metric in the baseline's
//! history as a sparkline. Plain sentences; each report escapes them its way.

use goldgate_core::gate::drift::Drift;
use goldgate_core::gate::verdict::{Status, Verdict};
use goldgate_core::number::value;

/// The drift's headline and one line per budgeted metric (none without a reference).
pub fn lines(v: &Verdict) -> Vec<String> {
    let Some(d) = &v.drift else {
        return Vec::new();
    };
    let ago = match d.about.refreshes {
        None => String::new(),
        Some(0) => ", the current baseline".into(),
        Some(1) => ", 1 refresh ago".into(),
        Some(n) => format!(", {n} refreshes ago"),
    };
    let mut out = vec![format!(
        "Drift from the reference {} made {}{ago}:",
        d.about.reference,
        d.about.date()
    )];
    out.extend(d.metrics.iter().map(metric));
    out
}

fn metric(d: &Drift) -> String {
    let change = match (d.reference, d.candidate, d.delta) {
        (Some(r), Some(c), Some(delta)) => format!(
            "{} → {} ({}{})",
            value(r, 4),
            value(c, 4),
            if delta >= 0.0 { "+" } else { "" },
            value(delta, 4)
        ),
        _ => "no value to compare".into(),
    };
    // Beyond the budget or not, from the values and the metric's direction.
    let beyond = goldgate_core::kinds::find(&d.name)
        .zip(d.delta.zip(d.allowed))
        .map(|(m, (delta, allowed))| {
            let worse = match m.direction {
                goldgate_core::metrics::registry::Direction::Lower => delta,
                _ => -delta,
            };
            worse > allowed + 1e-12
        });
    let state = match (d.status, beyond) {
        (Status::Fail | Status::Warn | Status::Incomplete, Some(true)) => "beyond its budget",
        (Status::Pass, Some(true)) => "beyond its budget, but not significant",
        (Status::Pass, _) => "within its budget",
        (Status::Incomplete | Status::Warn, _) => "not measurable",
        _ => "not judged",
    };
    let why = match (&d.reason, d.status, beyond) {
        (Some(r), Status::Info, _) | (Some(r), _, Some(false) | None) => format!(" ({r})"),
        _ => String::new(),
    };
    format!("{}: {change}, budget {}: {state}{why}", d.name, d.budget)
}

/// One line per failing or drifting metric with a history: its last values.
pub fn trend_lines(v: &Verdict) -> Vec<String> {
    v.trends
        .iter()
        .map(|t| {
            let values: Vec<Option<f64>> = t.values.iter().copied().map(Some).collect();
            format!(
                "{} over the last {} baselines: {} {} → {}",
                t.metric,
                t.values.len(),
                super::history::sparkline(&values),
                value(t.values[0], 4),
                value(t.values[t.values.len() - 1], 4)
            )
        })
        .collect()
}
