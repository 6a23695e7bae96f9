//! JSON → value with positions: serde_json for the value, duplicate keys refused, syntax
//! errors mapped to a line and column, and [`json_positions`], a fast scanner that indexes
//! the positions of a JSON text only when an error needs one.

use std::collections::HashMap;

use serde_json::Value;

use super::positions::{clamp, Positions, Segment, NO_PARENT};
use super::{Document, Position, SyntaxError, MAX_DEPTH};

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------

/// Parse one JSON document: the value via serde_json (its errors mapped to SyntaxError with
/// line/column in chars), positions via [`json_positions`]' scanner, which also rejects
/// duplicate keys.
pub fn parse_json(text: &str) -> Result<Document, SyntaxError> {
    let value = serde_json::from_str::<Value>(text).map_err(|e| json_error(text, &e))?;
    let mut scanner = JsonScanner::new(text, true);
    scanner.run();
    if let Some(error) = scanner.duplicate {
        return Err(error);
    }
    Ok(Document {
        value,
        positions: scanner.out,
    })
}

/// Only the positions of a JSON text (used lazily: JSONL lines are parsed with serde_json
/// directly for speed, and positions are computed only when an error needs a location). Never
/// panics; on malformed input returns whatever it recorded so far.
pub fn json_positions(text: &str) -> Positions {
    let mut scanner = JsonScanner::new(text, false);
    scanner.run();
    scanner.out
}

/// serde_json reports 1-based lines and 1-based columns in bytes (column 0 when the error is
/// the newline ending the previous line); convert to columns in chars.
fn json_error(text: &str, error: &serde_json::Error) -> SyntaxError {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = message.strip_suffix(&suffix).unwrap_or(&message);
    let (mut line, mut byte_column) = (error.line().max(1), error.column());
    let mut line_text = text.split('\n').nth(line - 1).unwrap_or("");
    if byte_column == 0 && line > 1 {
        line -= 1;
        line_text = text.split('\n').nth(line - 1).unwrap_or("");
        byte_column = line_text.len() + 1;
    }
    let column = line_text
        .char_indices()
        .take_while(|&(i, _)| i < byte_column)
        .count();
    let column = column + usize::from(byte_column > line_text.len());
    SyntaxError::new(
        Position {
            line,
            column: column.max(1),
        },
        message,
    )
}

/// One open container of the JSON scanner.
struct Frame {
    /// The container's entry; `None` when it was not recorded (then neither are its children).
    id: Option<u32>,
    is_object: bool,
    expect_key: bool,
    next_index: usize,
    /// The key read for the next value: its segment and position.
    key: Option<(Segment, Position)>,
    /// Keys seen so far, when checking duplicates.
    seen: Option<HashMap<String, Position>>,
}

/// Single left-to-right pass over the bytes of a JSON text. Lines are counted as newlines go
/// by; columns are counted in chars, lazily, from the last recorded position on the same line.
struct JsonScanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: usize,
    /// Byte offset and 1-based column of a known point on the current line.
    mark_byte: usize,
    mark_column: usize,
    frames: Vec<Frame>,
    /// Containers opened beyond [`MAX_DEPTH`], not recorded.
    too_deep: usize,
    check_duplicates: bool,
    duplicate: Option<SyntaxError>,
    out: Positions,
}

impl<'a> JsonScanner<'a> {
    fn new(text: &'a str, check_duplicates: bool) -> Self {
        JsonScanner {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            line: 1,
            mark_byte: 0,
            mark_column: 1,
            frames: Vec::new(),
            too_deep: 0,
            check_duplicates,
            duplicate: None,
            out: Positions::default(),
        }
    }

    fn run(&mut self) {
        while let Some(&byte) = self.bytes.get(self.pos) {
            match byte {
                b'\n' => {
                    self.newline(self.pos);
                    self.pos += 1;
                }
                b' ' | b'\t' | b'\r' | b':' => self.pos += 1,
                b'{' | b'[' => self.open(byte == b'{'),
                b'}' | b']' => self.close(),
                b',' => self.comma(),
                b'"' => self.string(),
                _ => self.literal(),
            }
            if self.duplicate.is_some() {
                return;
            }
        }
    }

    fn newline(&mut self, at: usize) {
        self.line += 1;
        self.mark_byte = at + 1;
        self.mark_column = 1;
    }

