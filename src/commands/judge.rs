//! `goldgate judge`: review a run file's e2e answers again with the configured judge and
//! say what it did.

use crate::error::{Exit, Result};
use crate::output::Reporter;
use crate::run::judge::rejudge::{rejudge, RejudgeSettings};

pub fn judge(s: RejudgeSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let runtime = crate::runtime::build()?;
    let done = rejudge(&s, &runtime)?;
    let mut line = format!(
        "reviewed {} of {} records in {} ({} judgements: {} valid, {} from the judge cache, {} with nothing to judge)\n",
        done.reviewed,
        done.records,
        done.path.display(),
        done.judgements,
        done.valid,
        done.cached,
        done.nothing_to_judge,
    );
    if done.unknown > 0 {
        line.push_str(&format!(
            "{} records are of samples the suite does not have: kept as they were\n",
            done.unknown
        ));
    }
    reporter.out(&line);
    reporter.note(&crate::report::judge::terminal(&done.failures));
    Ok(Exit::Ok)
}
