//! The PR comment (Markdown), rendered with minijinja from `templates/comment.md.j2` (built
//! in; a `--templates DIR` may override it). Every value a template prints is escaped
//! ([`crate::escape::markdown_inline`]) unless goldgate built it as Markdown itself (a
//! fence, a code span, a status): a verdict can come from a fork, so a metric name, group,
//! sample id or message cannot mention anyone, inject HTML, start a line, or break out of a
//! table, a code span or a fence, even in a custom template. The body stays under GitHub's
//! 65,536-character limit: detail sections are dropped first, then the body is cut, and it
//! says so.

use std::path::Path;

use minijinja::{context, Environment, Value};

use crate::error::{Error, Result};
use crate::escape;
use crate::gate::verdict::{Outcome, Status, Verdict};
use crate::runfile::failures::{FailedCalls, FailureCause};

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
    crate::number::optional(v, 3)
}

/// The gated metrics: names and reasons as text (escaped when printed), the numbers, the
/// rule and the status as goldgate's own Markdown.
fn rows(v: &Verdict) -> Vec<Value> {
    v.metrics
        .iter()
        .filter(|m| m.rule.is_some())
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
                values => safe(format!("{} → {}", num(m.baseline), num(m.candidate))),
                delta => safe(crate::number::delta(m.delta, m.delta_ci, 3)),
                rule => safe(m.rule.as_ref().map_or_else(String::new, |r| escape_inline(&r.describe()))),
                status => safe(status.to_string()),
                reasons => m.reasons.join("; "),
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
        _ => format!("**{calls}**:\n\n- {}", lines.join("\n- ")),
    })
}

/// How much detail a rendering keeps.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Detail {
    Full,
    NoSamples,
    NoGroups,
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
    let env = environment(templates)?;
    let mut notes = Vec::new();
    for detail in [Detail::Full, Detail::NoSamples, Detail::NoGroups] {
        let body = render(&env, v, gate_name, detail, &notes)?;
        if body.chars().count() <= GITHUB_LIMIT {
            return Ok(body);
        }
        notes = vec!["Some detail sections were left out to stay under GitHub's comment size limit; the full report is in verdict.json.".to_string()];
    }
    let body = render(&env, v, gate_name, Detail::NoGroups, &notes)?;
    let note = "\n\n_…cut here: the report is longer than GitHub allows; see verdict.json._\n";
    let keep = GITHUB_LIMIT - note.chars().count();
    Ok(body.chars().take(keep).collect::<String>() + note)
}

fn render(
    env: &Environment<'_>,
    v: &Verdict,
    gate_name: &str,
    detail: Detail,
    notes: &[String],
) -> Result<String> {
    render_as(env, "comment.md.j2", v, gate_name, detail, notes, &[])
}

/// The job summary: the comment (all detail kept: the summary's limit is 1 MiB) and the
/// files the run wrote.
pub fn summary(
    v: &Verdict,
    gate_name: &str,
    templates: Option<&Path>,
    files: &[String],
) -> Result<String> {
    let env = environment(templates)?;
    render_as(
        &env,
        "summary.md.j2",
        v,
        gate_name,
        Detail::Full,
        &[],
        files,
    )
}

