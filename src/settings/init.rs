//! Settings of `goldgate init`: the project directory, the task kinds and pipeline kind the
//! flags chose (the command asks for the rest on a terminal, or takes the defaults), whether
//! stdin is a terminal to ask on, and where the directory is in git.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::defaults;
use crate::cli::{self, PipelineArg};
use crate::init::Pipeline;
use goldgate_core::error::Error;
use goldgate_core::sample::Kind;

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
    /// It is below the work tree's root, and GitHub reads workflows only from the root's
    /// `.github/workflows`.
    pub below_git_root: bool,
}

impl TryFrom<cli::InitArgs> for InitSettings {
    type Error = Error;

    fn try_from(a: cli::InitArgs) -> Result<Self, Error> {
        let kinds: Vec<Kind> = a
            .kinds
            .iter()
            .map(|name| {
                Kind::named(name).ok_or_else(|| {
                    Error::internal(format!("--kind {name}: not a kind, though clap took it"))
                })
            })
            .collect::<Result<_, Error>>()?;
        let dir = a.dir.unwrap_or_else(|| defaults::INIT_DIR.into());
        let place = git_place(&dir);
        Ok(InitSettings {
            below_git_root: place == Some(true),
            dir,
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

/// Where `dir` is in git: `None` outside a work tree (or without git), `Some(true)` below the
/// work tree's root, `Some(false)` at it. A `dir` that does not exist yet is asked of its
/// nearest existing parent (and is below it).
fn git_place(dir: &Path) -> Option<bool> {
    let existing = dir
        .ancestors()
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .find(|d| d.is_dir())?;
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(existing)
        .args(["rev-parse", "--show-prefix"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let prefix = String::from_utf8(out.stdout).ok()?;
    out.status
        .success()
        .then(|| !prefix.trim().is_empty() || existing != dir)
}
