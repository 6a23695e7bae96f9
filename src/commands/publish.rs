//! `goldgate publish` (post a saved verdict: the `workflow_run` half for fork PRs), and
//! the GitHub side of `check` and `compare`: shown through the reporter.

use std::path::PathBuf;

use crate::error::{Exit, Result};
use crate::gate::verdict::Verdict;
use crate::output::Reporter;
use crate::publish::{self, Event};
use crate::settings::{GateSettings, PublishSettings};

/// The PR comment for `verdict`.
pub(super) fn comment(verdict: &Verdict, gate: &GateSettings) -> Result<String> {
    crate::report::markdown::comment(
        verdict,
        &gate.report.gate_name,
        gate.report.templates.as_deref(),
    )
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
            built = crate::runtime::build()?;
            &built
        }
    };
    let events = publish::to_actions(verdict, markdown, paths, &gate.publish, runtime)?;
    show(&events, reporter);
    Ok(())
}

fn show(events: &[Event], reporter: &mut Reporter<'_>) {
    for event in events {
        reporter.command(&event.commands());
        reporter.note(&event.note());
    }
}

pub fn publish(s: PublishSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let verdict = crate::gate::verdict::read(&s.verdict)?;
    let markdown = comment(&verdict, &s.gate)?;
    let mut events: Vec<Event> = publish::write_summary(&markdown).into_iter().collect();
    let runtime = crate::runtime::build()?;
    events.extend(publish::post_comment(
        &verdict,
        &markdown,
        &s.gate.publish,
        &runtime,
    )?);
    show(&events, reporter);
    Ok(Exit::Ok)
}
