//! `goldgate publish` (post a saved verdict, judged again under the trusted rules: the
//! `workflow_run` half for fork PRs, and print that verdict as `--format` asks), and the
//! GitHub side of `check` and `compare`: shown through the reporter.

use std::path::PathBuf;

use crate::cli::PublishFormat;
use crate::output::Reporter;
use crate::publish::{self, Event, Report};
use crate::report::markdown::{self, Limit, Render};
use crate::report::{junit, terminal};
use crate::settings::{GateSettings, PublishSettings};
use goldgate_core::error::{Exit, Result};
use goldgate_core::gate::rederive::{rederive, RederiveOptions, Rederived};
use goldgate_core::gate::untrusted;
use goldgate_core::gate::verdict::{Outcome, Status, Verdict};
use goldgate_core::text::shell_quote;

/// How `gate` renders the comment and the job summary (with the commands that give the
/// verdict again).
fn render(gate: &GateSettings) -> Render<'_> {
    Render {
        gate_name: &gate.report.gate_name,
        templates: gate.report.templates.as_deref(),
        reproduce: gate.report.reproduce.clone(),
        ..Render::default()
    }
}

/// The PR comment for `verdict`.
pub(super) fn comment(verdict: &Verdict, gate: &GateSettings) -> Result<String> {
    markdown::comment_within(verdict, &render(gate), Limit::Chars(markdown::GITHUB_LIMIT))
}

/// Inside GitHub Actions: summary, outputs, annotations and the PR comment, on the
/// command's runtime (one is built when the command has none and publishing needs it).
pub(super) fn to_actions(
    verdict: &Verdict,
    gate: &GateSettings,
    paths: &[(&str, PathBuf)],
    markdown: &str,
    runtime: Option<&tokio::runtime::Runtime>,
    reporter: &mut Reporter<'_>,
) -> Result<()> {
    if !publish::actions::in_actions() {
        return Ok(());
    }
    let built;
    let runtime = match runtime {
        Some(r) => r,
        None => {
            built = goldgate_client::runtime::build()?;
            &built
        }
    };
    let render = Render {
        files: paths
            .iter()
            .map(|(name, path)| format!("{name}: {}", path.display()))
            .collect(),
        ..render(gate)
    };
    let summary = markdown::summary(verdict, &render)?;
    let shorten = || shorter(verdict, &render, markdown);
    let report = Report {
        comment: markdown,
        shorter: &shorten,
        summary: &summary,
    };
    let events = publish::to_actions(verdict, report, paths, &gate.publish, runtime)?;
    show(&events, reporter);
    Ok(())
}

/// The comment rendered within the bytes a check run takes (GitHub counts some characters
/// of a comment as more than one; no count exceeds the bytes).
fn shorter(verdict: &Verdict, render: &Render<'_>, comment: &str) -> String {
    let limit = publish::limits::CHECK_RUN_SUMMARY_BYTES;
    markdown::comment_within(verdict, render, Limit::Bytes(limit))
        .unwrap_or_else(|_| publish::limits::cut_bytes(comment, limit).to_string())
}

fn show(events: &[Event], reporter: &mut Reporter<'_>) {
    for event in events {
        reporter.command(&event.commands());
        reporter.note(&event.note());
    }
}

/// Where a published verdict was computed, for the comment.
fn origin(s: &PublishSettings) -> String {
    let rules = match &s.gate.thresholds_path {
        Some(path) => path.display().to_string(),
        None => "the built-in rules (no thresholds.toml)".into(),
    };
    let at = match &s.git_sha {
        Some(sha) => format!(" at {}", sha.chars().take(12).collect::<String>()),
        None => String::new(),
    };
    let against = match &s.baseline {
        Some(b) => format!("against the baseline {}", b.display()),
        None => "against the baseline values in the file (no trusted baseline)".into(),
    };
    format!(
        "Verdict computed by goldgate publish from {} under {rules}{at}, {against}; the file's own verdict and statuses were not used.",
        s.verdict.display()
    )
}

fn word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "pass",
        Outcome::Warn => "pass with warnings",
        Outcome::Fail => "fail",
        Outcome::Incomplete => "incomplete",
    }
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Pass => "pass",
        Status::Warn => "warn",
        Status::Fail => "fail",
        Status::Incomplete => "incomplete",
        Status::Info => "not gated",
    }
}

