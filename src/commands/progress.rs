//! How a run is shown: its progress on stderr while it runs (a bar on a terminal, a line
//! every few seconds in logs), and how it ended (the summary line, or why it stopped and
//! where its records are) with the exit code of an incomplete run.

use std::path::Path;

use crate::output::Reporter;
use goldgate_core::error::Exit;
use goldgate_core::text::plural;
use goldgate_run::plan::{Ending, Notice, Observer, RunReport};
use goldgate_run::runner::RunSummary;

/// Where the run's summary line goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SummaryTo {
    Stdout,
    /// The command's stdout is for something else (`check --format json`).
    Stderr,
    /// Nowhere (`check --format brief`: one line when all is well).
    Nowhere,
}

/// Shows a run's progress on stderr: a bar on a terminal, a line every few seconds in logs.
pub(super) struct ShowProgress<'r, 'a> {
    reporter: &'r mut Reporter<'a>,
    bar: Option<crate::report::progress::Progress>,
}

impl<'r, 'a> ShowProgress<'r, 'a> {
    pub(super) fn new(reporter: &'r mut Reporter<'a>) -> Self {
        ShowProgress {
            reporter,
            bar: None,
        }
    }
}

impl Observer for ShowProgress<'_, '_> {
    fn notice(&mut self, notice: &Notice) {
        let text = match notice {
            Notice::CacheOff(why) => format!("note: the answer cache is off: {why}\n"),
            Notice::Dropped {
                records,
                suite_changed,
            } => format!(
                "note: {}dropped {} of samples no longer in this run or whose input changed; they run again\n",
                if *suite_changed { "the suite changed since the run started: " } else { "" },
                plural(*records, "record"),
            ),
        };
        self.reporter.note(&text);
    }

    fn resumed(&mut self, done: usize, todo: usize) {
        self.reporter.note(&format!(
            "resuming: {} already done, {todo} to run\n",
            plural(done, "record")
        ));
    }

    fn started(&mut self, calls: usize) {
        let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
        self.bar = Some(crate::report::progress::Progress::new(calls, tty));
    }

    fn record(&mut self, so_far: &RunSummary) {
        let line = self
            .bar
            .as_mut()
            .and_then(|bar| bar.update(so_far.written, so_far.errors, so_far.cached));
        if let Some(line) = line {
            self.reporter.note(&line);
        }
    }

    fn finished(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

/// Say how a run ended: the summary line when it completed (where `to` says), else why it
/// stopped and where its records are. `kept` is where the records of a complete run stay
/// (`None`: nowhere, a temporary run already removed); an incomplete run's stay where it
/// wrote them. `sequential`: the run of a sequential check, which cannot be resumed (it
/// starts over). Returns the exit code of an incomplete run.
pub(super) fn report_run(
    run: &RunReport,
    kept: Option<&Path>,
    to: SummaryTo,
    sequential: bool,
    reporter: &mut Reporter<'_>,
) -> Exit {
    let s = &run.summary;
    // Cache entries that were not goldgate's own: said once, whatever the ending.
    reporter.note(&crate::report::terminal::ignored_cache_entries(
        &run.cache_ignored,
    ));
    // Why calls failed, grouped by cause (a 401 on every call is one line, not a mystery).
    let causes = crate::report::terminal::failed_calls(&run.failures());
    // Answers the kinds read nothing from, said with what they hold instead; a judge whose
    // calls fail, said whatever the rules gate.
    let warnings = crate::report::keyless::terminal(&s.keyless.finish())
        + &crate::report::judge::terminal(&s.judge);
    match &run.ending {
        Ending::Complete | Ending::Decided { .. } => {
            let to_file = kept.map_or_else(String::new, |p| format!(" to {}", p.display()));
            let not_needed = match run.ending {
                Ending::Decided { not_needed } => {
                    format!(", {} not needed", plural(not_needed, "call"))
                }
                _ => String::new(),
            };
            let line = format!(
                "wrote {}{to_file} ({} in {:.1}s, {} failed, {} from the cache: {:.0}% hit rate{not_needed}){}\n{}{}{causes}{warnings}",
                plural(run.total, "record"),
                plural(s.written, "call"),
                s.elapsed.as_secs_f64(),
                s.errors,
                s.cached,
                run.hit_rate(),
                crate::report::spend::usage_note(s),
                crate::report::spend::truncated_note(s.truncated),
                crate::report::spend::invalid_note(s),
            );
            match to {
                SummaryTo::Stdout => reporter.out(&line),
                SummaryTo::Stderr => reporter.note(&line),
                SummaryTo::Nowhere => {}
            }
            return Exit::Ok;
        }
        Ending::Tripped {
            max_errors,
            first_error,
        } => reporter.note(&format!(
            "error: stopped after {} failed calls (--max-errors {max_errors}): the pipeline looks broken\n  first failure: {first_error}\n",
            s.errors,
        )),
        Ending::OverBudget { max_cost } => reporter.note(&format!(
            "error: stopped after spending {} of the {} budget (--max-cost): {} made, the rest not started\n",
            crate::report::spend::spent(s),
            goldgate_core::number::usd(*max_cost),
            plural(s.written - s.cached, "call"),
        )),
        Ending::BudgetUnknown { max_cost, sample } => reporter.note(&format!(
            "error: stopped: the {} budget (--max-cost) cannot be kept, the answer to sample `{}` reported no cost and no token prices are set ({} made, the rest not started)\n  hint: state the prices under [pipeline.pricing] (input_per_mtok, output_per_mtok), so goldgate counts each call's tokens and prices them, or have the pipeline report usage.cost_usd\n",
            goldgate_core::number::usd(*max_cost),
            goldgate_core::escape::one_line(sample),
            plural(s.written - s.cached, "call"),
        )),
        Ending::Interrupted => {}
    }
    reporter.note(&causes);
    reporter.note(&warnings);
    let again = match sequential {
        true => "run the check again (a sequential check starts over: it cannot go on from part of a run)",
        false => "run again with --resume",
    };
    reporter.note(&format!(
        "incomplete run: {} {} in {}; fix the cause and {again}\n",
        plural(run.total, "record"),
        if run.total == 1 { "is" } else { "are" },
        run.path.display()
    ));
    Exit::Incomplete
}
