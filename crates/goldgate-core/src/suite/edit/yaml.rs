//! Edits in a YAML sample file: top-level keys are found by the positions of the crate's
//! YAML parser (they must stand at column 1 of a block mapping); a key's value runs to the
//! last content line before the next key (trailing blank and comment lines stay where
//! they are); the items of a block list start with `-` at the list's indentation, and
//! each must read back, on its own, as the item the parser saw. The new text is block
//! YAML ([`super::emit`]) with the file's indentation and line endings.

use serde_json::Value;

use super::emit::{self, Layout};
use super::{Backend, EditError, Map, Result};
use crate::document::{escape_pointer_segment, parse_yaml};

pub(super) struct Yaml {
    /// The file line the document starts on (1 for a YAML file).
    pub first_line: usize,
}

/// One line of the document: where it starts, where its content ends (before `\r\n`).
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
}

/// A top-level key's lines: from the key's line to its last content line (0-based).
struct Entry {
    key: String,
    first: usize,
    last: usize,
}

struct Parsed<'a> {
    doc: &'a str,
    lines: Vec<Line>,
    entries: Vec<Entry>,
    layout: Layout,
}

impl Backend for Yaml {
    fn set(&self, doc: &str, sample: &Map, key: &str, value: &Value) -> Result<String> {
        let parsed = self.parse(doc, sample)?;
        let Some(entry) = parsed.entries.iter().find(|e| e.key == key) else {
            let text = format!(
                "{}:{}",
                emit::yaml_key(key),
                emit::yaml_after_key(value, 0, &parsed.layout)
            );
            return Ok(match parsed.entries.iter().map(|e| e.last).max() {
                Some(last) => {
                    let at = parsed.lines[last].end;
                    let newline = parsed.layout.newline;
                    splice(doc, at, at, &format!("{newline}{text}"))
                }
                None => return Err(EditError::NotMapping),
            });
        };
        let (prefix, comment) = self.key_line(&parsed, entry)?;
        let after = emit::yaml_after_key(value, 0, &parsed.layout);
        let text = match after.strip_prefix(' ') {
            // A scalar or `[]`/`{}` stays on the key's line, before its comment.
            Some(inline) => format!("{prefix} {inline}{comment}"),
            None => format!("{prefix}{comment}{after}"),
        };
        let (start, end) = (
            parsed.lines[entry.first].start,
            parsed.lines[entry.last].end,
        );
        Ok(splice(doc, start, end, &text))
    }

    fn replace_item(
        &self,
        doc: &str,
        sample: &Map,
        key: &str,
        index: usize,
        value: &Value,
    ) -> Result<String> {
        let parsed = self.parse(doc, sample)?;
        let (column, items) = self.items(&parsed, sample, key)?;
        let (first, last) = items[index];
        let text = emit::yaml_item(value, column, &parsed.layout);
        let (start, end) = (parsed.lines[first].start, parsed.lines[last].end);
        Ok(splice(doc, start, end, &text))
    }

    fn append_item(&self, doc: &str, sample: &Map, key: &str, value: &Value) -> Result<String> {
        let parsed = self.parse(doc, sample)?;
        let (column, items) = self.items(&parsed, sample, key)?;
        let (_, last) = *items.last().expect("a non-empty list");
        let at = parsed.lines[last].end;
        let text = emit::yaml_item(value, column, &parsed.layout);
        Ok(splice(
            doc,
            at,
            at,
            &format!("{}{text}", parsed.layout.newline),
        ))
    }
}

impl Yaml {
    fn unsupported(&self, line: usize, reason: impl Into<String>) -> EditError {
        EditError::Unsupported {
            line: self.first_line + line,
            reason: reason.into(),
        }
    }

