//! `goldgate run` (the suite through the pipeline into a run file; exit 3 when more calls
//! failed than `run.error_rate`'s rule allows, the rule `check` applies) and `goldgate
//! merge` (shard run files into one).

use super::{report_run, ShowProgress, SummaryTo};
use crate::output::Reporter;
use crate::settings::{MergeSettings, RunCommand};
use goldgate_core::error::{Exit, Result};
use goldgate_core::gate::rule::rule_for;
use goldgate_core::io::write_output;
use goldgate_core::number::value;
use goldgate_run::plan::{run_suite, RunReport};

pub fn run(s: RunCommand, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let runtime = goldgate_client::runtime::build()?;
    let report = run_suite(&s.run, &runtime, &mut ShowProgress::new(reporter))?;
    let exit = report_run(
        &report,
        Some(&report.path),
        SummaryTo::Stdout,
        false,
        reporter,
    );
    if exit != Exit::Ok {
        return Ok(exit);
    }
    match too_many_errors(&report, &s) {
        Some(why) => {
            reporter.note(&why);
            Ok(Exit::Incomplete)
        }
        None => Ok(Exit::Ok),
    }
}

/// Why a complete run is still incomplete: its share of failed calls breaks the rule for
/// `run.error_rate` (from the rules file, or the built-in one), judged as `check` judges it.
fn too_many_errors(report: &RunReport, s: &RunCommand) -> Option<String> {
    let metric = goldgate_core::kinds::metrics()
        .iter()
        .find(|m| m.name == "run.error_rate")?;
    let (rule, _, _) = rule_for(metric, &s.thresholds)?;
    let rate = report.error_rate();
    let broken = match (rule.min, rule.max) {
        (_, Some(max)) if rate > max => format!("above the ceiling {}", value(max, 4)),
        (Some(min), _) if rate < min => format!("below the floor {}", value(min, 4)),
        _ => return None,
    };
    let rules = match &s.thresholds_file {
        Some(path) => format!("the rule in {}", path.display()),
        None => "the built-in rule: no thresholds file".to_string(),
    };
    let first = report
        .summary
        .first_error
        .as_deref()
        .map(|e| format!("\n  first failure: {e}"))
        .unwrap_or_default();
    Some(format!(
        "error: incomplete run: {} of {} calls failed: run.error_rate {} is {broken} ({rules}){first}\n  hint: fix what made the calls fail and run again; the records are in {}\n",
        report.errors,
        report.total,
        value(rate, 4),
        report.path.display(),
    ))
}

pub fn merge(s: MergeSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let merged = goldgate_core::runfile::merge::merge(&s.inputs)?;
    write_output(&s.output, |out| {
        for line in &merged.lines {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })?;
    reporter.out(&format!(
        "merged {} from {} into {}\n",
        goldgate_core::text::plural(merged.lines.len(), "record"),
        goldgate_core::text::plural(s.inputs.len(), "file"),
        s.output.display()
    ));
    Ok(Exit::Ok)
}
