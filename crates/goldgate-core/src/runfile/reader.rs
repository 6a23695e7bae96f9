//! Reading run files (`run.jsonl` records or `{"id", "output"}` lines) without holding their
//! answers in memory: a first pass indexes each line by sample id and repeat, and answers are
//! read back one sample at a time while the suite is scored. Every line is under
//! [`MAX_LINE_BYTES`] (the traces reader and `merge` share the cap and its problem).

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
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

/// At most this many problems of one kind are reported from a run file.
pub const MAX_PROBLEMS: usize = 50;

/// The longest line a run file may have: a record holds an answer of at most
/// `max_output_bytes` (16 MiB by default), its parsed prediction and its trace, well under
/// this. A longer line is refused (exit 2) without being held in memory.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// The problem of a run-file line of `length` bytes, over the `cap` of one record.
pub fn line_too_long(path: &Path, line: usize, length: u64, cap: u64) -> Problem {
    Problem::new(
        Location::new(path, line, 0),
        None,
        format!(
            "the line is {}, over the cap of {} for one record",
            crate::io::describe_bytes(length),
            crate::io::describe_bytes(cap)
        ),
    )
    .with_hint("a run record holds one answer (at most [pipeline] max_output_bytes); remove the line or run the pipeline again")
}

impl RunIndex {
    /// Index a run file. Every malformed line and every duplicate (sample, repeat) is reported.
    /// The file is read in blocks of whole lines; while one block's lines are parsed on every
    /// core, the next block is read.
    pub fn build(path: &Path) -> Result<RunIndex> {
        let file = File::open(path).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::build_from(path, Blocks::new(file))
    }

