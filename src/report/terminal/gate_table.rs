//! The verdict of `compare` and `check` as the terminal shows it: the verdict line, the
//! metric table (laid out by [`crate::report::layout`]), the chain-of-thought diagnostics,
//! the per-sample analysis, membership, provenance and ratchet findings.

use std::fmt::Write;

use super::{failed_calls, one_line};
use goldgate_core::gate::verdict::MetricResult;
use goldgate_core::number::{optional, MISSING};

/// `+0.0123 [-0.004, +0.030]`: a metric's delta with its paired interval, if it has one
/// (written like the metric's values: one decimal for latencies and token counts).
pub(super) fn delta_text(m: &MetricResult) -> Option<String> {
    let magnitude = m
        .baseline
        .into_iter()
        .chain(m.candidate)
        .fold(0.0_f64, |a, v| a.max(v.abs()));
    m.delta
        .map(|d| goldgate_core::number::delta_like(Some(d), m.delta_ci, 4, magnitude))
}

/// One metric's cells in the verdict table: name, baseline → candidate, delta with its
/// interval, rule, status.
fn cells(m: &MetricResult) -> [String; 5] {
    use goldgate_core::gate::verdict::Status;
    let value = |x: Option<f64>| optional(x, 4);
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
    [
        one_line(&m.name).into_owned(),
        format!(
            "{} → {}{}",
            value(m.baseline),
            goldgate_core::gate::verdict::about(m),
            value(m.candidate)
        ),
        delta_text(m).unwrap_or_else(|| MISSING.into()),
        one_line(&rule).into_owned(),
        status.to_string(),
    ]
}

/// The verdict table's column widths: each column as wide as its widest cell (the header's
/// included, the name column at least 36), so every row lines up whatever its numbers.
fn widths<'a>(rows: impl Iterator<Item = &'a [String; 5]>) -> [usize; 5] {
    let mut widths = HEADER.map(|h| h.chars().count());
    widths[0] = widths[0].max(36);
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    widths
}

const HEADER: [&str; 5] = [
    "metric",
    "baseline → candidate",
    "delta [CI]",
    "rule",
    "status",
];

/// One line of the table: names and rules to the left, numbers to the right.
fn table_line(out: &mut String, cells: &[String; 5], w: &[usize; 5]) {
    let line = format!(
        "{:<w0$}  {:>w1$}  {:>w2$}  {:<w3$}  {}",
        cells[0],
        cells[1],
        cells[2],
        cells[3],
        cells[4],
        w0 = w[0],
        w1 = w[1],
        w2 = w[2],
        w3 = w[3]
    );
    let _ = writeln!(out, "{}", line.trim_end());
}

/// One metric's line of the verdict table, and its spread over runs and reasons below it.
fn metric_row(out: &mut String, m: &MetricResult, cells: &[String; 5], w: &[usize; 5]) {
    table_line(out, cells, w);
    if let Some(runs) = crate::report::runs_text(m, 4) {
        let _ = writeln!(out, "    mean ± std over runs: {runs}");
    }
    for reason in &m.reasons {
        let _ = writeln!(out, "    {}", one_line(reason));
    }
    if let Some(d) = &m.detectable {
        let _ = writeln!(out, "    {}", one_line(&d.sentence(&m.name, m.direction)));
    }
}

/// Broken samples whose gold diff the terminal shows at most, worst first.
const DIFFS_SHOWN: usize = 3;
/// Lines of each such diff shown at most.
const DIFF_LINES: usize = 12;

/// The gold-vs-candidate diffs of the worst broken samples (those `check` diffed), each
/// cut to a few lines; the PR comment (`report.md`) and `verdict.json` have them whole.
fn broken_diffs(out: &mut String, v: &goldgate_core::gate::verdict::Verdict) {
    let broken = v.samples.iter().flat_map(|s| &s.broken);
    let diffs: Vec<_> = broken
        .filter_map(|c| v.diffs.iter().find(|d| d.id == c.id))
        .collect();
    for d in diffs.iter().take(DIFFS_SHOWN) {
        let _ = writeln!(out, "\n{}: gold vs candidate", one_line(&d.id));
        let lines: Vec<&str> = d
            .gold_vs_candidate
            .lines()
            .filter(|l| !l.starts_with("--- ") && !l.starts_with("+++ "))
            .collect();
        for line in lines.iter().take(DIFF_LINES) {
            let _ = writeln!(out, "  {}", one_line(line));
        }
        if lines.len() > DIFF_LINES {
            let more = match lines.len() - DIFF_LINES {
                1 => "1 more line".to_string(),
                n => format!("{n} more lines"),
            };
            let _ = writeln!(out, "  … {more} (report.md, verdict.json)");
        }
        if !d.schema.is_empty() {
            let _ = writeln!(out, "  not schema-compliant:");
            for line in &d.schema {
                let _ = writeln!(out, "    {}", one_line(line));
            }
        }
    }
    match diffs.len().saturating_sub(DIFFS_SHOWN) {
        0 => {}
        1 => out.push_str("\nthe diff of 1 more broken sample is in report.md and verdict.json\n"),
        n => {
            let _ = writeln!(
                out,
                "\nthe diffs of {n} more broken samples are in report.md and verdict.json"
            );
        }
    }
}

