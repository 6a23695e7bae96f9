//! The HTML report: one self-contained file (no network, one small inline script) with the
//! run context, the metric table, the charts ([`super::charts`]), the per-sample table with
//! its search box and filters, the diffs of broken samples and the traces of a multi-step
//! pipeline ([`super::html_view`]). Rendered with minijinja from `templates/report.html.j2`;
//! every value printed is escaped ([`goldgate_core::escape::html`]: entities, and control characters
//! as visible pictures); only the SVG and the script built here are marked safe. The script
//! (`templates/report.js`) reads the rows from the page itself and changes nothing but their
//! visibility and the count; the page's Content-Security-Policy lets only that script run.

use std::path::Path;

use minijinja::{context, Environment, Value};
use sha2::Digest;

use super::charts::{distribution_svg, reliability_svg};
use super::html_view;
use goldgate_core::error::{Error, Result};
use goldgate_core::gate::verdict::{Outcome, Status, Verdict};
use goldgate_core::metrics::calibration::bins_from;
use goldgate_core::metrics::stats::Stats;
use goldgate_core::runfile::traces::Traces;
use goldgate_core::score::file::ScoreFile;

pub const REPORT_TEMPLATE: &str = include_str!("../../templates/report.html.j2");
/// The per-sample table's search and filters, and opening the fold a link points at.
pub const REPORT_SCRIPT: &str = include_str!("../../templates/report.js");

fn num(v: Option<f64>) -> String {
    goldgate_core::number::optional(v, 4)
}

/// The page's Content-Security-Policy: nothing loaded from anywhere, inline styles, and
/// [`REPORT_SCRIPT`] as the only script (by its hash).
fn content_security_policy() -> String {
    let hash = goldgate_core::secrets::base64(&sha2::Sha256::digest(REPORT_SCRIPT.as_bytes()));
    format!("default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{hash}'; base-uri 'none'; form-action 'none'")
}

/// Render the report for a verdict and the candidate's score file.
pub fn report(v: &Verdict, candidate: &ScoreFile, templates: Option<&Path>) -> Result<String> {
    report_with_traces(v, candidate, templates, None)
}

/// How to read a reliability diagram, said once above the charts.
const RELIABILITY_GUIDE: &str = "A reliability diagram sorts the predictions that state a confidence into ten bins by that confidence (0–0.1 … 0.9–1) and draws each bin as a bar as tall as the share of its predictions that were correct; the number above a bar (and its shade) says how many predictions it holds, the dot marks their mean confidence. On the dashed diagonal confidence equals accuracy: bars below it are overconfident, bars above it underconfident.";

/// Every value a template writes escaped with [`goldgate_core::escape::html`] (markup,
/// and the bidirectional and control characters that would reorder or hide text), unless
/// the code marked it safe; an undefined value writes nothing.
pub(crate) fn escape_as_html(env: &mut Environment) {
    env.set_formatter(|out, _state, value| {
        let text = match (value.is_safe(), value.as_str()) {
            (true, Some(html)) => std::borrow::Cow::Borrowed(html),
            _ if value.is_undefined() => std::borrow::Cow::Borrowed(""),
            _ => std::borrow::Cow::Owned(goldgate_core::escape::html(&value.to_string())),
        };
        std::fmt::Write::write_str(out, &text).map_err(minijinja::Error::from)
    });
}