    fn build_from(path: &Path, mut blocks: Blocks) -> Result<RunIndex> {
        let cap = blocks.max_line;
        let read_error = |source| Error::Read {
            path: path.to_path_buf(),
            source,
        };
        let mut index = RunIndex {
            path: path.to_path_buf(),
            entries: HashMap::default(),
        };
        let mut problems = Vec::new();
        let mut line = 0usize;
        let mut current = blocks.next().map_err(read_error)?;
        while let Some(block) = current {
            let lines = block.lines(&mut line);
            let (headers, next) = rayon::join(
                || {
                    lines
                        .par_iter()
                        .map(|(bytes, entry)| header(&index.path, bytes, entry.line))
                        .collect::<Vec<_>>()
                },
                || blocks.next(),
            );
            for ((_, entry), header) in lines.into_iter().zip(headers) {
                if let Err(p) = header.and_then(|(id, repeat)| index.add(id, repeat, entry)) {
                    problems.push(p);
                }
            }
            if let Some(length) = block.too_long {
                line += 1;
                problems.push(line_too_long(path, line, length, cap as u64));
            }
            current = next.map_err(read_error)?;
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

/// Bytes read per block (a block is extended to the end of its last line).
const INDEX_BLOCK_BYTES: usize = 4 << 20;

/// A run file read in blocks of whole lines.
struct Blocks {
    file: File,
    /// The start of a line the last read cut off.
    carry: Vec<u8>,
    /// Where the next block starts in the file.
    offset: u64,
    /// Bytes read at a time, and the longest line held.
    read_bytes: usize,
    max_line: usize,
}

/// Whole lines of a run file, starting `offset` bytes into it, and the length of a line
/// over [`MAX_LINE_BYTES`] right after them, skipped unread.
struct Block {
    bytes: Vec<u8>,
    offset: u64,
    too_long: Option<u64>,
}

impl Blocks {
    fn new(file: File) -> Self {
        Blocks {
            file,
            carry: Vec::new(),
            offset: 0,
            read_bytes: INDEX_BLOCK_BYTES,
            max_line: MAX_LINE_BYTES,
        }
    }

    /// The next block; `None` at the end of the file. Only the file's last line may lack
    /// its newline.
    fn next(&mut self) -> std::io::Result<Option<Block>> {
        let mut bytes = std::mem::take(&mut self.carry);
        let mut searched = 0;
        loop {
            // Read into the vector's spare room, not a zero-filled block: a small file
            // costs its own size, not the block's.
            bytes.reserve(self.read_bytes);
            let read = (&mut self.file)
                .take(self.read_bytes as u64)
                .read_to_end(&mut bytes)?;
            if read == 0 {
                break; // the end of the file: the last line is whole as it is
            }
            if let Some(last) = memchr::memrchr(b'\n', &bytes[searched..]) {
                self.carry = bytes.split_off(searched + last + 1);
                break;
            }
            searched = bytes.len(); // one line longer than a block: read on
            if bytes.len() > self.max_line {
                // The buffer is one line (it starts a line and has no newline): skip it.
                let offset = self.offset;
                let length = self.skip_line(bytes.len() as u64)?;
                self.offset += length + 1;
                return Ok(Some(Block {
                    bytes: Vec::new(),
                    offset,
                    too_long: Some(length),
                }));
            }
        }
        if bytes.is_empty() {
            return Ok(None);
        }
        let offset = self.offset;
        self.offset += bytes.len() as u64;
        Ok(Some(Block {
            bytes,
            offset,
            too_long: None,
        }))
    }

    /// Read on to the end of a line of which `seen` bytes were read: its length (without
    /// the newline); what follows it is kept for the next block.
    fn skip_line(&mut self, seen: u64) -> std::io::Result<u64> {
        let mut length = seen;
        let mut buf = vec![0; self.read_bytes];
        loop {
            let read = match self.file.read(&mut buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => other?,
            };
            if read == 0 {
                return Ok(length);
            }
            match memchr::memchr(b'\n', &buf[..read]) {
                Some(i) => {
                    self.carry = buf[i + 1..read].to_vec();
                    return Ok(length + i as u64);
                }
                None => length += read as u64,
            }
        }
    }
}

impl Block {
    /// The block's non-blank lines with their entries; `line` counts every line (blank ones
    /// too) and is the number of the line before the block.
    fn lines(&self, line: &mut usize) -> Vec<(&[u8], Entry)> {
        let mut lines = Vec::new();
        let mut start = 0;
        while start < self.bytes.len() {
            let end = memchr::memchr(b'\n', &self.bytes[start..])
                .map_or(self.bytes.len(), |i| start + i + 1);
            let bytes = &self.bytes[start..end];
            *line += 1;
            if !bytes.iter().all(u8::is_ascii_whitespace) {
                let entry = Entry {
                    repeat: 0,
                    line: *line,
                    offset: self.offset + start as u64,
                    len: bytes.len(),
                };
                lines.push((bytes, entry));
            }
            start = end;
        }
        lines
    }
}

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
        // `from_utf8` checks a valid line much faster than `from_utf8_lossy` does, and valid
        // is the common case; the lossy reading is kept for the rest.
        let text = match std::str::from_utf8(&buf) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&buf),
        };
        // Fast path: a valid line deserializes straight into its record type.
        let is_record = text.contains("\"sample_id\"");
        if is_record {
            if let Ok(record) = serde_json::from_str::<RunRecord>(&text) {
                return checked(record, &text, entry.line, &self.path);
            }
        } else if let Ok(line) = serde_json::from_str::<OutputLine>(&text) {
            return Ok(Answer::from(line));
        }
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            Problem::new(
                Location::new(&self.path, entry.line, e.column()),
                None,
                explain_serde(&e.to_string()).0,
            )
        })?;
        if value.get("sample_id").is_some() {
            let record = decode::<RunRecord>(value, &text, entry.line, &self.path)?;
            checked(record, &text, entry.line, &self.path)
        } else {
            decode::<OutputLine>(value, &text, entry.line, &self.path).map(Answer::from)
        }
    }
}

/// A record's answer when every number it carries is in its range; else the first
/// impossible one (`latency_ms` 1e308, a negative cost, a token count past any call's) as a
/// problem at its field, never a number that reaches a metric.
fn checked(
    record: RunRecord,
    text: &str,
    line: usize,
    path: &Path,
) -> std::result::Result<Answer, Problem> {
    match super::numbers::record(&record) {
        None => Ok(Answer::from(record)),
        Some((pointer, why)) => {
            let at = json_positions(text).nearest(&pointer);
            let field = crate::document::field_of(&pointer);
            Err(
                Problem::new(Location::new(path, line, at.column), field, why)
                    .with_hint(NUMBERS_HINT),
            )
        }
    }
}

