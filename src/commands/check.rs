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
    let summary_to = match s.format {
        GateFormat::Brief => SummaryTo::Nowhere,
        _ => SummaryTo::Stderr,
    };
    let exit = report_run(&checked.run, summary_to, reporter);
    let Some(gated) = checked.gated else {
        return Ok(exit);
    };
    if let Some(stats) = gated.embedded.filter(|_| s.format != GateFormat::Brief) {
        reporter.note(&crate::report::terminal::embedded_note(&stats));
    }
    if gated.baseline.is_none() && s.format != GateFormat::Brief {
        // (The brief verdict line says "no baseline yet" itself.)
        reporter.note(&format!(
            "note: no baseline at {}: only absolute rules apply. Create one from a trusted run with `goldgate baseline refresh --suite {}` and commit it.\n",
            s.check.baseline.display(),
            s.check.run.suite.display()
        ));
    }
    let paths = gated.written.named();
    let reproduce =
        super::publish::reproduce_compare(&gated.written.score, gated.baseline.as_deref(), &s.gate);
    super::publish::to_actions(
        &gated.verdict,
        &s.gate,
        &paths,
        &gated.markdown,
        reproduce,
        Some(&runtime),
        reporter,
    )?;
    let show = super::compare::Show {
        format: s.format,
        comment: &gated.markdown,
        run: Some(&gated.written.run),
    };
    super::compare::show_verdict(&gated.verdict, &gated.score, &s.gate, show, reporter)
}
