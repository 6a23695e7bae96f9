//! `goldgate judge`: review an existing run file again with the configured LLM judge.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
#[command(
    after_help = "The judge is configured by [judge] in goldgate.toml (docs/judge.md). Every e2e record whose sample has a reference_srs gets a fresh review; valid judgements come from the judge cache when it has them.\n\nExit codes: 0 done, 2 bad input or configuration (no [judge], a bad run file or suite)"
)]
pub struct JudgeArgs {
    /// The run file to review; it is rewritten with the reviews
    #[arg(long, value_name = "FILE")]
    pub run: PathBuf,
    /// The gold suite directory (the reference SRS of each sample) [default: [check] suite]
    #[arg(long, env = "GOLDGATE_SUITE", value_name = "DIR")]
    pub suite: Option<PathBuf>,
    /// Settings file ([judge], [run]); default: ./goldgate.toml when it exists
    #[arg(long, env = "GOLDGATE_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Reviews in flight at once [default: 16, or [run] jobs]
    #[arg(long, short, env = "GOLDGATE_JOBS")]
    pub jobs: Option<usize>,
    /// The cache directory; judgements are kept in its judge/ folder [default: .goldgate/cache]
    #[arg(long, env = "GOLDGATE_CACHE_DIR", value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Neither read nor write the judge cache
    #[arg(long, conflicts_with = "refresh_cache")]
    pub no_cache: bool,
    /// Ask the judge again but store the fresh judgements
    #[arg(long)]
    pub refresh_cache: bool,
    /// Largest suite sample read, in bytes [default: 16 MiB, or [suite] max_sample_bytes]
    #[arg(long, value_name = "BYTES")]
    pub max_sample_bytes: Option<u64>,
}
