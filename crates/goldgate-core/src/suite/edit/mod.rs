//! Editing one sample inside its suite file, leaving every other byte as it was: an
//! annotator's entry of `annotations` replaced or added ([`upsert_annotation`]), a
//! top-level key such as the gold `labels` replaced or added ([`set_top_level`]). The
//! functions work on text and rewrite only the byte span of the edited value (found by a
//! string-aware scanner in JSON, by the positions of the crate's YAML parser and the
//! block layout in YAML); the new region is written in the file's own style
//! ([`emit`]). Every result is parsed again and must equal the sample with exactly that
//! change, or the edit is refused; what cannot be edited safely in place (flow-style
//! lists, anchors, tags, aliases on the edited node) is refused with a reason.
//!
//! A caller detects a sample changed on disk since it was read with [`fingerprint`]
//! (of the sample's document: the whole YAML/JSON file or the JSONL line) and
//! [`check_unchanged`]; [`edit_file`] reads, checks and edits, and [`Edited::write`] writes
//! the result atomically. Only a regular file inside the suite is read or written
//! ([`inside`], checked on every read and again right before the write): a sample file
//! replaced by a link out of the suite, a FIFO or a directory is refused, never followed.

mod emit;
mod json;
mod yaml;

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use super::files::{format_of, Format};
use crate::document::{parse_json, parse_yaml};
use crate::lockfile::{Attempt, LockFile};

/// Why an edit was refused; the file is left as it was.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The JSONL line does not exist or is blank.
    #[error("line {line} holds no sample")]
    NoLine { line: usize },
    /// The sample does not parse (line and column in the file).
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// The sample's top level is not a mapping of keys to values.
    #[error("the sample is not a mapping of keys to values")]
    NotMapping,
    /// `key` holds something other than a list (or null).
    #[error("`{key}` is not a list")]
    NotList { key: String },
    /// The annotation to write is not an object with a non-empty string `annotator`.
    #[error("the annotation needs a non-empty string `annotator`")]
    Annotation,
    /// The file uses something the editor does not rewrite in place (line in the file).
    #[error("line {line}: {reason}; edit this part of the file by hand")]
    Unsupported { line: usize, reason: String },
    /// The sample's fingerprint is not the one the caller read.
    #[error("the sample changed on disk since it was read")]
    Changed { expected: String, found: String },
    /// The edited text would not read back as exactly the asked change (a bug, caught).
    #[error("the edit would not read back as asked ({0}); the file was left as it was")]
    Verify(String),
    /// The sample file is no longer there.
    #[error("{} is gone", path.display())]
    Gone { path: PathBuf },
    /// Another process is saving the same file and did not finish in time.
    #[error("{}: another goldgate is saving this file", path.display())]
    Busy { path: PathBuf },
    /// The sample's path no longer names a regular file inside the suite (it was replaced
    /// by a link leading out of it, a FIFO, a directory …); nothing is read or written.
    #[error("{}: {reason}; goldgate reads and writes only regular files inside the suite", path.display())]
    NotInSuite { path: PathBuf, reason: String },
    /// Reading or writing the file failed.
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
}

pub type Result<T> = std::result::Result<T, EditError>;

/// The byte range of the sample's document in `text`: the whole text for YAML and JSON,
/// line `line` (1-based, without its line ending) for JSONL.
pub fn document_span(text: &str, format: Format, line: Option<usize>) -> Result<Range<usize>> {
    if format != Format::Jsonl {
        return Ok(0..text.len());
    }
    let wanted = line.unwrap_or(0);
    let mut start = 0;
    for (i, piece) in text.split_inclusive('\n').enumerate() {
        if i + 1 == wanted {
            let content = piece.strip_suffix('\n').unwrap_or(piece);
            let content = content.strip_suffix('\r').unwrap_or(content);
            if content.trim().is_empty() {
                break;
            }
            return Ok(start..start + content.len());
        }
        start += piece.len();
    }
    Err(EditError::NoLine { line: wanted })
}

/// The fingerprint of a sample's document text (`sha256:` and hex): what a caller keeps
/// when it reads a sample, to pass to [`check_unchanged`] before writing.
pub fn fingerprint(document: &str) -> String {
    crate::text::sha256(document.as_bytes())
}

/// [`EditError::Changed`] unless the sample's document in `text` has the fingerprint
/// `expected`.
pub fn check_unchanged(
    text: &str,
    format: Format,
    line: Option<usize>,
    expected: &str,
) -> Result<()> {
    let found = fingerprint(&text[document_span(text, format, line)?]);
    if found == expected {
        Ok(())
    } else {
        Err(EditError::Changed {
            expected: expected.to_string(),
            found,
        })
    }
}

