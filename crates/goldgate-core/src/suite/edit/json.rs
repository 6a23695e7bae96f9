//! Edits in a JSON sample (a `.json` file or one JSONL line): a string-aware scanner finds
//! the byte span of each top-level member and of each item of a list, and the new text is
//! written in the document's own style — the separators it already uses, compact on a
//! JSONL line, indented like its siblings in a pretty-printed file.

use std::ops::Range;

use serde_json::Value;

use super::emit::{self, Layout};
use super::{Backend, EditError, Map, Result};

pub(super) struct Json {
    /// A JSONL line: everything stays on one line.
    pub compact: bool,
}

struct Member {
    key: String,
    key_start: usize,
    value: Range<usize>,
}

impl Backend for Json {
    fn set(&self, doc: &str, _: &Map, key: &str, value: &Value) -> Result<String> {
        let (open, members, close) = top(doc)?;
        let newline = Layout::of(doc).newline;
        if let Some(member) = members.iter().rev().find(|m| m.key == key) {
            let text = self.body(doc, &members, member.key_start, value);
            return Ok(splice(doc, member.value.clone(), &text));
        }
        let name = Value::from(key).to_string();
        let Some(last) = members.last() else {
            // `{}`: the first member, compact on a line, else on its own indented line.
            let text = if self.compact || !doc.contains('\n') {
                format!("{name}:{}", value)
            } else {
                let body = emit::json(value, Some(("  ", "  ")), newline);
                format!("{newline}  {name}: {body}{newline}")
            };
            return Ok(splice(doc, open + 1..close, &text));
        };
        let separator = member_separator(doc, &members, self.compact);
        let colon = &doc[colon_span(doc, last)];
        let body = self.body(doc, &members, last.key_start, value);
        let text = format!("{separator}{name}{colon}{body}");
        Ok(splice(doc, last.value.end..last.value.end, &text))
    }

    fn replace_item(
        &self,
        doc: &str,
        _: &Map,
        key: &str,
        index: usize,
        value: &Value,
    ) -> Result<String> {
        let (members, items) = self.list(doc, key)?;
        let item = items
            .get(index)
            .ok_or_else(|| EditError::Verify(format!("`{key}` has no item {index} in the text")))?;
        let text = self.body(doc, &members, item.start, value);
        Ok(splice(doc, item.clone(), &text))
    }

    fn append_item(&self, doc: &str, _: &Map, key: &str, value: &Value) -> Result<String> {
        let (members, items) = self.list(doc, key)?;
        let last = items
            .last()
            .ok_or_else(|| EditError::Verify(format!("`{key}` has no items in the text")))?;
        let separator = match items.len() {
            1 => {
                let before = &doc[..last.start];
                let line_start = before.rfind('\n').map_or(0, |i| i + 1);
                if before[line_start..].trim().is_empty() && line_start > 0 {
                    let newline = Layout::of(doc).newline;
                    format!(",{newline}{}", &before[line_start..])
                } else {
                    member_separator(doc, &members, true)
                }
            }
            n => gap(doc, items[n - 2].end, items[n - 1].start).to_string(),
        };
        let body = self.body(doc, &members, last.start, value);
        Ok(splice(
            doc,
            last.end..last.end,
            &format!("{separator}{body}"),
        ))
    }
}

impl Json {
    /// The top-level members and the items of the list under `key`.
    fn list(&self, doc: &str, key: &str) -> Result<(Vec<Member>, Vec<Range<usize>>)> {
        let (_, members, _) = top(doc)?;
        let member = members
            .iter()
            .rev()
            .find(|m| m.key == key)
            .ok_or_else(|| EditError::Verify(format!("no `{key}` in the text")))?;
        let bytes = doc.as_bytes();
        if bytes.get(member.value.start) != Some(&b'[') {
            return Err(EditError::NotList { key: key.into() });
        }
        let (items, _) = sequence(bytes, member.value.start, b']', false)?;
        let items = items.into_iter().map(|(_, value)| value).collect();
        Ok((members, items))
    }

    /// `value` written for a place starting at `at`: compact on a JSONL line or a
    /// one-line file, else indented by the file's unit (that of the first member) from the
    /// indentation of `at`'s line.
    fn body(&self, doc: &str, members: &[Member], at: usize, value: &Value) -> String {
        let indent = (!self.compact)
            .then(|| {
                let unit = line_indent(doc, members.first()?.key_start)?;
                Some((unit, line_indent(doc, at)?))
            })
            .flatten();
        let indent = indent.as_ref().map(|(u, b)| (u.as_str(), b.as_str()));
        emit::json(value, indent, Layout::of(doc).newline)
    }
}

