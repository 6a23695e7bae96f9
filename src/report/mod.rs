//! Renderers: turning results into text for people and tools — the terminal tables
//! ([`terminal`]), the PR comment and job summary ([`markdown`], fitted to GitHub's size
//! limits by [`fit`]), the HTML report ([`html`], with [`charts`] and [`html_view`]), JUnit
//! XML ([`junit`]), the baseline's history ([`history`], [`history_html`]) the drift from the reference ([`drift`]), the flips of flaky samples ([`flaky`]) and run progress ([`progress`]) — and the template loader they share.

pub mod charts;
pub mod drift;
pub mod fit;
pub mod flaky;
pub mod history;
pub mod history_html;
pub mod html;
pub mod html_view;
pub mod judge;
pub mod junit;
pub mod keyless;
pub mod layout;
pub mod markdown;
pub mod progress;
pub mod sequential;
pub mod spend;
pub mod terminal;

/// Add a template: `name` from `--templates DIR` when that directory has it, else the
/// built-in `builtin`.
pub fn add_template(
    env: &mut minijinja::Environment<'static>,
    templates: Option<&std::path::Path>,
    name: &'static str,
    builtin: &'static str,
) -> goldgate_core::error::Result<()> {
    let source = match templates.map(|d| d.join(name)).filter(|p| p.is_file()) {
        Some(path) => goldgate_core::io::read(&path)?,
        None => builtin.to_string(),
    };
    env.add_template_owned(name, source).map_err(|e| {
        goldgate_core::error::Error::usage(
            format!("the template {name} does not parse: {e}"),
            format!("fix {name} in --templates, or remove it to use the built-in one"),
        )
    })
}

/// One side's mean ± std over runs with how many went in: `0.805 ± 0.021 (3 runs)`.
pub fn spread_text(s: &goldgate_core::metrics::aggregate::Spread, decimals: usize) -> String {
    let runs = if s.runs == 1 { "run" } else { "runs" };
    let spread = goldgate_core::number::spread(s.mean, s.std, decimals);
    format!("{spread} ({} {runs})", s.runs)
}

/// A metric's mean ± std over runs, baseline → candidate, when either side has a value in
/// some run: `0.833 ± 0.289 → 0.667 ± 0.289 (3 runs)` (`2 → 3 runs` when the counts differ;
/// [`MISSING`] for a side without).
///
/// [`MISSING`]: goldgate_core::number::MISSING
pub fn runs_text(
    m: &goldgate_core::gate::verdict::MetricResult,
    decimals: usize,
) -> Option<String> {
    use goldgate_core::metrics::aggregate::Spread;
    let some = |s: Option<Spread>| s.filter(|s| s.runs > 0);
    let (base, cand) = (some(m.baseline_runs), some(m.candidate_runs));
    let side = |s: Option<Spread>| {
        s.map_or_else(
            || goldgate_core::number::MISSING.to_string(),
            |s| goldgate_core::number::spread(s.mean, s.std, decimals),
        )
    };
    let count = match (base.map(|s| s.runs), cand.map(|s| s.runs)) {
        (None, None) => return None,
        (Some(b), Some(c)) if b != c => format!("{b} → {c} runs"),
        (_, Some(1)) | (Some(1), None) => "1 run".to_string(),
        (_, Some(n)) | (Some(n), None) => format!("{n} runs"),
    };
    Some(format!("{} → {} ({count})", side(base), side(cand)))
}

/// One cause of failed calls as plain text: `http: POST … answered 401 (7): ext-001, …`.
pub fn cause_text(c: &goldgate_core::runfile::failures::FailureCause) -> String {
    use goldgate_core::escape::one_line;
    let mut ids: Vec<_> = c.examples.iter().map(|i| one_line(i)).collect();
    if c.samples > c.examples.len() {
        ids.push("…".into());
    }
    format!(
        "{}: {} ({}): {}",
        c.kind.as_str(),
        one_line(&c.message),
        c.calls,
        ids.join(", ")
    )
}

/// The samples failing in both runs, then those the candidate has no answer for, named by
/// what happened to their calls (`1 still failing · 2 crashed · 1 timed out`).
pub fn still_failing(s: &goldgate_core::gate::samples::SampleAnalysis, separator: &str) -> String {
    let mut parts = vec![format!("{} still failing", s.still)];
    match s.flaky.len() {
        0 => {}
        1 => parts.push("1 flaky flip (not counted)".into()),
        n => parts.push(format!("{n} flaky flips (not counted)")),
    }
    parts.extend(
        unanswered_counts(s)
            .into_iter()
            .map(|(what, n)| format!("{n} {what}")),
    );
    parts.join(separator)
}

