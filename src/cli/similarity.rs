//! `goldgate similarity`: two texts, or a file of pairs, and where the cosines go.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  goldgate similarity \"Account lockout: lock the account after five failed login attempts\" \"Brute-force protection: block sign-in once the password is entered wrongly 5 times\"\n  goldgate similarity --pairs pairs.jsonl --output cosines.jsonl\n\nExit codes: 0 done, 2 bad input or configuration, 3 the model or endpoint could not be used"
)]
pub struct SimilarityArgs {
    /// The first text
    #[arg(required_unless_present = "pairs", conflicts_with = "pairs")]
    pub a: Option<String>,
    /// The second text
    #[arg(required_unless_present = "pairs")]
    pub b: Option<String>,
    /// JSON Lines of {"a": ..., "b": ...}; writes {"a", "b", "cosine"} lines
    #[arg(long, value_name = "FILE")]
    pub pairs: Option<PathBuf>,
    /// Where to write the cosines of --pairs [default: stdout]
    #[arg(long, short, value_name = "FILE", requires = "pairs")]
    pub output: Option<PathBuf>,
    /// thresholds.toml whose [matching] table selects the similarity and its thresholds
    /// [default: ./thresholds.toml when it exists, else lexical]
    #[arg(long, env = "GOLDGATE_THRESHOLDS", value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    /// Where embedding vectors are cached [default: .goldgate/cache]
    #[arg(long, env = "GOLDGATE_CACHE_DIR", value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
}
