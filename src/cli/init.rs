//! `goldgate init`: where to write a new project's files, for which task kinds and which
//! pipeline kind, and whether to overwrite files that exist.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Args, ValueEnum};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  goldgate init\n  goldgate init gate --kind extraction,validation --pipeline http\n\nExit codes: 0 written, 2 a file exists (nothing written; --force overwrites) or cannot be written"
)]
pub struct InitArgs {
    /// The project directory to write into; created when missing [default: .]
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// A task kind the pipeline does: one example sample and the rules of its metrics each
    /// (repeat the flag, or separate kinds with commas) [default: extraction; asked when
    /// stdin is a terminal]
    #[arg(long = "kind", value_parser = kind_names(), value_delimiter = ',', value_name = "KIND")]
    pub kinds: Vec<String>,
    /// How goldgate calls the pipeline: a program (a Python stub is written), a URL, or a
    /// chat model with prompts [default: command; asked when stdin is a terminal]
    #[arg(long, value_enum)]
    pub pipeline: Option<PipelineArg>,
    /// Overwrite files that exist (without it, nothing is written when one does)
    #[arg(long)]
    pub force: bool,
}

/// The task kinds `--kind` takes: every kind goldgate has, by the name samples use.
fn kind_names() -> PossibleValuesParser {
    PossibleValuesParser::new(
        goldgate_core::kinds::ALL
            .iter()
            .map(|k| PossibleValue::new(k.name()).hide(!k.listed())),
    )
}

/// A pipeline kind, as `--pipeline` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PipelineArg {
    Command,
    Http,
    Chat,
}
