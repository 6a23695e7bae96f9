//! Finding and reading suite files. A suite is a directory: every `*.yaml`, `*.yml` and
//! `*.json` file below it holds one sample, every `*.jsonl` file one sample per line, and an
//! optional `suite.toml` at its root names the suite. Samples are read one at a time (a
//! [`SuiteReader`] is an iterator over [`Documents`](super::documents::Documents)), each at
//! most `max_sample_bytes` long, so memory does not grow with the suite; which files are read,
//! and how safely, is [`super::files`]'s part.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use toml::Spanned;

use super::documents::{Documents, UniqueIds};
use super::files;
use super::validate::Loaded;
use crate::error::{Error, Location, Problem, Result};
use crate::sample::task::{self, RawTask, Tasks};

/// `suite.toml` at the root of a suite.
#[derive(Clone, Debug)]
pub struct SuiteConfig {
    pub name: Option<String>,
    pub protocol_version: String,
    pub description: Option<String>,
    /// The tuple tasks samples of `kind: tuples` name (`[tasks.NAME]`).
    pub tasks: Arc<Tasks>,
}

/// `suite.toml` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuiteConfig {
    #[serde(default)]
    name: Option<String>,
    #[serde(default = "default_protocol_version")]
    protocol_version: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    tasks: BTreeMap<String, Spanned<RawTask>>,
}

fn default_protocol_version() -> String {
    "1".to_string()
}

impl Default for SuiteConfig {
    fn default() -> Self {
        SuiteConfig {
            name: None,
            protocol_version: default_protocol_version(),
            description: None,
            tasks: Arc::default(),
        }
    }
}

/// An opened suite: its root, config and sample files in a stable order.
#[derive(Clone, Debug)]
pub struct Suite {
    pub root: PathBuf,
    pub config: SuiteConfig,
    files: Vec<PathBuf>,
    /// The largest sample read: a YAML or JSON file, or one JSONL line.
    max_sample_bytes: u64,
}

impl Suite {
    /// Open a suite directory: read `suite.toml` if present and list the sample files (see
    /// [`files`] for what is refused). Samples larger than `max_sample_bytes` are problems
    /// when they are read.
    pub fn open(root: &Path, max_sample_bytes: u64) -> Result<Suite> {
        if !root.is_dir() {
            return Err(Error::usage(
                format!("suite directory {} does not exist", root.display()),
                "pass the directory that holds your gold samples (*.yaml, *.json, *.jsonl)",
            ));
        }
        let files = files::sample_files(root)?;
        let config = read_suite_toml(&root.join("suite.toml"), max_sample_bytes)?;
        if files.is_empty() {
            return Err(Error::usage(
                format!("no sample files in {}", root.display()),
                "a suite holds *.yaml, *.yml, *.json (one sample each) or *.jsonl (one per line) files",
            ));
        }
        Ok(Suite {
            root: root.to_path_buf(),
            config,
            files,
            max_sample_bytes,
        })
    }

    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// Read the samples one at a time.
    pub fn reader(&self) -> SuiteReader<'_> {
        SuiteReader {
            documents: self.documents(),
            unique: UniqueIds::default(),
        }
    }

    /// The suite's documents as read from disk, not yet parsed.
    pub fn documents(&self) -> Documents<'_> {
        Documents::new(
            &self.root,
            &self.files,
            self.max_sample_bytes,
            Arc::clone(&self.config.tasks),
        )
    }
}

/// `suite.toml`, read like a sample file (a regular file inside the suite, at most `cap`
/// bytes).
fn read_suite_toml(path: &Path, cap: u64) -> Result<SuiteConfig> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(SuiteConfig::default());
    };
    if meta.is_symlink() {
        // Followed only inside the suite, like the links to sample files.
        let root = path.parent().unwrap_or(Path::new("."));
        let inside = match (path.canonicalize(), root.canonicalize()) {
            (Ok(target), Ok(root)) => target.starts_with(root),
            _ => false,
        };
        if !inside {
            let problem = Problem::new(
                Location::file(path),
                None,
                "links outside the suite (or nowhere); goldgate does not follow it",
            )
            .with_hint("make suite.toml a file inside the suite directory");
            return Err(Error::invalid("suite.toml", problem));
        }
    }
    let text = files::read_sample(path, cap).map_err(|p| Error::invalid("suite.toml", p))?;
    let at = |offset: usize| {
        let line = text[..offset.min(text.len())].matches('\n').count() + 1;
        Location::new(path, line, 0)
    };
    let raw: RawSuiteConfig = toml::from_str(&text).map_err(|e| {
        let message = e.message().to_string();
        let tasks = tasks_guide();
        let hint = if message.contains("unknown field") && e.span().is_some_and(|s| s.start > 0) {
            format!(
                "suite.toml knows `name`, `protocol_version`, `description` and `[tasks.NAME]` \
                 tables; a task knows `fields`, `type_field`, `relaxed`, `hallucination`, \
                 `schema`, `cot`, `final_paths`, `stage1_paths` and `label_conflicts` ({tasks})"
            )
        } else {
            format!("docs/suites.md describes suite.toml; {tasks} its `[tasks.NAME]` tables")
        };
        let problem =
            Problem::new(at(e.span().map_or(0, |s| s.start)), None, message).with_hint(hint);
        Error::invalid("suite.toml", problem)
    })?;
    let tasks = task::resolve(raw.tasks, &at).map_err(|problems| Error::Invalid {
        what: "suite.toml",
        problems,
    })?;
    Ok(SuiteConfig {
        name: raw.name,
        protocol_version: raw.protocol_version,
        description: raw.description,
        tasks: Arc::new(tasks),
    })
}

/// Iterator over the loaded documents of a suite, in file order: [`Documents`] read one at
/// a time, each loaded, and sample ids checked for uniqueness. Parallel readers use the three
/// steps directly (see `score`).
pub struct SuiteReader<'a> {
    documents: Documents<'a>,
    unique: UniqueIds,
}

impl SuiteReader<'_> {
    /// The suite fingerprint once the iterator is exhausted (see [`Documents::fingerprint`]).
    pub fn fingerprint(&self) -> String {
        self.documents.fingerprint()
    }
}

impl Iterator for SuiteReader<'_> {
    type Item = Loaded;

    fn next(&mut self) -> Option<Loaded> {
        let document = self.documents.next()?;
        Some(self.unique.check(document.load()))
    }
}

/// The guide to `[tasks.NAME]` tables: the guide of the kind whose samples are read by
/// their task (`docs/suites.md` when no kind is).
fn tasks_guide() -> String {
    crate::kinds::ALL
        .iter()
        .find(|k| matches!(k.reads(), crate::kinds::keys::Reads::TaskPointers))
        .and_then(|k| k.init_files().guide)
        .map_or_else(
            || "docs/suites.md".into(),
            |(page, _)| format!("docs/{page}"),
        )
}