/// The whitespace before `at` on its line, when only whitespace precedes it there.
fn line_indent(doc: &str, at: usize) -> Option<String> {
    let before = &doc[..at];
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let indent = &before[start..];
    (start > 0 && indent.trim().is_empty()).then(|| indent.to_string())
}

/// What goes between the last member and an appended one: the gap the file already has
/// between its last two members, else `,` and a new line indented like the first member
/// (`,` alone when compact).
fn member_separator(doc: &str, members: &[Member], compact: bool) -> String {
    match members {
        [.., a, b] => gap(doc, a.value.end, b.key_start).to_string(),
        [only] => match line_indent(doc, only.key_start) {
            Some(indent) if !compact => format!(",{}{indent}", Layout::of(doc).newline),
            // `{"a": 1}` spaces its colon, so it spaces its commas too.
            _ if doc[colon_span(doc, only)].ends_with(' ') => ", ".to_string(),
            _ => ",".to_string(),
        },
        [] => ",".to_string(),
    }
}

/// The text between `end` and `start` (a separator: comma and whitespace).
fn gap(doc: &str, end: usize, start: usize) -> &str {
    &doc[end..start]
}

/// The span from a member's key end to its value start: `:` and its whitespace.
fn colon_span(doc: &str, member: &Member) -> Range<usize> {
    let key_end = skip_string(doc.as_bytes(), member.key_start).unwrap_or(member.key_start);
    key_end..member.value.start
}

fn splice(doc: &str, range: Range<usize>, text: &str) -> String {
    let mut out = String::with_capacity(doc.len() + text.len());
    out.push_str(&doc[..range.start]);
    out.push_str(text);
    out.push_str(&doc[range.end..]);
    out
}

/// The top-level object: where `{` stands, its members, where `}` stands.
fn top(doc: &str) -> Result<(usize, Vec<Member>, usize)> {
    let bytes = doc.as_bytes();
    let open = skip_ws(bytes, 0);
    if bytes.get(open) != Some(&b'{') {
        return Err(EditError::NotMapping);
    }
    let (entries, close) = sequence(bytes, open, b'}', true)?;
    let mut members = Vec::with_capacity(entries.len());
    for (key_start, value) in entries {
        let key_end = skip_string(bytes, key_start)?;
        let key = serde_json::from_str(&doc[key_start..key_end])
            .map_err(|e| EditError::Verify(format!("a key does not read: {e}")))?;
        members.push(Member {
            key,
            key_start,
            value,
        });
    }
    Ok((open, members, close))
}

/// The entries of the object or array opening at `open`: for an object each member's key
/// start and value span, for an array each item's start and span; and where it closes.
#[allow(clippy::type_complexity)]
fn sequence(
    bytes: &[u8],
    open: usize,
    close: u8,
    object: bool,
) -> Result<(Vec<(usize, Range<usize>)>, usize)> {
    let mut out = Vec::new();
    let mut i = skip_ws(bytes, open + 1);
    if bytes.get(i) == Some(&close) {
        return Ok((out, i));
    }
    loop {
        let entry = i;
        if object {
            i = skip_ws(bytes, skip_string(bytes, i)?);
            if bytes.get(i) != Some(&b':') {
                return Err(malformed(i));
            }
            i = skip_ws(bytes, i + 1);
        }
        let end = skip_value(bytes, i)?;
        out.push((entry, i..end));
        i = skip_ws(bytes, end);
        match bytes.get(i) {
            Some(b',') => i = skip_ws(bytes, i + 1),
            Some(&c) if c == close => return Ok((out, i)),
            _ => return Err(malformed(i)),
        }
    }
}

fn malformed(at: usize) -> EditError {
    EditError::Verify(format!("unexpected JSON at byte {at}"))
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

fn skip_string(bytes: &[u8], start: usize) -> Result<usize> {
    if bytes.get(start) != Some(&b'"') {
        return Err(malformed(start));
    }
    let mut i = start + 1;
    while let Some(&c) = bytes.get(i) {
        match c {
            b'\\' => i += 2,
            b'"' => return Ok(i + 1),
            _ => i += 1,
        }
    }
    Err(malformed(start))
}

/// The end of the value starting at `start` (nesting tracked without recursion).
fn skip_value(bytes: &[u8], start: usize) -> Result<usize> {
    match bytes.get(start) {
        Some(b'"') => skip_string(bytes, start),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut i = start;
            while let Some(&c) = bytes.get(i) {
                match c {
                    b'"' => {
                        i = skip_string(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            Err(malformed(start))
        }
        Some(_) => {
            let mut i = start;
            while let Some(&c) = bytes.get(i) {
                if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    break;
                }
                i += 1;
            }
            if i == start {
                Err(malformed(start))
            } else {
                Ok(i)
            }
        }
        None => Err(malformed(start)),
    }
}
