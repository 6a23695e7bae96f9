//! The HTML report: one self-contained file (no scripts, no network) with the metric table,
//! a reliability diagram per calibrated kind (SVG), the distribution of per-sample scores,
//! and a per-sample table. Rendered with minijinja from `templates/report.html.j2`; every
//! value printed is escaped ([`crate::escape::html`]: entities, and control characters as
//! visible pictures), only the SVG built here is marked safe.

use std::fmt::Write;
use std::path::Path;

use minijinja::{context, Environment, Value};

use crate::error::{Error, Result};
use crate::gate::samples::passes;
use crate::gate::verdict::{Outcome, Status, Verdict};
use crate::metrics::calibration::bins_from;
use crate::metrics::calibration::{Bins, BINS};
use crate::metrics::stats::Stats;
use crate::runfile::reader::Traces;
use crate::runfile::trace::TraceCall;
use crate::score::file::ScoreFile;

pub const REPORT_TEMPLATE: &str = include_str!("../../templates/report.html.j2");

/// A reliability diagram: accuracy against mean confidence per non-empty bin, with the
/// diagonal of perfect calibration and bar widths showing how many predictions a bin holds.
pub fn reliability_svg(bins: &Bins) -> String {
    let (size, pad) = (270.0, 40.0);
    let inner = size - 2.0 * pad;
    let total = bins.total().max(1.0);
    let mut svg = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{size}\" height=\"{size}\" viewBox=\"0 0 {size} {size}\" role=\"img\" aria-label=\"reliability diagram\">");
    let _ = write!(svg, "<rect x=\"{pad}\" y=\"{pad}\" width=\"{inner}\" height=\"{inner}\" fill=\"#fff\" stroke=\"#d0d7de\"/>");
    let _ = write!(svg, "<line x1=\"{pad}\" y1=\"{}\" x2=\"{}\" y2=\"{pad}\" stroke=\"#8c959f\" stroke-dasharray=\"4 3\"/>", pad + inner, pad + inner);
    for b in (0..BINS).filter(|&b| bins.count[b] > 0.0) {
        let (conf, acc) = (
            bins.confidence[b] / bins.count[b],
            bins.correct[b] / bins.count[b],
        );
        let x = pad + inner * b as f64 / BINS as f64;
        let w = inner / BINS as f64 - 2.0;
        let h = inner * acc;
        let opacity = 0.35 + 0.65 * bins.count[b] / total;
        let _ = write!(svg, "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" fill=\"#0969da\" fill-opacity=\"{opacity:.2}\"><title>bin {b}: {} predictions, accuracy {acc:.2}, confidence {conf:.2}</title></rect>", x + 1.0, pad + inner - h, bins.count[b]);
        let _ = write!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#cf222e\"/>",
            pad + inner * conf,
            pad + inner - h
        );
    }
    for t in [0.0, 0.5, 1.0] {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{t}</text>",
            pad + inner * t,
            size - 12.0
        );
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{t}</text>",
            pad - 4.0,
            pad + inner - inner * t + 3.0
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">confidence</text>",
        size / 2.0,
        size - 1.0
    );
    let _ = write!(svg, "<text x=\"10\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 10 {})\">accuracy</text>", size / 2.0, size / 2.0);
    svg.push_str("</svg>");
    svg
}

/// A histogram of per-sample primary scores (10 bins), candidate bars with baseline outlines.
pub fn distribution_svg(candidate: &[f64], baseline: &[f64]) -> String {
    let (width, height, pad) = (320.0, 200.0, 24.0);
    let count = |xs: &[f64]| {
        let mut c = [0usize; 10];
        for &x in xs {
            c[((x * 10.0).floor() as usize).min(9)] += 1;
        }
        c
    };
    let (cand, base) = (count(candidate), count(baseline));
    let max = cand.iter().chain(&base).copied().max().unwrap_or(0).max(1) as f64;
    let bar = (width - 2.0 * pad) / 10.0;
    let mut svg = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"score distribution\">");
    for i in 0..10 {
        let x = pad + bar * i as f64;
        let h = (height - 2.0 * pad) * cand[i] as f64 / max;
        let _ = write!(svg, "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"#1a7f37\" fill-opacity=\"0.7\"><title>{:.1}–{:.1}: {} samples</title></rect>", x + 1.0, height - pad - h, bar - 2.0, i as f64 / 10.0, (i + 1) as f64 / 10.0, cand[i]);
        if !baseline.is_empty() {
            let hb = (height - 2.0 * pad) * base[i] as f64 / max;
            let _ = write!(svg, "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{hb:.1}\" fill=\"none\" stroke=\"#57606a\" stroke-dasharray=\"3 2\"/>", x + 1.0, height - pad - hb, bar - 2.0);
        }
    }
    let _ = write!(
        svg,
        "<line x1=\"{pad}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#8c959f\"/>",
        height - pad,
        width - pad,
        height - pad
    );
    for t in [0.0, 0.5, 1.0] {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{t}</text>",
            pad + (width - 2.0 * pad) * t,
            height - 8.0
        );
    }
    svg.push_str("</svg>");
    svg
}