#[allow(clippy::too_many_arguments)]
fn render_as(
    env: &Environment<'_>,
    template: &str,
    v: &Verdict,
    gate_name: &str,
    detail: Detail,
    notes: &[String],
    files: &[String],
) -> Result<String> {
    let (word, icon) = match v.verdict {
        Outcome::Pass => ("pass", "✅"),
        Outcome::Warn => ("pass with warnings", "⚠️"),
        Outcome::Fail => ("fail", "❌"),
        Outcome::Incomplete => ("incomplete run", "⛔"),
    };
    let samples = v.samples.as_ref().map(|s| {
        let change = |c: &crate::gate::samples::Change| {
            let why = c.failure.map_or_else(String::new, |k| format!(" ({})", k.outcome()));
            context! { id => c.id.clone(), baseline => format!("{:.3}", c.baseline), candidate => format!("{:.3}{why}", c.candidate) }
        };
        context! {
            sample_pass => s.sample_pass, shared => s.shared, fix => s.fix, broken_count => s.break_, keep => s.keep, still => s.still,
            still_failing => super::still_failing(s, " · "),
            net_gain => crate::number::delta(s.net_gain, None, 3),
            mcnemar_p => format!("{:.4}", s.mcnemar_p),
            broken => s.broken.iter().map(change).collect::<Vec<_>>(),
            fixed => s.fixed.iter().map(change).collect::<Vec<_>>(),
        }
    });
    let groups: Vec<Value> = v.groups.iter().map(|g| context! { dimension => g.dimension.clone(), group => g.group.clone(), metric => g.metric.clone(), values => format!("{} → {}", num(g.baseline), num(g.candidate)), n => g.n }).collect();
    let list = |title: &str, ids: &[String]| context! { title => title, ids => safe(ids.iter().map(|i| escape::markdown_code(i)).collect::<Vec<_>>().join(", ")) };
    let ctx = context! {
        marker => safe(marker(gate_name)),
        gate_name => gate_name,
        word => word,
        icon => icon,
        summary => v.summary.clone(),
        metrics => rows(v),
        failed_calls => failed_calls(&v.failures),
        samples => samples,
        show_samples => detail < Detail::NoSamples,
        groups => groups,
        show_groups => detail < Detail::NoGroups,
        diffs => if detail < Detail::NoSamples { v.diffs.iter().map(|d| context! {
            id => safe(escape::markdown_html(&d.id)),
            gold => safe(fenced(d.gold_vs_candidate.trim_end(), "diff")),
            answers => d.baseline_vs_candidate.as_deref().map(|a| safe(fenced(a.trim_end(), "diff"))),
        }).collect::<Vec<_>>() } else { Vec::new() },
        lists => vec![list("Missing from the run", &v.missing), list("Added since the baseline", &v.added), list("Removed since the baseline", &v.removed)],
        ratchet => v.ratchet.clone(),
        differences => v.provenance.differences.clone(),
        baseline_present => v.baseline_present,
        notes => notes,
        files => files,
        version => env!("CARGO_PKG_VERSION"),
        metrics_version => crate::score::file::METRICS_VERSION,
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
        use crate::gate::compare::{compare, tests::file, CompareOptions};
        let run = |found: &[usize]| {
            file(
                &found
                    .iter()
                    .map(|&f| (f as f64, 0.0, (5 - f) as f64, false))
                    .collect::<Vec<_>>(),
                "1",
            )
        };
        let rules = crate::gate::thresholds::Thresholds::parse(
            "version = 1\n[metrics.\"extraction.f1\"]\nmin = 0.5\n",
            Path::new("t.toml"),
        )
        .unwrap();
        let options = CompareOptions {
            bootstrap: crate::metrics::bootstrap::BootstrapConfig {
                resamples: 50,
                ..Default::default()
            },
            allow_version_change: false,
            ratchet: vec![],
        };
        compare(&run(cand), Some(&run(base)), &rules, &options).unwrap()
    }

    #[test]
    fn a_huge_report_stays_under_the_limit_and_says_so() {
        let v = verdict(&vec![5; 3000], &vec![0; 3000]);
        let full = render(
            &environment(None).unwrap(),
            &v,
            "goldgate",
            Detail::Full,
            &[],
        )
        .unwrap();
        assert!(
            full.chars().count() > GITHUB_LIMIT,
            "the test needs a report over the limit"
        );
        let body = comment(&v, "goldgate", None).unwrap();
        assert!(body.chars().count() <= GITHUB_LIMIT);
        assert!(
            body.contains("left out to stay under GitHub's comment size limit"),
            "says so"
        );
        assert!(
            body.contains("**3000 broken**") && !body.contains("Broken samples ("),
            "the counts stay, the list goes"
        );
        assert!(body.starts_with("<!-- goldgate:goldgate -->"));
        // The whole body is a snapshot, beside the other rendered artefacts'.
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../../tests/snapshots");
        settings.set_prepend_module_to_snapshot(false);
        settings.add_filter(&env!("CARGO_PKG_VERSION").replace('.', "\\."), "[VERSION]");
        settings.bind(|| insta::assert_snapshot!("comment_huge", body));
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
