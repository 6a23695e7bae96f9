//! `goldgate judge`: review a run file's e2e answers again with the configured judge and
//! say what it did.

use crate::output::Reporter;
use goldgate_core::error::{Exit, Result};
use goldgate_core::text::plural;
use goldgate_run::judge::rejudge::{rejudge, RejudgeSettings};

pub fn judge(s: RejudgeSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let runtime = goldgate_client::runtime::build()?;
    let done = rejudge(&s, &runtime)?;
    let mut line = format!(
        "reviewed {} of {} in {} ({}: {} valid, {} from the judge cache, {} with nothing to judge)\n",
        done.reviewed,
        plural(done.records, "record"),
        done.path.display(),
        plural(done.judgements, "judgement"),
        done.valid,
        done.cached,
        done.nothing_to_judge,
    );
    if done.unknown > 0 {
        line.push_str(&format!(
            "{} of samples the suite does not have: kept as {}\n",
            match done.unknown {
                1 => "1 record is".to_string(),
                n => format!("{n} records are"),
            },
            if done.unknown == 1 {
                "it was"
            } else {
                "they were"
            }
        ));
    }
    reporter.out(&line);
    let ignored = crate::report::terminal::ignored_cache_entries(&done.cache_ignored);
    reporter.note(&ignored);
    reporter.note(&crate::report::judge::terminal(&done.failures));
    Ok(Exit::Ok)
}
