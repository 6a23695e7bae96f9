//! goldgate: a regression gate for LLM pipelines that turn conversations into software
//! requirements. The flow is suite → run → score → compare → report → publish; this crate
//! holds each step as a module, and [`run`] dispatches a parsed command line to them.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod cli;
mod commands;
pub mod config;
pub mod error;
pub mod gate;
pub mod github;
pub mod hook;
pub mod metrics;
pub mod parse;
pub mod pipeline;
pub mod report;
pub mod score;
pub mod settings;
pub mod suite;
pub mod text;

use std::io::Write;

pub use error::{Error, Exit};

/// The one place output leaves the program: results to stdout, notes and errors to stderr.
/// A closed pipe (e.g. `| head`) is not an error.
pub struct Reporter<'a> {
    out: Box<dyn Write + 'a>,
    err: Box<dyn Write + 'a>,
}

impl<'a> Reporter<'a> {
    pub fn new(out: impl Write + 'a, err: impl Write + 'a) -> Self {
        Reporter {
            out: Box::new(out),
            err: Box::new(err),
        }
    }

    /// Results (stdout).
    pub fn out(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }

    /// Notes and progress (stderr).
    pub fn note(&mut self, text: &str) {
        let _ = self.err.write_all(text.as_bytes());
        let _ = self.err.flush();
    }

    /// An error (stderr).
    pub fn error(&mut self, error: &Error) {
        self.note(&format!("error: {error}\n"));
    }
}

/// Run a parsed command line. Output goes through `reporter`; the returned [`Exit`] is the
/// process exit code.
pub fn run(cli: cli::Cli, reporter: &mut Reporter<'_>) -> Result<Exit, Error> {
    match cli.command {
        cli::Command::Run(args) => commands::run((*args).try_into()?, reporter),
        cli::Command::Merge(args) => commands::merge(&args.inputs, &args.output, reporter),
        cli::Command::Compare(args) => commands::compare(args, reporter),
        cli::Command::Publish(args) => commands::publish(args, reporter),
        cli::Command::Check(args) => commands::check(*args, reporter),
        cli::Command::Baseline(cli::BaselineCommand::Refresh(args)) => {
            commands::baseline_refresh(*args, reporter)
        }
        cli::Command::Baseline(cli::BaselineCommand::Show { baseline }) => {
            commands::baseline_show(&baseline, reporter)
        }
        cli::Command::Thresholds(cli::ThresholdsCommand::Check { file }) => {
            commands::thresholds_check(&file, reporter)
        }
        cli::Command::Score(args) => commands::score(args.try_into()?, reporter),
        cli::Command::Suite(cli::SuiteCommand::Lint(args)) => {
            commands::lint(&args.dir, args.format, reporter)
        }
        cli::Command::Suite(cli::SuiteCommand::Stats(args)) => {
            commands::stats(&args.dir, args.format, reporter)
        }
        cli::Command::Suite(cli::SuiteCommand::Agreement(args)) => {
            commands::agreement(args.try_into()?, reporter)
        }
        cli::Command::Hook(cli::HookCommand::Install(args)) => {
            commands::hook_install(args.try_into()?, reporter)
        }
        cli::Command::Hook(cli::HookCommand::Uninstall { force }) => {
            commands::hook_uninstall(force, reporter)
        }
    }
}
