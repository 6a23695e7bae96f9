//! The PR comment and the job summary (Markdown), rendered with minijinja from
//! `templates/comment.md.j2` and `templates/summary.md.j2` (built in; a `--templates DIR`
//! may override them). Every value a template prints is escaped
//! ([`goldgate_core::escape::markdown_inline`]) unless goldgate built it as Markdown itself (a
//! fence, a code span, a status): a verdict can come from a fork, so a metric name, group,
//! sample id or message cannot mention anyone, inject HTML, start a line, or break out of a
//! table, a code span or a fence, even in a custom template. The comment
//! stays under GitHub's 65,536-character limit and the summary under 1 MiB by showing less
//! detail (groups, then fixed samples, then diffs, then the least-dropped broken samples;
//! the worst broken samples stay), saying how much was left out; only if that is not
//! enough is the body cut.

use std::path::Path;

use minijinja::{context, Environment, Value};

use super::fit::{diffs_within, fit, Shown};
pub use super::fit::{Limit, SUMMARY_LIMIT};
use goldgate_core::error::{Error, Result};
use goldgate_core::escape;
use goldgate_core::gate::verdict::{Outcome, Status, Verdict};
use goldgate_core::runfile::failures::{FailedCalls, FailureCause};

/// GitHub's limit on a comment body, in characters.
pub const GITHUB_LIMIT: usize = 65_536;

pub const COMMENT_TEMPLATE: &str = include_str!("../../templates/comment.md.j2");
pub const SUMMARY_TEMPLATE: &str = include_str!("../../templates/summary.md.j2");

/// The hidden marker that identifies the sticky comment of one gate.
pub fn marker(gate_name: &str) -> String {
    format!(
        "<!-- goldgate:{} -->",
        escape_inline(gate_name).replace("--", "-")
    )
}

/// Escape text for inline Markdown (table cells, list items): one line, no HTML, no
/// mentions, no links, no code spans, no table breaks, no control characters.
pub fn escape_inline(text: &str) -> String {
    escape::markdown_inline(text)
}

/// A fenced code block that the content cannot close: the fence is longer than any run of
/// backticks or tildes inside it.
pub fn fenced(content: &str, lang: &str) -> String {
    escape::markdown_fence(content, lang)
}

/// Goldgate's own Markdown, printed as it is.
fn safe(markdown: String) -> Value {
    Value::from_safe_string(markdown)
}

fn num(v: Option<f64>) -> String {
    goldgate_core::number::optional(v, 3)
}

/// Table rows: names and reasons as text (escaped when printed), the numbers, the rule and
/// the status as goldgate's own Markdown.
fn rows(metrics: &[&goldgate_core::gate::verdict::MetricResult]) -> Vec<Value> {
    metrics
        .iter()
        .map(|m| {
            let status = match m.status {
                Status::Pass => "✅",
                Status::Warn => "⚠️ warn",
                Status::Fail => "❌ **fail**",
                Status::Incomplete => "⛔ incomplete",
                Status::Info => "",
            };
            context! {
                name => m.name.clone(),
                values => safe(format!("{} → {}{}", num(m.baseline), goldgate_core::gate::verdict::about(m), num(m.candidate))),
                delta => safe(goldgate_core::number::delta(m.delta, m.delta_ci, 3)),
                runs => safe(super::runs_text(m, 3).unwrap_or_else(|| goldgate_core::number::MISSING.into())),
                rule => safe(m.rule.as_ref().map_or_else(String::new, |r| escape_inline(&r.describe()))),
                status => safe(status.to_string()),
                reasons => m.reasons.iter().cloned().chain(m.detectable.map(|d| d.sentence(&m.name, m.direction))).collect::<Vec<_>>().join("; "),
            }
        })
        .collect()
}

