//! Texts prepared for similarity under the configured backend: [`Similarity`] says which
//! (character trigrams, or embedding vectors looked up in a [`Vectors`] table filled before
//! scoring), [`Text`] is one prepared text, and [`TextIndex`] several, for the cosine of one
//! text against all of them. A text whose `norm` is empty has similarity 0 with everything,
//! under every backend.

use super::similarity::{TrigramIndex, Trigrams};
use super::vectors::{cosine, SharedVectors};
use crate::text::norm;

/// How texts are compared.
#[derive(Clone, Debug, Default)]
pub enum Similarity {
    /// Cosine of character-trigram counts.
    #[default]
    Lexical,
    /// Cosine of sentence embeddings; every text scoring compares must be in the table.
    Embedded(SharedVectors),
}

/// One text, prepared.
#[derive(Clone, Debug)]
pub enum Text {
    Lexical(Trigrams),
    /// The text's row in the vector table; `None` when its `norm` is empty.
    Embedded(Option<u32>),
}

impl Default for Text {
    fn default() -> Self {
        Text::Lexical(Trigrams::default())
    }
}

/// The text of several parts as it is embedded: the parts joined by single spaces
/// (`title + " " + action`). Whatever lists the texts to embed joins them with this.
pub fn joined(parts: &[&str]) -> String {
    parts.join(" ")
}

impl Similarity {
    /// Prepare the text of `parts` joined by single spaces ([`joined`]).
    pub fn text(&self, parts: &[&str]) -> Text {
        match self {
            Similarity::Lexical => Text::Lexical(Trigrams::of_parts(parts)),
            Similarity::Embedded(vectors) => {
                let text = joined(parts);
                if norm(&text).is_empty() {
                    return Text::Embedded(None);
                }
                let row = vectors.row(&text).unwrap_or_else(|| {
                    panic!("every text scoring compares is embedded first, but {text:?} was not")
                });
                Text::Embedded(Some(row))
            }
        }
    }

    /// The cosine similarity of two prepared texts (0 when either is empty).
    pub fn cosine(&self, a: &Text, b: &Text) -> f64 {
        match (self, a, b) {
            (_, Text::Lexical(a), Text::Lexical(b)) => a.cosine(b),
            (Similarity::Embedded(v), Text::Embedded(Some(a)), Text::Embedded(Some(b))) => {
                cosine(v.vector(*a), v.vector(*b))
            }
            _ => 0.0,
        }
    }

    /// Several prepared texts, indexed for [`Similarity::cosines`].
    pub fn index<'a>(&self, texts: impl IntoIterator<Item = &'a Text>) -> TextIndex {
        match self {
            Similarity::Lexical => {
                TextIndex::Lexical(TrigramIndex::new(texts.into_iter().map(|t| match t {
                    Text::Lexical(t) => t,
                    Text::Embedded(_) => &EMPTY,
                })))
            }
            Similarity::Embedded(_) => TextIndex::Embedded(
                texts
                    .into_iter()
                    .map(|t| match t {
                        Text::Embedded(row) => *row,
                        Text::Lexical(_) => None,
                    })
                    .collect(),
            ),
        }
    }

    /// `out[i]` = the cosine of indexed text `i` with `other`. `dots` is scratch space.
    pub fn cosines(
        &self,
        index: &TextIndex,
        other: &Text,
        dots: &mut Vec<u64>,
        out: &mut Vec<f64>,
    ) {
        match (index, other) {
            (TextIndex::Lexical(index), Text::Lexical(other)) => index.cosines(other, dots, out),
            (TextIndex::Embedded(rows), other) => {
                out.clear();
                out.extend(
                    rows.iter()
                        .map(|row| self.cosine(&Text::Embedded(*row), other)),
                );
            }
            (TextIndex::Lexical(index), Text::Embedded(_)) => {
                out.clear();
                out.resize(index.len(), 0.0);
            }
        }
    }
}

static EMPTY: Trigrams = Trigrams::EMPTY;

/// Prepared texts indexed for the cosine of one text against all of them.
#[derive(Clone, Debug)]
pub enum TextIndex {
    Lexical(TrigramIndex),
    Embedded(Vec<Option<u32>>),
}

impl Default for TextIndex {
    fn default() -> Self {
        TextIndex::Lexical(TrigramIndex::default())
    }
}

impl TextIndex {
    /// How many texts are indexed.
    pub fn len(&self) -> usize {
        match self {
            TextIndex::Lexical(index) => index.len(),
            TextIndex::Embedded(rows) => rows.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::metrics::vectors::Vectors;

    fn embedded() -> Similarity {
        let mut v = Vectors::new(2);
        v.insert("a b", &[1.0, 0.0]);
        v.insert("c", &[1.0, 1.0]);
        Similarity::Embedded(Arc::new(v))
    }

    #[test]
    fn embedded_texts_compare_by_their_vectors_and_empty_text_matches_nothing() {
        let sim = embedded();
        let (ab, c, empty) = (
            sim.text(&["a", "b"]),
            sim.text(&["c"]),
            sim.text(&[" ", "!"]),
        );
        assert!((sim.cosine(&ab, &c) - 0.5f64.sqrt()).abs() < 1e-6);
        assert_eq!(sim.cosine(&empty, &empty), 0.0);
        let index = sim.index([&ab, &empty, &c]);
        let (mut dots, mut out) = (Vec::new(), Vec::new());
        sim.cosines(&index, &c, &mut dots, &mut out);
        assert_eq!(out.len(), 3);
        assert!(
            (out[0] - 0.5f64.sqrt()).abs() < 1e-6 && out[1] == 0.0 && (out[2] - 1.0).abs() < 1e-6
        );
    }

    #[test]
    fn lexical_texts_are_trigrams() {
        let sim = Similarity::Lexical;
        let a = sim.text(&["track", "orders"]);
        let b = sim.text(&["track orders"]);
        assert!((sim.cosine(&a, &b) - 1.0).abs() < 1e-12);
    }

    #[test]
    #[should_panic(expected = "was not")]
    fn a_text_missing_from_the_table_is_a_bug_not_a_zero() {
        embedded().text(&["never embedded"]);
    }
}
