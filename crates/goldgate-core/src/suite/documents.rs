//! Reading a suite's documents in three steps, so that the costly middle one can run on
//! many threads: [`Documents`] reads the files in order (one document per `*.yaml`, `*.yml`
//! or `*.json` file, one per non-blank `*.jsonl` line) and fingerprints them;
//! [`RawDocument::load`] parses and checks one document on its own; [`UniqueIds`], fed the
//! loaded documents in suite order, refuses a sample id seen before.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::files::{self, format_of, Format};
use super::validate::{self, Loaded};
use crate::document::{self, Document};
use crate::error::{Location, Problem};
use crate::io::{read_line, Line};
use crate::sample::task::Tasks;

/// One document as read from disk: its text and where it starts, or the problem that kept
/// it from being read.
#[derive(Debug)]
pub struct RawDocument {
    path: Arc<Path>,
    /// The JSONL line (1-based) the text is, or `None` for a whole YAML or JSON file.
    line: Option<usize>,
    text: Result<String, Problem>,
    format: Format,
    /// The suite's tuple tasks, which `kind: tuples` samples are checked against.
    tasks: Arc<Tasks>,
}

impl RawDocument {
    /// A document of the suite held in memory: `text` as if read from `path` (at JSONL
    /// line `line`), checked against the suite's tasks — how an edit is checked before it
    /// is written.
    pub fn in_memory(suite: &super::Suite, path: &Path, line: Option<usize>, text: String) -> Self {
        let format = format_of(path).unwrap_or(Format::Yaml);
        RawDocument {
            path: Arc::from(path),
            line: line.filter(|_| format == Format::Jsonl),
            text: Ok(text),
            format,
            tasks: Arc::clone(&suite.config.tasks),
        }
    }

    /// The document's text as read (a JSONL document is its line, line ending included),
    /// unless it could not be read.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref().ok()
    }

    /// The JSONL line the document is, or `None` for a whole YAML or JSON file.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// How the document is written (YAML, JSON or a JSONL line).
    pub fn format(&self) -> Format {
        self.format
    }

    /// Parse and check the document on its own (id uniqueness is [`UniqueIds`]'s part).
    pub fn load(self) -> Loaded {
        let text = match self.text {
            Ok(text) => text,
            Err(problem) => {
                return Loaded {
                    sample: None,
                    problems: vec![problem],
                }
            }
        };
        match self.line {
            Some(line) => load_jsonl_line(&self.path, line, &text, &self.tasks),
            None => load_file(&self.path, &text, self.format, &self.tasks),
        }
    }
}

fn load_jsonl_line(path: &Path, line: usize, text: &str, tasks: &Tasks) -> Loaded {
    let positions = || {
        let mut positions = document::json_positions(text);
        positions.offset_lines(line - 1);
        positions
    };
    // Fast path: a valid line deserializes straight into the typed sample.
    if let Some(raw) = super::read::read_valid(text) {
        return validate::check_typed(path, Location::new(path, line, 1), raw, tasks, positions);
    }
    // Slow path: locate every problem (duplicate keys are errors here, as in .json files).
    match document::parse_json(text) {
        Ok(Document {
            value,
            mut positions,
        }) => {
            positions.offset_lines(line - 1);
            let origin = Location::new(path, line, 1);
            validate::check_document(path, origin, value, tasks, move || positions)
        }
        Err(e) => syntax_problem(
            path,
            line + e.position.line - 1,
            e.position.column,
            &e.message,
        ),
    }
}

fn load_file(path: &Path, text: &str, format: Format, tasks: &Tasks) -> Loaded {
    let parsed = match format {
        Format::Yaml => document::parse_yaml(text),
        _ => document::parse_json(text),
    };
    match parsed {
        Ok(Document { value, positions }) => {
            let at = positions.nearest("/id");
            let origin = Location::new(path, at.line, at.column);
            validate::check_document(path, origin, value, tasks, move || positions)
        }
        Err(e) => syntax_problem(path, e.position.line, e.position.column, &e.message),
    }
}

fn syntax_problem(path: &Path, line: usize, column: usize, message: &str) -> Loaded {
    let problem = Problem::new(Location::new(path, line, column), None, message.to_string())
        .with_hint(
            "fix the syntax; each YAML/JSON file holds one sample, each JSONL line one sample",
        );
    Loaded {
        sample: None,
        problems: vec![problem],
    }
}

struct JsonlLines {
    path: Arc<Path>,
    reader: BufReader<File>,
    line: usize,
}

/// The documents of a suite's files, in order, read but not parsed, each at most
/// `max_sample_bytes` long (a file, or a JSONL line). Also fingerprints what it read.
pub struct Documents<'a> {
    root: &'a Path,
    files: std::slice::Iter<'a, PathBuf>,
    lines: Option<JsonlLines>,
    hasher: Sha256,
    max_sample_bytes: u64,
    tasks: Arc<Tasks>,
}

