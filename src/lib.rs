//! goldgate: a regression gate for LLM pipelines that turn conversations into software
//! requirements. The flow is suite → run → score → compare → report → publish; this crate
//! holds each step as a module, and [`run`] dispatches a parsed command line to them.
#![deny(clippy::print_stdout, clippy::print_stderr)]

// `command` pipelines run under `sh -c` in a process group of their own that a timeout kills
// whole (goldgate-run's process.rs), a run stops on SIGTERM (its runner.rs), and the
// pre-push hook forwards POSIX signals to its child (hook/push.rs). Say so once, rather than
// fail on the first of those calls (`pip install goldgate` builds from source where no wheel
// fits).
#[cfg(not(unix))]
compile_error!(
    "goldgate runs on Linux and macOS: it drives pipelines in POSIX process groups and handles POSIX signals; on Windows, use WSL"
);

pub mod annotate;
pub mod baseline;
pub mod check;
pub mod cli;
mod commands;
pub mod config;
pub mod history;
pub mod hook;
pub mod init;
pub mod output;
pub mod publish;
pub mod report;
pub mod settings;

pub use goldgate_core::error::{Error, Exit};
pub use output::Reporter;

/// Run a parsed command line. Output goes through `reporter`; the returned [`Exit`] is the
/// process exit code.
pub fn run(cli: cli::Cli, reporter: &mut Reporter<'_>) -> Result<Exit, Error> {
    commands::dispatch(cli, reporter)
}
