//! The `goldgate` binary: parse the command line, run, print the error, exit with its code.

use clap::Parser;

/// Scoring makes many small allocations; mimalloc runs the 10k-sample benchmark in about
/// three quarters of the time the system allocator takes.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // A panic is a bug: say so once, without a backtrace, and exit with the internal code.
    std::panic::set_hook(Box::new(|info| {
        let bug = goldgate_core::error::bug(info).to_string();
        eprintln!("error: {}", goldgate_core::escape::inert(&bug))
    }));
    let cli = goldgate::cli::Cli::parse();
    let mut reporter = goldgate::Reporter::new(std::io::stdout().lock(), std::io::stderr());
    let exit = goldgate::run(cli, &mut reporter).unwrap_or_else(|error| {
        reporter.error(&error);
        error.exit()
    });
    drop(reporter);
    std::process::exit(exit.code());
}
