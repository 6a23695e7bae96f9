//! `goldgate init`: a new project's files, so its first `goldgate check` runs at once —
//! `goldgate.toml` (the pipeline of the chosen kind), a commented `thresholds.toml` (rules
//! for each chosen task kind's metrics), a gold suite with six example samples per task
//! kind (the fewest with which the gate can call a change significant at 95%), a Python
//! stub of the pipeline (`command`) or its prompts (`chat`), the three GitHub workflows and
//! `GOLDGATE.md` with the next steps; and `.goldgate/` in `.gitignore` ([`gitignore`]).
//! [`init`] takes a plain [`Plan`] and returns what it wrote, and [`summary`] says so; the
//! questions asked for what the flags left open are in [`ask`]. Nothing here prints (the
//! command shows the text). A file that exists is never overwritten without
//! [`Plan::force`]: without it, nothing is written. Nothing is written outside the
//! directory: a directory link on the way to a file that resolves elsewhere is refused, and
//! a link at a file's path is replaced, not followed.

pub mod ask;
mod files;
mod gitignore;
mod stub;
mod summary;
mod workflows;

use std::path::{Path, PathBuf};

use goldgate_core::error::{Error, Result};
use goldgate_core::sample::Kind;

pub use files::{scaffold, File};
pub use summary::{names, summary, Place};

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
    /// What was done to it, when it was not written whole (`added .goldgate/`).
    pub note: Option<&'static str>,
}

/// Write the plan's files into its directory; the files written, in order. Refuses (a usage
/// error listing every one) when a file exists and the plan does not force, before writing
/// anything.
pub fn init(plan: &Plan) -> Result<Vec<Written>> {
    let files = scaffold(&plan.kinds, plan.pipeline)?;
    refuse_links_leaving(&plan.dir, &files)?;
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
        goldgate_core::io::write_atomic(&plan.dir.join(&file.path), |out| {
            out.write_all(file.text.as_bytes())
        })?;
        written.push(Written {
            path: file.path.clone(),
            overwrote,
            note: None,
        });
    }
    let note = match gitignore::ignore_own_files(&plan.dir)? {
        gitignore::Ignore::Created => None,
        gitignore::Ignore::Appended => Some("added .goldgate/"),
        gitignore::Ignore::Unchanged => return Ok(written),
    };
    written.push(Written {
        path: gitignore::FILE.into(),
        overwrote: false,
        note,
    });
    Ok(written)
}

