//! Settings of `goldgate init`: the project directory, the task kinds and pipeline kind the
//! flags chose (the command asks for the rest on a terminal, or takes the defaults), and
//! whether stdin is a terminal to ask on.

use std::io::IsTerminal;
use std::path::PathBuf;

use super::defaults;
use crate::cli::{self, KindArg, PipelineArg};
use crate::error::Error;
use crate::init::Pipeline;
use crate::suite::Kind;

/// `goldgate init`, before anything is asked.
#[derive(Clone, Debug, PartialEq)]
pub struct InitSettings {
    pub dir: PathBuf,
    /// The task kinds `--kind` named; `None`: not given.
    pub kinds: Option<Vec<Kind>>,
    /// The pipeline kind `--pipeline` named; `None`: not given.
    pub pipeline: Option<Pipeline>,
    pub force: bool,
    /// stdin is a terminal: what the flags left open can be asked.
    pub interactive: bool,
}

impl TryFrom<cli::InitArgs> for InitSettings {
    type Error = Error;

    fn try_from(a: cli::InitArgs) -> Result<Self, Error> {
        let kinds: Vec<Kind> = a
            .kinds
            .iter()
            .map(|k| match k {
                KindArg::Extraction => Kind::Extraction,
                KindArg::Inference => Kind::Inference,
                KindArg::Validation => Kind::Validation,
                KindArg::E2e => Kind::E2e,
                KindArg::Tuples => Kind::Tuples,
            })
            .collect();
        Ok(InitSettings {
            dir: a.dir.unwrap_or_else(|| defaults::INIT_DIR.into()),
            kinds: (!kinds.is_empty()).then_some(kinds),
            pipeline: a.pipeline.map(|p| match p {
                PipelineArg::Command => Pipeline::Command,
                PipelineArg::Http => Pipeline::Http,
                PipelineArg::Chat => Pipeline::Chat,
            }),
            force: a.force,
            interactive: std::io::stdin().is_terminal(),
        })
    }
}