    /// Position of byte `at`, which lies on the current line at or after the mark.
    fn position(&mut self, at: usize) -> Position {
        let skipped = self.bytes.get(self.mark_byte..at).unwrap_or_default();
        let chars = skipped.iter().filter(|&&b| (b as i8) >= -0x40).count();
        self.mark_column += chars;
        self.mark_byte = at;
        Position {
            line: self.line,
            column: self.mark_column,
        }
    }

    fn open(&mut self, is_object: bool) {
        let at = self.pos;
        self.pos += 1;
        if self.too_deep > 0 || self.frames.len() >= MAX_DEPTH {
            self.too_deep += 1;
            return;
        }
        let position = self.position(at);
        let id = self.begin_value(position);
        self.frames.push(Frame {
            id,
            is_object,
            expect_key: is_object,
            next_index: 0,
            key: None,
            seen: (is_object && self.check_duplicates).then(HashMap::new),
        });
    }

    fn close(&mut self) {
        self.pos += 1;
        if self.too_deep > 0 {
            self.too_deep -= 1;
        } else {
            self.frames.pop();
        }
    }

    fn comma(&mut self) {
        self.pos += 1;
        if self.too_deep > 0 {
            return;
        }
        if let Some(frame) = self.frames.last_mut() {
            frame.expect_key = frame.is_object;
        }
    }

    /// Records a value starting at `position` under the current container; returns its id.
    fn begin_value(&mut self, position: Position) -> Option<u32> {
        let (parent, segment, key) = match self.frames.last_mut() {
            None => (NO_PARENT, Segment::Root, None),
            Some(frame) if frame.is_object => {
                let (segment, key) = frame.key.take()?;
                (frame.id?, segment, Some(key))
            }
            Some(frame) => {
                let index = frame.next_index;
                frame.next_index += 1;
                (frame.id?, Segment::Index(clamp(index)), None)
            }
        };
        Some(self.out.push(parent, segment, position, key))
    }

    fn string(&mut self) {
        let start = self.pos;
        let position = (self.too_deep == 0).then(|| self.position(start));
        let (end, escaped) = self.skip_string();
        self.pos = end.saturating_add(1);
        let Some(position) = position else {
            return;
        };
        if self
            .frames
            .last()
            .is_some_and(|f| f.is_object && f.expect_key)
        {
            self.key(start, end, escaped, position);
        } else {
            self.begin_value(position);
        }
    }

    /// Skips a string starting at `self.pos`; returns the index of its closing quote (or the
    /// text's length) and whether it holds escapes.
    fn skip_string(&mut self) -> (usize, bool) {
        let mut i = self.pos + 1;
        let mut escaped = false;
        while let Some(&byte) = self.bytes.get(i) {
            match byte {
                b'"' => return (i, escaped),
                b'\\' => {
                    escaped = true;
                    i += if self.bytes.get(i + 1) == Some(&b'\n') {
                        1
                    } else {
                        2
                    };
                }
                b'\n' => {
                    self.newline(i);
                    i += 1;
                }
                _ => i += 1,
            }
        }
        (self.bytes.len(), escaped)
    }

    /// Handles an object key spanning `start..=end` (its quotes).
    fn key(&mut self, start: usize, end: usize, escaped: bool, position: Position) {
        let raw = self.text.get(start + 1..end).unwrap_or_default();
        let decoded = escaped
            .then(|| self.text.get(start..=end))
            .flatten()
            .and_then(|quoted| serde_json::from_str::<String>(quoted).ok());
        let name = decoded.as_deref().unwrap_or(raw);
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        if let Some(seen) = &mut frame.seen {
            if let Some(&first) = seen.get(name) {
                self.duplicate = Some(SyntaxError::duplicate_key(name, first, position));
                return;
            }
            seen.insert(name.to_owned(), position);
        }
        frame.expect_key = false;
        if frame.id.is_some() {
            frame.key = Some((self.out.push_name(name), position));
        }
    }

    /// Numbers, `true`, `false`, `null` and any garbage: up to the next delimiter.
    fn literal(&mut self) {
        let start = self.pos;
        let mut i = start + 1;
        while let Some(&byte) = self.bytes.get(i) {
            if matches!(
                byte,
                b' ' | b'\t' | b'\r' | b'\n' | b',' | b':' | b'{' | b'}' | b'[' | b']' | b'"'
            ) {
                break;
            }
            i += 1;
        }
        self.pos = i;
        if self.too_deep == 0 {
            let position = self.position(start);
            self.begin_value(position);
        }
    }
}