/// What to say when the file claimed another verdict than its values give.
fn overridden(derived: &Rederived) -> Option<String> {
    if !derived.verdict_overridden() {
        return None;
    }
    let metrics: Vec<String> = derived
        .overridden
        .iter()
        .map(|(name, claimed, is)| {
            format!(
                "{name} (claimed {}, is {})",
                status_word(*claimed),
                status_word(*is)
            )
        })
        .collect();
    let which = match metrics.is_empty() {
        true => String::new(),
        false => format!(" Statuses overridden: {}.", metrics.join(", ")),
    };
    Some(format!(
        "The verdict file claimed {}; its values under the trusted rules give {}, which is what is published.{which}",
        word(derived.claimed),
        word(derived.verdict.verdict)
    ))
}

/// `goldgate publish`: read the verdict file (refusing an invalid one), judge its values
/// again under the trusted rules and baseline, and post that verdict; the exit code is the
/// re-derived verdict's.
pub fn publish(s: PublishSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let file = untrusted::read(&s.verdict)?;
    if s.gate.thresholds_path.is_none() {
        reporter.note("note: no thresholds.toml here: the verdict is judged under the built-in rules; pass --config (or --thresholds) from the trusted checkout\n");
    }
    let baseline = s
        .baseline
        .as_deref()
        .map(goldgate_core::score::file::read)
        .transpose()?;
    let derived = rederive(
        &file,
        baseline.as_ref(),
        &s.gate.thresholds,
        RederiveOptions {
            ratchet: &s.gate.compare.ratchet,
            allow_version_change: s.gate.compare.allow_version_change,
        },
    )?;
    let warning = overridden(&derived);
    if let Some(w) = &warning {
        reporter.command(&goldgate_core::escape::workflow_command(
            "warning",
            "goldgate: verdict overridden",
            w,
        ));
        reporter.note(&format!("warning: {w}\n"));
    }
    let verdict = &derived.verdict;
    let mut words = vec![
        "goldgate publish --verdict".to_string(),
        shell_quote(&s.verdict.display().to_string()),
    ];
    if let Some(b) = &s.baseline {
        words.extend(["--baseline".into(), shell_quote(&b.display().to_string())]);
    }
    if let Some(t) = &s.gate.thresholds_path {
        words.extend(["--thresholds".into(), shell_quote(&t.display().to_string())]);
    }
    words.push("--comment-on never".into());
    let mut render = Render {
        gate_name: &s.gate.report.gate_name,
        templates: s.gate.report.templates.as_deref(),
        origin: Some(origin(&s)),
        warnings: warning.into_iter().collect(),
        reproduce: vec![words.join(" ")],
        ..Render::default()
    };
    let markdown =
        markdown::comment_within(verdict, &render, Limit::Chars(markdown::GITHUB_LIMIT))?;
    render.files = vec![format!("verdict file: {}", s.verdict.display())];
    let summary = markdown::summary(verdict, &render)?;
    let mut events: Vec<Event> = publish::write_summary(&summary, &s.gate.publish.secrets)
        .into_iter()
        .collect();
    let runtime = goldgate_client::runtime::build()?;
    let shorten = || shorter(verdict, &render, &markdown);
    let report = Report {
        comment: &markdown,
        shorter: &shorten,
        summary: &summary,
    };
    events.extend(publish::post_comment(
        verdict,
        report,
        &s.gate.publish,
        &runtime,
    )?);
    show(&events, reporter);
    reporter.note(&format!(
        "goldgate publish: {} — {} (computed from {} under the trusted rules)\n",
        word(verdict.verdict),
        verdict.reason(),
        s.verdict.display()
    ));
    let text = match s.format {
        PublishFormat::Text => terminal::verdict(verdict),
        PublishFormat::Json => goldgate_core::gate::verdict::to_json(verdict)?,
        PublishFormat::Markdown => markdown,
        PublishFormat::Junit => junit::junit(verdict),
        PublishFormat::Brief => terminal::brief(verdict),
    };
    // The verdict file is untrusted: a token an answer echoed into it never reaches the log.
    reporter.out(&s.gate.publish.secrets.redact(&text));
    Ok(Exit::from(verdict.verdict))
}
