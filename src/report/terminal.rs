//! Plain-text renderers for the terminal: lint problems, suite stats, agreement, and the
//! score summary. Each returns a `String`; the caller decides where it goes.

use goldgate_core::number::{optional, value, MISSING};
use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use goldgate_core::error::{Problem, Severity};
use goldgate_core::escape::one_line;
use goldgate_core::runfile::failures::FailedCalls;
use goldgate_core::sample::Difficulty;
use goldgate_core::score::ScoreFile;
use goldgate_core::suite::agreement::Agreement;
use goldgate_core::suite::stats::{targets, SuiteStats, TOTAL_TARGET};
use goldgate_core::text::plural;

mod gate_table;
use gate_table::delta_text;
pub use gate_table::verdict;

/// `suite lint`: every problem, then a one-line summary.
pub fn lint_report(problems: &[Problem], files: usize, samples: usize) -> String {
    let mut out = String::new();
    for p in problems {
        let _ = writeln!(out, "{p}");
    }
    let errors = problems.iter().filter(|p| p.is_error()).count();
    let warnings = problems.len() - errors;
    if problems.is_empty() {
        let _ = writeln!(
            out,
            "ok: {} in {}, no problems",
            plural(samples, "sample"),
            plural(files, "file")
        );
    } else {
        let _ = writeln!(
            out,
            "{}, {} ({} in {})",
            plural(errors, "error"),
            plural(warnings, "warning"),
            plural(samples, "valid sample"),
            plural(files, "file")
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
    // The size targets are those of requirement suites; tuple samples have none.
    let requirements = s.has_requirement_samples();
    let targets = targets()
        .into_iter()
        .filter(|_| requirements)
        .map(|(k, t)| (k, Some(t)));
    // Kinds without a size target: a row when the suite has samples of them.
    let untargeted = goldgate_core::kinds::all()
        .filter(|k| goldgate_core::kinds::of(*k).suite_target().is_none() && s.count(*k) > 0)
        .map(|k| (k, None));
    for (kind, target) in targets.chain(untargeted) {
        let row = s.by_kind_and_difficulty.get(&kind);
        let d = |x: Difficulty| row.and_then(|r| r.get(&x)).copied().unwrap_or(0);
        let mark = match target {
            Some(t) if s.count(kind) < t => "  (below target)",
            _ => "",
        };
        let _ = writeln!(
            out,
            "{:<12} {:>6} {:>7}   {:>5} {:>6} {:>5}{mark}",
            kind.as_str(),
            s.count(kind),
            target.map_or_else(|| MISSING.to_string(), |t| t.to_string()),
            d(Difficulty::Easy),
            d(Difficulty::Medium),
            d(Difficulty::Hard)
        );
    }
    let (lo, hi) = TOTAL_TARGET;
    let total_target = if requirements {
        format!("{lo}-{hi}")
    } else {
        MISSING.to_string()
    };
    let _ = writeln!(out, "{:<12} {:>6} {:>7}", "total", s.total, total_target);
    for (title, counts) in [
        ("domains", &s.by_domain),
        ("tasks", &s.by_task),
        ("tags", &s.by_tag),
    ] {
        if counts.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title}:");
        for (name, n) in counts {
            let _ = writeln!(out, "  {:<24} {n:>5}", one_line(name));
        }
    }
    let _ = writeln!(
        out,
        "\ngold items: {}; samples with 2+ annotations: {}",
        s.gold_items, s.annotated
    );
    if requirements {
        let verdict = if s.meets_targets() {
            "the suite meets the seed's size targets"
        } else {
            "the suite is below the seed's size targets (80/50/50/20, 150-200 in all)"
        };
        let _ = writeln!(out, "{verdict}");
    }
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
            optional(p.kappa, 4),
            p.band.unwrap_or(MISSING)
        );
    }
    if let Some(f) = a.fleiss {
        let _ = writeln!(
            out,
            "\nFleiss' kappa: {f:.4} ({}) over {} messages rated by 3+ annotators",
            goldgate_core::metrics::agreement::band(f),
            a.fleiss_messages
        );
    }
    match a.headline {
        Some(k) if k >= min_kappa => {
            let _ = writeln!(
                out,
                "\nok: kappa {k:.4} ({}) meets --min-kappa {min_kappa}",
                a.band.unwrap_or(MISSING)
            );
        }
        Some(k) => {
            let _ = writeln!(out, "\nFAIL: kappa {k:.4} ({}) is below --min-kappa {min_kappa}: revise the labelling guide and relabel the disputed samples", a.band.unwrap_or(MISSING));
        }
        None => {
            let _ = writeln!(out, "\nFAIL: kappa is undefined (no messages to compare)");
        }
    }
    out
}

