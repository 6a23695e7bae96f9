//! The short, redacted excerpts of an API's answer that error messages quote: what an error
//! answer says (the provider's own message when it gives one), the start of a body or of a
//! text, on one line, secrets masked. Shared by every client of an OpenAI-compatible API.

use crate::secrets::Secrets;

/// The most characters of an answer an error message quotes.
pub const EXCERPT_CHARS: usize = 200;

/// What an error answer says: the provider's own message (`{"error": {"message": …}}`,
/// `{"error": "…"}`, `{"message": …}` or `{"detail": …}`) when the body has one, else the
/// start of the body; on one line, at most a couple of hundred characters, secrets masked.
pub fn error_message(body: &[u8], secrets: &Secrets) -> String {
    let said = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            [
                &v["error"]["message"],
                &v["error"],
                &v["message"],
                &v["detail"],
            ]
            .into_iter()
            .find_map(|m| m.as_str().map(str::to_string))
        });
    match said {
        Some(message) => excerpt(message.as_bytes(), secrets),
        None => excerpt(body, secrets),
    }
}

/// The start of `body` for a message: whitespace runs as one space, at most
/// [`EXCERPT_CHARS`] characters (`…` when cut), secrets masked (a secret the cut split too).
pub fn excerpt(body: &[u8], secrets: &Secrets) -> String {
    let text = String::from_utf8_lossy(body);
    let text = secrets.redact(&text);
    let mut words = text.split_whitespace();
    let mut out = String::new();
    let mut cut = false;
    for word in words.by_ref() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > EXCERPT_CHARS {
            cut = true;
            break;
        }
    }
    cut |= words.next().is_some();
    if !cut {
        return out;
    }
    let short: String = out.chars().take(EXCERPT_CHARS).collect();
    format!("{}…", secrets.redact_cut(&short))
}

/// The first `chars` characters of `text` (a text named in a message), `…` when cut,
/// secrets masked.
pub fn start_of(text: &str, chars: usize, secrets: &Secrets) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let short: String = one_line.chars().take(chars).collect();
    if short.len() < one_line.len() {
        format!("{}…", secrets.redact_cut(&short))
    } else {
        secrets.redact(&short).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_quote_the_provider_on_one_line_short_and_without_secrets() {
        let mut secrets = Secrets::new();
        secrets.add("sk-secret-value");
        let body = br#"{"error": {"message": "Incorrect API key provided:\n sk-secret-value.", "code": 1}}"#;
        assert_eq!(
            error_message(body, &secrets),
            "Incorrect API key provided: ***."
        );
        assert_eq!(error_message(b"plain\ttext", &secrets), "plain text");
        let long = format!("{} sk-secret-value {}", "x".repeat(150), "y".repeat(100));
        let shown = excerpt(long.as_bytes(), &secrets);
        assert!(shown.ends_with('…') && shown.chars().count() <= EXCERPT_CHARS + 1);
        assert!(!shown.contains("sk-s"), "{shown}");
        assert_eq!(start_of("a  b\nc", 60, &secrets), "a b c");
        assert_eq!(start_of("abcdef", 3, &secrets), "abc…");
    }
}