/// `7 calls failed`, then each cause: its kind, its message, how many calls, example
/// samples (`…` when there are more), as Markdown.
fn failed_calls(f: &FailedCalls) -> Value {
    if f.is_empty() {
        return Value::from(());
    }
    let cause = |c: &FailureCause| {
        let mut ids: Vec<String> = c
            .examples
            .iter()
            .map(|i| escape::markdown_code(i))
            .collect();
        if c.samples > c.examples.len() {
            ids.push("…".into());
        }
        format!(
            "{} {} ({}): {}",
            escape::markdown_code(c.kind.as_str()),
            escape_inline(&c.message),
            c.calls,
            ids.join(", ")
        )
    };
    let mut lines: Vec<String> = f.causes.iter().map(cause).collect();
    if f.other_calls > 0 {
        lines.push(format!("{} more with other causes", f.other_calls));
    }
    let calls = match f.calls {
        1 => "1 call failed".to_string(),
        n => format!("{n} calls failed"),
    };
    safe(match lines.as_slice() {
        [one] => format!("**{calls}** — {one}"),
        _ => format!(
            "**{calls}**:

- {}",
            lines.join(
                "
- "
            )
        ),
    })
}

/// What a rendering says beyond the verdict itself.
#[derive(Clone, Debug, Default)]
pub struct Render<'a> {
    /// The gate's name: one sticky comment per name.
    pub gate_name: &'a str,
    /// A directory whose templates replace the built-in ones.
    pub templates: Option<&'a Path>,
    /// Where the verdict was computed, when it is not the run that posts it (`publish`).
    pub origin: Option<String>,
    /// Warnings shown under the verdict line (a verdict file's claim overridden).
    pub warnings: Vec<String>,
    /// The files the run wrote (job summary).
    pub files: Vec<String>,
    /// The commands that give the verdict again, the first one first (the comment's
    /// footer; the job summary shows them as a shell block).
    pub reproduce: Vec<String>,
}

fn environment(templates: Option<&Path>) -> Result<Environment<'static>> {
    let mut env = Environment::new();
    // Everything printed is escaped unless it is goldgate's own Markdown (a safe string):
    // a template cannot forget to escape a field.
    env.set_formatter(|out, _state, value| {
        let text = match (value.is_safe(), value.as_str()) {
            (true, Some(markdown)) => std::borrow::Cow::Borrowed(markdown),
            _ if value.is_undefined() => std::borrow::Cow::Borrowed(""),
            _ => std::borrow::Cow::Owned(escape_inline(&value.to_string())),
        };
        std::fmt::Write::write_str(out, &text).map_err(minijinja::Error::from)
    });
    // `md`: escaped once (a safe value is left as it is); `code`: a code span.
    env.add_filter("md", |v: Value| match v.is_safe() {
        true => v,
        false => safe(escape_inline(&v.to_string())),
    });
    env.add_filter("code", |v: Value| {
        safe(escape::markdown_code(&v.to_string()))
    });
    super::add_template(&mut env, templates, "comment.md.j2", COMMENT_TEMPLATE)?;
    super::add_template(&mut env, templates, "summary.md.j2", SUMMARY_TEMPLATE)?;
    Ok(env)
}

/// Render the PR comment for a verdict (`gate_name` names the sticky comment).
pub fn comment(v: &Verdict, gate_name: &str, templates: Option<&Path>) -> Result<String> {
    let render = Render {
        gate_name,
        templates,
        ..Render::default()
    };
    comment_within(v, &render, Limit::Chars(GITHUB_LIMIT))
}

/// Render the PR comment within `limit`, showing less detail when everything does not fit
/// (see [`fit`]: the worst broken samples stay longest) and saying what was left out.
pub fn comment_within(v: &Verdict, render: &Render<'_>, limit: Limit) -> Result<String> {
    let env = environment(render.templates)?;
    let full_report = "the job summary and verdict.json";
    fit(v, limit, full_report, |shown| {
        render_as(&env, "comment.md.j2", v, render, shown, full_report)
    })
}

