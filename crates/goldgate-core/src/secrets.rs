//! Secret values goldgate knows, and redacting them: a [`Secrets`] set holds every value
//! that must never be written anywhere (the CI tokens of the environment, each `${VAR}`
//! expanded into an HTTP pipeline's URL or headers, the password of a URL's userinfo), and
//! [`Secrets::redact`] replaces each occurrence by `***` in text that came from outside
//! (a pipeline's answer, its stderr, an error message) before goldgate records or shows it.
//! [`url_without_password`] shows a URL as `https://user:***@host/…`.

use std::borrow::Cow;
use std::fmt;

use memchr::memmem::Finder;

/// What a secret is replaced by.
pub const MASK: &str = "***";

/// Values shorter than this are not treated as secrets: redacting `1` or `abc` everywhere
/// would mangle every answer and hide nothing worth hiding.
pub const MIN_SECRET_LEN: usize = 4;

/// A set of secret values, longest first (so a secret that contains another is replaced
/// whole). Its `Debug` form never shows a value.
#[derive(Clone, Default)]
pub struct Secrets {
    values: Vec<(String, Finder<'static>)>,
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secrets({} values)", self.values.len())
    }
}

impl Secrets {
    pub fn new() -> Secrets {
        Secrets::default()
    }

    /// The values of the environment variables named (those set and long enough).
    pub fn from_env<S: AsRef<str>>(names: &[S]) -> Secrets {
        let mut secrets = Secrets::new();
        for name in names {
            if let Ok(value) = std::env::var(name.as_ref()) {
                secrets.add(&value);
            }
        }
        secrets
    }

    /// Add a secret value, with the forms it takes when written inside JSON (escaped) or a
    /// URL (percent-encoded), so an echo of it in either form is caught too. Values shorter
    /// than [`MIN_SECRET_LEN`] are ignored.
    pub fn add(&mut self, value: &str) {
        if value.chars().count() < MIN_SECRET_LEN {
            return;
        }
        let json = serde_json::to_string(value).unwrap_or_default();
        let forms = [
            value.to_string(),
            json.get(1..json.len().saturating_sub(1))
                .unwrap_or_default()
                .to_string(),
            percent_encode(value),
            // As a report shows it: `ghp\_…` in Markdown.
            crate::escape::markdown_inline(value),
        ];
        for form in forms {
            self.insert(form);
        }
    }

    /// Add the password of a URL's userinfo (`scheme://user:password@host`), as written and
    /// percent-decoded, and the `Authorization: Basic` credentials an HTTP client makes of it.
    pub fn add_url_password(&mut self, url: &str) {
        let Some((user, password)) = userinfo(url).and_then(|u| u.split_once(':')) else {
            return;
        };
        if password.is_empty() {
            return;
        }
        self.add(password);
        let decoded = percent_decode(password);
        self.add(&decoded);
        self.add(&base64(
            format!("{}:{decoded}", percent_decode(user)).as_bytes(),
        ));
    }

    /// Every value of `other` too.
    pub fn extend(&mut self, other: &Secrets) {
        for (value, _) in &other.values {
            self.insert(value.clone());
        }
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// How many distinct forms are held.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    fn insert(&mut self, value: String) {
        if value.chars().count() < MIN_SECRET_LEN || self.values.iter().any(|(v, _)| *v == value) {
            return;
        }
        let finder = Finder::new(value.as_bytes()).into_owned();
        let at = self.values.partition_point(|(v, _)| v.len() >= value.len());
        self.values.insert(at, (value, finder));
    }

