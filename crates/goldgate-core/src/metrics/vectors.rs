//! Sentence embeddings as scoring reads them: a table from text to its L2-normalised vector,
//! filled before scoring by whichever embedding backend is configured, and the cosine of
//! two such vectors.

use std::sync::Arc;

use crate::hash::FastMap;

/// Text → unit vector (all of one dimension).
#[derive(Clone, Debug, Default)]
pub struct Vectors {
    dim: usize,
    index: FastMap<Box<str>, u32>,
    data: Vec<f32>,
}

impl Vectors {
    /// An empty table of vectors of `dim` components.
    pub fn new(dim: usize) -> Self {
        Vectors {
            dim,
            ..Vectors::default()
        }
    }

    /// The dimension of every vector.
    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Add `text`'s vector, scaled to unit length (a zero vector stays zero). A text already
    /// present keeps its first vector. Panics when the dimension differs: the caller checks.
    pub fn insert(&mut self, text: &str, vector: &[f32]) {
        assert_eq!(vector.len(), self.dim, "one dimension per table");
        if self.index.contains_key(text) {
            return;
        }
        let norm = vector
            .iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt();
        let row = self.index.len() as u32;
        self.index.insert(text.into(), row);
        if norm > 0.0 && norm.is_finite() {
            self.data
                .extend(vector.iter().map(|&x| (f64::from(x) / norm) as f32));
        } else {
            self.data.extend(std::iter::repeat_n(0.0, self.dim));
        }
    }

    /// The unit vector of `text`, when it was embedded.
    pub fn get(&self, text: &str) -> Option<&[f32]> {
        let row = *self.index.get(text)? as usize;
        Some(&self.data[row * self.dim..(row + 1) * self.dim])
    }

    /// The row of `text`'s vector, when it was embedded.
    pub fn row(&self, text: &str) -> Option<u32> {
        self.index.get(text).copied()
    }

    /// The unit vector in `row`.
    pub fn vector(&self, row: u32) -> &[f32] {
        let row = row as usize;
        &self.data[row * self.dim..(row + 1) * self.dim]
    }

    /// Whether `text` was embedded.
    pub fn contains(&self, text: &str) -> bool {
        self.index.contains_key(text)
    }
}

/// A shared table: every thread scoring a round reads the same one.
pub type SharedVectors = Arc<Vectors>;

/// Cosine of two unit vectors: their dot product, summed in f64 and clamped to [-1, 1].
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| f64::from(x) * f64::from(y))
        .sum();
    dot.clamp(-1.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_normalised_and_first_insert_wins() {
        let mut v = Vectors::new(2);
        v.insert("a", &[3.0, 4.0]);
        v.insert("a", &[1.0, 0.0]);
        v.insert("zero", &[0.0, 0.0]);
        let a = v.get("a").unwrap();
        assert!((a[0] - 0.6).abs() < 1e-7 && (a[1] - 0.8).abs() < 1e-7);
        assert_eq!(v.get("zero"), Some(&[0.0, 0.0][..]));
        assert_eq!(v.get("missing"), None);
        assert!((cosine(a, a) - 1.0).abs() < 1e-6);
        assert_eq!(cosine(a, v.get("zero").unwrap()), 0.0);
        assert_eq!(v.len(), 2);
    }
}
