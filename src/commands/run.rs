//! `goldgate run` (the suite through the pipeline into a run file) and `goldgate merge`
//! (shard run files into one).

use super::{report_run, ShowProgress, SummaryTo};
use crate::error::{Exit, Result};
use crate::io::write_atomic;
use crate::output::Reporter;
use crate::run::plan::{run_suite, RunSettings};
use crate::settings::MergeSettings;

pub fn run(s: RunSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let runtime = crate::runtime::build()?;
    let report = run_suite(&s, &runtime, &mut ShowProgress::new(reporter))?;
    Ok(report_run(&report, SummaryTo::Stdout, reporter))
}

pub fn merge(s: MergeSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let merged = crate::runfile::merge::merge(&s.inputs)?;
    write_atomic(&s.output, |out| {
        for line in &merged.lines {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })?;
    reporter.out(&format!(
        "merged {} records from {} files into {}\n",
        merged.lines.len(),
        s.inputs.len(),
        s.output.display()
    ));
    Ok(Exit::Ok)
}