/// Refuses (a usage error listing every one) a directory link on the way to a file `init`
/// writes that resolves outside `dir`: a link such as `.github -> /elsewhere` would put new
/// files there, or overwrite them with `--force`. A link at a file's own path is no risk:
/// the file replaces the link, it never writes through it.
fn refuse_links_leaving(dir: &Path, files: &[File]) -> Result<()> {
    let Ok(root) = dir.canonicalize() else {
        return Ok(()); // the directory is new: nothing in it yet
    };
    let mut leaving: Vec<PathBuf> = Vec::new();
    for file in files {
        let mut on_the_way = dir.to_path_buf();
        let parents = file.path.parent().into_iter().flat_map(Path::components);
        for part in parents {
            on_the_way.push(part);
            let Ok(meta) = on_the_way.symlink_metadata() else {
                break; // missing from here on: created inside
            };
            let inside = !meta.is_symlink()
                || on_the_way
                    .canonicalize()
                    .is_ok_and(|real| real.starts_with(&root));
            if !inside && !leaving.contains(&on_the_way) {
                leaving.push(on_the_way.clone());
            }
            if !inside {
                break;
            }
        }
    }
    if leaving.is_empty() {
        return Ok(());
    }
    let list: String = leaving
        .iter()
        .map(|p| {
            let to = std::fs::read_link(p).map_or_else(|_| "?".into(), |t| t.display().to_string());
            format!("\n    {} -> {to}", p.display())
        })
        .collect();
    Err(Error::usage(
        format!(
            "a link on the way to the files goldgate init writes leads outside {}:{list}",
            dir.display()
        ),
        "nothing was written: remove the link, or point it inside the project directory",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(dir: &Path, force: bool) -> Plan {
        Plan {
            dir: dir.to_path_buf(),
            // Any kind: what is tested is how files are written.
            kinds: goldgate_core::kinds::listed().take(1).collect(),
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
        assert_eq!(e.exit(), goldgate_core::error::Exit::Input);
        let text = e.to_string();
        assert!(
            text.contains("goldgate.toml") && text.contains("--force"),
            "{text}"
        );
        // (`.gitignore` is never in the way: it is appended to.)
        let in_the_way = written.iter().filter(|w| w.path != Path::new(".gitignore"));
        assert!(
            text.contains(&format!("{} of the files", in_the_way.count())),
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

    /// Every file under `dir`, with its contents.
    fn contents(dir: &Path) -> Vec<(PathBuf, String)> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            match path.is_dir() {
                true => found.extend(contents(&path)),
                false => found.push((path.clone(), std::fs::read_to_string(&path).unwrap())),
            }
        }
        found.sort();
        found
    }

    #[test]
    fn a_directory_link_that_leaves_the_project_is_refused_with_or_without_force() {
        let tmp = tempfile::tempdir().unwrap();
        let (project, elsewhere) = (tmp.path().join("project"), tmp.path().join("elsewhere"));
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(elsewhere.join("workflows")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, project.join(".github")).unwrap();
        // Without --force nothing outside exists yet: new files must not land there either.
        let e = init(&plan(&project, false)).unwrap_err();
        assert_eq!(e.exit(), goldgate_core::error::Exit::Input);
        let text = e.to_string();
        assert!(
            text.contains(".github") && text.contains("outside"),
            "the link and why: {text}"
        );
        assert!(
            contents(&elsewhere).is_empty(),
            "{:?}",
            contents(&elsewhere)
        );
        assert!(
            !project.join("goldgate.toml").exists(),
            "nothing was written"
        );
        // With --force a file there must not be overwritten.
        let theirs = elsewhere.join("workflows/goldgate.yml");
        std::fs::write(&theirs, "# someone else's\n").unwrap();
        let e = init(&plan(&project, true)).unwrap_err().to_string();
        assert!(e.contains(".github") && e.contains("outside"), "{e}");
        assert_eq!(
            contents(&elsewhere),
            [(theirs, "# someone else's\n".to_string())]
        );
        // A link that leads outside through another link is refused too.
        std::fs::remove_file(project.join(".github")).unwrap();
        std::os::unix::fs::symlink(".", project.join("here")).unwrap();
        std::os::unix::fs::symlink("here/../../elsewhere", project.join(".github")).unwrap();
        assert!(init(&plan(&project, true)).is_err());
    }

    #[test]
    fn a_directory_link_inside_the_project_is_followed() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("ci/github")).unwrap();
        std::os::unix::fs::symlink("ci/github", tmp.path().join(".github")).unwrap();
        let written = init(&plan(tmp.path(), false)).unwrap();
        assert!(written
            .iter()
            .any(|w| w.path.starts_with(".github/workflows")));
        assert!(tmp
            .path()
            .join("ci/github/workflows/goldgate.yml")
            .is_file());
    }

    #[test]
    fn a_file_link_is_replaced_never_written_through() {
        let tmp = tempfile::tempdir().unwrap();
        let (project, outside) = (tmp.path().join("p"), tmp.path().join("outside.toml"));
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(&outside, "# not goldgate's\n").unwrap();
        std::os::unix::fs::symlink(&outside, project.join("thresholds.toml")).unwrap();
        assert!(init(&plan(&project, false)).is_err(), "it exists");
        init(&plan(&project, true)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&outside).unwrap(),
            "# not goldgate's\n"
        );
        let now = std::fs::symlink_metadata(project.join("thresholds.toml")).unwrap();
        assert!(now.is_file(), "the link was replaced by goldgate's file");
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
