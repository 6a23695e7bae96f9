//! `goldgate init`: a new project's files, so its first `goldgate check` runs at once —
//! `goldgate.toml` (the pipeline of the chosen kind), a commented `thresholds.toml` (rules
//! for each chosen task kind's metrics), a gold suite with six example samples per task
//! kind (the fewest with which the gate can call a change significant at 95%), a Python stub of the pipeline (`command`) or its prompts (`chat`), the three
//! GitHub workflows and `GOLDGATE.md` with the next steps. [`init`] takes a plain [`Plan`]
//! and returns what it wrote; it never asks or prints (the command does). A file that
//! exists is never overwritten without [`Plan::force`]: without it, nothing is written.

mod files;
mod stub;
mod workflows;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::suite::Kind;

pub use files::{scaffold, File};

/// How goldgate calls the new project's pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipeline {
    /// A program: the sample's JSON on stdin, the answer on stdout (a Python stub is written).
    Command,
    /// A service each sample is POSTed to.
    Http,
    /// An OpenAI-compatible chat API, prompted from templates (the prompts are written).
    Chat,
}

impl Pipeline {
    pub const ALL: [Pipeline; 3] = [Pipeline::Command, Pipeline::Http, Pipeline::Chat];

    /// Its name in `goldgate.toml` (`kind = "…"`) and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Pipeline::Command => "command",
            Pipeline::Http => "http",
            Pipeline::Chat => "chat",
        }
    }

    /// What it is, in a few words (the question `init` asks shows it).
    pub fn about(self) -> &'static str {
        match self {
            Pipeline::Command => {
                "a program: the sample's JSON on stdin, the answer on stdout (writes a Python stub)"
            }
            Pipeline::Http => "a service: each sample's JSON POSTed to a URL",
            Pipeline::Chat => "a model behind an OpenAI-compatible chat API (writes the prompts)",
        }
    }
}

/// What a task kind's samples ask of a pipeline, in a few words.
pub fn about(kind: Kind) -> &'static str {
    match kind {
        Kind::Extraction => "requirements stated in a conversation",
        Kind::Inference => "requirements implied by agreed ones",
        Kind::Validation => "quality issues and personal data in requirements",
        Kind::E2e => "a whole SRS document from a stakeholder's statement",
        Kind::Tuples => "fixed-shape tuples from a text (aspect sentiment, event arguments)",
    }
}

/// What to write: where, for which task kinds and which pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The project directory (created when missing).
    pub dir: PathBuf,
    /// The task kinds: six example samples and their rules each (order and repeats do not
    /// matter).
    pub kinds: Vec<Kind>,
    pub pipeline: Pipeline,
    /// Overwrite files that exist.
    pub force: bool,
}

/// One file `init` wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Relative to the project directory.
    pub path: PathBuf,
    /// It existed before and was overwritten (`--force`).
    pub overwrote: bool,
}

/// Write the plan's files into its directory; the files written, in order. Refuses (a usage
/// error listing every one) when a file exists and the plan does not force, before writing
/// anything.
pub fn init(plan: &Plan) -> Result<Vec<Written>> {
    let files = scaffold(&plan.kinds, plan.pipeline)?;
    let existing: Vec<&Path> = files
        .iter()
        .map(|f| f.path.as_path())
        .filter(|p| plan.dir.join(p).symlink_metadata().is_ok())
        .collect();
    if let Some(dir) = existing.iter().find(|p| plan.dir.join(p).is_dir()) {
        return Err(Error::usage(
            format!(
                "{} is a directory, where goldgate init writes a file",
                plan.dir.join(dir).display()
            ),
            "move it away, or give another directory (goldgate init DIR)",
        ));
    }
    if !existing.is_empty() && !plan.force {
        let list: String = existing
            .iter()
            .map(|p| format!("\n    {}", plan.dir.join(p).display()))
            .collect();
        return Err(Error::usage(
            format!(
                "{} of the files goldgate init writes already exist:{list}",
                existing.len(),
            ),
            "nothing was written: pass --force to overwrite them, or give another directory (goldgate init DIR)",
        ));
    }
    let mut written = Vec::with_capacity(files.len());
    for file in &files {
        let overwrote = existing.contains(&file.path.as_path());
        crate::io::write_atomic(&plan.dir.join(&file.path), |out| {
            out.write_all(file.text.as_bytes())
        })?;
        written.push(Written {
            path: file.path.clone(),
            overwrote,
        });
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(dir: &Path, force: bool) -> Plan {
        Plan {
            dir: dir.to_path_buf(),
            kinds: vec![Kind::Validation],
            pipeline: Pipeline::Http,
            force,
        }
    }

    #[test]
    fn writes_every_file_and_refuses_existing_ones_without_force() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("new/project");
        let written = init(&plan(&dir, false)).unwrap();
        assert!(written.iter().all(|w| !w.overwrote));
        for w in &written {
            assert!(dir.join(&w.path).is_file(), "{}", w.path.display());
        }
        std::fs::write(dir.join("goldgate.toml"), "# mine\n").unwrap();
        let e = init(&plan(&dir, false)).unwrap_err();
        assert_eq!(e.exit(), crate::error::Exit::Input);
        let text = e.to_string();
        assert!(
            text.contains("goldgate.toml") && text.contains("--force"),
            "{text}"
        );
        assert!(
            text.contains(&format!("{} of the files", written.len())),
            "{text}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("goldgate.toml")).unwrap(),
            "# mine\n"
        );

        let again = init(&plan(&dir, true)).unwrap();
        assert!(again.iter().all(|w| w.overwrote));
        assert!(std::fs::read_to_string(dir.join("goldgate.toml"))
            .unwrap()
            .contains("kind = \"http\""));
    }

    #[test]
    fn a_directory_in_the_way_is_refused_even_with_force() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("GOLDGATE.md")).unwrap();
        let e = init(&plan(tmp.path(), true)).unwrap_err().to_string();
        assert!(e.contains("GOLDGATE.md is a directory"), "{e}");
        assert!(
            !tmp.path().join("goldgate.toml").exists(),
            "nothing was written"
        );
    }
}
