//! The command line of `goldgate history` and `goldgate baseline pin`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// What `history` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HistoryFormat {
    /// A sparkline row per gated metric, with its first, last, lowest and highest value
    Text,
    /// Every version with its provenance and metric values (schema goldgate.history/1)
    Json,
    /// One self-contained page: an SVG chart per gated metric, refreshes, pins and accepted
    /// drifts marked
    Html,
}

/// The baseline, and the rules that name its `[drift]` reference.
#[derive(Debug, Args)]
pub struct BaselineRules {
    /// The baseline file [default: [check] baseline in goldgate.toml, else baselines/main.json]
    #[arg(long, env = "GOLDGATE_BASELINE", value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// thresholds.toml: its rules say which metrics are gated, its [drift] names the reference
    #[arg(long, env = "GOLDGATE_THRESHOLDS", value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    /// goldgate.toml [default: ./goldgate.toml when it exists]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub files: BaselineRules,
    /// Output format [default: text]
    #[arg(long, value_enum)]
    pub format: Option<HistoryFormat>,
    /// Write to this file instead of stdout
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Only the last N versions
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
}

/// `baseline pin`: the baseline to pin, and the rules whose [drift] reference is where the
/// pinned copy goes.
#[derive(Debug, Args)]
pub struct PinArgs {
    #[command(flatten)]
    pub files: BaselineRules,
}