/// `score`: the metrics with data, in registry order, with n and CI (and, with repeats,
/// the mean ± std over the repeats taken as runs).
pub fn score_summary(file: &ScoreFile, output: &Path) -> String {
    let mut out = String::new();
    let runs = file.metrics.values().any(|a| a.spread.is_some());
    let _ = writeln!(
        out,
        "{:<38} {:>9}  {:<19} {:>6}{}",
        "metric",
        "value",
        "95% CI",
        "n",
        if runs { "  mean ± std over runs" } else { "" }
    );
    for m in goldgate_core::kinds::catalog(file.metrics.keys().map(String::as_str)) {
        let Some(agg) = file.metrics.get(m.name).filter(|a| a.value.is_some()) else {
            continue;
        };
        let ci = agg.ci.map_or_else(
            || MISSING.to_string(),
            |[lo, hi]| format!("[{}, {}]", num(lo), num(hi)),
        );
        let spread = agg
            .spread
            .map_or_else(String::new, |s| format!("  {}", super::spread_text(&s, 4)));
        let _ = writeln!(
            out,
            "{:<38} {:>9}  {:<19} {:>6}{spread}",
            m.name,
            num(agg.value.unwrap_or(f64::NAN)),
            ci,
            agg.n
        );
    }
    let kinds: Vec<String> = goldgate_core::kinds::all()
        .filter_map(|k| {
            let n = file.samples.iter().filter(|s| s.kind == k).count();
            (n > 0).then(|| format!("{n} {}", k.as_str()))
        })
        .collect();
    let _ = writeln!(
        out,
        "\n{} ({}), {}; wrote {}",
        plural(file.samples.len(), "sample"),
        kinds.join(", "),
        plural(file.provenance.records, "record"),
        output.display()
    );
    out
}

fn num(v: f64) -> String {
    value(v, 4)
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
        "error: incomplete run: {} of {} {} no answer in {}: {}{more}\n  hint: rerun the pipeline for them (goldgate run --resume), or pass --allow-missing to score what is there\n",
        plural(missing.len(), "sample"),
        suite.display(),
        if missing.len() == 1 { "has" } else { "have" },
        run.display(),
        shown.join(", ")
    )
}

/// The verdict in as few lines as will do (`--format brief`, the pre-push hook): one line
/// when the gate passes cleanly; otherwise the verdict line, then only the rules that did not
/// hold (with why), loosened rules, broken and missing samples.
pub fn brief(v: &goldgate_core::gate::verdict::Verdict) -> String {
    use goldgate_core::gate::verdict::{Outcome, Status};
    let mut out = format!(
        "goldgate: {} ({})\n",
        one_line(&v.summary),
        plural(v.sample_results.len(), "sample")
    );
    if v.verdict == Outcome::Pass && v.judge.is_empty() {
        return out;
    }
    let value = |x: Option<f64>| optional(x, 4);
    for m in v
        .metrics
        .iter()
        .filter(|m| matches!(m.status, Status::Warn | Status::Fail | Status::Incomplete))
    {
        let status = match m.status {
            Status::Warn => "warn",
            Status::Incomplete => "incomplete",
            _ => "fail",
        };
        let delta = delta_text(m).map_or_else(String::new, |d| format!(" (Δ {d})"));
        let rule = m
            .rule
            .as_ref()
            .map_or_else(String::new, |r| format!("; rule {}", r.describe()));
        let _ = writeln!(
            out,
            "  {status:<10} {}: {} → {}{}{delta}{}",
            one_line(&m.name),
            value(m.baseline),
            goldgate_core::gate::verdict::about(m),
            value(m.candidate),
            one_line(&rule)
        );
        if let Some(runs) = super::runs_text(m, 4) {
            let _ = writeln!(out, "             mean ± std over runs: {runs}");
        }
        for reason in &m.reasons {
            let _ = writeln!(out, "             {}", one_line(reason));
        }
        if let Some(d) = &m.detectable {
            let sentence = d.sentence(&m.name, m.direction);
            let _ = writeln!(out, "             {}", one_line(&sentence));
        }
    }
    for line in failed_calls(&v.failures)
        .lines()
        .chain(super::judge::terminal(&v.judge).lines())
    {
        let _ = writeln!(out, "  {line}");
    }
    for finding in &v.ratchet {
        let _ = writeln!(out, "  loosened   {}", one_line(finding));
    }
    if let Some(s) = v.samples.as_ref().filter(|s| !s.broken.is_empty()) {
        let ids: Vec<_> = s.broken.iter().take(10).map(|c| one_line(&c.id)).collect();
        let more = s.broken.len().saturating_sub(ids.len());
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  broken     {}: {}{tail}",
            plural(s.broken.len(), "sample"),
            ids.join(", ")
        );
    }
    if let Some(s) = v.samples.as_ref().filter(|s| !s.flaky.is_empty()) {
        let ids: Vec<_> = s.flaky.iter().take(10).map(|f| one_line(&f.id)).collect();
        let more = s.flaky.len().saturating_sub(ids.len());
        let tail = match more {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let _ = writeln!(
            out,
            "  flaky      {} flipped within their spread (not counted): {}{tail}",
            plural(s.flaky.len(), "sample"),
            ids.join(", ")
        );
    }
    if let Some(s) = v.samples.as_ref().filter(|s| !s.unanswered.is_empty()) {
        let ids: Vec<_> = s
            .unanswered
            .iter()
            .take(10)
            .map(|u| format!("{} ({})", one_line(&u.id), u.error.kind.outcome()))
            .collect();
        let more = s.unanswered.len().saturating_sub(ids.len());
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  no answer  {} sample(s): {}{tail}",
            s.unanswered.len(),
            ids.join(", ")
        );
    }
    if !v.missing.is_empty() {
        let _ = writeln!(
            out,
            "  missing    {} without an answer",
            plural(v.missing.len(), "sample")
        );
    }
    out
}

