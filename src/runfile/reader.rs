//! Reading run files (`run.jsonl` records or `{"id", "output"}` lines) without holding their
//! answers in memory: a first pass indexes each line by sample id and repeat, and answers are
//! read back one sample at a time while the suite is scored.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::record::{Answer, OutputLine, RunRecord};
use crate::document::json_positions;
use crate::error::{Error, Location, Problem, Result};
use crate::text::explain_serde;

/// Where one answer stands in the run file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub repeat: u32,
    pub line: usize,
    offset: u64,
    len: usize,
}

/// The first pass over a run file.
#[derive(Debug)]
pub struct RunIndex {
    path: PathBuf,
    /// Each sample's entries, sorted by repeat once the index is built.
    entries: HashMap<String, Vec<Entry>>,
}

/// Just enough of a line to index it.
#[derive(Deserialize)]
struct Header {
    sample_id: Option<String>,
    id: Option<String>,
    #[serde(default)]
    repeat: Option<u32>,
}

const MAX_PROBLEMS: usize = 50;

impl RunIndex {
    /// Index a run file. Every malformed line and every duplicate (sample, repeat) is reported.
    /// Lines are read in blocks; each block's lines are parsed on every core.
    pub fn build(path: &Path) -> Result<RunIndex> {
        let file = File::open(path).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let mut index = RunIndex {
            path: path.to_path_buf(),
            entries: HashMap::new(),
        };
        let mut problems = Vec::new();
        let (mut offset, mut line) = (0u64, 0usize);
        loop {
            let mut block = Vec::new();
            let mut bytes = 0;
            while block.len() < INDEX_BLOCK_LINES && bytes < INDEX_BLOCK_BYTES {
                let mut buf = Vec::new();
                let len = reader
                    .read_until(b'\n', &mut buf)
                    .map_err(|source| Error::Read {
                        path: path.to_path_buf(),
                        source,
                    })?;
                if len == 0 {
                    break;
                }
                line += 1;
                bytes += len;
                let entry = Entry {
                    repeat: 0,
                    line,
                    offset,
                    len,
                };
                offset += len as u64;
                if !buf.iter().all(u8::is_ascii_whitespace) {
                    block.push((buf, entry));
                }
            }
            if block.is_empty() {
                break;
            }
            let headers: Vec<_> = block
                .par_iter()
                .map(|(bytes, entry)| header(&index.path, bytes, entry.line))
                .collect();
            for ((_, entry), header) in block.into_iter().zip(headers) {
                if let Err(p) = header.and_then(|(id, repeat)| index.add(id, repeat, entry)) {
                    problems.push(p);
                }
            }
        }
        for entries in index.entries.values_mut() {
            entries.sort_by_key(|e| e.repeat);
        }
        if !problems.is_empty() {
            problems.truncate(MAX_PROBLEMS);
            return Err(Error::Invalid {
                what: "run file",
                problems,
            });
        }
        Ok(index)
    }