    /// `text` with every secret replaced by `***` (borrowed when there is none: the common
    /// case costs one substring search per secret).
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let out = self.redact_literal(text);
        if self.values.is_empty() || memchr::memmem::find(out.as_bytes(), b"\\u").is_none() {
            return out;
        }
        // A secret spelt with JSON's `\uXXXX` escapes is the secret once the answer is
        // parsed: decode the escapes of plain ASCII characters and look again. The text is
        // changed only when that finds a secret.
        let decoded = decode_ascii_escapes(&out);
        match self.redact_literal(&decoded) {
            Cow::Owned(clean) => Cow::Owned(clean),
            Cow::Borrowed(_) => out,
        }
    }

    fn redact_literal<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for (value, finder) in &self.values {
            if finder.find(out.as_bytes()).is_some() {
                out = Cow::Owned(out.replace(value.as_str(), MASK));
            }
        }
        out
    }

    /// [`Secrets::redact`] of text cut short (a kept excerpt), also masking a secret the cut
    /// split: text that ends with the first [`MIN_SECRET_LEN`] or more characters of a
    /// secret has that end replaced by `***`.
    pub fn redact_cut<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = self.redact(text);
        for (value, _) in &self.values {
            let bytes = value.as_bytes();
            let cut = (MIN_SECRET_LEN..bytes.len())
                .rev()
                .find(|k| out.as_bytes().ends_with(&bytes[..*k]));
            if let Some(k) = cut {
                let keep = out.len() - k;
                if out.is_char_boundary(keep) {
                    out = Cow::Owned(format!("{}{MASK}", &out[..keep]));
                }
            }
        }
        out
    }

    /// [`Secrets::redact`] of an owned string, without a copy when nothing changes.
    pub fn redact_string(&self, text: String) -> String {
        match self.redact(&text) {
            Cow::Borrowed(_) => text,
            Cow::Owned(clean) => clean,
        }
    }
}

/// The userinfo of a URL (`user:password` in `https://user:password@host/`), if any.
fn userinfo(url: &str) -> Option<&str> {
    let rest = &url[url.find("://")? + 3..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    Some(&authority[..authority.rfind('@')?])
}

/// A URL fit to show: the password of its userinfo replaced by `***`
/// (`https://user:***@host/path`). Other URLs are returned as they are.
pub fn url_without_password(url: &str) -> Cow<'_, str> {
    let Some(info) = userinfo(url) else {
        return Cow::Borrowed(url);
    };
    let Some((user, password)) = info.split_once(':') else {
        return Cow::Borrowed(url);
    };
    if password.is_empty() {
        return Cow::Borrowed(url);
    }
    let start = url.find("://").map_or(0, |i| i + 3);
    Cow::Owned(format!(
        "{}{user}:{MASK}{}",
        &url[..start],
        &url[start + info.len()..]
    ))
}

/// Percent-encode every byte outside the URL's unreserved set (`A-Z a-z 0-9 - . _ ~`).
/// `value` percent-encoded as one URL component: every byte but letters, digits and
/// `-._~` as `%XX`.
pub fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `text` with every JSON `\uXXXX` escape of a letter, digit or one of `-_.~+/=:` replaced
/// by the character (the same JSON string, spelt plainly); escaped backslashes (`\\`) and
/// every other escape are kept as they are.
fn decode_ascii_escapes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'\\', &bytes[i..]).map(|k| i + k) {
        out.push_str(&text[i..at]);
        let plain = match bytes.get(at + 1) {
            Some(b'u') => text
                .get(at + 2..at + 6)
                .filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
                .map(char::from)
                .filter(|c| c.is_ascii_alphanumeric() || "-_.~+/=:".contains(*c)),
            _ => None,
        };
        match (plain, bytes.get(at + 1)) {
            (Some(c), _) => {
                out.push(c);
                i = at + 6;
            }
            (None, Some(next)) if next.is_ascii() => {
                out.push_str(&text[at..at + 2]);
                i = at + 2;
            }
            (None, _) => {
                out.push('\\');
                i = at + 1;
            }
        }
    }
    out.push_str(&text[i..]);
    out
}

