//! Counting tokens when no one reported them: a server that sends no `usage` (llama.cpp's
//! streaming server), negative counts or strings, a pipeline whose answer says nothing of
//! its tokens. goldgate counts the request and the answer itself with OpenAI's byte-pair
//! encodings (the `tiktoken-rs` crate, whose ranks are embedded: counting never downloads),
//! so a price and a budget are applied to an estimate rather than skipped. The encoding
//! follows the model's name ([`Encoding::for_model`]); a model of another family is counted
//! with `cl100k_base`, an estimate all the same.

use super::{Message, TokenUsage};

/// A byte-pair encoding of OpenAI's models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-4.5, GPT-5 and the o-series (o1, o3, o4).
    O200kBase,
    /// GPT-4, GPT-3.5, and every model goldgate does not know.
    Cl100kBase,
}

/// Names (after any `provider/` prefix) counted with `o200k_base`.
const O200K_PREFIXES: &[&str] = &[
    "gpt-4o",
    "chatgpt-4o",
    "gpt-4.1",
    "gpt-4.5",
    "gpt-5",
    "o1",
    "o3",
    "o4",
];

/// Tokens of framing per message (role and separators), and before the reply, as OpenAI
/// counts chat messages.
const PER_MESSAGE: u64 = 3;
const REPLY_PRIMING: u64 = 3;

impl Encoding {
    /// The encoding of a model by its name: `o200k_base` for the GPT-4o, GPT-4.1, GPT-4.5,
    /// GPT-5 and o1/o3/o4 families, `cl100k_base` otherwise (no name included).
    pub fn for_model(model: Option<&str>) -> Encoding {
        let name = model.unwrap_or_default().to_ascii_lowercase();
        let name = name.rsplit('/').next().unwrap_or_default();
        let o200k = O200K_PREFIXES.iter().any(|p| {
            name.strip_prefix(p)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.', ':']))
        });
        match o200k {
            true => Encoding::O200kBase,
            false => Encoding::Cl100kBase,
        }
    }

    /// The encoding's name, as documented.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// Tokens of `text` (special tokens counted as plain text). The text is encoded in
    /// pieces of at most [`PIECE_BYTES`], cut where a word starts, so no input can make the
    /// encoder's pattern give up (a megabyte of whitespace does, and `tiktoken-rs` panics
    /// on it); a cut can move the count by a token. Past [`COUNTED_BYTES`] the count is the
    /// counted part's, scaled by the bytes: a bounded time for any answer.
    pub fn count(self, text: &str) -> u64 {
        if text.is_empty() {
            return 0;
        }
        let bpe = match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        let counted = &text[..char_floor(text, COUNTED_BYTES)];
        let tokens: u64 = pieces(counted)
            .map(|piece| bpe.encode_ordinary(piece).len() as u64)
            .sum();
        match counted.len() == text.len() {
            true => tokens,
            false => (tokens as f64 * text.len() as f64 / counted.len() as f64).ceil() as u64,
        }
    }
}

/// The largest piece of text encoded at once.
const PIECE_BYTES: usize = 8 * 1024;
/// How much of one text is encoded; the rest is estimated from it.
const COUNTED_BYTES: usize = 1 << 20;

