//! Texts → token ids, as sentence-transformers tokenises them: the text stripped (and
//! lower-cased when `sentence_bert_config.json` says `do_lower_case`), then `tokenizer.json`'s
//! own pipeline (for all-MiniLM-L6-v2: BERT normalisation with lower-casing and accent
//! stripping, WordPiece, `[CLS] … [SEP]`), truncated at `max_seq_length` tokens, unpadded.
//!
//! A long text is tokenised from a prefix only (see [`WordPiece::encode_with_bound`]), so a
//! megabyte of text costs what its first few kilobytes cost, with the same ids.

use std::path::Path;

use rayon::prelude::*;
use tokenizers::normalizers::NormalizerWrapper;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::utils::truncation::{TruncationDirection, TruncationParams, TruncationStrategy};
use tokenizers::Tokenizer;

use super::files::{fetch_hint, problem};
use goldgate_core::error::Result;

/// Bytes of text read per token before the prefix rule starts: generous (English averages
/// four to five bytes a token), so the first prefix almost always suffices.
const BYTES_PER_TOKEN: usize = 32;

/// The tokenizer of a model, set up as sentence-transformers uses it.
pub struct WordPiece {
    tokenizer: Tokenizer,
    max_seq_length: usize,
    lower_case: bool,
    /// Whether tokenising a prefix is exact: BERT's normaliser (or none) and BERT's
    /// pre-tokenizer, the pipeline the argument of [`WordPiece::encode_with_bound`] is
    /// about. Other tokenizers read whole texts.
    prefix_exact: bool,
    /// Whether the normaliser puts spaces around Chinese characters (so a prefix may also
    /// end before one).
    chinese_words: bool,
}

impl WordPiece {
    /// Load `tokenizer.json`, truncating at `max_seq_length` tokens and without padding
    /// (the file's own truncation and padding are what the Python tokenizer's defaults
    /// were, not what sentence-transformers asks for). Refuse a tokenizer whose ids do not
    /// fit the model's `vocab_size`.
    pub fn load(
        path: &Path,
        max_seq_length: usize,
        lower_case: bool,
        vocab_size: usize,
    ) -> Result<WordPiece> {
        let mut tokenizer = Tokenizer::from_file(path).map_err(|e| {
            problem(
                path,
                None,
                format!("not a valid tokenizer file: {e}"),
                fetch_hint(),
            )
        })?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                direction: TruncationDirection::Right,
                max_length: max_seq_length,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
            }))
            .map_err(|e| {
                problem(
                    path,
                    None,
                    format!("cannot truncate with it: {e}"),
                    fetch_hint(),
                )
            })?;
        tokenizer.with_padding(None);
        let tokens = tokenizer.get_vocab_size(true);
        let largest = tokenizer.get_vocab(true).into_values().max().unwrap_or(0) as usize;
        if tokens > vocab_size || largest >= vocab_size {
            return Err(problem(
                path,
                None,
                format!(
                    "the tokenizer has {tokens} tokens (ids up to {largest}) but config.json's vocab_size is {vocab_size}: tokenizer.json and the model come from different models"
                ),
                fetch_hint(),
            ));
        }
        let (normalizer, chinese_words) = match tokenizer.get_normalizer() {
            None => (true, false),
            Some(NormalizerWrapper::BertNormalizer(bert)) => (true, bert.handle_chinese_chars),
            Some(_) => (false, false),
        };
        let prefix_exact = normalizer
            && matches!(
                tokenizer.get_pre_tokenizer(),
                Some(PreTokenizerWrapper::BertPreTokenizer(_))
            );
        let wordpiece = WordPiece {
            tokenizer,
            max_seq_length,
            lower_case,
            prefix_exact,
            chinese_words,
        };
        // A tokenizer that cannot encode the empty text is broken (not a matter of input).
        wordpiece.encode("").map_err(|e| {
            problem(
                path,
                None,
                format!("the tokenizer fails on an empty text: {e}"),
                fetch_hint(),
            )
        })?;
        Ok(wordpiece)
    }

    /// The ids of every text, `[CLS]` and `[SEP]` included, spread over the cores.
    pub fn encode_all(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        texts
            .par_iter()
            .map(|text| self.encode(text))
            .collect::<std::result::Result<Vec<_>, String>>()
            .map_err(|e| {
                goldgate_core::error::Error::internal(format!("the tokenizer failed: {e}"))
            })
    }

    /// The ids of one text.
    pub fn encode(&self, text: &str) -> std::result::Result<Vec<u32>, String> {
        self.encode_with_bound(text, BYTES_PER_TOKEN * self.max_seq_length)
    }

    /// The ids of one text, tokenising only a prefix of it when that gives the same ids:
    /// the prefix ends just before the first word boundary at or after byte `bound`
    /// (doubled until the prefix holds enough tokens), and the ids are taken from it when it
    /// alone fills `max_seq_length`. A word boundary is a whitespace character that BERT's
    /// cleaning keeps as a space (not the control characters VT, FF and NEL, which it
    /// deletes), ASCII punctuation (a word of its own for BERT's pre-tokenizer), or a
    /// Chinese character when the normaliser spaces them out. (A text with no boundary past
    /// the bound — one endless word — is read whole: a megabyte of it takes about half a
    /// second.)
    ///
    /// Why that is exact: BERT's normaliser works character by character (cleaning,
    /// spacing Chinese characters, lower-casing, and accent stripping, whose canonical
    /// reordering never crosses such a character: it is a starter), its pre-tokenizer
    /// splits at whitespace and punctuation, and WordPiece splits each word on its own; so
    /// cut before a word
    /// boundary, the text's tokens are the prefix's tokens followed by the rest's.
    /// Truncation keeps the first tokens: when the prefix has at least as many as fit, the
    /// rest is cut away in either case.
    pub fn encode_with_bound(
        &self,
        text: &str,
        bound: usize,
    ) -> std::result::Result<Vec<u32>, String> {
        let text = text.trim();
        if !self.prefix_exact {
            return self.encode_exact(text);
        }
        let mut bound = bound.max(1);
        loop {
            match cut_before_boundary(text, bound, self.chinese_words) {
                None => return self.encode_exact(text),
                Some(cut) => {
                    let ids = self.encode_exact(&text[..cut])?;
                    if ids.len() >= self.max_seq_length {
                        return Ok(ids);
                    }
                }
            }
            bound = bound.saturating_mul(2);
        }
    }

    /// The ids of `text` (already stripped), tokenised whole.
    fn encode_exact(&self, text: &str) -> std::result::Result<Vec<u32>, String> {
        let lowered;
        let text = if self.lower_case {
            lowered = text.to_lowercase();
            lowered.as_str()
        } else {
            text
        };
        let encoding = self
            .tokenizer
            .encode_fast(text, true)
            .map_err(|e| e.to_string())?;
        Ok(encoding.get_ids().to_vec())
    }
}