    /// Lines, top-level entries and layout of a block-mapping document.
    fn parse<'a>(&self, doc: &'a str, sample: &Map) -> Result<Parsed<'a>> {
        let lines = lines(doc);
        let positions = parse_yaml(doc)
            .map_err(|e| EditError::Verify(e.message))?
            .positions;
        let mut starts = Vec::with_capacity(sample.len());
        for key in sample.keys() {
            let at = positions
                .key(&format!("/{}", escape_pointer_segment(key)))
                .ok_or_else(|| self.unsupported(0, format!("the key `{key}` has no place")))?;
            if at.column != 1 {
                return Err(self.unsupported(
                    at.line - 1,
                    format!("the key `{key}` is not a block mapping key at the start of a line"),
                ));
            }
            starts.push((at.line - 1, key.clone()));
        }
        starts.sort();
        if starts.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(self.unsupported(0, "two top-level keys share a line"));
        }
        let mut entries = Vec::with_capacity(starts.len());
        for (i, (first, key)) in starts.iter().enumerate() {
            let next = starts.get(i + 1).map_or(lines.len(), |s| s.0);
            let mut last = next - 1;
            while last > *first && is_filler(&doc[lines[last].start..lines[last].end]) {
                last -= 1;
            }
            if let Some(marker) = (*first..next)
                .find(|&l| matches!(&doc[lines[l].start..lines[l].end], "---" | "..."))
            {
                return Err(self.unsupported(marker, "a document marker after the first key"));
            }
            entries.push(Entry {
                key: key.clone(),
                first: *first,
                last,
            });
        }
        let layout = detect_layout(doc, &lines, &entries);
        Ok(Parsed {
            doc,
            lines,
            entries,
            layout,
        })
    }

    /// The key's line up to its `:`, and the comment after it (with its leading space),
    /// refusing anchors, tags and aliases on the value.
    fn key_line(&self, parsed: &Parsed, entry: &Entry) -> Result<(String, String)> {
        let line = parsed.lines[entry.first];
        let text = &parsed.doc[line.start..line.end];
        let key_end = match text.as_bytes().first() {
            Some(b'"') => closing(text, '"', true),
            Some(b'\'') => closing(text, '\'', false),
            _ => text
                .strip_prefix(entry.key.as_str())
                .map(|_| entry.key.len()),
        };
        let colon = key_end.and_then(|end| {
            let rest = &text[end..];
            let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            rest[spaces..].starts_with(':').then_some(end + spaces)
        });
        let Some(colon) = colon else {
            return Err(self.unsupported(
                entry.first,
                "a key written in a form the editor does not read",
            ));
        };
        let rest = &text[colon + 1..];
        let value = rest.trim_start();
        if value.starts_with(['&', '!', '*']) {
            return Err(self.unsupported(
                entry.first,
                format!("`{}` has an anchor, tag or alias", entry.key),
            ));
        }
        let comment = if value.starts_with('#') { rest } else { "" };
        Ok((text[..=colon].to_string(), comment.to_string()))
    }

    /// The column of the block list under `key` and each item's first and last line.
    fn items(
        &self,
        parsed: &Parsed,
        sample: &Map,
        key: &str,
    ) -> Result<(usize, Vec<(usize, usize)>)> {
        let entry = parsed
            .entries
            .iter()
            .find(|e| e.key == key)
            .ok_or_else(|| EditError::Verify(format!("no `{key}` in the text")))?;
        let (prefix, comment) = self.key_line(parsed, entry)?;
        let line = parsed.lines[entry.first];
        let inline = parsed.doc[line.start + prefix.len()..line.end].trim();
        if !inline.is_empty() && comment.is_empty() {
            return Err(self.unsupported(
                entry.first,
                format!("`{key}` is written in flow style (`[...]`); write it as a block list"),
            ));
        }
        let text = |l: usize| &parsed.doc[parsed.lines[l].start..parsed.lines[l].end];
        let Some(first) = (entry.first + 1..=entry.last).find(|&l| !is_filler(text(l))) else {
            return Err(EditError::Verify(format!(
                "`{key}` has no items in the text"
            )));
        };
        let column = text(first).len() - text(first).trim_start_matches(' ').len();
        let starts: Vec<usize> = (first..=entry.last)
            .filter(|&l| {
                let t = text(l);
                t.len() > column
                    && t[..column].bytes().all(|b| b == b' ')
                    && (t[column..] == *"-" || t[column..].starts_with("- "))
            })
            .collect();
        let values = sample[key].as_array().map_or(&[][..], Vec::as_slice);
        if starts.first() != Some(&first) || starts.len() != values.len() {
            return Err(self.unsupported(
                first,
                format!("the items of `{key}` are laid out in a way the editor does not read"),
            ));
        }
        let mut items = Vec::with_capacity(starts.len());
        for (i, &start) in starts.iter().enumerate() {
            let mut last = starts.get(i + 1).map_or(entry.last, |s| s - 1);
            while last > start && is_filler(text(last)) {
                last -= 1;
            }
            let own = &parsed.doc[parsed.lines[start].start..parsed.lines[last].end];
            let alone = parse_yaml(own).ok().map(|d| d.value);
            if alone != Some(Value::Array(vec![values[i].clone()])) {
                return Err(self.unsupported(start, format!("item {} of `{key}` uses anchors, aliases or a layout the editor does not rewrite", i + 1)));
            }
            if text(start)[column + 1..]
                .trim_start()
                .starts_with(['&', '!', '*'])
            {
                return Err(self.unsupported(
                    start,
                    format!("item {} of `{key}` has an anchor, tag or alias", i + 1),
                ));
            }
            items.push((start, last));
        }
        Ok((column, items))
    }
}

/// Where a quoted key closes (the byte after its closing quote).
fn closing(text: &str, quote: char, escapes: bool) -> Option<usize> {
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        if escapes && c == '\\' {
            chars.next();
        } else if c == quote {
            if !escapes && text[i + 1..].starts_with(quote) {
                chars.next();
                continue;
            }
            return Some(i + 1);
        }
    }
    None
}

/// A blank line or a comment line.
fn is_filler(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with('#')
}

fn lines(doc: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in doc.split_inclusive('\n') {
        let content = piece.strip_suffix('\n').unwrap_or(piece);
        let content = content.strip_suffix('\r').unwrap_or(content);
        out.push(Line {
            start,
            end: start + content.len(),
        });
        start += piece.len();
    }
    out
}

/// The file's line ending, and how far it indents a mapping and a list under a top-level
/// key (the first of each it has; two by default).
fn detect_layout(doc: &str, lines: &[Line], entries: &[Entry]) -> Layout {
    let mut layout = Layout::of(doc);
    let (mut map, mut seq) = (None, None);
    for entry in entries {
        if !doc[lines[entry.first].start..lines[entry.first].end].ends_with(':') {
            continue;
        }
        let Some(next) = (entry.first + 1..=entry.last)
            .map(|l| &doc[lines[l].start..lines[l].end])
            .find(|t| !is_filler(t))
        else {
            continue;
        };
        let indent = next.len() - next.trim_start_matches(' ').len();
        if next[indent..] == *"-" || next[indent..].starts_with("- ") {
            seq.get_or_insert(indent);
        } else if indent > 0 {
            map.get_or_insert(indent);
        }
    }
    layout.map = map.unwrap_or(2);
    layout.seq = seq.unwrap_or(2);
    layout
}

fn splice(doc: &str, start: usize, end: usize, text: &str) -> String {
    let mut out = String::with_capacity(doc.len() + text.len());
    out.push_str(&doc[..start]);
    out.push_str(text);
    out.push_str(&doc[end..]);
    out
}