/// The largest char boundary of `text` at or below `at`.
fn char_floor(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `text` in pieces of at most [`PIECE_BYTES`], each cut (when it can be, in its second
/// half) where a word starts after whitespace, as the encoder would split it anyway.
fn pieces(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = match rest.len() <= PIECE_BYTES {
            true => rest.len(),
            false => {
                let limit = char_floor(rest, PIECE_BYTES);
                let head = &rest[..limit];
                head.char_indices()
                    .rev()
                    .take_while(|&(i, _)| i > limit / 2)
                    .find(|&(i, c)| !c.is_whitespace() && head[..i].ends_with(char::is_whitespace))
                    .map_or(limit, |(i, _)| i)
            }
        };
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

/// goldgate's count of a chat call: the messages sent (each one's role and content, with
/// OpenAI's framing of 3 tokens per message and 3 before the reply) and the answer.
pub fn estimate_chat(model: &str, messages: &[Message], answer: &str) -> TokenUsage {
    let encoding = Encoding::for_model(Some(model));
    let prompt = messages
        .iter()
        .map(|m| PER_MESSAGE + encoding.count(&m.role) + encoding.count(&m.content))
        .sum::<u64>()
        + REPLY_PRIMING;
    TokenUsage {
        prompt_tokens: prompt,
        completion_tokens: encoding.count(answer),
        estimated: true,
    }
}

/// goldgate's count of a pipeline call: the request as sent and the answer.
pub fn estimate_text(model: Option<&str>, request: &str, answer: &str) -> TokenUsage {
    let encoding = Encoding::for_model(model);
    TokenUsage {
        prompt_tokens: encoding.count(request),
        completion_tokens: encoding.count(answer),
        estimated: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_encoding_follows_the_models_family() {
        for model in [
            "gpt-4o",
            "gpt-4o-mini",
            "openai/gpt-4.1-nano",
            "gpt-5",
            "gpt-5.1-codex",
            "o1",
            "o3-mini",
            "o4-mini",
            "chatgpt-4o-latest",
        ] {
            assert_eq!(
                Encoding::for_model(Some(model)),
                Encoding::O200kBase,
                "{model}"
            );
        }
        for model in [
            "gpt-4",
            "gpt-3.5-turbo",
            "llama3.1:8b",
            "o1x",
            "qwen2.5",
            "",
        ] {
            assert_eq!(
                Encoding::for_model(Some(model)),
                Encoding::Cl100kBase,
                "{model}"
            );
        }
        assert_eq!(Encoding::for_model(None), Encoding::Cl100kBase);
    }

    /// Counts agree with tiktoken's (Python) for the same text: the ranks are the embedded
    /// ones, read without a network.
    #[test]
    fn tokens_are_counted_offline_as_tiktoken_counts_them() {
        assert_eq!(Encoding::Cl100kBase.count("hello world"), 2);
        assert_eq!(Encoding::O200kBase.count("hello world"), 2);
        assert_eq!(Encoding::Cl100kBase.count(""), 0);
        assert_eq!(
            Encoding::Cl100kBase.count("tiktoken is great!"),
            6,
            "tiktoken.get_encoding('cl100k_base') gives 6"
        );
        let usage = estimate_chat(
            "gpt-4o",
            &[
                Message::new("system", "Be brief."),
                Message::new("user", "hello world"),
            ],
            "hello world",
        );
        // system: 3 + 1 + 3 ("Be brief."), user: 3 + 1 + 2, priming 3.
        assert_eq!(usage.prompt_tokens, 3 + 1 + 3 + 3 + 1 + 2 + 3);
        assert_eq!((usage.completion_tokens, usage.estimated), (2, true));
    }

    /// A pipeline's answer is untrusted and may be megabytes of whitespace, the input that
    /// makes tiktoken's pre-tokenizing regex give up (and `tiktoken-rs` panic on it): the
    /// count never panics and stays bounded in time.
    #[test]
    fn a_huge_answer_is_counted_without_a_panic() {
        for text in [
            format!("{}x", " ".repeat(2 << 20)),
            format!("{}\n", " \t".repeat(1 << 20)),
        ] {
            let n = Encoding::Cl100kBase.count(&text);
            assert!(n > 0 && n <= text.len() as u64, "{n}");
            assert!(Encoding::O200kBase.count(&text) > 0);
        }
    }

    /// Cutting a long text into pieces where words start moves its count by at most a
    /// token per cut.
    #[test]
    fn a_long_text_counts_as_it_would_whole() {
        let text = "The system shall notify the customer by e-mail within 5 minutes of \
                    shipping, and the courier's tracking number (if any) is included.\n"
            .repeat(600);
        assert!(text.len() > 8 * PIECE_BYTES);
        let bpe = tiktoken_rs::cl100k_base_singleton();
        let whole = bpe.encode_ordinary(&text).len() as u64;
        let cuts = pieces(&text).count() as u64 - 1;
        assert!(cuts >= 8);
        let counted = Encoding::Cl100kBase.count(&text);
        assert!(counted.abs_diff(whole) <= cuts, "{counted} vs {whole}");
        assert_eq!(pieces(&text).collect::<String>(), text);
        let accents = "é".repeat(PIECE_BYTES);
        assert_eq!(pieces(&accents).collect::<String>(), accents);
    }
}