/// Failed calls grouped by cause: `7 calls failed — http: … (7): ext-001, ext-002, …` for
/// one cause, else a line per cause (most calls first). Empty when no call failed.
pub fn failed_calls(f: &FailedCalls) -> String {
    if f.is_empty() {
        return String::new();
    }
    let mut lines: Vec<String> = f.causes.iter().map(super::cause_text).collect();
    if f.other_calls > 0 {
        lines.push(format!("{} more with other causes", f.other_calls));
    }
    let calls = match f.calls {
        1 => "1 call failed".to_string(),
        n => format!("{n} calls failed"),
    };
    match lines.as_slice() {
        [one] => format!("{calls} — {one}\n"),
        _ => format!(
            "{calls}:\n{}",
            lines.iter().map(|l| format!("  {l}\n")).collect::<String>()
        ),
    }
}

/// `baseline show`.
pub fn baseline(file: &ScoreFile, path: &Path) -> String {
    let p = &file.provenance;
    let mut out = format!("baseline {}\n", path.display());
    let rows = [
        ("created", p.created_at.clone()),
        (
            "suite",
            format!(
                "{} ({})",
                p.suite_name.clone().unwrap_or_default(),
                p.suite_fingerprint
            ),
        ),
        (
            "pipeline",
            p.pipeline_fingerprint
                .clone()
                .unwrap_or_else(|| MISSING.into()),
        ),
        ("model", p.model.clone().unwrap_or_else(|| MISSING.into())),
        (
            "git",
            format!(
                "{} {}",
                p.git_ref.clone().unwrap_or_default(),
                p.git_sha.clone().unwrap_or_default()
            ),
        ),
        ("goldgate", p.goldgate_version.clone()),
        ("metrics_version", file.metrics_version.clone()),
        ("protocol_version", file.protocol_version.clone()),
        ("repeats", p.repeats.to_string()),
        (
            "samples",
            format!("{} ({})", file.samples.len(), plural(p.records, "record")),
        ),
    ];
    for (k, v) in rows {
        let _ = writeln!(out, "  {k:<17} {v}");
    }
    out.push('\n');
    out.push_str(
        &score_summary(file, path)
            .lines()
            .take_while(|l| !l.is_empty())
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    );
    out
}

/// `thresholds check`.
pub fn thresholds(t: &goldgate_core::gate::thresholds::Thresholds, path: &Path) -> String {
    let mut out = format!(
        "ok: {} is valid\n  {:<36} {:<28} severity\n",
        path.display(),
        "metric",
        "rule (Δ: allowed regression)"
    );
    for m in goldgate_core::kinds::catalog(t.rule_names()) {
        if let Some((rule, _, _)) = goldgate_core::gate::rule::rule_for(m, t) {
            let _ = writeln!(
                out,
                "  {:<36} {:<28} {}",
                m.name,
                rule.describe(),
                rule.severity
            );
        }
    }
    out
}

/// What the embedding cache did: how many texts were compared, how many were embedded now.
pub fn embedded_note(stats: &goldgate_core::embed::cache::Stats) -> String {
    format!(
        "embedded {} for semantic matching ({} from the cache, {} computed)\n",
        plural(stats.texts, "text"),
        stats.cached,
        stats.computed
    )
}

/// One warning line naming the cache entries (answers, judge reviews, vectors) that were not
/// goldgate's own, so not used, and why; empty when there were none.
pub fn ignored_cache_entries(ignored: &goldgate_core::cachedir::Ignored) -> String {
    if ignored.is_empty() {
        return String::new();
    }
    let entries = match ignored.entries {
        1 => "1 cache entry".to_string(),
        n => format!("{n} cache entries"),
    };
    let reasons: Vec<String> = ignored
        .reasons
        .iter()
        .map(|(why, n)| match (why, &ignored.git_error) {
            (goldgate_core::cachedir::Refused::Unverified, Some(e)) => {
                format!("{n} {} ({})", why.describe(), one_line(e))
            }
            _ => format!("{n} {}", why.describe()),
        })
        .collect();
    let paths: Vec<String> = (ignored.examples.iter())
        .map(|p| one_line(&p.display().to_string()).into_owned())
        .collect();
    let paths = match ignored.entries.saturating_sub(ignored.examples.len()) {
        0 => paths.join(", "),
        more => format!("{} and {more} more", paths.join(", ")),
    };
    format!(
        "warning: ignored {entries} ({}): {paths}; not used, computed again: a cache entry counts only when it is a file goldgate wrote, inside the cache directory, that git does not track\n",
        reasons.join(", "),
    )
}
