//! `goldgate check`: the gate (run, score, compare, write), then the verdict on stdout and,
//! inside GitHub Actions, the summary, outputs, annotations and PR comment.

use super::{report_run, ShowProgress, SummaryTo};
use crate::cli::GateFormat;
use crate::error::{Exit, Result};
use crate::output::Reporter;
use crate::settings::CheckCommand;

pub fn check(s: CheckCommand, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let runtime = crate::runtime::build()?;
    let checked = crate::check::check(&s.check, &runtime, &mut ShowProgress::new(reporter))?;
    let summary_to = match s.gate.format {
        GateFormat::Brief => SummaryTo::Nowhere,
        _ => SummaryTo::Stderr,
    };
    let exit = report_run(&checked.run, Some(&checked.run.path), summary_to, reporter);
    let Some(gated) = checked.gated else {
        return Ok(exit);
    };
    if s.gate.format != GateFormat::Brief {
        // (The run file was named with the run's summary.)
        let w = &gated.written;
        reporter.note(&super::wrote(&[&w.score, &w.verdict, &w.report]));
    }
    if let Some(stats) = gated
        .embedded
        .filter(|_| s.gate.format != GateFormat::Brief)
    {
        reporter.note(&crate::report::terminal::embedded_note(&stats));
    }
    if gated.baseline.is_none() && s.gate.format != GateFormat::Brief {
        // (The brief verdict line says "no baseline yet" itself.)
        reporter.note(&format!(
            "note: no baseline at {}: only absolute rules apply. Create one from a trusted run with `goldgate baseline refresh --suite {}` and commit it.\n",
            s.check.baseline.display(),
            s.check.run.suite.display()
        ));
    }
    let paths = gated.written.named();
    super::publish::to_actions(
        &gated.verdict,
        &s.gate,
        &paths,
        &gated.markdown,
        Some(&runtime),
        reporter,
    )?;
    super::compare::show_verdict(
        &gated.verdict,
        &gated.score,
        &s.gate,
        &gated.markdown,
        Some(&gated.written.run),
        reporter,
    )
}
