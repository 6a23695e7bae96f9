//! `goldgate baseline refresh | show`.

use std::path::Path;

use super::{report_run, ShowProgress, SummaryTo};
use crate::baseline::{refresh as refresh_baseline, RefreshSettings, Refreshed};
use crate::cli::BaselineFormat;
use crate::error::{Exit, Result};
use crate::output::Reporter;
use crate::report::terminal;
use crate::settings::ShowSettings;

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
        Refreshed::Unhealthy { problems } => {
            let mut note =
                String::from("the baseline was not changed: a broken run is never a baseline\n");
            for p in &problems {
                note.push_str(&format!("  {p}\n"));
            }
            note.push_str(&format!(
                "  the run is kept at {} (its records say what failed)\n",
                run.path.display()
            ));
            reporter.note(&note);
            Ok(Exit::Incomplete)
        }
        Refreshed::Written { score, broken } => {
            remove_work();
            if !broken.is_empty() {
                let mut note = format!(
                    "warning: the new baseline already breaks {} absolute rule(s) of {}; checks fail them until the pipeline meets them or the rules change:\n",
                    broken.len(),
                    s.thresholds.source
                );
                for b in &broken {
                    note.push_str(&format!("  {b}\n"));
                }
                reporter.note(&note);
            }
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

/// `baseline show`: the stored baseline, read (and so checked) as every command reads it.
pub fn show(s: ShowSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let file = crate::score::file::read(&s.baseline)?;
    match s.format {
        BaselineFormat::Text => reporter.out(&terminal::baseline(&file, &s.baseline)),
        BaselineFormat::Json => reporter.out(&file.to_json()?),
    }
    Ok(Exit::Ok)
}
