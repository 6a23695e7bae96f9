//! `goldgate publish`: post a saved verdict, judged again under the trusted rules (the
//! `workflow_run` half for fork PRs), and print that verdict as `--format` asks.

use crate::cli::PublishFormat;
use crate::output::Reporter;
use crate::publish::saved::{self, Saved};
use crate::report::{junit, terminal};
use crate::settings::PublishSettings;
use goldgate_core::error::{Exit, Result};
use goldgate_core::gate::rederive::{rederive, RederiveOptions};
use goldgate_core::gate::untrusted;

/// Read the verdict file (refusing an invalid one), judge its values again under the
/// trusted rules and baseline, and post that verdict; the exit code is the re-derived
/// verdict's.
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
            reference: s.gate.compare.reference.as_deref(),
        },
    )?;
    let warning = saved::overridden(&derived);
    if let Some(w) = &warning {
        reporter.command(&goldgate_core::escape::workflow_command(
            "warning",
            "goldgate: verdict overridden",
            w,
        ));
        reporter.note(&format!("warning: {w}\n"));
    }
    let verdict = &derived.verdict;
    let from = Saved {
        file: &s.verdict,
        baseline: s.baseline.as_deref(),
        thresholds: s.gate.thresholds_path.as_deref(),
        git_sha: s.git_sha.as_deref(),
    };
    let render = super::render(&s.gate);
    let posted = saved::post(verdict, &from, render, warning, &s.gate.publish)?;
    super::show(&posted.events, reporter);
    reporter.note(&format!(
        "goldgate publish: {} — {} (computed from {} under the trusted rules)\n",
        saved::word(verdict.verdict),
        verdict.reason(),
        s.verdict.display()
    ));
    let text = match s.format {
        PublishFormat::Text => terminal::verdict(verdict),
        PublishFormat::Json => goldgate_core::gate::verdict::to_json(verdict)?,
        PublishFormat::Markdown => posted.comment,
        PublishFormat::Junit => junit::junit(verdict),
        PublishFormat::Brief => terminal::brief(verdict),
    };
    // The verdict file is untrusted: a token an answer echoed into it never reaches the log.
    reporter.out(&s.gate.publish.secrets.redact(&text));
    Ok(Exit::from(verdict.verdict))
}
