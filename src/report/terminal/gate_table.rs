//! The verdict of `compare` and `check` as the terminal shows it: the verdict line, the
//! metric table (laid out by [`crate::report::layout`]), the chain-of-thought diagnostics,
//! the per-sample analysis, membership, provenance and ratchet findings.

use std::fmt::Write;

use super::{failed_calls, one_line};
use crate::number::{delta, optional, MISSING};

/// `+0.0123 [-0.004, +0.030]`: a metric's delta with its paired interval, if it has one.
pub(super) fn delta_text(m: &crate::gate::verdict::MetricResult) -> Option<String> {
    m.delta.map(|d| delta(Some(d), m.delta_ci, 4))
}

/// One metric's line of the verdict table (and its spread over runs and reasons below it).
fn metric_row(out: &mut String, m: &crate::gate::verdict::MetricResult, width: usize) {
    use crate::gate::verdict::Status;
    let value = |x: Option<f64>| optional(x, 4);
    let delta = delta_text(m).unwrap_or_else(|| MISSING.into());
    let rule = m
        .rule
        .as_ref()
        .map_or_else(|| MISSING.to_string(), |r| r.describe());
    let status = match m.status {
        Status::Pass => "ok",
        Status::Warn => "WARN",
        Status::Fail => "FAIL",
        Status::Incomplete => "INCOMPLETE",
        Status::Info => "",
    };
    let _ = writeln!(
        out,
        "{:<width$} {:>21} {:>28}  {:<24} {status}",
        one_line(&m.name),
        format!("{} → {}", value(m.baseline), value(m.candidate)),
        delta,
        one_line(&rule)
    );
    if let Some(runs) = crate::report::runs_text(m, 4) {
        let _ = writeln!(out, "    mean ± std over runs: {runs}");
    }
    for reason in &m.reasons {
        let _ = writeln!(out, "    {}", one_line(reason));
    }
}

/// `compare` / `check`: the verdict line, the gated metrics (problems first), other metrics
/// that moved, the per-sample analysis, membership, provenance and ratchet findings.
pub fn verdict(v: &crate::gate::verdict::Verdict) -> String {
    use crate::gate::verdict::Outcome;
    let mut out = String::new();
    let word = match v.verdict {
        Outcome::Pass => "PASS",
        Outcome::Warn => "WARN",
        Outcome::Fail => "FAIL",
        Outcome::Incomplete => "INCOMPLETE",
    };
    let _ = writeln!(out, "{word}: {}\n", one_line(&v.summary));
    // The gated metrics and those that moved (a tuples suite's headline first), then the
    // chain-of-thought diagnostics with their coverage.
    let sections = crate::report::layout::sections(v, |m| {
        m.rule.is_some() || m.delta.is_some_and(|d| d.abs() > 1e-12)
    });
    let width = sections
        .main
        .iter()
        .chain(&sections.diagnostics)
        .map(|m| one_line(&m.name).chars().count())
        .max()
        .unwrap_or(0)
        .max(36);
    let _ = writeln!(
        out,
        "{:<width$} {:>21} {:>28}  {:<24} status",
        "metric", "baseline → candidate", "delta [CI]", "rule"
    );
    for m in &sections.main {
        metric_row(&mut out, m, width);
    }
    if !sections.diagnostics.is_empty() {
        let coverage = sections
            .coverage_text()
            .map_or_else(String::new, |c| format!(": {c}"));
        let _ = writeln!(
            out,
            "\nchain-of-thought diagnostics (not part of the score){coverage}"
        );
        for m in &sections.diagnostics {
            metric_row(&mut out, m, width);
        }
    }
    if !v.failures.is_empty() {
        let _ = write!(out, "\n{}", failed_calls(&v.failures));
    }
    if let Some(s) = &v.samples {
        let rate = |x: Option<f64>| optional(x, 3);
        let _ = writeln!(
            out,
            "\nsamples (pass = primary ≥ {}): {} shared; {} fixed, {} broken, {} kept, {}; fix rate {}, break rate {}, net gain {}; McNemar p = {:.4}",
            s.sample_pass, s.shared, s.fix, s.break_, s.keep, crate::report::still_failing(s, ", "), rate(s.fix_rate), rate(s.break_rate), rate(s.net_gain), s.mcnemar_p
        );
        for (what, list) in [("broken", &s.broken), ("fixed", &s.fixed)] {
            if !list.is_empty() {
                let shown: Vec<String> = list
                    .iter()
                    .take(10)
                    .map(|c| {
                        let why = c
                            .failure
                            .map_or_else(String::new, |k| format!(", {}", k.outcome()));
                        format!(
                            "{} ({:.2} → {:.2}{why})",
                            one_line(&c.id),
                            c.baseline,
                            c.candidate
                        )
                    })
                    .collect();
                let more = list.len().saturating_sub(10);
                let _ = writeln!(
                    out,
                    "  {what}: {}{}",
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                );
            }
        }
    }
    for (what, list) in [
        ("added since the baseline", &v.added),
        ("removed since the baseline", &v.removed),
        ("missing from the run", &v.missing),
    ] {
        if !list.is_empty() {
            let ids: Vec<_> = list.iter().map(|i| one_line(i)).collect();
            let _ = writeln!(out, "{what}: {}", ids.join(", "));
        }
    }
    if !v.provenance.differences.is_empty() {
        let _ = writeln!(out, "\nprovenance changed since the baseline:");
        for d in &v.provenance.differences {
            let _ = writeln!(out, "  {}", one_line(d));
        }
    }
    if !v.ratchet.is_empty() {
        let _ = writeln!(out, "\nthresholds loosened against the base branch:");
        for f in &v.ratchet {
            let _ = writeln!(out, "  {}", one_line(f));
        }
    }
    if v.built_in_rules() {
        let _ = writeln!(
            out,
            "\nrules: built-in defaults (no thresholds.toml found): {}.\nwrite a thresholds.toml to choose your own rules: {}",
            crate::gate::rule::built_in_rules(),
            crate::gate::rule::RULES_DOCS
        );
    }
    if !v.baseline_present {
        let _ = writeln!(
            out,
            "\nno baseline: regressions were not checked (goldgate baseline refresh creates one)"
        );
    }
    out
}