/// [`report`], with the traces of a multi-step pipeline's records (`srs-agents`): one
/// collapsed section per record, one per model call inside it.
pub fn report_with_traces(
    v: &Verdict,
    candidate: &ScoreFile,
    templates: Option<&Path>,
    traces: Option<&Traces>,
) -> Result<String> {
    let mut env = Environment::new();
    escape_as_html(&mut env);
    super::add_template(&mut env, templates, "report.html.j2", REPORT_TEMPLATE)?;
    let mut totals = Stats::default();
    for s in &candidate.samples {
        totals.merge(s.stats.clone());
    }
    let sample_pass = v.samples.as_ref().map(|s| s.sample_pass);
    let mut charts = Vec::new();
    let calibrated = goldgate_core::kinds::ALL
        .iter()
        .filter_map(|k| Some((k.calibration()?, format!("Reliability: {}", k.name()))));
    for (prefix, title) in calibrated {
        let bins = bins_from(prefix, &totals);
        if bins.total() > 0.0 {
            let note = format!(
                "{} predictions with a confidence; expected calibration error (ECE: the mean gap between a bar and the diagonal, weighted by predictions) {}.",
                bins.total(),
                num(bins.ece())
            );
            charts.push(context! { title => title, svg => Value::from_safe_string(reliability_svg(&bins)), note => note });
        }
    }
    let cand: Vec<f64> = v.sample_results.iter().map(|s| s.primary).collect();
    let base: Vec<f64> = v.sample_results.iter().filter_map(|s| s.baseline).collect();
    let mut note = String::from("How many samples scored in each tenth of the range, by their primary score (the kind's main metric for that sample). Filled bars: this run");
    if !base.is_empty() {
        note.push_str("; dashed outlines: the baseline");
    }
    if let Some(p) = sample_pass {
        note.push_str(&format!(
            "; the line marks the score a sample needs to pass ({})",
            goldgate_core::number::value(p, 2)
        ));
    }
    note.push('.');
    let guide = (!charts.is_empty()).then_some(RELIABILITY_GUIDE);
    charts.push(context! { title => "Sample scores", svg => Value::from_safe_string(distribution_svg(&cand, &base, sample_pass)), note => note });
    // Every metric with a rule or a value (a tuples suite's headline first); the
    // chain-of-thought diagnostics in a table of their own.
    let sections = super::layout::sections(v, |m| m.rule.is_some() || m.candidate.is_some());
    let row = |m: &&goldgate_core::gate::verdict::MetricResult| {
        let status = match m.status {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Incomplete => "incomplete",
            Status::Info => "",
        };
        let rule = m.rule.as_ref().map_or_else(String::new, |r| r.describe());
        let runs = |s: Option<goldgate_core::metrics::aggregate::Spread>| {
            s.filter(|s| s.runs > 0).map(|s| super::spread_text(&s, 4))
        };
        context! {
            name => m.name.clone(), baseline => num(m.baseline), candidate => format!("{}{}", goldgate_core::gate::verdict::about(m), num(m.candidate)),
            baseline_runs => runs(m.baseline_runs), candidate_runs => runs(m.candidate_runs),
            delta => goldgate_core::number::delta(m.delta, None, 4),
            ci => m.delta.and(m.delta_ci).map(goldgate_core::number::interval),
            rule => rule, status => status, reasons => m.reasons.join("; "),
        }
    };
    let metrics: Vec<Value> = sections.main.iter().map(row).collect();
    let diagnostics: Vec<Value> = sections.diagnostics.iter().map(row).collect();
    let table = html_view::sample_rows(v, candidate, traces);
    let samples = v.samples.as_ref().map(|s| {
        format!(
            "{} shared: {} fixed, {} broken, {} kept, {}; McNemar p = {:.4}",
            s.shared,
            s.fix,
            s.break_,
            s.keep,
            super::still_failing(s, ", "),
            s.mcnemar_p
        )
    });
    let diffs: Vec<Value> = v
        .diffs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let result = v.sample_results.iter().find(|s| s.id == d.id);
            let scores = result.map(|s| format!("{} → {}", num(s.baseline), num(Some(s.primary))));
            context! {
                anchor => format!("diff-{}", i + 1), id => d.id.clone(), scores => scores,
                gold_vs_candidate => html_view::diff_lines(&d.gold_vs_candidate),
                matching => d.matching.clone(),
                schema => d.schema.clone(),
                baseline_vs_candidate => d.baseline_vs_candidate.as_deref().map(html_view::diff_lines),
            }
        })
        .collect();
    let (word, css) = match v.verdict {
        Outcome::Pass => ("pass", "pass"),
        Outcome::Warn => ("pass with warnings", "warn"),
        Outcome::Fail => ("fail", "fail"),
        Outcome::Incomplete => ("incomplete run", "incomplete"),
    };
    let ctx = context! {
        word => word, css => css, summary => v.summary.clone(),
        context => html_view::run_context(&v.provenance),
        metrics => metrics, diagnostics => diagnostics, coverage => sections.coverage_text(), runs => v.metrics.iter().any(|m| m.candidate_runs.is_some() || m.baseline_runs.is_some()),
        charts => charts, guide => guide,
        pass_mark => sample_pass.map(|p| goldgate_core::number::value(p, 2)),
        rows => table.rows, outcomes => table.outcomes, kinds => table.kinds, tags => table.tags,
        samples => samples,
        keyless => v.keyless.iter().take(20).map(|k| k.describe()).collect::<Vec<_>>(),
        sequential => super::sequential::lines(v),
        drift => super::drift::lines(v), trends => super::drift::trend_lines(v),
        judge => super::judge::html(&v.judge).into_iter().map(|(headline, note, items)| context! { headline, note, items }).collect::<Vec<_>>(),
        differences => v.provenance.differences.clone(), ratchet => v.ratchet.clone(), diffs => diffs,
        failed_calls => v.failures.calls, causes => v.failures.causes.iter().map(super::cause_text).collect::<Vec<_>>(), other_causes => v.failures.other_calls,
        version => env!("CARGO_PKG_VERSION"), metrics_version => goldgate_core::score::file::METRICS_VERSION,
        traces => traces.map(|t| html_view::traces(v, t)).unwrap_or_default(),
        traces_omitted => traces.map_or(0, |t| t.omitted),
        csp => content_security_policy(),
        script => Value::from_safe_string(REPORT_SCRIPT.to_string()),
    };
    env.get_template("report.html.j2")
        .and_then(|t| t.render(ctx))
        .map_err(|e| {
            Error::usage(
                format!("cannot render the HTML report: {e}"),
                "check report.html.j2 in --templates",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_is_escaped_and_only_the_reports_own_script_may_run() {
        use goldgate_core::testkit::test_kind_file as file;
        let run = file(&[(5.0, 0.0, 0.0, false), (2.0, 1.0, 3.0, false)], "1");
        let rules = goldgate_core::gate::thresholds::Thresholds::parse(
            &format!(
                "version = 1\n[metrics.\"{}\"]\nmin = 0.5\n",
                goldgate_core::testkit::metric("f1")
            ),
            Path::new("t.toml"),
        )
        .unwrap();
        let options = goldgate_core::gate::compare::CompareOptions {
            bootstrap: Default::default(),
            allow_version_change: false,
            ratchet: vec![],
            reference: None,
        };
        let mut v =
            goldgate_core::gate::compare::compare(&run, Some(&run), &rules, &options).unwrap();
        v.sample_results[0].id = "@octocat </details><script>alert(1)</script> ```".into();
        v.ratchet.push("<img src=x onerror=alert(1)>".into());
        let html = report(&v, &run, None).unwrap();
        assert!(!html.contains("<img"), "nothing made from the text");
        assert_eq!(html.matches("<script").count(), 1, "the report's own");
        assert!(html.contains(&format!("<script>{REPORT_SCRIPT}</script>")));
        // Only that script may run, whatever reached the page.
        let hash = goldgate_core::secrets::base64(&sha2::Sha256::digest(REPORT_SCRIPT.as_bytes()));
        assert!(html.contains(&format!(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &#x27;none&#x27;; style-src &#x27;unsafe-inline&#x27;; img-src data:; script-src &#x27;sha256-{hash}&#x27;;"
        )), "{html}");
        assert!(!html.contains("Pipeline traces"), "no traces, no section");
        assert!(
            html.contains("&lt;script&gt;") && html.contains("<svg"),
            "text escaped, charts kept"
        );
    }

    #[test]
    fn the_run_context_leads_and_each_row_carries_what_the_filters_read() {
        use goldgate_core::testkit::test_kind_file as file;
        let mut base = file(&[(5.0, 0.0, 0.0, false), (5.0, 0.0, 0.0, false)], "1");
        base.provenance.git_sha = Some("0123456789abcdef0123".into());
        base.provenance.git_ref = Some("main".into());
        let mut cand = file(&[(5.0, 0.0, 0.0, false), (1.0, 0.0, 4.0, false)], "1");
        let p = &mut cand.provenance;
        p.suite_name = Some("<b>suite</b>".into());
        p.git_sha = Some("fedcba9876543210fedc".into());
        p.git_ref = Some("pr-7".into());
        p.created_at = "2025-06-02T09:30:00Z".into();
        p.model = Some("gpt-x".into());
        p.pipeline_fingerprint = Some("sha256:aaaabbbbccccddddeeee".into());
        cand.samples[1].tags = vec!["multi <event>".into(), "hard".into()];
        cand.samples[1].domain = "banking".into();
        let rules =
            goldgate_core::gate::thresholds::Thresholds::parse("version = 1", Path::new("t.toml"))
                .unwrap();
        let options = goldgate_core::gate::compare::CompareOptions {
            bootstrap: Default::default(),
            allow_version_change: false,
            ratchet: vec![],
            reference: None,
        };
        let mut v =
            goldgate_core::gate::compare::compare(&cand, Some(&base), &rules, &options).unwrap();
        v.diffs.push(goldgate_core::gate::diff::SampleDiff {
            id: "s-1".into(),
            gold_vs_candidate:
                "--- gold\n+++ candidate\n@@ -1 +1 @@\n-gold <i>line</i>\n+answer line".into(),
            baseline_vs_candidate: None,
            matching: vec![],
            schema: vec![],
        });
        let html = report(&v, &cand, None).unwrap();
        let context = &html[html.find("<dl id=\"context\"").unwrap()..html.find("</dl>").unwrap()];
        for want in [
            "<dt>Suite</dt><dd title=\"s\">&lt;b&gt;suite&lt;/b&gt;</dd>",
            "<dt>Suite fingerprint</dt><dd title=\"sha256:x\">sha256:x</dd>",
            "<dt>Commit</dt><dd title=\"fedcba9876543210fedc\">fedcba987654<span class=\"detail\">on pr-7</span></dd>",
            "<dt>Date</dt><dd>2025-06-02 09:30:00 UTC</dd>",
            "<dt>Model</dt><dd>gpt-x</dd>",
            "<dt>Pipeline</dt><dd title=\"sha256:aaaabbbbccccddddeeee\">sha256:aaaabbbbcccc</dd>",
            "<dt>Baseline</dt><dd title=\"0123456789abcdef0123\">0123456789ab<span class=\"detail\">on main · 1970-01-01 00:00:00 UTC</span></dd>",
        ] {
            assert!(context.contains(want), "{want}\n{context}");
        }
        assert!(html.find("id=\"context\"") < html.find("id=\"metrics\""));
        // The broken sample first, with its outcome, kind and tags for the filters, and a
        // link to its diff; the filters offer what the rows hold.
        let kind = goldgate_core::testkit::test_kind().name();
        assert!(html.contains(&format!("<tr data-id=\"s-1\" data-outcome=\"broken\" data-kind=\"{kind}\"><th scope=\"row\"><code>s-1</code></th><td>{kind}</td><td>banking</td><td><span class=\"tag\">multi &lt;event&gt;</span><span class=\"tag\">hard</span></td>")), "{html}");
        assert!(html.find("data-id=\"s-1\"") < html.find("data-id=\"s-0\""));
        assert!(html.contains("<td class=\"links\"><a href=\"#diff-1\">diff</a></td>"));
        assert!(html.contains("<select id=\"filter-outcome\"><option value=\"\">all</option><option>broken</option><option>pass</option></select>"), "{html}");
        assert!(html.contains("<select id=\"filter-tag\"><option value=\"\">all</option><option>hard</option><option>multi &lt;event&gt;</option></select>"));
        assert!(html.contains("<form id=\"sample-filters\" class=\"filters\" role=\"search\" aria-label=\"Filter the samples\" hidden>"), "offered only by the script");
        // The diff's lines styled by their first character, the text escaped.
        assert!(html.contains("<details class=\"diff\" id=\"diff-1\"><summary><code>s-1</code> <span class=\"muted\">1.0000 → 0.3333</span></summary>"), "{html}");
        assert!(html.contains("<span class=\"dl d-file\">--- gold\n</span><span class=\"dl d-file\">+++ candidate\n</span><span class=\"dl d-hunk\">@@ -1 +1 @@\n</span><span class=\"dl d-del\">-gold &lt;i&gt;line&lt;/i&gt;\n</span><span class=\"dl d-add\">+answer line\n</span>"), "{html}");
    }

    #[test]
    fn a_trace_is_shown_per_call_collapsed_and_escaped() {
        use goldgate_core::runfile::trace::{Trace, TraceAttempt, TraceCall, TraceMessage};
        use goldgate_core::runfile::traces::SampleTrace;
        let run = goldgate_core::testkit::test_kind_file(&[(5.0, 0.0, 0.0, false)], "1");
        let rules =
            goldgate_core::gate::thresholds::Thresholds::parse("version = 1", Path::new("t.toml"))
                .unwrap();
        let options = goldgate_core::gate::compare::CompareOptions {
            bootstrap: Default::default(),
            allow_version_change: false,
            ratchet: vec![],
            reference: None,
        };
        let v = goldgate_core::gate::compare::compare(&run, None, &rules, &options).unwrap();
        let call = TraceCall {
            agent: "ReqClarify".into(),
            iteration: 1,
            temperature: 0.2,
            messages: vec![TraceMessage {
                role: "user".into(),
                content: "score <b>this</b>".into(),
            }],
            raw_output: Some("[{\"id\": \"FR-01\", \"score\": 2}]</pre><script>x</script>".into()),
            parsed: Some(serde_json::json!([{"id": "FR-01", "score": 2}])),
            latency_ms: 12.4,
            retries: vec![TraceAttempt {
                error: "no JSON <here>".into(),
                waited_ms: Some(1000.0),
                ..TraceAttempt::default()
            }],
            ..TraceCall::default()
        };
        let traces = Traces {
            samples: vec![SampleTrace {
                sample_id: "e2e-1".into(),
                repeat: 0,
                error: None,
                trace: Trace {
                    calls: vec![call],
                    state: Some(serde_json::json!({"frozen": ["FR-01"]})),
                },
            }],
            omitted: 3,
        };
        let html = report_with_traces(&v, &run, None, Some(&traces)).unwrap();
        assert!(
            html.contains("Pipeline traces") && html.contains("3 more records"),
            "{html}"
        );
        assert!(
            html.contains("ReqClarify · iteration 1 · 2 attempts · tokens not reported · 12 ms"),
            "{html}"
        );
        assert!(
            html.contains("score &lt;b&gt;this&lt;/b&gt;") && html.matches("<script").count() == 1,
            "escaped"
        );
        assert!(
            html.contains("no JSON &lt;here&gt; (waited 1000.0 ms)"),
            "{html}"
        );
        assert!(html.contains("&quot;frozen&quot;"), "the final state");
    }
}
