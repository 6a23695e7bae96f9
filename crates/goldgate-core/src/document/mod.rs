//! Source documents: parsing one YAML or JSON text into a [`serde_json::Value`] together
//! with [`Positions`], the 1-based line and column of every value and every mapping key,
//! addressed by JSON pointer. Suites and run files both read through it.
//!
//! It owns the text-to-value step only: the position index ([`positions`]), JSON pointers
//! ([`pointer`]), the YAML event builder with anchors, aliases, merge keys and duplicate keys
//! ([`yaml`]), YAML 1.2 core-schema scalar resolution ([`yaml_scalar`]), and JSON parsing
//! with a fast position scanner that JSON Lines readers run lazily, only when an error
//! needs a location ([`json`]). Turning values into samples and naming files is the
//! caller's business.

mod json;
pub mod pointer;
mod positions;
mod yaml;
mod yaml_scalar;

pub use json::{json_positions, parse_json};
pub use pointer::{escape_pointer_segment, field_of, pointer_of, pointer_of_field};
pub use positions::Positions;
pub use yaml::parse_yaml;

use serde_json::Value;

/// Nesting deeper than this is an error in YAML and is not recorded by the JSON scanner.
pub(crate) const MAX_DEPTH: usize = 512;
/// Upper bound on the values YAML aliases may copy in one document (guards "billion laughs").
pub(crate) const MAX_ALIAS_VALUES: usize = 1_000_000;
/// Upper bound on the bytes of text (strings and keys) YAML aliases may copy in one
/// document: a long string aliased many times is refused before it fills the memory.
pub(crate) const MAX_ALIAS_BYTES: usize = 16 << 20;

/// 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// A document that cannot become a value: malformed text, a duplicate key, a non-finite number,
/// a second YAML document, ... The message names no file; the caller adds it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SyntaxError {
    pub position: Position,
    pub message: String,
}

impl SyntaxError {
    fn new(position: Position, message: impl Into<String>) -> Self {
        SyntaxError {
            position,
            message: message.into(),
        }
    }

    fn duplicate_key(key: &str, first: Position, second: Position) -> Self {
        let message = format!("duplicate key `{key}` (first at line {})", first.line);
        SyntaxError::new(second, message)
    }
}

/// One parsed document: its value and where each part of it stands in the text.
#[derive(Clone, Debug)]
pub struct Document {
    pub value: Value,
    pub positions: Positions,
}

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod tests;
