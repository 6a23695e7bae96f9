//! `goldgate check`: the gate (run, score, compare, write), then the verdict on stdout and,
//! inside GitHub Actions, the summary, outputs, annotations and PR comment; or, with
//! `--print-fingerprint`, only what the run would key its cached answers on.

use super::{report_run, ShowProgress, SummaryTo};
use crate::cli::GateFormat;
use crate::output::Reporter;
use crate::settings::CheckCommand;
use goldgate_core::error::{Exit, Result};

pub fn check(s: CheckCommand, reporter: &mut Reporter<'_>) -> Result<Exit> {
    if s.print_fingerprint {
        return print_fingerprint(&s, reporter);
    }
    if s.plan {
        let c = &s.check;
        let baseline = crate::check::read_baseline(&c.baseline, &c.missing_baseline)?;
        let plan = crate::check::plan::plan(c, baseline.as_ref(), true)?;
        match s.format {
            GateFormat::Json => reporter.out(&super::json(&plan)?),
            _ => reporter.out(&super::plan::text(&plan, s.check.sequential.is_some())),
        }
        return Ok(Exit::Ok);
    }
    let runtime = goldgate_client::runtime::build()?;
    let checked = crate::check::check(&s.check, &runtime, &mut ShowProgress::new(reporter))?;
    let summary_to = match s.format {
        GateFormat::Brief => SummaryTo::Nowhere,
        _ => SummaryTo::Stderr,
    };
    let sequential = s.check.sequential.is_some();
    let exit = report_run(
        &checked.run,
        Some(&checked.run.path),
        summary_to,
        sequential,
        reporter,
    );
    let Some(gated) = checked.gated else {
        if let Some(report) = &checked.undecided {
            reporter.note(&crate::report::sequential::undecided(report));
        }
        return Ok(exit);
    };
    if s.format != GateFormat::Brief {
        // (The run file was named with the run's summary.)
        let w = &gated.written;
        reporter.note(&super::wrote(&[&w.score, &w.verdict, &w.report]));
    }
    reporter.note(&super::unreadable_note(&gated.unreadable));
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
    let events = crate::publish::verdict::to_actions(
        &gated.verdict,
        &super::render(&s.gate),
        &paths,
        &gated.markdown,
        &s.gate.publish,
        Some(&runtime),
    )?;
    super::show(&events, reporter);
    let show = super::compare::Show {
        format: s.format,
        comment: &gated.markdown,
        run: Some(&gated.written.run),
    };
    super::compare::show_verdict(&gated.verdict, &gated.score, &s.gate, show, reporter)
}

/// `check --print-fingerprint`: what the run would key its cached answers on and where they
/// go, computed as the run computes it, one `name=value` line each (the environment
/// variables by name only); nothing runs.
fn print_fingerprint(s: &CheckCommand, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let plan = goldgate_run::plan::cache_plan(&s.check.run)?;
    if let Some(why) = &plan.cache_off {
        reporter.note(&format!("note: the answer cache is off: {why}\n"));
    }
    // The name the run file's provenance gives it.
    let cache = serde_json::to_value(plan.cache).map_err(|e| {
        goldgate_core::error::Error::internal(format!("cannot name the cache use: {e}"))
    })?;
    let cache = cache.as_str().unwrap_or_default();
    reporter.out(&format!(
        "pipeline_fingerprint={}\ncache={cache}\ncache_dir={}\ngate_name={}\nfingerprint_env={}\n",
        plan.fingerprint.value,
        goldgate_core::escape::one_line(&s.check.run.cache_dir.display().to_string()),
        goldgate_core::escape::one_line(&s.gate.report.gate_name),
        goldgate_core::escape::one_line(&plan.fingerprint.parts.env.join(",")),
    ));
    Ok(Exit::Ok)
}
