//! Writing the new region of an edit: a value as JSON (compact, or indented like the file
//! around it) and as block-style YAML in which a string is written plain, as people write
//! YAML by hand, only when it starts with a letter and nothing in it can change how it
//! reads (`no`, `null`, `a: b`, `x # y`, a trailing space); every other string is a
//! JSON-style double-quoted scalar, so that no text (`1.0`, `2026-11-26`, `- x`) can be
//! read back as anything but the string it was.

use serde_json::Value;

/// How a file lays out what the edit adds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    /// `"\n"` or `"\r\n"`, as the file writes its lines.
    pub newline: &'static str,
    /// YAML: how far a mapping under a key is indented past the key.
    pub map: usize,
    /// YAML: how far a sequence's `-` under a key is indented past the key (0 is allowed).
    pub seq: usize,
}

impl Layout {
    /// The newline of `text` (CRLF when its first line ends so), default indents of two.
    pub fn of(text: &str) -> Layout {
        let newline = match text.find('\n') {
            Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
            _ => "\n",
        };
        Layout {
            newline,
            map: 2,
            seq: 2,
        }
    }
}

/// A JSON value compact (`indent` is `None`) or indented by `indent` per level, its inner
/// lines starting with `base` (the indentation of the line the value starts on).
pub(super) fn json(value: &Value, indent: Option<(&str, &str)>, newline: &str) -> String {
    let Some((unit, base)) = indent else {
        return value.to_string();
    };
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(value, &mut serializer).expect("a Value always serializes");
    let text = String::from_utf8(out).expect("serde_json writes UTF-8");
    // Strings never hold a raw newline in JSON, so every newline is a line break.
    text.replace('\n', &format!("{newline}{base}"))
}

/// What follows `key:` when the key stands at column `column`: ` scalar`, ` []`, ` {}`, or
/// a newline and the block of a non-empty mapping or sequence.
pub(super) fn yaml_after_key(value: &Value, column: usize, layout: &Layout) -> String {
    let mut out = String::new();
    after_key(value, column, layout, &mut out);
    out
}

/// One sequence item at column `column`: `- ` and the value (its first line not indented).
pub(super) fn yaml_item(value: &Value, column: usize, layout: &Layout) -> String {
    let mut out = " ".repeat(column);
    out.push_str("- ");
    item_body(value, column + 2, layout, &mut out);
    out
}

fn after_key(value: &Value, column: usize, layout: &Layout, out: &mut String) {
    // A list of numbers (`source_messages`) in flow style, as people write it: `[1, 3]`.
    if let Value::Array(items) = value {
        if !items.is_empty() && items.iter().all(Value::is_number) {
            let items: Vec<String> = items.iter().map(Value::to_string).collect();
            out.push_str(&format!(" [{}]", items.join(", ")));
            return;
        }
    }
    let step = match value {
        Value::Object(map) if !map.is_empty() => layout.map,
        Value::Array(items) if !items.is_empty() => layout.seq,
        _ => {
            out.push(' ');
            scalar(value, out);
            return;
        }
    };
    out.push_str(layout.newline);
    out.push_str(&" ".repeat(column + step));
    block(value, column + step, layout, out);
}

fn item_body(value: &Value, column: usize, layout: &Layout, out: &mut String) {
    match value {
        Value::Object(map) if !map.is_empty() => block(value, column, layout, out),
        Value::Array(items) if !items.is_empty() => block(value, column, layout, out),
        _ => scalar(value, out),
    }
}

/// A non-empty mapping or sequence whose first line is already indented to `column`.
fn block(value: &Value, column: usize, layout: &Layout, out: &mut String) {
    let indent = " ".repeat(column);
    match value {
        Value::Object(map) => {
            for (i, (key, value)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(layout.newline);
                    out.push_str(&indent);
                }
                out.push_str(&yaml_key(key));
                out.push(':');
                after_key(value, column, layout, out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(layout.newline);
                    out.push_str(&indent);
                }
                out.push_str("- ");
                item_body(item, column + 2, layout, out);
            }
        }
        _ => scalar(value, out),
    }
}

/// A key plain when it can only be read as that string, double-quoted otherwise.
pub(super) fn yaml_key(key: &str) -> String {
    let plain = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !matches!(
            key.to_ascii_lowercase().as_str(),
            "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
        );
    if plain {
        key.to_string()
    } else {
        yaml_string(key)
    }
}

fn scalar(value: &Value, out: &mut String) {
    match value {
        Value::String(s) if plain_value(s) => out.push_str(s),
        Value::String(s) => out.push_str(&yaml_string(s)),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
        // null, true, false and JSON numbers are YAML 1.2 core-schema plain scalars.
        other => out.push_str(&other.to_string()),
    }
}

/// Whether `s` reads back as itself when written as a plain scalar in block context, under
/// YAML 1.2 and 1.1 alike: it starts with a letter, is not a word either version reads as
/// a boolean or null, holds no character that needs escaping, no `: ` or ` #`, and does not
/// end with `:` or white space.
fn plain_value(s: &str) -> bool {
    const WORDS: &[&str] = &["null", "true", "false", "yes", "no", "on", "off", "y", "n"];
    s.starts_with(char::is_alphabetic)
        && !s.ends_with([':', ' '])
        && !s.contains(": ")
        && !s.contains(" #")
        && !WORDS.contains(&s.to_lowercase().as_str())
        && !s.chars().any(|c| {
            matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
        })
}

/// A YAML double-quoted scalar: `"` and `\` escaped, and every character YAML does not
/// allow raw (controls, DEL, C1, the Unicode line separators, BOM, U+FFFE/F) as `\uXXXX`.
pub(super) fn yaml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{feff}'
            | '\u{fffe}'
            | '\u{ffff}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