impl<'a> Documents<'a> {
    pub(super) fn new(
        root: &'a Path,
        files: &'a [PathBuf],
        max_sample_bytes: u64,
        tasks: Arc<Tasks>,
    ) -> Self {
        let mut hasher = Sha256::new();
        // Task definitions decide how tuples samples are scored: a suite whose tasks changed
        // is another suite. (Suites without tasks keep the fingerprint they always had.)
        for task in tasks.iter() {
            hasher.update(b"task\0");
            hasher.update(task.canonical().as_bytes());
            hasher.update([0u8]);
        }
        Documents {
            root,
            files: files.iter(),
            lines: None,
            hasher,
            max_sample_bytes,
            tasks,
        }
    }

    /// SHA-256 over the tuple task definitions and the relative path and bytes of every file
    /// read so far (the suite fingerprint once the iterator is exhausted).
    pub fn fingerprint(&self) -> String {
        crate::text::hex(&self.hasher.clone().finalize())
    }

    fn hash_file_name(&mut self, path: &Path) {
        let relative = path.strip_prefix(self.root).unwrap_or(path);
        self.hasher.update(relative.to_string_lossy().as_bytes());
        self.hasher.update([0u8]);
    }

    fn next_jsonl_line(&mut self) -> Option<RawDocument> {
        let lines = self.lines.as_mut()?;
        loop {
            lines.line += 1;
            let at = Location::new(&lines.path, lines.line, 0);
            let text = match read_line(&mut lines.reader, self.max_sample_bytes) {
                Ok(Line::End) => {
                    self.lines = None;
                    return None;
                }
                Ok(Line::Text(bytes)) => {
                    self.hasher.update(&bytes);
                    match String::from_utf8(bytes) {
                        Ok(text) if text.trim().is_empty() => continue,
                        Ok(text) => Ok(text),
                        Err(_) => Err(Problem::new(
                            at,
                            None,
                            "cannot read line: stream did not contain valid UTF-8",
                        )
                        .with_hint("suite files must be UTF-8 text")),
                    }
                }
                Ok(Line::TooLong(size)) => Err(files::too_large(
                    at,
                    "the line",
                    size,
                    self.max_sample_bytes,
                )),
                Err(e) => {
                    let problem = Problem::new(at, None, format!("cannot read line: {e}"))
                        .with_hint("suite files must be UTF-8 text");
                    let path = lines.path.clone();
                    self.lines = None;
                    return Some(self.document(path, None, Err(problem), Format::Jsonl));
                }
            };
            let (path, line) = (lines.path.clone(), Some(lines.line));
            return Some(self.document(path, line, text, Format::Jsonl));
        }
    }

    /// A document of this suite (checked against its tasks when loaded).
    fn document(
        &self,
        path: Arc<Path>,
        line: Option<usize>,
        text: Result<String, Problem>,
        format: Format,
    ) -> RawDocument {
        RawDocument {
            path,
            line,
            text,
            format,
            tasks: Arc::clone(&self.tasks),
        }
    }

    fn read_file(&mut self, path: Arc<Path>, format: Format) -> RawDocument {
        let text = files::read_sample(&path, self.max_sample_bytes);
        if let Ok(text) = &text {
            self.hasher.update(text.as_bytes());
        }
        self.document(path, None, text, format)
    }
}

impl Iterator for Documents<'_> {
    type Item = RawDocument;

    fn next(&mut self) -> Option<RawDocument> {
        loop {
            if let Some(document) = self.next_jsonl_line() {
                return Some(document);
            }
            let path = self.files.next()?;
            self.hash_file_name(path);
            let shared: Arc<Path> = Arc::from(path.as_path());
            match format_of(path) {
                Some(Format::Jsonl) => match files::open_regular(path) {
                    Ok((file, _)) => {
                        self.lines = Some(JsonlLines {
                            path: shared,
                            reader: BufReader::new(file),
                            line: 0,
                        })
                    }
                    Err(problem) => {
                        return Some(self.document(shared, None, Err(problem), Format::Jsonl));
                    }
                },
                Some(format) => return Some(self.read_file(shared, format)),
                None => {}
            }
        }
    }
}

/// Sample ids are unique across the suite: fed every loaded document in suite order, refuses
/// (with an error naming the first definition) a sample whose id was seen before.
#[derive(Debug, Default)]
pub struct UniqueIds {
    seen: HashMap<String, Location>,
}

impl UniqueIds {
    pub fn check(&mut self, mut loaded: Loaded) -> Loaded {
        if let Some(sample) = &loaded.sample {
            if let Some(duplicate) = self.first_use(&sample.id, &sample.origin) {
                loaded.problems.push(duplicate);
                loaded.sample = None;
            }
        }
        loaded
    }

    /// Note the id of a sample defined at `origin`; when it was seen before, the error that
    /// refuses this one.
    pub fn first_use(&mut self, id: &str, origin: &Location) -> Option<Problem> {
        if let Some(first) = self.seen.get(id) {
            let problem = Problem::new(
                origin.clone(),
                Some("id".to_string()),
                format!("duplicate sample id `{id}` (first defined at {first})"),
            )
            .with_hint("sample ids must be unique in the suite; rename one of them");
            return Some(problem);
        }
        self.seen.insert(id.to_string(), origin.clone());
        None
    }

    /// Whether a sample with this id was seen.
    pub fn contains(&self, id: &str) -> bool {
        self.seen.contains_key(id)
    }

    /// The ids seen, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.seen.keys().map(String::as_str)
    }
}
