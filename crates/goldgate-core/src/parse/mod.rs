//! Parsing of pipeline answers into JSON, as docs/metrics.md ("Parsing") describes.
//!
//! This module owns the classification of an answer text into one of four
//! [`ParseOutcome`]s and the generic JSON value it yields. The checks run in
//! this order:
//!
//! 1. `raw`: the trimmed text is strict JSON as it is (any JSON value).
//! 2. `no_json_found`: the text has no `{` and no `[` (empty text lands here).
//! 3. `repaired`: the first candidate that parses, first as it is, then with
//!    all repairs of [`repair`] applied at once. The candidates, in order:
//!    (a) the body of the first CommonMark fenced code block whose info
//!    string's first word is `json` (any case), (b) the span from the first
//!    `{` to the last `}`, (c) the span from the first `[` to the last `]`.
//! 4. `error`: everything else.
//!
//! Reading a prediction out of the value is each kind's (its `prediction.rs`, over the
//! field readers of [`answer`]). Parsing never panics; it is linear in the length of the
//! answer.

pub mod answer;
#[cfg(test)]
pub mod arbitrary;
pub mod json;
mod repair;

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
use serde_json::Value;

/// Upper bound, in bytes, of [`ParsedAnswer::detail`].
const MAX_DETAIL: usize = 200;

const FENCE_LABEL: &str = "fenced json block";
const BRACE_LABEL: &str = "span from first '{' to last '}'";
const BRACKET_LABEL: &str = "span from first '[' to last ']'";

/// How an answer text was (or was not) turned into JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParseOutcome {
    /// The trimmed text is strict JSON as it is.
    Raw,
    /// A candidate inside the text parsed, possibly after repairs.
    Repaired,
    /// The text contains no `{` and no `[`.
    NoJsonFound,
    /// The text looks like JSON but nothing in it parsed.
    Error,
}

impl ParseOutcome {
    /// The name used in `run.jsonl` and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ParseOutcome::Raw => "raw",
            ParseOutcome::Repaired => "repaired",
            ParseOutcome::NoJsonFound => "no_json_found",
            ParseOutcome::Error => "error",
        }
    }

    /// Whether the answer yielded a JSON value (`raw` or `repaired`).
    pub fn is_success(self) -> bool {
        matches!(self, ParseOutcome::Raw | ParseOutcome::Repaired)
    }
}

/// The result of [`parse_answer`]. `value` is `Some` exactly when the outcome
/// is a success.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedAnswer<V = Value> {
    pub outcome: ParseOutcome,
    /// Empty for `raw`; otherwise a short human-readable explanation.
    pub detail: String,
    pub value: Option<V>,
    /// Where in the text the JSON that parsed is, as a byte range: the whole text for `raw`,
    /// the whole fenced block (fence lines included) or the span from the first opener to
    /// the last closer for `repaired`; `None` when nothing parsed.
    pub region: Option<Range<usize>>,
}

/// A JSON tree an answer can be parsed into: `serde_json::Value` (kept in run records and
/// shown in diffs) or [`json::Json`] (read by scoring, borrowing from the answer text).
pub trait Tree<'a>: Sized {
    /// Parse the text itself.
    fn parse(text: &'a str) -> serde_json::Result<Self>;
    /// Parse a text that does not live as long (a candidate cut out or repaired).
    fn parse_owned(text: &str) -> serde_json::Result<Self>;
}

impl<'a> Tree<'a> for Value {
    fn parse(text: &'a str) -> serde_json::Result<Self> {
        serde_json::from_str(text)
    }
    fn parse_owned(text: &str) -> serde_json::Result<Self> {
        serde_json::from_str(text)
    }
}

impl<'a> Tree<'a> for json::Json<'a> {
    fn parse(text: &'a str) -> serde_json::Result<Self> {
        json::Json::parse(text)
    }
    fn parse_owned(text: &str) -> serde_json::Result<Self> {
        json::Json::parse_owned(text)
    }
}

impl<V> ParsedAnswer<V> {
    fn success(outcome: ParseOutcome, detail: String, value: V, region: Range<usize>) -> Self {
        ParsedAnswer {
            outcome,
            detail: cap_detail(detail),
            value: Some(value),
            region: Some(region),
        }
    }