/// Decode `%XX` escapes (invalid ones are kept as they are).
fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Standard base64 with padding (what `Authorization: Basic` carries, and the digest in a
/// Content-Security-Policy's hash source).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A secret written with JSON's `\uXXXX` escapes decodes to the secret once the answer
    /// is parsed, so it is masked too; and a secret escaped for Markdown (`ghp\_…`, as a
    /// comment shows it) is masked in a rendered report.
    #[test]
    fn escaped_forms_of_a_secret_are_masked() {
        let mut s = Secrets::new();
        s.add("ghp_probe1234");
        assert_eq!(
            s.redact(r#"{"title": "\u0067hp_probe1234", "x": "\\u0067hp_probe1234"}"#),
            r#"{"title": "***", "x": "\\u0067hp_probe1234"}"#,
            "an escaped backslash starts no escape"
        );
        assert_eq!(
            s.redact(r#"{"t": "\u0067\u0068\u0070\u005fprobe1234 \u00e9"}"#),
            r#"{"t": "*** \u00e9"}"#
        );
        assert!(matches!(
            s.redact(r#"{"t": "\u00e9 other"}"#),
            Cow::Borrowed(_)
        ));
        assert_eq!(s.redact("| ghp\\_probe1234 |"), "| *** |");
    }

    #[test]
    fn every_secret_is_masked_longest_first_and_short_values_are_ignored() {
        let mut s = Secrets::new();
        s.add("ghp_abc123");
        s.add("ghp_abc123XYZ");
        s.add("abc"); // too short to be a secret
        assert_eq!(
            s.redact("a ghp_abc123XYZ b ghp_abc123 c abc"),
            "a *** b *** c abc"
        );
        assert!(matches!(s.redact("nothing here"), Cow::Borrowed(_)));
        assert!(matches!(Secrets::new().redact("x"), Cow::Borrowed(_)));
        assert_eq!(
            format!("{s:?}"),
            "Secrets(4 values)",
            "Debug shows no value"
        );
    }

    #[test]
    fn a_secret_split_by_a_cut_is_masked_too() {
        let mut s = Secrets::new();
        s.add("ghp_abcdefgh");
        assert_eq!(s.redact_cut("token ghp_abcd"), "token ***");
        assert_eq!(
            s.redact_cut("token ghp_abcdefgh and gh"),
            "token *** and gh"
        );
        assert!(matches!(s.redact_cut("nothing"), Cow::Borrowed(_)));
    }

    #[test]
    fn escaped_and_encoded_forms_are_masked_too() {
        let mut s = Secrets::new();
        s.add("p\"a/ss w");
        assert_eq!(s.redact(r#"{"t": "p\"a/ss w"}"#), r#"{"t": "***"}"#);
        assert_eq!(s.redact("?t=p%22a%2Fss%20w&x=1"), "?t=***&x=1");
    }

    #[test]
    fn url_passwords_are_secrets_and_urls_show_without_them() {
        let url = "https://bot:pa%3Ass@example.com:8443/x?q=1";
        assert_eq!(
            url_without_password(url),
            "https://bot:***@example.com:8443/x?q=1"
        );
        assert_eq!(url_without_password("http://h/p?a=b@c"), "http://h/p?a=b@c");
        assert_eq!(url_without_password("http://user@h/"), "http://user@h/");
        let mut s = Secrets::new();
        s.add_url_password(url);
        assert_eq!(s.redact("pa%3Ass and pa:ss"), "*** and ***");
        // What reqwest sends for the userinfo: Basic base64("bot:pa:ss").
        assert_eq!(base64(b"bot:pa:ss"), "Ym90OnBhOnNz");
        assert_eq!(s.redact("Basic Ym90OnBhOnNz"), "Basic ***");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"a"), "YQ==");
    }

    #[test]
    fn from_env_reads_the_named_variables() {
        std::env::set_var("GOLDGATE_SECRETS_TEST_A", "value-of-a");
        std::env::remove_var("GOLDGATE_SECRETS_TEST_B");
        let s = Secrets::from_env(&["GOLDGATE_SECRETS_TEST_A", "GOLDGATE_SECRETS_TEST_B"]);
        assert_eq!(s.redact("x value-of-a y"), "x *** y");
        let mut all = Secrets::new();
        all.extend(&s);
        assert_eq!(all.len(), s.len());
    }
}
