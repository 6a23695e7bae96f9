//! Finding and reading suite files. A suite is a directory: every `*.yaml`, `*.yml` and
//! `*.json` file below it holds one sample, every `*.jsonl` file one sample per line, and an
//! optional `suite.toml` at its root names the suite. Samples are read one at a time (a
//! [`SuiteReader`] is an iterator), so memory does not grow with the suite.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::validate::{self, Loaded};
use crate::document::{self, Document, Positions};
use crate::error::{Error, Location, Problem, Result};

/// `suite.toml` at the root of a suite.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteConfig {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default = "default_protocol_version")]
    pub protocol_version: String,
    #[serde(default)]
    pub description: Option<String>,
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
        }
    }
}

/// An opened suite: its root, config and sample files in a stable order.
#[derive(Clone, Debug)]
pub struct Suite {
    pub root: PathBuf,
    pub config: SuiteConfig,
    files: Vec<PathBuf>,
}

impl Suite {
    /// Open a suite directory: read `suite.toml` if present and list the sample files.
    pub fn open(root: &Path) -> Result<Suite> {
        if !root.is_dir() {
            return Err(Error::usage(
                format!("suite directory {} does not exist", root.display()),
                "pass the directory that holds your gold samples (*.yaml, *.json, *.jsonl)",
            ));
        }
        let config = read_suite_toml(&root.join("suite.toml"))?;
        let mut files = Vec::new();
        collect_files(root, &mut files)?;
        files.sort();
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
        })
    }

    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// Read the samples one at a time.
    pub fn reader(&self) -> SuiteReader<'_> {
        SuiteReader {
            suite: self,
            next_file: 0,
            lines: None,
            seen: HashMap::new(),
            hasher: Sha256::new(),
        }
    }
}

fn read_suite_toml(path: &Path) -> Result<SuiteConfig> {
    if !path.exists() {
        return Ok(SuiteConfig::default());
    }
    let text = crate::io::read(path)?;
    toml::from_str(&text).map_err(|e| {
        let line = e.span().map_or(0, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        });
        let problem = Problem::new(Location::new(path, line, 0), None, e.message().to_string())
            .with_hint("suite.toml knows `name`, `protocol_version` and `description`");
        Error::invalid("suite.toml", problem)
    })
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| Error::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if hidden {
            continue;
        }
        if path.is_dir() {
            collect_files(&path, out)?;
        } else if format_of(&path).is_some() {
            out.push(path);
        }
    }
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Yaml,
    Json,
    Jsonl,
}

fn format_of(path: &Path) -> Option<Format> {
    match path.extension()?.to_str()? {
        "yaml" | "yml" => Some(Format::Yaml),
        "json" => Some(Format::Json),
        "jsonl" => Some(Format::Jsonl),
        _ => None,
    }
}

struct JsonlLines {
    path: PathBuf,
    reader: BufReader<File>,
    line: usize,
}

/// Iterator over the documents of a suite, in file order. Also checks that sample ids are
/// unique and fingerprints what it read.
pub struct SuiteReader<'a> {
    suite: &'a Suite,
    next_file: usize,
    lines: Option<JsonlLines>,
    seen: HashMap<String, Location>,
    hasher: Sha256,
}