    fn failure(outcome: ParseOutcome, detail: String) -> Self {
        ParsedAnswer {
            outcome,
            detail: cap_detail(detail),
            value: None,
            region: None,
        }
    }
}

/// Classifies an answer text and parses the JSON it holds.
pub fn parse_answer(text: &str) -> ParsedAnswer {
    parse_answer_as(text)
}

/// [`parse_answer`] into any [`Tree`]: the outcome and detail do not depend on it.
pub fn parse_answer_as<'a, V: Tree<'a>>(text: &'a str) -> ParsedAnswer<V> {
    let trimmed = text.trim();
    let strict_error = match V::parse(trimmed) {
        Ok(value) => {
            return ParsedAnswer::success(ParseOutcome::Raw, String::new(), value, 0..text.len())
        }
        Err(e) => e,
    };
    if !text.contains(['{', '[']) {
        let why = if trimmed.is_empty() {
            "the answer is empty"
        } else {
            "no '{' or '[' in the answer"
        };
        return ParsedAnswer::failure(ParseOutcome::NoJsonFound, why.to_string());
    }
    let mut last_failure = None;
    for (label, body, region) in candidates(text) {
        match parse_candidate(&body) {
            Ok((value, how)) => {
                let detail = format!("{label}: {how}");
                return ParsedAnswer::success(ParseOutcome::Repaired, detail, value, region);
            }
            Err(failure) => last_failure = Some((label, failure)),
        }
    }
    let detail = match last_failure {
        Some((label, failure)) => format!("nothing parsed; last tried {label}{failure}"),
        None => format!(
            "no candidate (no json fence, no '{{' before a '}}', no '[' before a ']'); \
             strict parse: {strict_error}"
        ),
    };
    ParsedAnswer::failure(ParseOutcome::Error, detail)
}

/// A candidate: its label, its text and where it is in the answer.
type Candidate<'t> = (&'static str, Cow<'t, str>, Range<usize>);

/// The candidates (a), (b), (c) that exist in `text`, in contract order.
fn candidates(text: &str) -> Vec<Candidate<'_>> {
    let spans = [(BRACE_LABEL, '{', '}'), (BRACKET_LABEL, '[', ']')];
    let fence = json_fence_body(text).map(|(body, at)| (FENCE_LABEL, Cow::Owned(body), at));
    let spans = spans.into_iter().filter_map(|(label, open, close)| {
        let at = span(text, open, close)?;
        Some((label, Cow::Borrowed(&text[at.clone()]), at))
    });
    fence.into_iter().chain(spans).collect()
}

/// Where the text from the first `open` to the last `close` is, both included, when
/// the first `open` comes before the last `close`.
fn span(text: &str, open: char, close: char) -> Option<Range<usize>> {
    let start = text.find(open)?;
    let end = text.rfind(close)?;
    // `close` is ASCII, so `end + 1` is a char boundary.
    (start < end).then_some(start..end + 1)
}

/// Body of the first fenced code block whose info string's first word is
/// `json` (any case), and where the whole block is (fence lines included).
fn json_fence_body(text: &str) -> Option<(String, Range<usize>)> {
    // A fence needs three backticks or tildes; skip the Markdown parser
    // entirely on answers that cannot contain one.
    if !text.contains("```") && !text.contains("~~~") {
        return None;
    }
    let mut events = Parser::new(text).into_offset_iter();
    let (_, block) = events.find(|(event, _)| match event {
        Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => is_json_info(info),
        _ => false,
    })?;
    let mut body = String::new();
    for (event, _) in events {
        match event {
            Event::Text(chunk) => body.push_str(&chunk),
            Event::End(TagEnd::CodeBlock) => break,
            _ => {}
        }
    }
    Some((body, block))
}

fn is_json_info(info: &str) -> bool {
    info.split_whitespace()
        .next()
        .is_some_and(|word| word.eq_ignore_ascii_case("json"))
}