/// The first position at or after `bound` (a byte offset) where a word boundary starts
/// (see [`WordPiece::encode_with_bound`]), when `text` is longer than `bound`; `None` when
/// the whole text is to be read (it is short, or it has no boundary after the bound).
fn cut_before_boundary(text: &str, bound: usize, chinese_words: bool) -> Option<usize> {
    if text.len() <= bound {
        return None;
    }
    let mut start = bound;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let boundary = |c: char| {
        (c.is_whitespace() && (!c.is_control() || matches!(c, '\t' | '\n' | '\r')))
            || c.is_ascii_punctuation()
            || (chinese_words && is_chinese(c))
    };
    text[start..]
        .char_indices()
        .find(|(_, c)| boundary(*c))
        .map(|(i, _)| start + i)
}

/// BERT's "Chinese characters" (the CJK Unified Ideographs blocks), which its normaliser
/// spaces out into words of their own.
fn is_chinese(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B920..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cut_is_before_the_first_word_boundary_from_the_bound() {
        let cut = |text, bound| cut_before_boundary(text, bound, false);
        assert_eq!(cut("short", 10), None);
        assert_eq!(cut("one two three", 5), Some(7));
        assert_eq!(cut("one two three", 7), Some(7));
        assert_eq!(cut("one twothree", 5), None);
        // Multi-byte characters: never a cut inside one.
        assert_eq!(cut("é é é é", 4), Some(5));
        assert_eq!(cut("日本\u{3000}語です", 4), Some(6));
        // Whitespace BERT deletes (VT, FF, NEL) joins words: not a boundary.
        assert_eq!(cut("one\u{b}two\u{c}three\u{85}four five", 1), Some(19));
        assert_eq!(cut("one\ttwo", 1), Some(3));
        assert_eq!(cut("one,two", 1), Some(3));
        // Chinese characters are words of their own when the normaliser says so.
        assert_eq!(cut_before_boundary("系统必须", 4, true), Some(6));
        assert_eq!(cut_before_boundary("系统必须", 4, false), None);
        assert_eq!(cut_before_boundary("システム", 4, true), None);
    }
}