fn num(v: Option<f64>) -> String {
    crate::number::optional(v, 4)
}

/// Render the report for a verdict and the candidate's score file.
pub fn report(v: &Verdict, candidate: &ScoreFile, templates: Option<&Path>) -> Result<String> {
    report_with_traces(v, candidate, templates, None)
}

fn pretty(value: &Option<serde_json::Value>) -> Option<String> {
    value
        .as_ref()
        .map(|v| serde_json::to_string_pretty(v).unwrap_or_default())
}

/// One model call of a trace, for the template.
fn call_context(c: &TraceCall) -> Value {
    let attempts = c.retries.len() + usize::from(c.raw_output.is_some());
    let tokens = c.usage.map(|u| u.total());
    let messages: Vec<Value> = c
        .messages
        .iter()
        .map(|m| context! { role => m.role.clone(), content => m.content.clone() })
        .collect();
    let retries: Vec<Value> = c
        .retries
        .iter()
        .map(|r| context! { error => r.error.clone(), raw_output => r.raw_output.clone(), waited => r.waited_ms.map(|ms| format!("{} ms", crate::number::value(ms, 0))) })
        .collect();
    context! {
        agent => c.agent.clone(), iteration => c.iteration,
        attempts => match attempts { 1 => "1 attempt".to_string(), n => format!("{n} attempts") },
        tokens => tokens.map_or_else(|| "tokens not reported".to_string(), |t| format!("{t} tokens")),
        latency => format!("{} ms", crate::number::value(c.latency_ms, 0)),
        finish_reason => c.finish_reason.clone(), temperature => c.temperature,
        messages => messages, raw_output => c.raw_output.clone(), parsed => pretty(&c.parsed),
        effect => pretty(&c.effect), retries => retries,
    }
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
    env.set_formatter(|out, _state, value| {
        let text = match (value.is_safe(), value.as_str()) {
            (true, Some(html)) => std::borrow::Cow::Borrowed(html),
            _ if value.is_undefined() => std::borrow::Cow::Borrowed(""),
            _ => std::borrow::Cow::Owned(crate::escape::html(&value.to_string())),
        };
        std::fmt::Write::write_str(out, &text).map_err(minijinja::Error::from)
    });
    super::add_template(&mut env, templates, "report.html.j2", REPORT_TEMPLATE)?;
    let mut totals = Stats::default();
    for s in &candidate.samples {
        totals.merge(s.stats.clone());
    }
    let mut charts = Vec::new();
    for (prefix, title) in [
        ("ext.cal", "Reliability: extraction"),
        ("inf.cal", "Reliability: inference"),
    ] {
        let bins = bins_from(prefix, &totals);
        if bins.total() > 0.0 {
            let note = format!(
                "{} predictions with a confidence; ECE {}",
                bins.total(),
                num(bins.ece())
            );
            charts.push(context! { title => title, svg => Value::from_safe_string(reliability_svg(&bins)), note => note });
        }
    }
    let cand: Vec<f64> = v.sample_results.iter().map(|s| s.primary).collect();
    let base: Vec<f64> = v.sample_results.iter().filter_map(|s| s.baseline).collect();
    let note = if base.is_empty() {
        "per-sample primary score".to_string()
    } else {
        "per-sample primary score (dashed: baseline)".to_string()
    };
    charts.push(context! { title => "Sample scores", svg => Value::from_safe_string(distribution_svg(&cand, &base)), note => note });
    // Every metric with a rule or a value (a tuples suite's headline first); the
    // chain-of-thought diagnostics in a table of their own.
    let sections = super::layout::sections(v, |m| m.rule.is_some() || m.candidate.is_some());
    let row = |m: &&crate::gate::verdict::MetricResult| {
        let status = match m.status {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Incomplete => "incomplete",
            Status::Info => "",
        };
        let delta = crate::number::delta(m.delta, m.delta_ci, 4);
        let rule = m.rule.as_ref().map_or_else(String::new, |r| r.describe());
        let runs = |s: Option<crate::metrics::aggregate::Spread>| {
            s.filter(|s| s.runs > 0).map(|s| super::spread_text(&s, 4))
        };
        context! { name => m.name.clone(), baseline => num(m.baseline), candidate => num(m.candidate), baseline_runs => runs(m.baseline_runs), candidate_runs => runs(m.candidate_runs), delta => delta, rule => rule, status => status, reasons => m.reasons.join("; ") }
    };
    let metrics: Vec<Value> = sections.main.iter().map(row).collect();
    let diagnostics: Vec<Value> = sections.diagnostics.iter().map(row).collect();
    let sample_pass = v.samples.as_ref().map_or(0.8, |s| s.sample_pass);
    let mut rows: Vec<_> = v.sample_results.iter().collect();
    rows.sort_by_key(|s| (s.pass, s.baseline.is_none_or(|b| !passes(b, sample_pass))));
    let rows: Vec<Value> = rows
        .iter()
        .map(|s| {
            let (outcome, css) = match (s.baseline.map(|b| passes(b, sample_pass)), s.pass) {
                (Some(true), false) => ("broken", "fail"),
                (Some(false), true) => ("fixed", "pass"),
                (_, true) => ("pass", "pass"),
                (_, false) => ("failing", "warn"),
            };
            // A sample whose call failed is named by what happened to it.
            let outcome = match &s.error {
                Some(e) if outcome == "broken" => format!("broken ({})", e.kind.outcome()),
                Some(e) => e.kind.outcome().to_string(),
                None => outcome.to_string(),
            };
            context! { id => s.id.clone(), kind => s.kind.as_str(), baseline => num(s.baseline), candidate => num(Some(s.primary)), outcome => outcome, css => css }
        })
        .collect();
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
    let (word, css) = match v.verdict {
        Outcome::Pass => ("pass", "pass"),
        Outcome::Warn => ("pass with warnings", "warn"),
        Outcome::Fail => ("fail", "fail"),
        Outcome::Incomplete => ("incomplete run", "incomplete"),
    };
    let ctx = context! {
        word => word, css => css, summary => v.summary.clone(), metrics => metrics, diagnostics => diagnostics, coverage => sections.coverage_text(), runs => v.metrics.iter().any(|m| m.candidate_runs.is_some() || m.baseline_runs.is_some()), charts => charts, rows => rows, samples => samples,
        differences => v.provenance.differences.clone(), ratchet => v.ratchet.clone(), diffs => v.diffs.clone(),
        failed_calls => v.failures.calls, causes => v.failures.causes.iter().map(super::cause_text).collect::<Vec<_>>(), other_causes => v.failures.other_calls,
        version => env!("CARGO_PKG_VERSION"), metrics_version => crate::score::file::METRICS_VERSION,
        traces => traces.map(|t| t.samples.iter().map(|s| context! {
            id => s.sample_id.clone(), repeat => s.repeat,
            error => s.error.as_ref().map(|e| format!("{}: {}", e.kind.as_str(), e.message)),
            calls => s.trace.calls.iter().map(call_context).collect::<Vec<_>>(),
            state => pretty(&s.trace.state),
        }).collect::<Vec<_>>()).unwrap_or_default(),
        traces_omitted => traces.map_or(0, |t| t.omitted),
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
    fn untrusted_text_is_escaped_and_there_is_no_script() {
        use crate::gate::compare::tests::file;
        let run = file(&[(5.0, 0.0, 0.0, false), (2.0, 1.0, 3.0, false)], "1");
        let rules = crate::gate::thresholds::Thresholds::parse(
            "version = 1\n[metrics.\"extraction.f1\"]\nmin = 0.5\n",
            Path::new("t.toml"),
        )
        .unwrap();
        let options = crate::gate::compare::CompareOptions {
            bootstrap: Default::default(),
            allow_version_change: false,
            ratchet: vec![],
        };
        let mut v = crate::gate::compare::compare(&run, Some(&run), &rules, &options).unwrap();
        v.sample_results[0].id = "@octocat </details><script>alert(1)</script> ```".into();
        v.ratchet.push("<img src=x onerror=alert(1)>".into());
        let html = report(&v, &run, None).unwrap();
        assert!(
            !html.contains("<script") && !html.contains("<img"),
            "nothing executable"
        );
        assert!(!html.contains("Pipeline traces"), "no traces, no section");
        assert!(
            html.contains("&lt;script&gt;") && html.contains("<svg"),
            "text escaped, charts kept"
        );
    }

    #[test]
    fn a_trace_is_shown_per_call_collapsed_and_escaped() {
        use crate::runfile::reader::SampleTrace;
        use crate::runfile::trace::{Trace, TraceAttempt, TraceMessage};
        let run = crate::gate::compare::tests::file(&[(5.0, 0.0, 0.0, false)], "1");
        let rules =
            crate::gate::thresholds::Thresholds::parse("version = 1", Path::new("t.toml")).unwrap();
        let options = crate::gate::compare::CompareOptions {
            bootstrap: Default::default(),
            allow_version_change: false,
            ratchet: vec![],
        };
        let v = crate::gate::compare::compare(&run, None, &rules, &options).unwrap();
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
            html.contains("score &lt;b&gt;this&lt;/b&gt;") && !html.contains("<script"),
            "escaped"
        );
        assert!(
            html.contains("no JSON &lt;here&gt; (waited 1000.0 ms)"),
            "{html}"
        );
        assert!(html.contains("&quot;frozen&quot;"), "the final state");
    }

    #[test]
    fn reliability_bars_follow_the_bins() {
        let mut bins = Bins::default();
        bins.add(0.95, true);
        bins.add(0.95, false);
        bins.add(0.15, false);
        let svg = reliability_svg(&bins);
        assert_eq!(
            svg.matches("<circle").count(),
            2,
            "one point per non-empty bin"
        );
        assert!(svg.contains("bin 9: 2 predictions, accuracy 0.50"));
    }
}
