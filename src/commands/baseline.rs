//! `goldgate baseline refresh | show`.

use std::path::Path;

use super::{report_run, ShowProgress, SummaryTo};
use crate::baseline::{refresh as refresh_baseline, RefreshSettings, Refreshed};
use crate::error::{Exit, Result};
use crate::output::Reporter;
use crate::report::terminal;

pub fn refresh(s: RefreshSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let runtime = crate::runtime::build()?;
    let (run, refreshed) = refresh_baseline(&s, &runtime, &mut ShowProgress::new(reporter))?;
    let exit = report_run(&run, SummaryTo::Stderr, reporter);
    let work = s.run.output.parent().map(Path::to_path_buf);
    let remove_work = || {
        if let Some(dir) = &work {
            let _ = std::fs::remove_dir_all(dir);
        }
    };
    match refreshed {
        Refreshed::RunIncomplete => {
            reporter.note("the baseline was not changed: the run did not complete\n");
            Ok(exit)
        }
        Refreshed::Missing { missing } => {
            remove_work();
            reporter.note(&terminal::missing_note(&missing, &run.path, &s.run.suite));
            Ok(Exit::Incomplete)
        }
        Refreshed::Written { score } => {
            remove_work();
            reporter.out(&format!(
                "baseline written to {} ({} samples, {} records)\n",
                s.baseline.display(),
                score.samples.len(),
                score.provenance.records
            ));
            Ok(Exit::Ok)
        }
    }
}

pub fn show(path: &Path, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let file = crate::score::file::read(path)?;
    reporter.out(&terminal::baseline(&file, path));
    Ok(Exit::Ok)
}
