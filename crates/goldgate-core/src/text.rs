//! Text helpers shared by the metrics and the loaders: the normalisation `norm` (docs/metrics.md),
//! "did you mean" suggestions for misspelt keys and enum values, and lower-case hex of digests.

use unicode_normalization::UnicodeNormalization;

/// A count with its noun, in the plural unless the count is 1: `plural(1, "record")` is
/// `1 record`, `plural(3, "entry")` `3 entries`, `plural(0, "match")` `0 matches`.
pub fn plural(n: impl std::fmt::Display, noun: &str) -> String {
    let n = n.to_string();
    if n == "1" {
        return format!("1 {noun}");
    }
    let consonant_y = noun.ends_with('y')
        && !noun.ends_with("ay")
        && !noun.ends_with("ey")
        && !noun.ends_with("oy");
    let form = match () {
        _ if consonant_y => format!("{}ies", &noun[..noun.len() - 1]),
        _ if ["s", "x", "ch", "sh"].iter().any(|e| noun.ends_with(e)) => format!("{noun}es"),
        _ => format!("{noun}s"),
    };
    format!("{n} {form}")
}

/// `norm(s)`: Unicode NFKC, lowercase, every character that is not alphanumeric
/// (`char::is_alphanumeric`) becomes a space, runs of spaces collapse to one, trim.
pub fn norm(s: &str) -> String {
    if s.is_ascii() {
        // NFKC is the identity on ASCII; skip the allocation-heavy path.
        let lowered = s.bytes().map(|b| char::from(b.to_ascii_lowercase()));
        return collapse(lowered, s.len());
    }
    let nfkc: String = s.nfkc().collect();
    collapse(nfkc.to_lowercase().chars(), nfkc.len())
}

/// Whether `value` equals one of the canonical `allowed` values after `norm`.
pub fn in_enum(value: &str, allowed: &[&str]) -> bool {
    let normed = norm(value);
    // Canonical values are lower-case words joined by `-` or `_`: their norm joins with spaces.
    allowed.iter().any(|a| {
        a.chars()
            .map(|c| if c.is_alphanumeric() { c } else { ' ' })
            .eq(normed.chars())
    })
}

/// `chars` with non-alphanumerics as single spaces, trimmed; `len` is a capacity hint.
fn collapse(chars: impl Iterator<Item = char>, len: usize) -> String {
    let mut out = String::with_capacity(len);
    let mut pending_space = false;
    for c in chars {
        if c.is_alphanumeric() {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        } else {
            pending_space = true;
        }
    }
    out
}

/// The candidate closest to `word` by edit distance, when it is close enough to be a
/// plausible misspelling (at most a third of the word's length, at least one edit), or one
/// that extends it (`latency` → `latency_ms`).
pub fn did_you_mean<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let word = word.to_lowercase();
    let limit = (word.chars().count() / 3).max(1);
    let candidates: Vec<&'a str> = candidates.into_iter().collect();
    let close = candidates
        .iter()
        .map(|c| (levenshtein(&word, &c.to_lowercase()), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c);
    close.or_else(|| {
        let extends = |c: &&str| word.chars().count() >= 4 && c.to_lowercase().starts_with(&word);
        candidates.into_iter().find(extends)
    })
}

/// Edit distance over Unicode scalar values where swapping two neighbours counts as one
/// edit (optimal string alignment), so `titel` is one edit from `title`.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// Make a serde/toml error message readable: drop serde_json's " at line N column M" suffix
/// (goldgate reports its own location), and turn "unknown field `x`, expected one of …" or
/// "unknown variant …" into a short message plus a did-you-mean hint.
pub fn explain_serde(message: &str) -> (String, Option<String>) {
    let message = match message.rfind(" at line ") {
        Some(at) if message[at..].contains(" column ") => &message[..at],
        _ => message,
    };
    for what in ["field", "variant"] {
        let prefix = format!("unknown {what} `");
        let Some(rest) = message.strip_prefix(prefix.as_str()) else {
            continue;
        };
        let Some((word, tail)) = rest.split_once('`') else {
            continue;
        };
        let expected: Vec<&str> = tail.split('`').skip(1).step_by(2).collect();
        let label = if what == "field" { "field" } else { "value" };
        let short = format!("unknown {label} `{word}`");
        let hint = match did_you_mean(word, expected.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None if expected.is_empty() => return (short, None),
            None => format!("expected one of: {}", expected.join(", ")),
        };
        return (short, Some(hint));
    }
    (message.to_string(), None)
}

/// A hint sentence for a value that is not one of `allowed`.
pub fn hint_for(word: &str, allowed: &[&'static str]) -> String {
    match did_you_mean(word, allowed.iter().copied()) {
        Some(s) => format!("did you mean `{s}`?"),
        None => format!("expected one of: {}", allowed.join(", ")),
    }
}

/// `arg` as one word of a POSIX shell command line: as it is when it is plain, else in single
/// quotes.
pub fn shell_quote(arg: &str) -> String {
    if !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        return arg.to_string();
    }
    format!("'{}'", arg.replace('\'', r"'\''"))
}