/// The job summary: the full report (every broken and fixed sample with its diff, the
/// groups, the files written, the command that reproduces the verdict) from
/// `summary.md.j2`, trimmed like the comment only if it exceeds GitHub's 1 MiB.
pub fn summary(v: &Verdict, render: &Render<'_>) -> Result<String> {
    let env = environment(render.templates)?;
    fit(v, Limit::Bytes(SUMMARY_LIMIT), "verdict.json", |shown| {
        render_as(&env, "summary.md.j2", v, render, shown, "verdict.json")
    })
}

/// Samples without an answer listed at most (the rest are in the full report).
const UNANSWERED_ROWS: usize = 20;

fn render_as(
    env: &Environment<'_>,
    template: &str,
    v: &Verdict,
    render: &Render<'_>,
    shown: Shown,
    full_report: &str,
) -> Result<String> {
    let gate_name = render.gate_name;
    let (word, icon) = match v.verdict {
        Outcome::Pass => ("pass", "✅"),
        Outcome::Warn => ("pass with warnings", "⚠️"),
        Outcome::Fail => ("fail", "❌"),
        Outcome::Incomplete => ("incomplete run", "⛔"),
    };
    let samples = v.samples.as_ref().map(|s| {
        let change = |c: &goldgate_core::gate::samples::Change| {
            context! { id => c.id.clone(), baseline => format!("{:.3}", c.baseline), candidate => format!("{:.3}", c.candidate) }
        };
        let unanswered = |u: &goldgate_core::gate::samples::Unanswered| {
            context! { id => u.id.clone(), baseline => format!("{:.3}", u.baseline), outcome => u.error.kind.outcome(), cause => u.error.message.clone() }
        };
        context! {
            sample_pass => s.sample_pass, shared => s.shared, fix => s.fix, broken_count => s.break_, keep => s.keep, still => s.still,
            still_failing => super::still_failing(s, " · "),
            net_gain => goldgate_core::number::delta(s.net_gain, None, 3),
            mcnemar_p => format!("{:.4}", s.mcnemar_p),
            broken => s.broken.iter().take(shown.broken).map(change).collect::<Vec<_>>(),
            fixed => if shown.fixed { s.fixed.iter().map(change).collect::<Vec<_>>() } else { Vec::new() },
            unanswered => s.unanswered.iter().take(UNANSWERED_ROWS).map(unanswered).collect::<Vec<_>>(),
            unanswered_count => s.unanswered.len(),
            unanswered_counts => super::unanswered_counts(s).iter().map(|(what, n)| format!("{n} {what}")).collect::<Vec<_>>().join(", "),
            unanswered_hidden => s.unanswered.len().saturating_sub(UNANSWERED_ROWS),
            flaky => super::flaky::flips(v).into_iter().take(super::flaky::SHOWN).map(|(id, what)| context! { id, what }).collect::<Vec<_>>(),
            flaky_count => s.flaky.len(),
            flaky_hidden => s.flaky.len().saturating_sub(super::flaky::SHOWN),
        }
    });
    let broken_total = v.samples.as_ref().map_or(0, |s| s.broken.len());
    let fixed_total = v.samples.as_ref().map_or(0, |s| s.fixed.len());
    let listed: std::collections::HashSet<&str> = v
        .samples
        .iter()
        .flat_map(|s| s.broken.iter().take(shown.broken).map(|c| c.id.as_str()))
        .collect();
    let diffs: Vec<Value> = v
        .diffs
        .iter()
        .filter(|d| listed.contains(d.id.as_str()))
        .take(shown.diffs)
        .map(|d| {
            context! {
                id => safe(escape::markdown_html(&d.id)),
                gold => safe(fenced(d.gold_vs_candidate.trim_end(), "diff")),
                schema => (!d.schema.is_empty()).then(|| safe(fenced(&d.schema.join("\n"), "text"))),
                answers => d.baseline_vs_candidate.as_deref().map(|a| safe(fenced(a.trim_end(), "diff"))),
            }
        })
        .collect();
    let diffs_hidden = diffs_within(v, shown.broken) - diffs.len();
    let groups: Vec<Value> = v.groups.iter().map(|g| context! { dimension => g.dimension.clone(), group => g.group.clone(), metric => g.metric.clone(), values => format!("{} → {}", num(g.baseline), num(g.candidate)), n => g.n }).collect();
    let mut notes = Vec::new();
    if !shown.groups && !groups.is_empty() {
        notes.push(format!("The breakdown by group was left out to stay under GitHub's size limit (it is in {full_report})."));
    }
    if !shown.fixed && fixed_total > 0 {
        notes.push(format!("The {fixed_total} fixed samples are not listed, to stay under GitHub's size limit (all are in {full_report})."));
    }
    // The gated metrics (a tuples suite's headline first); chain-of-thought diagnostics apart.
    let sections = super::layout::sections(v, |m| m.rule.is_some());
    let list = |title: &str, ids: &[String]| context! { title => title, ids => safe(ids.iter().map(|i| escape::markdown_code(i)).collect::<Vec<_>>().join(", ")) };
    let ctx = context! {
        marker => safe(marker(gate_name)),
        gate_name => gate_name,
        word => word,
        icon => icon,
        summary => v.summary.clone(),
        reason => v.reason().to_string(),
        metrics => rows(&sections.main),
        diagnostics => rows(&sections.diagnostics),
        coverage => sections.coverage_text(),
        runs => sections.main.iter().chain(&sections.diagnostics).any(|m| super::runs_text(m, 3).is_some()),
        failed_calls => failed_calls(&v.failures),
        keyless => super::keyless::markdown(&v.keyless).into_iter().map(safe).collect::<Vec<_>>(),
        judge => super::judge::markdown(&v.judge).into_iter().map(safe).collect::<Vec<_>>(),
        usage => crate::report::spend::verdict_line(v),
        sequential => crate::report::sequential::lines(v),
        drift => crate::report::drift::lines(v),
        trends => crate::report::drift::trend_lines(v),
        samples => samples,
        show_samples => shown.broken > 0 || shown.fixed,
        broken_hidden => broken_total - shown.broken.min(broken_total),
        diffs_hidden => diffs_hidden,
        full_report => full_report,
        groups => groups,
        show_groups => shown.groups,
        diffs => diffs,
        lists => vec![list("Missing from the run", &v.missing), list("Added since the baseline", &v.added), list("Removed since the baseline", &v.removed)],
        ratchet => v.ratchet.clone(),
        differences => v.provenance.differences.clone(),
        baseline_present => v.baseline_present,
        built_in_rules => v.built_in_rules().then(|| safe(goldgate_core::gate::rule::built_in_rules())),
        rules_docs => safe(goldgate_core::gate::rule::RULES_DOCS.to_string()),
        notes => notes,
        origin => render.origin.clone(),
        warnings => render.warnings.clone(),
        files => render.files.clone(),
        reproduce => (!render.reproduce.is_empty()).then(|| safe(fenced(&render.reproduce.join("\n# or\n"), "sh"))),
        reproduce_inline => match render.reproduce.split_first() {
            None => Value::from(()),
            Some((first, others)) => {
                let code = |c: &String| escape::markdown_code(c);
                let others: Vec<String> = others.iter().map(code).collect();
                safe(match others.is_empty() {
                    true => code(first),
                    false => format!("{} (or {})", code(first), others.join(", or ")),
                })
            }
        },
        version => env!("CARGO_PKG_VERSION"),
        metrics_version => goldgate_core::score::file::METRICS_VERSION,
    };
    env.get_template(template)
        .and_then(|t| t.render(ctx))
        .map(|s| s.trim_end().to_string() + "\n")
        .map_err(|e| {
            Error::usage(
                format!("cannot render the comment: {e}"),
                "check the template in --templates",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_is_harmless() {
        let hostile =
            "@octocat </details><script>alert(1)</script> ``` [x](javascript:alert(1)) | a";
        let safe = escape_inline(hostile);
        assert!(!safe.contains("@octocat"), "{safe}");
        assert!(!safe.contains('<') && !safe.contains('>'), "{safe}");
        assert!(
            !safe.contains("```") && !safe.contains("[x](") && !safe.contains(" | "),
            "{safe}"
        );
        assert!(
            safe.contains("\\[x\\](javascript"),
            "links are escaped, not dropped: {safe}"
        );
        let block = fenced("before\n```\nafter ````` end", "diff");
        assert!(
            block.starts_with("``````diff\n") && block.ends_with("\n``````"),
            "{block}"
        );
        assert_eq!(fenced("plain", ""), "```\nplain\n```");
    }

    fn verdict(base: &[usize], cand: &[usize]) -> Verdict {
        use goldgate_core::gate::compare::{compare, CompareOptions};
        use goldgate_core::testkit::test_kind_file as file;
        let run = |found: &[usize]| {
            file(
                &found
                    .iter()
                    .map(|&f| (f as f64, 0.0, (5 - f) as f64, false))
                    .collect::<Vec<_>>(),
                "1",
            )
        };
        let rules = goldgate_core::gate::thresholds::Thresholds::parse(
            &format!(
                "version = 1\n[metrics.\"{}\"]\nmin = 0.5\n",
                goldgate_core::testkit::metric("f1")
            ),
            Path::new("t.toml"),
        )
        .unwrap();
        let options = CompareOptions {
            bootstrap: goldgate_core::metrics::bootstrap::BootstrapConfig {
                resamples: 50,
                ..Default::default()
            },
            allow_version_change: false,
            ratchet: vec![],
            reference: None,
        };
        compare(&run(cand), Some(&run(base)), &rules, &options).unwrap()
    }

    #[test]
    fn a_huge_report_stays_under_the_limit_and_says_so() {
        let v = verdict(&vec![5; 3000], &vec![0; 3000]);
        let all = Shown {
            broken: 3000,
            diffs: 0,
            fixed: true,
            groups: true,
        };
        let full = render_as(
            &environment(None).unwrap(),
            "comment.md.j2",
            &v,
            &Render::default(),
            all,
            "verdict.json",
        )
        .unwrap();
        assert!(
            full.chars().count() > GITHUB_LIMIT,
            "the test needs a report over the limit"
        );
        let body = comment(&v, "goldgate", None).unwrap();
        assert!(body.chars().count() <= GITHUB_LIMIT);
        let shown = body.matches("| `s-").count();
        assert!(
            body.contains("**3000 broken**") && shown > 100,
            "the counts stay, and the worst samples"
        );
        assert!(
            body.contains(&format!("Broken samples (3000; the {shown} worst shown)"))
                && body.contains(&format!(
                    "…and {} more broken samples not shown",
                    3000 - shown
                )),
            "says how many were left out"
        );
        assert!(body.starts_with("<!-- goldgate:goldgate -->"));
        // The whole body is a snapshot, beside the other rendered artefacts'.
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../../tests/snapshots");
        settings.set_prepend_module_to_snapshot(false);
        settings.add_filter(&env!("CARGO_PKG_VERSION").replace('.', "\\."), "[VERSION]");
        settings.bind(|| insta::assert_snapshot!("comment_huge", body));
    }

    /// 25 broken samples with long diffs: the comment keeps every one of them (ids and
    /// scores, worst first), with the diffs of as many as fit, and says how many diffs it
    /// left out; the job summary has every sample with its diff. A summary over 1 MiB is
    /// trimmed the same way.
    #[test]
    fn a_trimmed_comment_keeps_the_worst_broken_samples_and_the_summary_keeps_all() {
        use goldgate_core::gate::diff::SampleDiff;
        let mut v = verdict(&[5; 25], &[0; 25]);
        let long = |i: usize, what: &str| {
            (0..80)
                .map(|l| format!("-{what} {i} line {l}: {}\n", "x".repeat(60)))
                .collect::<String>()
        };
        v.diffs = (0..25)
            .map(|i| SampleDiff {
                matching: Vec::new(),
                schema: Vec::new(),
                id: format!("s-{i}"),
                gold_vs_candidate: long(i, "gold"),
                baseline_vs_candidate: Some(long(i, "answer")),
            })
            .collect();
        let body = comment(&v, "goldgate", None).unwrap();
        assert!(body.chars().count() <= GITHUB_LIMIT);
        for i in 0..25 {
            assert!(
                body.contains(&format!("| `s-{i}` | 1.000 | 0.000 |")),
                "s-{i}"
            );
        }
        let diffs = body.matches(": what changed").count();
        assert!((1..25).contains(&diffs), "{diffs} diffs");
        assert!(
            body.contains(&format!(
                "The diffs of {} of these samples are not shown",
                25 - diffs
            )),
            "{body}"
        );
        let render = Render {
            gate_name: "goldgate",
            files: vec!["verdict-file: out/verdict.json".into()],
            reproduce: vec!["goldgate compare --score out/score.json".into()],
            ..Render::default()
        };
        let full = summary(&v, &render).unwrap();
        assert!(full.len() <= SUMMARY_LIMIT && !full.contains("not shown"));
        for i in 0..25 {
            assert!(
                full.contains(&format!("<code>s-{i}</code>: what changed")),
                "s-{i}"
            );
        }
        assert!(full.contains("- verdict-file: out/verdict.json"));
        assert!(full.contains("```sh\ngoldgate compare --score out/score.json\n```"));
        // Past 1 MiB, the summary keeps every sample and as many diffs as fit.
        let mut big = verdict(&[5; 200], &[0; 200]);
        big.diffs = (0..200)
            .map(|i| SampleDiff {
                matching: Vec::new(),
                schema: Vec::new(),
                id: format!("s-{i}"),
                gold_vs_candidate: long(i, "gold").repeat(2),
                baseline_vs_candidate: Some(long(i, "answer").repeat(2)),
            })
            .collect();
        let full = summary(&big, &render).unwrap();
        assert!(full.len() <= SUMMARY_LIMIT);
        assert_eq!(full.matches("| `s-").count(), 200);
        assert!(
            full.contains("of these samples are not shown")
                && full.contains("(all are in verdict.json)")
        );
    }

    #[test]
    fn hostile_text_in_every_slot_renders_harmless() {
        let hostile = "@octocat </details><script>alert(1)</script> ```";
        let mut v = verdict(&[5, 5, 5], &[0, 5, 5]);
        v.samples.as_mut().unwrap().broken[0].id = hostile.into();
        v.provenance
            .differences
            .push(format!("model: a → {hostile}"));
        v.ratchet.push(hostile.into());
        v.missing.push(hostile.into());
        let body = comment(&v, hostile, None).unwrap();
        assert!(!body.contains("@octocat"), "no mention");
        assert!(
            !body.contains("<script>") && !body.contains("</details><"),
            "no HTML from the text"
        );
        assert_eq!(
            body.matches("<details>").count(),
            body.matches("</details>").count(),
            "details stay balanced"
        );
        assert!(!body.contains(" ```"), "no fence opened by the text");
    }

    #[test]
    fn the_marker_names_the_gate() {
        assert_eq!(marker("goldgate"), "<!-- goldgate:goldgate -->");
        let hostile = marker("x--><script>");
        assert_eq!(hostile.matches("-->").count(), 1, "{hostile}");
        let name = hostile
            .strip_prefix("<!-- goldgate:")
            .and_then(|rest| rest.strip_suffix(" -->"))
            .unwrap_or_else(|| panic!("the marker keeps its shape: {hostile}"));
        assert!(
            !name.contains(['<', '>']) && !name.contains("--"),
            "the gate name cannot close the comment or open a tag: {hostile}"
        );
    }
}
