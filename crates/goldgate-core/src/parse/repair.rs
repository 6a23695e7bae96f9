//! The four textual repairs of answer parsing (docs/metrics.md), applied in one
//! left-to-right scan of a candidate text:
//!
//! - a trailing `,` before `}` / `]` is dropped (whitespace and `//` comments
//!   between the comma and the bracket are skipped when looking ahead),
//! - `“` (U+201C) and `”` (U+201D) become `"`,
//! - `//` line comments are dropped up to, not including, the next `\n`,
//! - a bare `NaN` token becomes `null`.
//!
//! Every repair applies only outside string literals. String-literal state is
//! decided by ASCII `"` alone (with `\` escapes inside strings); curly quotes
//! never open or close a string, and quotes inside a dropped comment are
//! dropped with it.
//!
//! The scan works on bytes: every character it acts on is ASCII or a whole
//! three-byte curly quote, and UTF-8 continuation bytes never look like ASCII,
//! so every index at which the text is cut is a char boundary.

const LEFT_CURLY: &[u8] = "\u{201C}".as_bytes();
const RIGHT_CURLY: &[u8] = "\u{201D}".as_bytes();

/// Which repairs changed something in a candidate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Applied {
    pub trailing_commas: bool,
    pub curly_quotes: bool,
    pub comments: bool,
    pub nan: bool,
}

impl Applied {
    /// Whether any repair changed the text.
    pub fn any(self) -> bool {
        self.trailing_commas || self.curly_quotes || self.comments || self.nan
    }

    /// Comma-separated list of the repairs that changed something, in the
    /// order of the contract.
    pub fn describe(self) -> String {
        let names = [
            (self.trailing_commas, "removed trailing commas"),
            (self.curly_quotes, "replaced curly quotes"),
            (self.comments, "removed // comments"),
            (self.nan, "replaced NaN with null"),
        ];
        let used: Vec<&str> = names
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
        used.join(", ")
    }
}

/// A candidate text after all repairs, and which repairs changed it.
#[derive(Debug)]
pub(super) struct Repaired {
    pub text: String,
    pub applied: Applied,
}

/// Applies all repairs at once to `src`.
pub(super) fn repair(src: &str) -> Repaired {
    let mut scan = Scan::new(src);
    scan.run();
    scan.finish()
}

/// State of the single left-to-right scan. Unchanged text is copied in runs:
/// `copied` is the end of the part of `src` already handled in `out`.
struct Scan<'a> {
    src: &'a str,
    bytes: &'a [u8],
    out: String,
    copied: usize,
    applied: Applied,
}

impl<'a> Scan<'a> {
    fn new(src: &'a str) -> Self {
        Scan {
            src,
            bytes: src.as_bytes(),
            out: String::new(),
            copied: 0,
            applied: Applied::default(),
        }
    }

    fn run(&mut self) {
        let mut i = 0;
        while i < self.bytes.len() {
            i = match self.bytes[i] {
                b'"' => skip_string(self.bytes, i + 1),
                _ => self.outside_string(i),
            };
        }
    }

    /// Handles the byte at `i` (outside any string) and returns where the
    /// scan continues.
    fn outside_string(&mut self, i: usize) -> usize {
        let bytes = self.bytes;
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                self.applied.comments = true;
                self.replace(i, comment_end(bytes, i), "")
            }
            b',' if closes_next(bytes, i + 1) => {
                self.applied.trailing_commas = true;
                self.replace(i, i + 1, "")
            }
            b'N' if is_bare_nan(bytes, i) => {
                self.applied.nan = true;
                self.replace(i, i + 3, "null")
            }
            _ if is_curly_quote(bytes, i) => {
                self.applied.curly_quotes = true;
                self.replace(i, i + 3, "\"")
            }
            _ => i + 1,
        }
    }

    /// Replaces `src[start..end]` by `with` and returns `end`.
    fn replace(&mut self, start: usize, end: usize, with: &str) -> usize {
        if self.out.capacity() == 0 {
            self.out.reserve(self.src.len() + 16);
        }
        self.out.push_str(&self.src[self.copied..start]);
        self.out.push_str(with);
        self.copied = end;
        end
    }

    fn finish(mut self) -> Repaired {
        self.out.push_str(&self.src[self.copied..]);
        Repaired {
            text: self.out,
            applied: self.applied,
        }
    }
}

/// Given `i` just after an opening `"`, returns the index just after the
/// closing `"` (or past the end if the string never closes).
fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Index of the `\n` ending the comment that starts at `i` (or the end).
fn comment_end(bytes: &[u8], i: usize) -> usize {
    bytes[i..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| i + p)
}

