//! The `goldgate` binary: parse the command line, run, print the error, exit with its code.

use clap::Parser;

/// Scoring makes many small allocations; mimalloc runs the 10k-sample benchmark in about
/// three quarters of the time the system allocator takes.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = goldgate::cli::Cli::parse();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let mut reporter = goldgate::Reporter::new(stdout.lock(), stderr.lock());
    let exit = match goldgate::run(cli, &mut reporter) {
        Ok(exit) => exit,
        Err(error) => {
            reporter.error(&error);
            error.exit()
        }
    };
    drop(reporter);
    std::process::exit(exit.code());
}
