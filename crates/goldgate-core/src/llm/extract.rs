//! JSON in a model's answer, which is often prose around a fenced block: [`json_value`]
//! finds the answer's JSON (a ```json block first, then any fenced block, then the whole
//! text, then the first balanced array or object that parses), and [`balanced_objects`]
//! lists every balanced `{…}` that parses as an object, in order. Brackets inside JSON
//! strings do not count.

use serde_json::{Map, Value};

/// The JSON array or object an answer holds, by the first rule that finds one: a
/// ```` ```json ```` fenced block, any fenced block, the trimmed text as it is, the first
/// balanced `[…]` or `{…}` span that parses.
pub fn json_value(text: &str) -> Option<Value> {
    let fences = fenced_blocks(text);
    let structured = |s: &str| {
        serde_json::from_str::<Value>(s.trim())
            .ok()
            .filter(|v| v.is_array() || v.is_object())
    };
    fences
        .iter()
        .filter(|(lang, _)| lang.eq_ignore_ascii_case("json"))
        .chain(fences.iter())
        .find_map(|(_, body)| structured(body))
        .or_else(|| structured(text))
        .or_else(|| {
            openers(text, b"{[")
                .filter_map(|start| Some((start, matching(text.as_bytes(), start)?)))
                .find_map(|(start, end)| structured(&text[start..end]))
        })
}

/// Every balanced `{…}` span of the text that parses as a JSON object, with where it is:
/// outermost first and in order (an object inside one found is not listed again). Only the
/// first [`MAX_STARTS`] `{` are tried.
pub fn balanced_objects(text: &str) -> Vec<(std::ops::Range<usize>, Map<String, Value>)> {
    let mut found = Vec::new();
    let mut after = 0;
    for start in openers(text, b"{") {
        if start < after {
            continue;
        }
        let Some(end) = matching(text.as_bytes(), start) else {
            continue;
        };
        if let Ok(Value::Object(object)) = serde_json::from_str(&text[start..end]) {
            found.push((start..end, object));
            after = end;
        }
    }
    found
}

/// ```` ```lang ```` fenced blocks: (language, body). An unclosed fence runs to the end.
pub fn fenced_blocks(text: &str) -> Vec<(&str, &str)> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let (lang, body) = match after.find('\n') {
            Some(nl) => (after[..nl].trim(), &after[nl + 1..]),
            None => ("", after),
        };
        match body.find("```") {
            Some(close) => {
                blocks.push((lang, &body[..close]));
                rest = &body[close + 3..];
            }
            None => {
                blocks.push((lang, body));
                break;
            }
        }
    }
    blocks
}

/// The most brackets a search starts from: an answer is prose around one JSON value, and
/// each start may scan the rest of the text.
pub const MAX_STARTS: usize = 1000;

/// Where brackets in `openers` (`{`, `[`) are, in order, the first [`MAX_STARTS`] of them.
fn openers<'a>(text: &'a str, openers: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    text.bytes()
        .enumerate()
        .filter(|(_, b)| openers.contains(b))
        .map(|(i, _)| i)
        .take(MAX_STARTS)
}

/// The end (exclusive) of the balanced span starting at `start`.
fn matching(bytes: &[u8], start: usize) -> Option<usize> {
    let mut stack = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => stack.push(b'}'),
            b'[' => stack.push(b']'),
            b'}' | b']' => {
                if stack.pop() != Some(b) {
                    return None;
                }
                if stack.is_empty() {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_json_fence_wins_then_any_fence_then_bare_json_then_a_span() {
        let text = "Here:\n```\n[1]\n```\nand\n```json\n[{\"id\": \"FR-01\"}]\n```\n";
        assert_eq!(json_value(text), Some(json!([{"id": "FR-01"}])));
        assert_eq!(json_value("```\n{\"a\": 1}\n```"), Some(json!({"a": 1})));
        assert_eq!(json_value("  [1, 2]\n"), Some(json!([1, 2])));
        assert_eq!(
            json_value("Sure! The list is [{\"id\": \"x\", \"c\": \"a ] in text\"}]. Done."),
            Some(json!([{"id": "x", "c": "a ] in text"}]))
        );
        // A fence that does not parse falls through to the next rule.
        assert_eq!(
            json_value("```json\n[1,\n```\n{\"b\": 2}"),
            Some(json!({"b": 2}))
        );
        assert_eq!(json_value("```json\n[1, 2]"), Some(json!([1, 2])));
        assert_eq!(json_value("no json at all"), None);
        assert_eq!(json_value("\"a string\""), None);
        assert_eq!(json_value("[unclosed"), None);
    }

    #[test]
    fn balanced_objects_are_listed_outermost_and_in_order() {
        let text = "first {\"a\": {\"b\": 1}} then {not json} and {\"c\": \"}\"} end {";
        let found = balanced_objects(text);
        assert_eq!(found.len(), 2);
        assert_eq!(Value::Object(found[0].1.clone()), json!({"a": {"b": 1}}));
        assert_eq!(&text[found[0].0.clone()], "{\"a\": {\"b\": 1}}");
        assert_eq!(Value::Object(found[1].1.clone()), json!({"c": "}"}));
        assert!(balanced_objects("[1, 2]").is_empty());
        // A broken outer object still yields the whole objects inside it.
        let inner = balanced_objects("{\"x\": {\"metrics\": {\"a\": 1}}, oops}");
        assert_eq!(
            Value::Object(inner[0].1.clone()),
            json!({"metrics": {"a": 1}})
        );
    }
}
