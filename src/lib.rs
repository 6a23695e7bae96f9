//! goldgate: a regression gate for LLM pipelines that turn conversations into software
//! requirements. The flow is suite → run → score → compare → report → publish; this crate
//! holds each step as a module, and [`run`] dispatches a parsed command line to them.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod cli;
mod commands;
pub mod config;
pub mod error;
pub mod gate;
pub mod hook;
pub mod io;
pub mod metrics;
pub mod output;
pub mod parse;
pub mod publish;
pub mod report;
pub mod run;
pub mod runfile;
pub mod score;
pub mod settings;
pub mod suite;
pub mod text;

pub use error::{Error, Exit};
pub use output::Reporter;

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
