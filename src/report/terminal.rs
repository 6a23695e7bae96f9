//! Plain-text renderers for the terminal: lint problems, suite stats, agreement, and the
//! score summary. Each returns a `String`; the caller decides where it goes.

use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use crate::error::{Problem, Severity};
use crate::metrics::registry::METRICS;
use crate::score::ScoreFile;
use crate::suite::agreement::Agreement;
use crate::suite::stats::{SuiteStats, TARGETS, TOTAL_TARGET};
use crate::suite::{Difficulty, Kind};

/// `suite lint`: every problem, then a one-line summary.
pub fn lint_report(problems: &[Problem], files: usize, samples: usize) -> String {
    let mut out = String::new();
    for p in problems {
        let _ = writeln!(out, "{p}");
    }
    let errors = problems.iter().filter(|p| p.is_error()).count();
    let warnings = problems.len() - errors;
    if problems.is_empty() {
        let _ = writeln!(out, "ok: {samples} samples in {files} files, no problems");
    } else {
        let _ = writeln!(
            out,
            "{errors} errors, {warnings} warnings ({samples} valid samples in {files} files)"
        );
    }
    out
}

#[derive(Serialize)]
pub struct JsonProblem<'a> {
    severity: &'static str,
    file: String,
    line: usize,
    column: usize,
    field: Option<&'a str>,
    message: &'a str,
    hint: Option<&'a str>,
}

/// `suite lint --format json`.
pub fn lint_json(problems: &[Problem]) -> Vec<JsonProblem<'_>> {
    problems
        .iter()
        .map(|p| JsonProblem {
            severity: match p.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            },
            file: p.location.path.display().to_string(),
            line: p.location.line,
            column: p.location.column,
            field: p.field.as_deref(),
            message: &p.message,
            hint: p.hint.as_deref(),
        })
        .collect()
}

/// `suite stats`: counts against the seed's targets.
pub fn stats_table(s: &SuiteStats) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<12} {:>6} {:>7}   {:>5} {:>6} {:>5}",
        "kind", "count", "target", "easy", "medium", "hard"
    );
    for (kind, target) in TARGETS {
        let row = s.by_kind_and_difficulty.get(&kind);
        let d = |x: Difficulty| row.and_then(|r| r.get(&x)).copied().unwrap_or(0);
        let mark = if s.count(kind) >= target {
            ""
        } else {
            "  (below target)"
        };
        let _ = writeln!(
            out,
            "{:<12} {:>6} {:>7}   {:>5} {:>6} {:>5}{mark}",
            kind.as_str(),
            s.count(kind),
            target,
            d(Difficulty::Easy),
            d(Difficulty::Medium),
            d(Difficulty::Hard)
        );
    }
    let (lo, hi) = TOTAL_TARGET;
    let _ = writeln!(
        out,
        "{:<12} {:>6} {:>7}",
        "total",
        s.total,
        format!("{lo}-{hi}")
    );
    let _ = writeln!(out, "\ndomains:");
    for (domain, n) in &s.by_domain {
        let _ = writeln!(out, "  {domain:<24} {n:>5}");
    }
    let _ = writeln!(
        out,
        "\ngold items: {}; samples with 2+ annotations: {}",
        s.gold_items, s.annotated
    );
    let verdict = if s.meets_targets() {
        "the suite meets the seed's size targets"
    } else {
        "the suite is below the seed's size targets (80/50/50/20, 150-200 in all)"
    };
    let _ = writeln!(out, "{verdict}");
    out
}

/// `suite agreement`: pairwise and Fleiss' kappa with their bands.
pub fn agreement_table(a: &Agreement, min_kappa: f64) -> String {
    let mut out = String::new();
    if a.samples == 0 {
        let _ = writeln!(out, "no sample has two or more annotations with a conversation: agreement cannot be measured");
        let _ = writeln!(
            out,
            "add `annotations:` (one entry per annotator) to some samples"
        );
        return out;
    }
    let _ = writeln!(
        out,
        "{} annotated samples, annotators: {}\n",
        a.samples,
        a.annotators.join(", ")
    );
    let _ = writeln!(
        out,
        "{:<24} {:>7} {:>8} {:>7}  band",
        "pair", "samples", "messages", "kappa"
    );
    for p in &a.pairs {
        let _ = writeln!(
            out,
            "{:<24} {:>7} {:>8} {:>7}  {}",
            format!("{} vs {}", p.a, p.b),
            p.samples,
            p.messages,
            fmt_opt(p.kappa),
            p.band.unwrap_or("-")
        );
    }
    if let Some(f) = a.fleiss {
        let _ = writeln!(
            out,
            "\nFleiss' kappa: {f:.4} ({}) over {} messages rated by 3+ annotators",
            crate::metrics::agreement::band(f),
            a.fleiss_messages
        );
    }
    match a.headline {
        Some(k) if k >= min_kappa => {
            let _ = writeln!(
                out,
                "\nok: kappa {k:.4} ({}) meets --min-kappa {min_kappa}",
                a.band.unwrap_or("-")
            );
        }
        Some(k) => {
            let _ = writeln!(out, "\nFAIL: kappa {k:.4} ({}) is below --min-kappa {min_kappa}: revise the labelling guide and relabel the disputed samples", a.band.unwrap_or("-"));
        }
        None => {
            let _ = writeln!(out, "\nFAIL: kappa is undefined (no messages to compare)");
        }
    }
    out
}

fn fmt_opt(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.4}"))
}

/// `score`: the metrics with data, in registry order, with n and CI.
pub fn score_summary(file: &ScoreFile, output: &Path) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<38} {:>9}  {:<19} {:>6}",
        "metric", "value", "95% CI", "n"
    );
    for m in METRICS {
        let Some(agg) = file.metrics.get(m.name).filter(|a| a.value.is_some()) else {
            continue;
        };
        let ci = agg.ci.map_or_else(
            || "-".to_string(),
            |[lo, hi]| format!("[{}, {}]", num(lo), num(hi)),
        );
        let _ = writeln!(
            out,
            "{:<38} {:>9}  {:<19} {:>6}",
            m.name,
            num(agg.value.unwrap_or(f64::NAN)),
            ci,
            agg.n
        );
    }
    let kinds: Vec<String> = Kind::ALL
        .iter()
        .filter_map(|k| {
            let n = file.samples.iter().filter(|s| s.kind == *k).count();
            (n > 0).then(|| format!("{n} {}", k.as_str()))
        })
        .collect();
    let _ = writeln!(
        out,
        "\n{} samples ({}), {} records; wrote {}",
        file.samples.len(),
        kinds.join(", "),
        file.provenance.records,
        output.display()
    );
    out
}

fn num(v: f64) -> String {
    if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.4}")
    }
}

/// The note for samples that had no answer.
pub fn missing_note(missing: &[String], run: &Path, suite: &Path) -> String {
    let shown: Vec<&str> = missing.iter().take(10).map(String::as_str).collect();
    let more = missing.len().saturating_sub(shown.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "error: incomplete run: {} samples of {} have no answer in {}: {}{more}\n  hint: rerun the pipeline for them (goldgate run --resume), or pass --allow-missing to score what is there\n",
        missing.len(),
        suite.display(),
        run.display(),
        shown.join(", ")
    )
}
