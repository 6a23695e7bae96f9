//! `goldgate baseline refresh | show | pin`.

use std::path::Path;

use super::{report_run, ShowProgress, SummaryTo};
use crate::baseline::{refresh as refresh_baseline, RefreshSettings, Refreshed};
use crate::cli::BaselineFormat;
use crate::output::Reporter;
use crate::report::terminal;
use crate::settings::{PinSettings, ShowSettings};
use goldgate_core::error::{Error, Exit, Result};
use goldgate_core::io::write_output;
use goldgate_core::text::plural;

/// `baseline refresh`: the run goes to a temporary directory, removed once the baseline
/// and its run are stored (or the run is refused for missing samples); a refused or
/// incomplete run is kept there, and said so. No path is printed after it is gone.
pub fn refresh(s: RefreshSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let runtime = goldgate_client::runtime::build()?;
    let (run, refreshed) = refresh_baseline(&s, &runtime, &mut ShowProgress::new(reporter))?;
    let work = s.run.output.parent().map(Path::to_path_buf);
    let remove_work = || {
        if let Some(dir) = &work {
            let _ = std::fs::remove_dir_all(dir);
        }
    };
    // Where the run's records are once this is done.
    let kept = match &refreshed {
        Refreshed::Written { .. } => Some(s.baseline_run.as_path()),
        Refreshed::Missing { .. } | Refreshed::Drifted { .. } => None,
        Refreshed::RunIncomplete | Refreshed::Unhealthy { .. } => Some(run.path.as_path()),
    };
    let exit = report_run(&run, kept, SummaryTo::Stderr, false, reporter);
    match refreshed {
        Refreshed::RunIncomplete => {
            reporter.note("the baseline was not changed: the run did not complete\n");
            Ok(exit)
        }
        Refreshed::Missing { missing } => {
            remove_work();
            reporter.note(&missing_note(&missing, &s.run.suite));
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
        Refreshed::Drifted { drifts } => {
            remove_work();
            reporter.note(&drifted_note(&drifts, &s));
            Ok(Exit::Failed)
        }
        Refreshed::Written {
            score,
            broken,
            unmeasured,
        } => {
            remove_work();
            for why in &unmeasured {
                reporter.note(&format!(
                    "warning: the drift from the reference was not measured:\n  {}\n",
                    why.replace('\n', "\n  ")
                ));
            }
            if let Some(accepted) = &score.provenance.accepted_drift {
                let mut note = format!(
                    "accepted drift from the reference {} (by {}: {}):\n",
                    accepted.reference, accepted.by, accepted.reason
                );
                for d in &accepted.drifts {
                    note.push_str(&format!("  {d}\n"));
                }
                note.push_str("  checks keep measuring drift against the reference, and fail it, until it is pinned again: goldgate baseline pin (then commit both)\n");
                reporter.note(&note);
            }
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
                "baseline written to {} ({}, {}; its run to {})\n",
                s.baseline.display(),
                plural(score.samples.len(), "sample"),
                plural(score.provenance.records, "record"),
                s.baseline_run.display()
            ));
            Ok(Exit::Ok)
        }
    }
}

/// The note for a refresh refused for its drift from the reference.
fn drifted_note(drifts: &[String], s: &RefreshSettings) -> String {
    let reference = s.reference.as_ref().map_or("", |r| r.path.as_str());
    let mut note = format!(
        "error: the baseline was not changed: it drifted beyond its budget from the reference {reference}:\n"
    );
    for d in drifts {
        note.push_str(&format!("  {d}\n"));
    }
    note.push_str("  hint: if the change is intended, refresh again with --accept-drift \"why\" (who and why are kept in the baseline's provenance and shown by goldgate history); once a release makes it the new normal, goldgate baseline pin moves the reference\n");
    note
}

/// `baseline pin`: the baseline (read, and so checked, first) copied to the reference
/// `[drift]` names, atomically.
pub fn pin(s: PinSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let file = goldgate_core::score::file::read(&s.baseline)?;
    let bytes = std::fs::read(&s.baseline).map_err(|source| Error::Read {
        path: s.baseline.clone(),
        source,
    })?;
    if std::fs::read(&s.reference).is_ok_and(|r| r == bytes) {
        reporter.out(&format!(
            "{} is already the reference {}\n",
            s.baseline.display(),
            s.reference.display()
        ));
        return Ok(Exit::Ok);
    }
    if let Some(dir) = s.reference.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| Error::Write {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    write_output(&s.reference, |w| w.write_all(&bytes))?;
    reporter.out(&format!(
        "pinned {} (made {}) as the drift reference {}: commit it; drift is measured against it from now on\n",
        s.baseline.display(),
        file.provenance.created_at,
        s.reference.display()
    ));
    Ok(Exit::Ok)
}

/// The note for a refresh whose run has no answer for some samples (the run is removed).
fn missing_note(missing: &[String], suite: &Path) -> String {
    let shown: Vec<&str> = missing.iter().take(10).map(String::as_str).collect();
    let more = match missing.len() - shown.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "error: incomplete run: {} of {} {} no answer: {}{more}\n  hint: a baseline needs an answer for every sample: make the pipeline answer them and refresh again\nthe baseline was not changed\n",
        plural(missing.len(), "sample"),
        suite.display(),
        if missing.len() == 1 { "has" } else { "have" },
        shown.join(", ")
    )
}

/// `baseline show`: the stored baseline, read (and so checked) as every command reads it.
pub fn show(s: ShowSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let file = goldgate_core::score::file::read(&s.baseline)?;
    match s.format {
        BaselineFormat::Text => reporter.out(&terminal::baseline(&file, &s.baseline)),
        BaselineFormat::Json => reporter.out(&file.to_json()?),
    }
    Ok(Exit::Ok)
}