    fn add(
        &mut self,
        id: String,
        repeat: u32,
        mut entry: Entry,
    ) -> std::result::Result<(), Problem> {
        entry.repeat = repeat;
        let Some(entries) = self.entries.get_mut(&id) else {
            self.entries.insert(id, vec![entry]);
            return Ok(());
        };
        if let Some(first) = entries.iter().find(|e| e.repeat == repeat) {
            return Err(Problem::new(Location::new(&self.path, entry.line, 0), Some("sample_id".into()), format!("duplicate answer for sample `{id}` repeat {repeat} (first on line {})", first.line))
                .with_hint("merge shard files with `goldgate merge`, which refuses duplicates, or remove one line"));
        }
        entries.push(entry);
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Take the entries of one sample (sorted by repeat); `None` when it has no answer.
    pub fn take(&mut self, id: &str) -> Option<Vec<Entry>> {
        self.entries.remove(id)
    }

    /// The entries of one sample (sorted by repeat), leaving them in the index; `None` when
    /// it has no answer.
    pub fn entries(&self, id: &str) -> Option<&[Entry]> {
        self.entries.get(id).map(Vec::as_slice)
    }

    /// Every sample's entries (sorted by repeat), emptying the index.
    pub fn drain(&mut self) -> Vec<(String, Vec<Entry>)> {
        let mut all: Vec<(String, Vec<Entry>)> = self.entries.drain().collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// Ids left after every suite sample took its entries: answers for unknown samples.
    pub fn leftover(&self) -> Vec<(&str, usize)> {
        let mut left: Vec<(&str, usize)> = self
            .entries
            .iter()
            .map(|(id, e)| (id.as_str(), e.iter().map(|e| e.line).min().unwrap_or(0)))
            .collect();
        left.sort_by_key(|(_, line)| *line);
        left
    }

    /// Open the file for reading answers back.
    pub fn reader(&self) -> Result<AnswerReader> {
        let file = File::open(&self.path).map_err(|source| Error::Read {
            path: self.path.clone(),
            source,
        })?;
        Ok(AnswerReader {
            path: self.path.clone(),
            file,
        })
    }
}

/// Lines indexed per block (each block's lines are parsed in parallel).
const INDEX_BLOCK_LINES: usize = 4096;
/// At most this many bytes of lines per block.
const INDEX_BLOCK_BYTES: usize = 8 << 20;

/// The sample id and repeat of one run-file line.
fn header(path: &Path, bytes: &[u8], line: usize) -> std::result::Result<(String, u32), Problem> {
    let at = |column| Location::new(path, line, column);
    let header: Header = serde_json::from_slice(bytes).map_err(|e| {
        let column = if e.line() == 1 { e.column() } else { 0 };
        Problem::new(at(column), None, format!("not a JSON record: {}", explain_serde(&e.to_string()).0))
            .with_hint("each line of a run file is one JSON record (goldgate run) or {\"id\": ..., \"output\": ...}")
    })?;
    let id = header.sample_id.or(header.id).ok_or_else(|| {
        Problem::new(at(0), None, "line has neither `sample_id` nor `id`").with_hint(
            "records of goldgate run have `sample_id`; outputs files have `id` and `output`",
        )
    })?;
    Ok((id, header.repeat.unwrap_or(0)))
}

/// Reads indexed answers back; threads can share one.
pub struct AnswerReader {
    path: PathBuf,
    file: File,
}

impl AnswerReader {
    /// Read and check one answer.
    pub fn read(&self, entry: &Entry) -> std::result::Result<Answer, Problem> {
        let mut buf = vec![0u8; entry.len];
        let io = crate::io::read_exact_at(&self.file, &mut buf, entry.offset);
        let location = Location::new(&self.path, entry.line, 0);
        io.map_err(|e| Problem::new(location.clone(), None, format!("cannot read line: {e}")))?;
        let text = String::from_utf8_lossy(&buf);
        // Fast path: a valid line deserializes straight into its record type.
        let is_record = text.contains("\"sample_id\"");
        let fast = if is_record {
            serde_json::from_str::<RunRecord>(&text).map(Answer::from)
        } else {
            serde_json::from_str::<OutputLine>(&text).map(Answer::from)
        };
        if let Ok(answer) = fast {
            return Ok(answer);
        }
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            Problem::new(
                Location::new(&self.path, entry.line, e.column()),
                None,
                explain_serde(&e.to_string()).0,
            )
        })?;
        if value.get("sample_id").is_some() {
            decode::<RunRecord>(value, &text, entry.line, &self.path).map(Answer::from)
        } else {
            decode::<OutputLine>(value, &text, entry.line, &self.path).map(Answer::from)
        }
    }
}

fn decode<T: DeserializeOwned>(
    value: serde_json::Value,
    text: &str,
    line: usize,
    path: &Path,
) -> std::result::Result<T, Problem> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let pointer = crate::document::pointer_of(e.path());
        let at = json_positions(text).nearest(&pointer);
        let field = crate::document::field_of(&pointer);
        let (message, hint) = explain_serde(&e.into_inner().to_string());
        let hint = hint.unwrap_or_else(|| "docs/suites.md (\"Run files read by goldgate score\") lists the run record's fields".to_string());
        Problem::new(Location::new(path, line, at.column), field, message).with_hint(hint)
    })
}

/// The answer texts (repeat 0) of the given samples in a run file; samples it lacks, or
/// whose record cannot be read, are left out.
pub fn answer_texts(
    run: &Path,
    ids: &std::collections::HashSet<&str>,
) -> Result<HashMap<String, String>> {
    let mut index = RunIndex::build(run)?;
    let reader = index.reader()?;
    let mut out = HashMap::new();
    for &id in ids {
        if let Some(entry) = index.take(id).and_then(|e| e.into_iter().next()) {
            if let Ok(answer) = reader.read(&entry) {
                out.insert(id.to_string(), answer.text);
            }
        }
    }
    Ok(out)
}