/// What a reader says of a record's impossible number.
pub const NUMBERS_HINT: &str = "a run record's latencies and costs are finite and not negative, its token counts whole numbers: correct or remove the record, or run the pipeline again";

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks end on whole lines: a line longer than a block, blank lines (counted, not
    /// indexed), a line split across two reads and a last line without its newline are all
    /// indexed at their line and read back whole.
    #[test]
    fn every_line_is_indexed_whole_across_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("outputs.jsonl");
        let long = "x".repeat(INDEX_BLOCK_BYTES + 1000);
        let mut text = String::from("\n{\"id\": \"a\", \"output\": \"first\"}\n");
        text.push_str(&format!("{{\"id\": \"b\", \"output\": \"{long}\"}}\n   \n"));
        // Pad so that a line straddles the end of the second block.
        let pad = "p".repeat(INDEX_BLOCK_BYTES - 500);
        text.push_str(&format!("{{\"id\": \"c\", \"output\": \"{pad}\"}}\n"));
        text.push_str("{\"id\": \"d\", \"repeat\": 2, \"output\": \"last\"}");
        std::fs::write(&path, &text).unwrap();

        let index = RunIndex::build(&path).unwrap();
        let reader = index.reader().unwrap();
        let read = |id: &str| {
            let entries = index.entries(id).unwrap();
            assert_eq!(entries.len(), 1, "{id}");
            (
                entries[0].line,
                entries[0].repeat,
                reader.read(&entries[0]).unwrap().text,
            )
        };
        assert_eq!(read("a"), (2, 0, "first".to_string()));
        assert_eq!(read("b"), (3, 0, long));
        assert_eq!(read("c"), (5, 0, pad));
        assert_eq!(read("d"), (6, 2, "last".to_string()));
        assert!(index.entries("e").is_none());
    }

    /// A line over the cap is refused at its line, never held whole in memory, and the
    /// lines after it are still read (a 300 MB line aborted `check --replay`).
    #[test]
    fn a_line_over_the_cap_is_refused_at_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        let huge = format!("{{\"id\": \"b\", \"output\": \"{}\"}}", "x".repeat(200));
        let text = format!("{{\"id\": \"a\", \"output\": \"1\"}}\n{huge}\n{{\"id\": \"c\", \"output\": \"2\"}}\n{{\"id\": \"c\", \"output\": \"3\"}}\n");
        std::fs::write(&path, &text).unwrap();
        let blocks = |read_bytes, max_line| Blocks {
            read_bytes,
            max_line,
            ..Blocks::new(File::open(&path).unwrap())
        };
        let Err(Error::Invalid { problems, .. }) = RunIndex::build_from(&path, blocks(16, 64))
        else {
            panic!("the long line is refused");
        };
        let said: Vec<(usize, String)> = problems
            .iter()
            .map(|p| (p.location.line, p.message.clone()))
            .collect();
        assert_eq!(said.len(), 2, "{said:?}");
        assert_eq!(said[0].0, 2);
        assert!(said[0].1.contains("over the cap of 64 bytes"), "{said:?}");
        // The lines after it were indexed where they are: the duplicate is on line 4.
        assert_eq!(said[1].0, 4, "{said:?}");
        assert!(
            RunIndex::build_from(&path, blocks(16, 4096)).is_err(),
            "the duplicate"
        );
    }

    /// Malformed lines are reported with their line numbers, in order, after every block.
    #[test]
    fn bad_lines_are_reported_at_their_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        let pad = "p".repeat(INDEX_BLOCK_BYTES);
        let text = format!(
            "{{\"id\": \"a\", \"output\": \"{pad}\"}}\nnot json\n{{\"output\": \"x\"}}\n{{\"id\": \"a\", \"output\": \"y\"}}\n"
        );
        std::fs::write(&path, text).unwrap();
        let Err(Error::Invalid { problems, .. }) = RunIndex::build(&path) else {
            panic!("the run file must be refused");
        };
        let lines: Vec<usize> = problems.iter().map(|p| p.location.line).collect();
        assert_eq!(lines, vec![2, 3, 4]);
        assert!(problems[2]
            .message
            .contains("duplicate answer for sample `a`"));
    }
}