/// Replace the element of the sample's top-level `annotations` list whose `annotator`
/// equals `annotation["annotator"]` with `annotation`, or append it (creating
/// `annotations` as the last top-level key when absent, or filling a null or empty one).
pub fn upsert_annotation(
    text: &str,
    format: Format,
    line: Option<usize>,
    annotation: &Value,
) -> Result<String> {
    let annotator = match annotation.get("annotator") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.as_str(),
        _ => return Err(EditError::Annotation),
    };
    edit(text, format, line, |doc, sample, backend| {
        let mut expected = sample.clone();
        let found = match sample.get("annotations") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) if items.is_empty() => None,
            Some(Value::Array(items)) => Some(items),
            Some(_) => {
                return Err(EditError::NotList {
                    key: "annotations".into(),
                })
            }
        };
        let edited = match found {
            None => {
                let list = Value::Array(vec![annotation.clone()]);
                expected.insert("annotations".into(), list.clone());
                backend.set(doc, sample, "annotations", &list)?
            }
            Some(items) => {
                let list = expected["annotations"].as_array_mut().expect("a list");
                match items
                    .iter()
                    .position(|item| item.get("annotator") == Some(&Value::from(annotator)))
                {
                    Some(i) => {
                        list[i] = annotation.clone();
                        backend.replace_item(doc, sample, "annotations", i, annotation)?
                    }
                    None => {
                        list.push(annotation.clone());
                        backend.append_item(doc, sample, "annotations", annotation)?
                    }
                }
            }
        };
        Ok((edited, expected))
    })
}

/// Replace the value of the sample's top-level `key` with `value`, or append the key as
/// the last top-level key when absent (promoting labels to the gold `labels`).
pub fn set_top_level(
    text: &str,
    format: Format,
    line: Option<usize>,
    key: &str,
    value: &Value,
) -> Result<String> {
    edit(text, format, line, |doc, sample, backend| {
        let mut expected = sample.clone();
        expected.insert(key.to_string(), value.clone());
        Ok((backend.set(doc, sample, key, value)?, expected))
    })
}

/// A file's new text after an edit, not yet written: [`Edited::document`] is the edited
/// sample's document, for checking it before [`Edited::write`].
#[derive(Debug)]
pub struct Edited {
    /// The file written: the sample file, or the file a link inside the suite points at
    /// (the link stays a link); canonical.
    path: PathBuf,
    /// The suite directory the file must still be inside when it is written.
    suite: PathBuf,
    text: String,
    span: Range<usize>,
    /// The file's permissions, given back to the new file.
    permissions: std::fs::Permissions,
    /// Held from the read to the rename, so two processes saving one file take turns.
    _lock: LockFile,
}

impl Edited {
    /// The whole file's new text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The edited sample's document (the file, or its JSONL line).
    pub fn document(&self) -> &str {
        &self.text[self.span.clone()]
    }

    /// Write the file atomically; returns the edited sample's new fingerprint. Right
    /// before, the file is checked again to be the same regular file inside the suite (a
    /// link swapped in since it was read is refused; the rename replaces the path itself and
    /// never writes through a link).
    pub fn write(self) -> Result<String> {
        let io = |e: String| EditError::Io {
            path: self.path.clone(),
            message: e,
        };
        if inside(&self.suite, &self.path)? != self.path {
            return Err(EditError::NotInSuite {
                path: self.path.clone(),
                reason: "it (or a directory on its way) was replaced since it was read".into(),
            });
        }
        crate::io::write_atomic(&self.path, |w| w.write_all(self.text.as_bytes()))
            .map_err(|e| io(e.to_string()))?;
        // On the file just written, opened without following a link: a link swapped in
        // since the rename is never changed through.
        open_nofollow(&self.path)
            .and_then(|file| file.set_permissions(self.permissions.clone()))
            .map_err(|e| io(e.to_string()))?;
        Ok(fingerprint(self.document()))
    }
}

/// Read `path` (a sample file of the suite directory `suite`), check the sample's
/// fingerprint against `expected` (when given) and apply `change` to the text; nothing is
/// written yet. Two goldgate processes editing one file take turns: a lock file beside it
/// is held from the read until the [`Edited`] is written or dropped (an editor that
/// ignores the lock and writes in that moment is not detected).
pub fn edit_file(
    suite: &Path,
    path: &Path,
    line: Option<usize>,
    expected: Option<&str>,
    change: impl FnOnce(&str, Format, Option<usize>) -> Result<String>,
) -> Result<Edited> {
    let io = |message: String| EditError::Io {
        path: path.to_path_buf(),
        message,
    };
    let format = super::files::format_of(path)
        .ok_or_else(|| io("not a sample file (.yaml, .yml, .json or .jsonl)".into()))?;
    let target = inside(suite, path)?;
    let lock = match LockFile::take_within(&lock_path(&target), LOCK_WAIT) {
        Ok(Attempt::Taken(lock)) => lock,
        Ok(Attempt::Held(_)) => return Err(EditError::Busy { path: target }),
        Err(e) => return Err(io(e.to_string())),
    };
    let (text, permissions) = read_regular(path, &target)?;
    if let Some(expected) = expected {
        check_unchanged(&text, format, line, expected)?;
    }
    let edited = change(&text, format, line)?;
    let span = document_span(&edited, format, line)?;
    Ok(Edited {
        path: target,
        suite: suite.to_path_buf(),
        text: edited,
        span,
        permissions,
        _lock: lock,
    })
}

