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

    /// Tokens of `text` (special tokens counted as plain text).
    pub fn count(self, text: &str) -> u64 {
        if text.is_empty() {
            return 0;
        }
        let bpe = match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        bpe.encode_ordinary(text).len() as u64
    }
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
}
