//! The subcommands, one file each: convert the command line into settings, call the library,
//! hand the results to a renderer, choose the exit code. No metric, file or GitHub logic
//! lives here.

mod annotate;
mod baseline;
mod check;
mod compare;
mod history;
mod hook;
mod init;
mod judge;
mod plan;
mod progress;
mod publish;
mod run;
mod score;
mod similarity;
mod suite;
mod thresholds;

use std::path::Path;

use crate::cli::{BaselineCommand, Cli, Command, HookCommand, SuiteCommand, ThresholdsCommand};
use crate::output::Reporter;
use crate::publish::Event;
use crate::report::markdown::Render;
use crate::settings::GateSettings;
use goldgate_core::error::{Error, Exit, Result};

use progress::{report_run, ShowProgress, SummaryTo};

/// Run a parsed command line; output goes through `reporter`.
pub fn dispatch(cli: Cli, reporter: &mut Reporter<'_>) -> Result<Exit> {
    match cli.command {
        Command::Init(args) => init::init(args.try_into()?, reporter),
        Command::Run(args) => run::run((*args).try_into()?, reporter),
        Command::Merge(args) => run::merge(args.into(), reporter),
        Command::Score(args) => score::score(args.try_into()?, reporter),
        Command::Compare(args) => compare::compare(args.try_into()?, reporter),
        Command::Check(args) => check::check((*args).try_into()?, reporter),
        Command::Publish(args) => publish::publish(args.try_into()?, reporter),
        Command::Baseline(BaselineCommand::Refresh(args)) => {
            baseline::refresh((*args).try_into()?, reporter)
        }
        Command::Baseline(BaselineCommand::Show(args)) => baseline::show(args.into(), reporter),
        Command::Baseline(BaselineCommand::Pin(args)) => baseline::pin(args.try_into()?, reporter),
        Command::History(args) => history::history(args.try_into()?, reporter),
        Command::Thresholds(ThresholdsCommand::Check { file }) => {
            thresholds::check(&crate::settings::thresholds_file(file), reporter)
        }
        Command::Suite(SuiteCommand::Lint(args)) => suite::lint(args.try_into()?, reporter),
        Command::Suite(SuiteCommand::Stats(args)) => suite::stats(args.try_into()?, reporter),
        Command::Suite(SuiteCommand::Agreement(args)) => {
            suite::agreement(args.try_into()?, reporter)
        }
        Command::Hook(HookCommand::Install(args)) => hook::install(args.try_into()?, reporter),
        Command::Hook(HookCommand::Uninstall { force }) => hook::uninstall(force, reporter),
        Command::Hook(HookCommand::Run(args)) => hook::run(args.try_into()?, reporter),
        Command::Similarity(args) => similarity::similarity(args.try_into()?, reporter),
        Command::Judge(args) => judge::judge(args.try_into()?, reporter),
        Command::Annotate(args) => annotate::annotate(args.try_into()?, reporter),
    }
}

/// Pretty JSON on stdout.
fn json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| Error::internal(format!("cannot render JSON: {e}")))
}

/// `wrote a, b and c`: the files a command wrote, for stderr.
fn wrote(paths: &[&Path]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => format!("wrote {last}\n"),
        Some((last, rest)) => format!("wrote {} and {last}\n", rest.join(", ")),
    }
}

/// The warnings of answers scored as unreadable because they hold a list longer than
/// matching takes: the first few, and how many more.
fn unreadable_note(unreadable: &[goldgate_core::error::Problem]) -> String {
    const SHOWN: usize = 5;
    let mut note: String = unreadable
        .iter()
        .take(SHOWN)
        .map(|p| format!("{p}\n"))
        .collect();
    if unreadable.len() > SHOWN {
        note.push_str(&format!(
            "… and {} more answers over the cap\n",
            unreadable.len() - SHOWN
        ));
    }
    note
}

/// How `gate` renders the comment and the job summary (with the commands that give the
/// verdict again).
fn render(gate: &GateSettings) -> Render<'_> {
    Render {
        gate_name: &gate.report.gate_name,
        templates: gate.report.templates.as_deref(),
        reproduce: gate.report.reproduce.clone(),
        ..Render::default()
    }
}

/// What publishing did, on stderr: workflow commands first.
fn show(events: &[Event], reporter: &mut Reporter<'_>) {
    for event in events {
        reporter.command(&event.commands());
        reporter.note(&event.note());
    }
}