/// How many samples without an answer each way of failing left (`crashed`, `timed out` …),
/// in the order of [`goldgate_core::runfile::record::ErrorKind`].
pub fn unanswered_counts(
    s: &goldgate_core::gate::samples::SampleAnalysis,
) -> Vec<(&'static str, usize)> {
    let mut counts: Vec<(goldgate_core::runfile::record::ErrorKind, usize)> = Vec::new();
    for u in &s.unanswered {
        match counts.iter_mut().find(|(kind, _)| *kind == u.error.kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((u.error.kind, 1)),
        }
    }
    counts.sort_by_key(|(kind, _)| *kind as u8);
    counts
        .into_iter()
        .map(|(kind, n)| (kind.outcome(), n))
        .collect()
}

/// One sample without an answer as plain text: `ext-002 (crashed: the pipeline exited …)`.
pub fn unanswered_text(u: &goldgate_core::gate::samples::Unanswered) -> String {
    use goldgate_core::escape::one_line;
    format!(
        "{} ({}: {})",
        one_line(&u.id),
        u.error.kind.outcome(),
        one_line(&u.error.message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use goldgate_core::metrics::aggregate::Spread;

    /// A cost that rests on goldgate's own token counts is marked wherever its rule's row
    /// is shown: the terminal and the comment.
    #[test]
    fn a_cost_goldgate_counted_is_marked_estimated() {
        use goldgate_core::testkit::{options, rules, test_kind_file as file};
        let mut cand = file(&[(5.0, 0.0, 0.0, false); 8], "1");
        let value = |v: f64| goldgate_core::metrics::aggregate::Aggregate {
            value: Some(v),
            n: 8,
            ci: None,
            spread: None,
        };
        cand.metrics.insert("run.cost_usd".into(), value(0.02));
        cand.metrics
            .insert("run.tokens_total".into(), value(4000.0));
        cand.metrics
            .insert("run.tokens_estimated_rate".into(), value(0.5));
        let t = rules("[metrics.\"run.cost_usd\"]\nmax = 5\n");
        let v = goldgate_core::gate::compare::compare(&cand, None, &t, &options()).unwrap();
        let shown = terminal::verdict(&v);
        assert!(shown.contains("→ ≈ 0.0200"), "{shown}");
        let comment = markdown::comment(&v, "goldgate", None).unwrap();
        assert!(comment.contains("→ ≈ 0.020"), "{comment}");
    }

    #[test]
    fn mean_and_std_over_runs_read_baseline_to_candidate() {
        use goldgate_core::gate::verdict::{MetricResult, Status};
        let mut m = MetricResult {
            name: goldgate_core::testkit::test_kind().primary_metric().into(),
            direction: goldgate_core::metrics::registry::Direction::Higher,
            baseline: None,
            candidate: Some(0.8),
            delta: None,
            delta_ci: None,
            n: 3,
            rule: None,
            status: Status::Info,
            reasons: Vec::new(),
            candidate_runs: None,
            baseline_runs: None,
            detectable: None,
            paired: None,
            no_data: None,
            too_few: None,
            estimated: false,
        };
        let spread = |mean: f64, std: Option<f64>, runs| Spread {
            mean: Some(mean),
            std,
            runs,
        };
        assert_eq!(runs_text(&m, 3), None, "no repeats: nothing to show");
        m.candidate_runs = Some(spread(0.80512, Some(0.0213), 3));
        assert_eq!(runs_text(&m, 3).unwrap(), "– → 0.805 ± 0.021 (3 runs)");
        m.baseline_runs = Some(spread(0.9, Some(0.01), 3));
        assert_eq!(
            runs_text(&m, 3).unwrap(),
            "0.900 ± 0.010 → 0.805 ± 0.021 (3 runs)"
        );
        m.baseline_runs = Some(spread(0.9, None, 1));
        assert_eq!(
            runs_text(&m, 3).unwrap(),
            "0.900 ± – → 0.805 ± 0.021 (1 → 3 runs)"
        );
        m.candidate_runs = None;
        assert_eq!(runs_text(&m, 3).unwrap(), "0.900 ± – → – (1 run)");
        // Runs without a value are no runs to show.
        let empty = Spread {
            mean: None,
            std: None,
            runs: 0,
        };
        (m.baseline_runs, m.candidate_runs) = (Some(empty), Some(empty));
        assert_eq!(runs_text(&m, 3), None);
        assert_eq!(spread_text(&spread(0.5, None, 1), 4), "0.5000 ± – (1 run)");
    }
}