impl SuiteReader<'_> {
    /// SHA-256 over the relative path and bytes of every file read so far (the suite
    /// fingerprint once the iterator is exhausted).
    pub fn fingerprint(&self) -> String {
        hex(&self.hasher.clone().finalize())
    }

    fn hash_file_name(&mut self, path: &Path) {
        let relative = path.strip_prefix(&self.suite.root).unwrap_or(path);
        self.hasher.update(relative.to_string_lossy().as_bytes());
        self.hasher.update([0u8]);
    }

    fn next_jsonl_line(&mut self) -> Option<Loaded> {
        let lines = self.lines.as_mut()?;
        let mut buf = String::new();
        loop {
            buf.clear();
            lines.line += 1;
            match lines.reader.read_line(&mut buf) {
                Ok(0) => {
                    self.lines = None;
                    return None;
                }
                Ok(_) => {
                    self.hasher.update(buf.as_bytes());
                    if !buf.trim().is_empty() {
                        let (path, line) = (lines.path.clone(), lines.line);
                        return Some(self.load_jsonl_line(&path, line, &buf));
                    }
                }
                Err(e) => {
                    let problem = Problem::new(
                        Location::new(&lines.path, lines.line, 0),
                        None,
                        format!("cannot read line: {e}"),
                    )
                    .with_hint("suite files must be UTF-8 text");
                    self.lines = None;
                    return Some(Loaded {
                        sample: None,
                        problems: vec![problem],
                    });
                }
            }
        }
    }

    fn load_jsonl_line(&mut self, path: &Path, line: usize, text: &str) -> Loaded {
        let positions = || {
            let mut positions = document::json_positions(text);
            positions.offset_lines(line - 1);
            positions
        };
        // Fast path: a valid line deserializes straight into the typed sample.
        if let Ok(raw) = serde_json::from_str(text) {
            let loaded = validate::check_typed(path, Location::new(path, line, 1), raw, positions);
            return self.check_unique(loaded);
        }
        // Slow path: locate every problem (duplicate keys are errors here, as in .json files).
        match document::parse_json(text) {
            Ok(Document {
                value,
                mut positions,
            }) => {
                positions.offset_lines(line - 1);
                self.check(path, Location::new(path, line, 1), value, move || positions)
            }
            Err(e) => syntax_problem(
                path,
                line + e.position.line - 1,
                e.position.column,
                &e.message,
            ),
        }
    }

    fn load_file(&mut self, path: &Path, format: Format) -> Loaded {
        let text = match crate::io::read(path) {
            Ok(t) => t,
            Err(e) => {
                let problem = Problem::new(Location::file(path), None, e.to_string())
                    .with_hint("suite files must be readable UTF-8 text");
                return Loaded {
                    sample: None,
                    problems: vec![problem],
                };
            }
        };
        self.hasher.update(text.as_bytes());
        let parsed = match format {
            Format::Yaml => document::parse_yaml(&text),
            _ => document::parse_json(&text),
        };
        match parsed {
            Ok(Document { value, positions }) => {
                let at = positions.nearest("/id");
                let origin = Location::new(path, at.line, at.column);
                self.check(path, origin, value, move || positions)
            }
            Err(e) => syntax_problem(path, e.position.line, e.position.column, &e.message),
        }
    }

    fn check(
        &mut self,
        path: &Path,
        origin: Location,
        value: serde_json::Value,
        positions: impl FnOnce() -> Positions,
    ) -> Loaded {
        let loaded = validate::check_document(path, origin, value, positions);
        self.check_unique(loaded)
    }

    /// Sample ids are unique across the suite.
    fn check_unique(&mut self, mut loaded: Loaded) -> Loaded {
        if let Some(sample) = &loaded.sample {
            if let Some(first) = self.seen.get(&sample.id) {
                let problem = Problem::new(
                    sample.origin.clone(),
                    Some("id".to_string()),
                    format!(
                        "duplicate sample id `{}` (first defined at {first})",
                        sample.id
                    ),
                )
                .with_hint("sample ids must be unique in the suite; rename one of them");
                loaded.problems.push(problem);
                loaded.sample = None;
            } else {
                self.seen.insert(sample.id.clone(), sample.origin.clone());
            }
        }
        loaded
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

impl Iterator for SuiteReader<'_> {
    type Item = Loaded;

    fn next(&mut self) -> Option<Loaded> {
        loop {
            if let Some(loaded) = self.next_jsonl_line() {
                return Some(loaded);
            }
            let path = self.suite.files.get(self.next_file)?.clone();
            self.next_file += 1;
            self.hash_file_name(&path);
            match format_of(&path) {
                Some(Format::Jsonl) => match File::open(&path) {
                    Ok(file) => {
                        self.lines = Some(JsonlLines {
                            path,
                            reader: BufReader::new(file),
                            line: 0,
                        })
                    }
                    Err(e) => {
                        let problem = Problem::new(Location::file(&path), None, e.to_string());
                        return Some(Loaded {
                            sample: None,
                            problems: vec![problem],
                        });
                    }
                },
                Some(format) => return Some(self.load_file(&path, format)),
                None => {}
            }
        }
    }
}

/// Lower-case hex of a digest.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