/// `compare` / `check`: the verdict line, the gated metrics (problems first), other metrics
/// that moved, the per-sample analysis, membership, provenance and ratchet findings.
pub fn verdict(v: &goldgate_core::gate::verdict::Verdict) -> String {
    use goldgate_core::gate::verdict::Outcome;
    let mut out = String::new();
    let word = match v.verdict {
        Outcome::Pass => "PASS",
        Outcome::Warn => "WARN",
        Outcome::Fail => "FAIL",
        Outcome::Incomplete => "INCOMPLETE",
    };
    let _ = writeln!(out, "{word}: {}\n", one_line(v.reason()));
    // The gated metrics and those that moved (a tuples suite's headline first), then the
    // chain-of-thought diagnostics with their coverage.
    let sections = crate::report::layout::sections(v, |m| {
        m.rule.is_some() || m.delta.is_some_and(|d| d.abs() > 1e-12)
    });
    let main: Vec<[String; 5]> = sections.main.iter().map(|m| cells(m)).collect();
    let diagnostics: Vec<[String; 5]> = sections.diagnostics.iter().map(|m| cells(m)).collect();
    let w = widths(main.iter().chain(&diagnostics));
    table_line(&mut out, &HEADER.map(String::from), &w);
    for (m, row) in sections.main.iter().zip(&main) {
        metric_row(&mut out, m, row, &w);
    }
    if !sections.diagnostics.is_empty() {
        let coverage = sections
            .coverage_text()
            .map_or_else(String::new, |c| format!(": {c}"));
        let _ = writeln!(
            out,
            "\nchain-of-thought diagnostics (not part of the score){coverage}"
        );
        for (m, row) in sections.diagnostics.iter().zip(&diagnostics) {
            metric_row(&mut out, m, row, &w);
        }
    }
    for lines in [
        crate::report::sequential::lines(v),
        crate::report::drift::lines(v),
        crate::report::drift::trend_lines(v),
    ] {
        if !lines.is_empty() {
            let _ = writeln!(out);
            for line in lines {
                let _ = writeln!(out, "{}", one_line(&line));
            }
        }
    }
    if !v.failures.is_empty() {
        let _ = write!(out, "\n{}", failed_calls(&v.failures));
    }
    let judge = crate::report::judge::terminal(&v.judge);
    if !judge.is_empty() {
        let _ = write!(out, "\n{judge}");
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
                        format!(
                            "{} ({:.2} → {:.2})",
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
        let flips = crate::report::flaky::flips(v);
        for (id, what) in flips.iter().take(crate::report::flaky::SHOWN) {
            let _ = writeln!(out, "  flaky: {}: {what}", one_line(id));
        }
        if flips.len() > crate::report::flaky::SHOWN {
            let more = flips.len() - crate::report::flaky::SHOWN;
            let _ = writeln!(out, "  flaky: {more} more in verdict.json");
        }
    }
    if let Some(s) = v.samples.as_ref().filter(|s| !s.unanswered.is_empty()) {
        let shown: Vec<String> = s
            .unanswered
            .iter()
            .take(10)
            .map(crate::report::unanswered_text)
            .collect();
        let more = s.unanswered.len().saturating_sub(shown.len());
        let _ = writeln!(out, "  no answer:");
        for line in shown {
            let _ = writeln!(out, "    {line}");
        }
        if more > 0 {
            let _ = writeln!(out, "    and {more} more");
        }
    }
    broken_diffs(&mut out, v);
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
            goldgate_core::gate::rule::built_in_rules(),
            goldgate_core::gate::rule::RULES_DOCS
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