/// Parses a candidate as it is, then with all repairs. On success returns the
/// value and how it parsed; on failure, a detail suffix for the error report.
fn parse_candidate<'a, V: Tree<'a>>(body: &str) -> Result<(V, String), String> {
    let as_is_error = match V::parse_owned(body) {
        Ok(value) => return Ok((value, "as is".to_string())),
        Err(e) => e,
    };
    let repaired = repair::repair(body);
    if !repaired.applied.any() {
        return Err(format!(": {as_is_error}"));
    }
    match V::parse_owned(&repaired.text) {
        Ok(value) => Ok((value, repaired.applied.describe())),
        Err(e) => Err(format!(" after repairs: {e}")),
    }
}

/// Cuts `detail` to at most [`MAX_DETAIL`] bytes, on a char boundary.
fn cap_detail(mut detail: String) -> String {
    if detail.len() > MAX_DETAIL {
        let cut = (0..=MAX_DETAIL - 3)
            .rev()
            .find(|&i| detail.is_char_boundary(i))
            .unwrap_or(0);
        detail.truncate(cut);
        detail.push_str("...");
    }
    detail
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn check(text: &str, outcome: ParseOutcome) -> ParsedAnswer {
        let parsed = parse_answer(text);
        assert_eq!(parsed.outcome, outcome, "{text:?} -> {parsed:?}");
        assert_eq!(parsed.value.is_some(), outcome.is_success());
        assert!(parsed.detail.len() <= MAX_DETAIL, "{}", parsed.detail);
        parsed
    }

    fn repaired(text: &str) -> (Value, String) {
        let parsed = check(text, ParseOutcome::Repaired);
        (parsed.value.unwrap(), parsed.detail)
    }

    #[test]
    fn outcome_names_and_success() {
        use ParseOutcome::*;
        let names: Vec<_> = [Raw, Repaired, NoJsonFound, Error]
            .map(|o| o.as_str())
            .into();
        assert_eq!(names, ["raw", "repaired", "no_json_found", "error"]);
        assert!(Raw.is_success() && Repaired.is_success());
        assert!(!NoJsonFound.is_success() && !Error.is_success());
        assert_eq!(
            serde_json::to_string(&NoJsonFound).unwrap(),
            "\"no_json_found\""
        );
        let back: ParseOutcome = serde_json::from_str("\"repaired\"").unwrap();
        assert_eq!(back, Repaired);
    }

    #[test]
    fn raw_object_array_and_scalars() {
        let parsed = check("  {\"a\": 1}\n", ParseOutcome::Raw);
        assert_eq!(parsed.value, Some(json!({"a": 1})));
        assert_eq!(parsed.detail, "");
        assert_eq!(
            check("[1, 2]", ParseOutcome::Raw).value,
            Some(json!([1, 2]))
        );
        assert_eq!(check("42", ParseOutcome::Raw).value, Some(json!(42)));
        assert_eq!(check("\"x\"", ParseOutcome::Raw).value, Some(json!("x")));
        assert_eq!(check("null", ParseOutcome::Raw).value, Some(Value::Null));
    }

    #[test]
    fn empty_and_whitespace_are_no_json_found() {
        assert_eq!(
            check("", ParseOutcome::NoJsonFound).detail,
            "the answer is empty"
        );
        assert_eq!(
            check(" \n\t ", ParseOutcome::NoJsonFound).detail,
            "the answer is empty"
        );
        let prose = check("I cannot answer that.", ParseOutcome::NoJsonFound);
        assert_eq!(prose.detail, "no '{' or '[' in the answer");
    }

    #[test]
    fn json_fence_in_prose() {
        let text = "Here you go:\n\n```json\n{\"a\": [1, 2]}\n```\n\nHope it helps {x}.";
        let (value, detail) = repaired(text);
        assert_eq!(value, json!({"a": [1, 2]}));
        assert_eq!(detail, "fenced json block: as is");
    }

    #[test]
    fn json_fence_info_is_case_insensitive_first_word() {
        for info in ["JSON", "Json", "json title=\"x\"", "json  {.class}"] {
            let text = format!("Answer {{\n```{info}\n{{\"a\": 1}}\n```\n");
            let (value, detail) = repaired(&text);
            assert_eq!(value, json!({"a": 1}), "{info}");
            assert!(detail.starts_with(FENCE_LABEL), "{info}: {detail}");
        }
        let tilde = "~~~json\n[1]\n~~~\n{";
        assert_eq!(repaired(tilde).0, json!([1]));
    }

    #[test]
    fn non_json_fence_is_skipped_for_a_later_json_fence() {
        let text = "```python\nx = {'a': 1}\n```\n\n```json\n{\"b\": 2}\n```\n";
        let (value, detail) = repaired(text);
        assert_eq!(value, json!({"b": 2}));
        assert!(detail.starts_with(FENCE_LABEL));
    }

    #[test]
    fn only_the_first_json_fence_is_a_candidate() {
        let text = "```json\n{\"a\": oops}\n```\n\n```json\n{\"b\": 2}\n```\n";
        // The second fence is not a candidate; (b) spans both fences and fails.
        check(text, ParseOutcome::Error);
    }

    #[test]
    fn fence_without_info_falls_through_to_brace_span() {
        let text = "Result:\n```\n{\"a\": 1}\n```\n";
        let (value, detail) = repaired(text);
        assert_eq!(value, json!({"a": 1}));
        assert_eq!(detail, "span from first '{' to last '}': as is");
    }

    #[test]
    fn failing_fence_falls_through_to_brace_span() {
        // (a) is changed by the repairs and still fails; (b) then parses.
        let text = "```json\n[NaN, oops,]\n```\nSo: {\"a\": 2}";
        let (value, detail) = repaired(text);
        assert_eq!(value, json!({"a": 2}));
        assert_eq!(detail, "span from first '{' to last '}': as is");
        let text = "```json\nnot json at all\n```\nSo: [1, 2,]";
        let (value, detail) = repaired(text);
        assert_eq!(value, json!([1, 2]));
        assert!(detail.starts_with(BRACKET_LABEL), "{detail}");
    }

    #[test]
    fn error_detail_names_the_last_candidate() {
        let parsed = check("```json\n[oops]\n```\n{\"a\": [1,] x}", ParseOutcome::Error);
        let expected = "nothing parsed; last tried span from first '[' to last ']' after repairs: ";
        assert!(parsed.detail.starts_with(expected), "{}", parsed.detail);
    }

    #[test]
    fn trailing_commas_in_objects_and_arrays() {
        let (value, detail) = repaired("Sure: {\"a\": [1, 2,], \"b\": 3,}");
        assert_eq!(value, json!({"a": [1, 2], "b": 3}));
        assert_eq!(
            detail,
            "span from first '{' to last '}': removed trailing commas"
        );
        let (value, _) = repaired("list: [1,\n 2,\n]");
        assert_eq!(value, json!([1, 2]));
    }

    #[test]
    fn curly_quotes_outside_strings_are_replaced() {
        let (value, detail) = repaired("{“title”: “Login”}");
        assert_eq!(value, json!({"title": "Login"}));
        assert!(detail.ends_with("replaced curly quotes"), "{detail}");
    }

    #[test]
    fn curly_quotes_inside_strings_are_kept() {
        let text = "Note: {\"note\": \"he said “hi”\"}";
        let (value, detail) = repaired(text);
        assert_eq!(value, json!({"note": "he said “hi”"}));
        assert!(detail.ends_with("as is"));
        // Raw text with curly quotes inside strings is simply raw.
        check("{\"note\": \"“hi”\"}", ParseOutcome::Raw);
    }

    #[test]
    fn line_comments_are_removed() {
        let text = "{\n  \"a\": 1, // the first\n  \"b\": 2 // the second\n}";
        let (value, detail) = repaired(text);
        assert_eq!(value, json!({"a": 1, "b": 2}));
        assert!(detail.ends_with("removed // comments"), "{detail}");
        assert_eq!(repaired("[1, // note\n]").0, json!([1]));
    }

    #[test]
    fn url_inside_string_is_not_a_comment() {
        let text = "Link: {\"url\": \"https://x\", \"b\": [1,]}";
        let (value, detail) = repaired(text);
        assert_eq!(value, json!({"url": "https://x", "b": [1]}));
        assert!(!detail.contains("comments"), "{detail}");
    }

    #[test]
    fn bare_nan_becomes_null() {
        let (value, detail) = repaired("{\"score\": NaN}");
        assert_eq!(value, json!({"score": null}));
        assert!(detail.ends_with("replaced NaN with null"));
        let (value, _) = repaired("ok {\"s\": \"NaN\", \"t\": NaN}");
        assert_eq!(value, json!({"s": "NaN", "t": null}));
    }

    #[test]
    fn nan_inside_identifier_is_not_replaced() {
        check("{\"score\": NaNa}", ParseOutcome::Error);
        check("{\"score\": xNaN}", ParseOutcome::Error);
    }

    #[test]
    fn nan_and_infinity_are_not_raw() {
        check("NaN", ParseOutcome::NoJsonFound);
        check("Infinity", ParseOutcome::NoJsonFound);
        check("[NaN]", ParseOutcome::Repaired);
        check("{\"a\": Infinity}", ParseOutcome::Error);
        check("[1, -Infinity]", ParseOutcome::Error);
    }

    #[test]
    fn unrepairable_garbage_is_error() {
        let parsed = check("{this is not: json, at all]", ParseOutcome::Error);
        assert!(parsed.detail.contains("line 1 column"), "{}", parsed.detail);
        check("{'a': 1}", ParseOutcome::Error);
        check("{a: 1}", ParseOutcome::Error);
    }

    #[test]
    fn open_brace_only_is_error() {
        let parsed = check("the set {", ParseOutcome::Error);
        assert!(
            parsed.detail.starts_with("no candidate"),
            "{}",
            parsed.detail
        );
        check("} then {", ParseOutcome::Error);
        check("[[[", ParseOutcome::Error);
    }

    #[test]
    fn top_level_array_in_prose_uses_bracket_span() {
        let text = "Requirements: [{\"id\": 1}, {\"id\": 2}] -- done}";
        let (value, detail) = repaired(text);
        assert_eq!(value, json!([{"id": 1}, {"id": 2}]));
        assert_eq!(detail, "span from first '[' to last ']': as is");
    }

    #[test]
    fn duplicate_keys_last_wins() {
        let parsed = check("{\"a\": 1, \"b\": 0, \"a\": 2}", ParseOutcome::Raw);
        assert_eq!(parsed.value, Some(json!({"a": 2, "b": 0})));
        let keys: Vec<_> = parsed
            .value
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["a", "b"]);
    }

    #[test]
    fn floats_round_correctly() {
        let parsed = check("[0.1, 0.7000000000000001, 1e-7]", ParseOutcome::Raw);
        assert_eq!(parsed.value, Some(json!([0.1, 0.7000000000000001, 1e-7])));
    }

    #[test]
    fn error_detail_is_capped_on_a_char_boundary() {
        let long = format!("nothing parsed; {}", "é".repeat(300));
        let capped = cap_detail(long);
        assert!(capped.len() <= MAX_DETAIL && capped.ends_with("..."));
        assert_eq!(cap_detail("short".into()), "short");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        check(&deep, ParseOutcome::Error);
        check(&"[".repeat(100_000), ParseOutcome::Error);
        let quoted = format!("```json\n{}\n```", ">".repeat(10_000) + &"[".repeat(10_000));
        check(&quoted, ParseOutcome::Error);
    }

    #[test]
    fn awkward_edges_do_not_panic() {
        for text in [
            "{\"a\": \"\\",
            "é{é}é",
            "[“]",
            "{“a”: “b\\”}",
            "```json\n",
            "```json",
            "}{][",
            "{//",
            "[\"\\é\"]",
        ] {
            let parsed = parse_answer(text);
            assert_eq!(parsed.value.is_some(), parsed.outcome.is_success());
        }
    }

    fn assert_consistent(text: &str) {
        let parsed = parse_answer(text);
        assert_eq!(parsed.value.is_some(), parsed.outcome.is_success());
        assert!(parsed.detail.len() <= MAX_DETAIL);
        assert_eq!(
            parsed.detail.is_empty(),
            parsed.outcome == ParseOutcome::Raw
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn arbitrary_text_never_panics(text in ".*") {
            assert_consistent(&text);
        }

        #[test]
        fn json_ish_text_never_panics(text in "[{}\\[\\]\",:/ \nNa0-9“”\\\\`]{0,200}") {
            assert_consistent(&text);
        }

        #[test]
        fn json_ish_text_in_a_fence_never_panics(text in "[{}\\[\\]\",:/ \nNa0-9“”]{0,200}") {
            assert_consistent(&format!("Answer:\n```json\n{text}\n```\n"));
        }
    }
}