/// The file the sample path `path` names, canonical, when it is a regular file inside the
/// suite directory `suite` (a link inside the suite is followed); anything else — a link
/// leading out of the suite, a FIFO, a device, a directory — is refused.
pub fn inside(suite: &Path, path: &Path) -> Result<PathBuf> {
    let io = |e: std::io::Error| EditError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let target = std::fs::canonicalize(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => EditError::Gone {
            path: path.to_path_buf(),
        },
        _ => io(e),
    })?;
    let root = std::fs::canonicalize(suite).map_err(io)?;
    let refused = |reason: String| EditError::NotInSuite {
        path: path.to_path_buf(),
        reason,
    };
    if !target.starts_with(&root) {
        return Err(refused(format!(
            "it now leads to {}, outside the suite",
            target.display()
        )));
    }
    let meta = std::fs::symlink_metadata(&target).map_err(io)?;
    if !meta.is_file() {
        return Err(refused("it is no longer a regular file".into()));
    }
    Ok(target)
}

/// The text of sample file `path` of the suite directory `suite`, read only when it is a
/// regular file inside the suite (see [`inside`]).
pub fn read_inside(suite: &Path, path: &Path) -> Result<String> {
    let target = inside(suite, path)?;
    Ok(read_regular(path, &target)?.0)
}

/// Open `path` for reading without following a link at its last component or blocking on
/// a FIFO.
fn open_nofollow(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Read `target` (a canonical path [`inside`] accepted for `path`) and its permissions,
/// without following a link swapped in since (`O_NOFOLLOW`) or blocking on a FIFO, and
/// only when what was opened is a regular file.
fn read_regular(path: &Path, target: &Path) -> Result<(String, std::fs::Permissions)> {
    use std::io::Read;
    let io = |e: std::io::Error| EditError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut file = open_nofollow(target).map_err(|e| match e.raw_os_error() {
        #[cfg(unix)]
        Some(libc::ELOOP) => EditError::NotInSuite {
            path: path.to_path_buf(),
            reason: "it was replaced by a link".into(),
        },
        _ => io(e),
    })?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(EditError::NotInSuite {
            path: path.to_path_buf(),
            reason: "it is no longer a regular file".into(),
        });
    }
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(io)?;
    Ok((text, meta.permissions()))
}

/// How long a save waits for another process's save of the same file.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The lock file of a sample file (`ext-001.yaml` → `ext-001.yaml.goldgate-lock`): not a
/// sample file, so the suite never reads it.
fn lock_path(file: &Path) -> PathBuf {
    crate::io::with_suffix(file, ".goldgate-lock")
}

/// The text edits one format knows how to make in a sample document.
trait Backend {
    /// Replace `key`'s value, or append the key last.
    fn set(&self, doc: &str, sample: &Map, key: &str, value: &Value) -> Result<String>;
    /// Replace item `index` of the non-empty list under `key`.
    fn replace_item(
        &self,
        doc: &str,
        sample: &Map,
        key: &str,
        index: usize,
        value: &Value,
    ) -> Result<String>;
    /// Append an item to the non-empty list under `key`.
    fn append_item(&self, doc: &str, sample: &Map, key: &str, value: &Value) -> Result<String>;
}

type Map = serde_json::Map<String, Value>;

/// Parse the sample, make the change, check that the result reads back as the expected
/// sample, and splice it into the file's text.
fn edit(
    text: &str,
    format: Format,
    line: Option<usize>,
    change: impl FnOnce(&str, &Map, &dyn Backend) -> Result<(String, Map)>,
) -> Result<String> {
    let span = document_span(text, format, line)?;
    let doc = &text[span.clone()];
    let first_line = line.unwrap_or(1);
    let Value::Object(sample) = parse(doc, format, first_line)? else {
        return Err(EditError::NotMapping);
    };
    let backend: &dyn Backend = match format {
        Format::Yaml => &yaml::Yaml { first_line },
        Format::Json => &json::Json { compact: false },
        Format::Jsonl => &json::Json { compact: true },
    };
    let (edited, expected) = change(doc, &sample, backend)?;
    if format == Format::Jsonl && edited.contains('\n') {
        return Err(EditError::Verify(
            "a JSONL sample must stay on one line".into(),
        ));
    }
    match parse(&edited, format, first_line) {
        Ok(Value::Object(got)) if got == expected => {}
        Ok(_) => {
            return Err(EditError::Verify(
                "the result differs from the sample with the change".into(),
            ))
        }
        Err(e) => return Err(EditError::Verify(format!("the result does not parse: {e}"))),
    }
    let mut out = String::with_capacity(text.len() + edited.len() - doc.len().min(edited.len()));
    out.push_str(&text[..span.start]);
    out.push_str(&edited);
    out.push_str(&text[span.end..]);
    Ok(out)
}

fn parse(doc: &str, format: Format, first_line: usize) -> Result<Value> {
    let parsed = match format {
        Format::Yaml => parse_yaml(doc),
        _ => parse_json(doc),
    };
    parsed
        .map(|document| document.value)
        .map_err(|e| EditError::Syntax {
            line: first_line + e.position.line - 1,
            column: e.position.column,
            message: e.message,
        })
}

#[cfg(test)]
mod roundtrip_tests;
#[cfg(test)]
mod tests;