/// Whether the next significant byte from `i` on, skipping JSON whitespace
/// and `//` comments, is `}` or `]`.
fn closes_next(bytes: &[u8], mut i: usize) -> bool {
    loop {
        match bytes.get(i) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => i += 1,
            Some(b'/') if bytes.get(i + 1) == Some(&b'/') => i = comment_end(bytes, i),
            Some(b'}' | b']') => return true,
            _ => return false,
        }
    }
}

/// Whether `NaN` starts at `i` with no identifier character on either side.
fn is_bare_nan(bytes: &[u8], i: usize) -> bool {
    let is_ident = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    bytes[i..].starts_with(b"NaN")
        && (i == 0 || !is_ident(&bytes[i - 1]))
        && !bytes.get(i + 3).is_some_and(is_ident)
}

fn is_curly_quote(bytes: &[u8], i: usize) -> bool {
    let rest = &bytes[i..];
    rest.starts_with(LEFT_CURLY) || rest.starts_with(RIGHT_CURLY)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(src: &str) -> String {
        repair(src).text
    }

    #[test]
    fn untouched_text_is_copied() {
        let r = repair(r#"{"a": [1, 2], "b": "x, ]"}"#);
        assert_eq!(r.text, r#"{"a": [1, 2], "b": "x, ]"}"#);
        assert!(!r.applied.any());
        assert_eq!(r.applied.describe(), "");
    }

    #[test]
    fn trailing_commas_are_dropped_outside_strings() {
        assert_eq!(fixed("[1, 2,]"), "[1, 2]");
        assert_eq!(fixed("{\"a\": 1 ,\n }"), "{\"a\": 1 \n }");
        assert_eq!(fixed(r#"["a,]", ]"#), r#"["a,]" ]"#);
        assert_eq!(fixed("[1, , 2]"), "[1, , 2]");
    }

    #[test]
    fn trailing_comma_lookahead_skips_comments() {
        assert_eq!(fixed("[1, // note\n]"), "[1 \n]");
        assert_eq!(fixed("[1, // a\n // b\n]"), "[1 \n \n]");
    }

    #[test]
    fn comments_are_dropped_up_to_newline() {
        assert_eq!(fixed("[1 // one\n, 2]"), "[1 \n, 2]");
        assert_eq!(fixed("[1] // end"), "[1] ");
        assert_eq!(fixed(r#"["https://x"]"#), r#"["https://x"]"#);
        assert_eq!(fixed("[1] // say \"hi\n, \"a\"]"), "[1] \n, \"a\"]");
    }

    #[test]
    fn curly_quotes_outside_strings_only() {
        assert_eq!(fixed("{“title”: “Login”}"), r#"{"title": "Login"}"#);
        let inside = r#"{"note": "he said “hi”"}"#;
        assert_eq!(fixed(inside), inside);
    }

    #[test]
    fn escaped_quote_does_not_close_a_string() {
        let src = r#"{"a": "x\" // not a comment, ]", }"#;
        assert_eq!(fixed(src), r#"{"a": "x\" // not a comment, ]" }"#);
    }

    #[test]
    fn only_bare_nan_becomes_null() {
        assert_eq!(fixed("[NaN, 1]"), "[null, 1]");
        assert_eq!(
            fixed("[NaNa, _NaN, NaN_, 1NaN]"),
            "[NaNa, _NaN, NaN_, 1NaN]"
        );
        assert_eq!(fixed(r#"["NaN"]"#), r#"["NaN"]"#);
        assert_eq!(fixed("NaN"), "null");
        assert_eq!(fixed("-NaN"), "-null");
    }

    #[test]
    fn describe_lists_repairs_in_contract_order() {
        let r = repair("{“a”: NaN, // c\n}");
        assert_eq!(r.text, "{\"a\": null \n}");
        assert_eq!(
            r.applied.describe(),
            "removed trailing commas, replaced curly quotes, removed // comments, replaced NaN with null"
        );
    }

    #[test]
    fn odd_endings_do_not_panic() {
        for src in [
            "\"\\",
            "\"abc\\",
            "/",
            ",",
            "N",
            "Na",
            "\u{201C}",
            "\"é\\é\"",
            "é//é",
            "\\",
        ] {
            let _ = repair(src);
        }
        assert_eq!(fixed("\"\\é\", ]"), "\"\\é\" ]");
    }
}