/// Lower-case hex of a digest.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `sha256:` and the hex digest of what `hasher` was fed: how fingerprints are written.
pub fn sha256_of(hasher: sha2::Sha256) -> String {
    use sha2::Digest;
    format!("sha256:{}", hex(&hasher.finalize()))
}

/// `sha256:` and the hex digest of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha256_of(sha2::Sha256::new_with_prefix(bytes))
}

/// Whether `s` is an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS`, an optional fraction, then
/// `Z` or `±HH:MM` (`t`, `z` and a space for `T` accepted, as the RFC allows).
pub fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let at = |i: usize, set: &[u8]| b.get(i).is_some_and(|c| set.contains(c));
    let head = digits(0..4)
        && at(4, b"-")
        && digits(5..7)
        && at(7, b"-")
        && digits(8..10)
        && at(10, b"Tt ")
        && digits(11..13)
        && at(13, b":")
        && digits(14..16)
        && at(16, b":")
        && digits(17..19);
    if !head {
        return false;
    }
    let mut i = 19;
    if at(i, b".") {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    let in_range = |r: std::ops::Range<usize>, max: u32| {
        std::str::from_utf8(&b[r])
            .ok()
            .and_then(|t| t.parse::<u32>().ok())
            .is_some_and(|v| v <= max)
    };
    let fields = in_range(5..7, 12)
        && in_range(8..10, 31)
        && in_range(11..13, 23)
        && in_range(14..16, 59)
        && in_range(17..19, 60);
    let zone = match b.get(i) {
        Some(b'Z' | b'z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            i + 6 == b.len() && digits(i + 1..i + 3) && at(i + 3, b":") && digits(i + 4..i + 6)
        }
        _ => false,
    };
    fields && zone
}

#[cfg(test)]
mod tests {
    #[test]
    fn plural_says_one_of_a_thing_and_several_things() {
        use super::plural;
        assert_eq!(plural(1, "record"), "1 record");
        assert_eq!(plural(0, "record"), "0 records");
        assert_eq!(plural(2_usize, "error"), "2 errors");
        assert_eq!(plural(3_u64, "entry"), "3 entries");
        assert_eq!(plural(2, "key"), "2 keys");
        assert_eq!(plural(4, "batch"), "4 batches");
        assert_eq!(plural(1, "entry"), "1 entry");
    }

    use super::*;

    #[test]
    fn rfc3339_timestamps_are_told_from_other_text() {
        for ok in [
            "2026-11-26T10:00:00Z",
            "2026-11-26t10:00:00.123z",
            "2026-11-26 10:00:00+01:00",
            "2026-12-31T23:59:60-05:30",
        ] {
            assert!(is_rfc3339(ok), "{ok}");
        }
        for bad in [
            "",
            "yesterday",
            "2026-11-26",
            "2026-11-26T10:00:00",
            "2026-13-26T10:00:00Z",
            "2026-11-26T24:00:00Z",
            "2026-11-26T10:00:00.Z",
            "2026-11-26T10:00:00Zx",
            "2026-11-26T10:00:00+0100",
            "2026-11-26T10:00:00+01:00 ",
            "２026-11-26T10:00:00Z",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }

    #[test]
    fn arguments_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("--config"), "--config");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
    }

    #[test]
    fn norm_follows_the_spec() {
        assert_eq!(norm("  Non-Functional "), "non functional");
        assert_eq!(norm("non_functional"), "non functional");
        assert_eq!(norm("E-mail   the USER!!"), "e mail the user");
        assert_eq!(norm("---"), "");
        assert_eq!(norm(""), "");
        // NFKC folds compatibility characters: full-width letters and the "ﬁ" ligature.
        assert_eq!(norm("ＡＢＣ ﬁle"), "abc file");
        // Unicode letters and digits are kept, punctuation is not.
        assert_eq!(norm("Größe: 5²"), "größe 52");
        assert_eq!(norm("Café—Bar"), "café bar");
    }

    #[test]
    fn suggestions_only_for_near_misses() {
        let keys = ["title", "type", "actor", "action"];
        assert_eq!(did_you_mean("titel", keys), Some("title"));
        assert_eq!(did_you_mean("aktion", keys), Some("action"));
        assert_eq!(did_you_mean("zzzzzz", keys), None);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("titel", "title"), 1);
    }

    #[test]
    fn serde_messages_are_explained() {
        let (m, h) = explain_serde(
            "unknown field `latency`, expected one of `sample_id`, `latency_ms`, `cached`",
        );
        assert_eq!(m, "unknown field `latency`");
        assert_eq!(h.as_deref(), Some("did you mean `latency_ms`?"));
        let (m, h) = explain_serde("unknown variant `crash`, expected one of `timeout`, `exit`");
        assert_eq!(m, "unknown value `crash`");
        assert_eq!(h.as_deref(), Some("expected one of: timeout, exit"));
        let (m, h) = explain_serde("EOF while parsing a value at line 2 column 0");
        assert_eq!((m.as_str(), h), ("EOF while parsing a value", None));
    }
}
