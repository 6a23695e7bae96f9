//! The `lexical` similarity: cosine of character-trigram count vectors of
//! `" " + norm(s) + " "`, with integer counts and f64 arithmetic.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::text::norm;

/// A string's trigram multiset as sorted keys (a repeated trigram appears once per
/// occurrence), ready for repeated cosines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trigrams {
    keys: Vec<u64>,
    norm_sq: u64,
}

impl Trigrams {
    /// Trigrams of `" " + norm(s) + " "`. A string whose norm is empty has none.
    pub fn new(s: &str) -> Self {
        Trigrams::of_parts(&[s])
    }

    /// Trigrams of the parts joined by single spaces (`title + " " + action`), without
    /// building the joined string.
    pub fn of_parts(parts: &[&str]) -> Self {
        let len: usize = parts.iter().map(|p| p.len() + 1).sum();
        let mut keys = Vec::with_capacity(len + 2);
        if parts.iter().all(|p| p.is_ascii()) {
            // NFKC is the identity on ASCII: normalise on the fly, no intermediate string.
            push_ascii_trigrams(parts, &mut keys);
        } else {
            push_trigrams(norm(&parts.join(" ")).chars(), &mut keys);
        }
        keys.sort_unstable();
        let norm_sq = runs(&keys).map(|(_, c)| c * c).sum();
        Trigrams { keys, norm_sq }
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Cosine similarity: dot / sqrt(|a|² · |b|²); 0 when either side has no trigrams.
    pub fn cosine(&self, other: &Trigrams) -> f64 {
        if self.is_empty() || other.is_empty() {
            return 0.0;
        }
        let dot = self.dot(other);
        dot as f64 / (self.norm_sq as f64 * other.norm_sq as f64).sqrt()
    }

    /// Σ count_a(k)·count_b(k) over the two sorted multisets.
    fn dot(&self, other: &Trigrams) -> u64 {
        let (a, b) = (&self.keys, &other.keys);
        let (mut i, mut j, mut dot) = (0, 0, 0);
        while i < a.len() && j < b.len() {
            let (ka, kb) = (a[i], b[j]);
            if ka < kb {
                i += 1;
            } else if ka > kb {
                j += 1;
            } else {
                let start_a = i;
                while i < a.len() && a[i] == ka {
                    i += 1;
                }
                let start_b = j;
                while j < b.len() && b[j] == kb {
                    j += 1;
                }
                dot += ((i - start_a) * (j - start_b)) as u64;
            }
        }
        dot
    }
}

/// Several trigram sets indexed by trigram, to take the cosine of one other set against
/// all of them at once: the cost is the trigrams the sets share, not every pair of keys.
/// [`TrigramIndex::cosines`] gives exactly what [`Trigrams::cosine`] gives for each set.
#[derive(Clone, Debug, Default)]
pub struct TrigramIndex {
    norms: Vec<u64>,
    /// Trigram → range of `postings` holding (set, count) of every set that has it.
    spans: HashMap<u64, (u32, u32), BuildHasherDefault<KeyHasher>>,
    postings: Vec<(u32, u32)>,
}

impl TrigramIndex {
    pub fn new<'a>(sets: impl IntoIterator<Item = &'a Trigrams>) -> Self {
        let sets: Vec<&Trigrams> = sets.into_iter().collect();
        let capacity = sets.iter().map(|s| s.keys.len()).sum();
        // Count the sets holding each trigram, then place the postings after those counts.
        let mut spans: HashMap<u64, (u32, u32), _> =
            HashMap::with_capacity_and_hasher(capacity, BuildHasherDefault::<KeyHasher>::default());
        for set in &sets {
            for (key, _) in runs(&set.keys) {
                spans.entry(key).or_insert((0, 0)).1 += 1;
            }
        }
        let mut total = 0;
        for span in spans.values_mut() {
            let count = span.1;
            *span = (total, total);
            total += count;
        }
        let mut postings = vec![(0, 0); total as usize];
        for (i, set) in sets.iter().enumerate() {
            for (key, count) in runs(&set.keys) {
                if let Some(span) = spans.get_mut(&key) {
                    postings[span.1 as usize] = (i as u32, count as u32);
                    span.1 += 1;
                }
            }
        }
        TrigramIndex {
            norms: sets.iter().map(|s| s.norm_sq).collect(),
            spans,
            postings,
        }
    }

    /// How many sets are indexed.
    pub fn len(&self) -> usize {
        self.norms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.norms.is_empty()
    }

    /// `out[i]` = the cosine of indexed set `i` with `other` (set `i` first, as
    /// `sets[i].cosine(other)` computes it).
    pub fn cosines(&self, other: &Trigrams, dots: &mut Vec<u64>, out: &mut Vec<f64>) {
        dots.clear();
        dots.resize(self.norms.len(), 0);
        for (key, count) in runs(&other.keys) {
            if let Some(&(start, end)) = self.spans.get(&key) {
                for &(i, c) in &self.postings[start as usize..end as usize] {
                    dots[i as usize] += u64::from(c) * count;
                }
            }
        }
        out.clear();
        out.extend(self.norms.iter().zip(dots.iter()).map(|(&norm_sq, &dot)| {
            if norm_sq == 0 || other.is_empty() {
                0.0
            } else {
                dot as f64 / (norm_sq as f64 * other.norm_sq as f64).sqrt()
            }
        }));
    }
}

/// Hashes a trigram key (already well spread in its high bits) with one multiply.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, key: u64) {
        let h = (self.0 ^ key).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 29);
    }
}

/// (key, count) runs of sorted keys.
fn runs(keys: &[u64]) -> impl Iterator<Item = (u64, u64)> + '_ {
    keys.chunk_by(|a, b| a == b)
        .map(|run| (run[0], run.len() as u64))
}

/// Push the trigram keys of `" " + collapse(chars) + " "`, where `collapse` maps every
/// non-alphanumeric character to a space, folds runs of spaces and trims (the tail of `norm`;
/// `chars` must already be NFKC and lower case). Nothing is pushed when no character is
/// alphanumeric.
fn push_trigrams(chars: impl Iterator<Item = char>, keys: &mut Vec<u64>) {
    let key =
        |a: char, b: char, c: char| (u64::from(a) << 42) | (u64::from(b) << 21) | u64::from(c);
    let (mut prev2, mut prev1) = (' ', ' ');
    let (mut started, mut pending_space, mut len) = (false, false, 1usize);
    let mut push = |c: char, prev2: &mut char, prev1: &mut char, len: &mut usize| {
        *len += 1;
        if *len >= 3 {
            keys.push(key(*prev2, *prev1, c));
        }
        *prev2 = *prev1;
        *prev1 = c;
    };
    for c in chars {
        if c.is_alphanumeric() {
            if pending_space && started {
                push(' ', &mut prev2, &mut prev1, &mut len);
            }
            pending_space = false;
            started = true;
            push(c, &mut prev2, &mut prev1, &mut len);
        } else {
            pending_space = true;
        }
    }
    if started {
        push(' ', &mut prev2, &mut prev1, &mut len);
    }
}

/// [`push_trigrams`] for ASCII parts joined by spaces, one byte at a time: the key of the
/// last three characters rolls along as they come (21 bits per character, as in
/// [`push_trigrams`]).
fn push_ascii_trigrams(parts: &[&str], keys: &mut Vec<u64>) {
    const MASK: u64 = (1 << 63) - 1;
    let space = u64::from(b' ');
    let (mut key, mut len) = ((space << 21) | space, 1usize);
    let (mut started, mut pending_space) = (false, false);
    let mut push = |c: u64| {
        key = ((key << 21) | c) & MASK;
        len += 1;
        if len >= 3 {
            keys.push(key);
        }
    };
    for (i, part) in parts.iter().enumerate() {
        pending_space |= i > 0;
        for &b in part.as_bytes() {
            if b.is_ascii_alphanumeric() {
                if pending_space && started {
                    push(space);
                }
                pending_space = false;
                started = true;
                push(u64::from(b.to_ascii_lowercase()));
            } else {
                pending_space = true;
            }
        }
    }
    if started {
        push(space);
    }
}

/// Lexical similarity of two strings.
pub fn lexical(a: &str, b: &str) -> f64 {
    Trigrams::new(a).cosine(&Trigrams::new(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_strings_score_one() {
        assert!((lexical("Track orders", "track   ORDERS!") - 1.0).abs() < 1e-12);
    }

    #[test]
    fn empty_norm_scores_zero_even_with_itself() {
        assert_eq!(lexical("", ""), 0.0);
        assert_eq!(lexical("---", "---"), 0.0);
        assert_eq!(lexical("abc", "!!"), 0.0);
    }

    #[test]
    fn hand_computed_cosine() {
        // " ab " -> {" ab", "ab "}; " abc " -> {" ab", "abc", "bc "}: dot 1, |a|²=2, |b|²=3.
        let expected = 1.0 / (2.0f64 * 3.0).sqrt();
        assert_eq!(lexical("ab", "abc"), expected);
        // Repeated trigrams count: " aaaa " -> " aa", "aaa" x2, "aa ".
        let t = Trigrams::new("aaaa");
        assert_eq!(t.norm_sq, 1 + 4 + 1);
        // One character: " x " is a single trigram.
        assert_eq!(lexical("x", "X"), 1.0);
        // Parts join with one space, as `title + " " + action` would.
        assert_eq!(
            Trigrams::of_parts(&["Track", "orders"]),
            Trigrams::new("Track orders")
        );
        assert_eq!(
            Trigrams::of_parts(&["--Track ", "", " ORDERS!", "x"]),
            Trigrams::new("--Track    ORDERS! x")
        );
        assert_eq!(Trigrams::of_parts(&["", "-"]), Trigrams::new(""));
        assert_eq!(
            Trigrams::of_parts(&["Größe", "ok"]),
            Trigrams::new("Größe ok")
        );
    }

    #[test]
    fn fast_path_matches_norm() {
        for s in [
            "  Track -- ORDERS!! ",
            "a",
            "ab c",
            "x  y",
            "E-mail the user",
            "Größe: 5²",
            "ＡＢＣ ﬁle",
            "---",
        ] {
            let normed = norm(s);
            let mut expected = Vec::new();
            if !normed.is_empty() {
                let chars: Vec<char> = std::iter::once(' ')
                    .chain(normed.chars())
                    .chain(std::iter::once(' '))
                    .collect();
                expected = chars
                    .windows(3)
                    .map(|w| (u64::from(w[0]) << 42) | (u64::from(w[1]) << 21) | u64::from(w[2]))
                    .collect();
            }
            expected.sort_unstable();
            let got: Vec<u64> = Trigrams::new(s).keys;
            assert_eq!(got, expected, "{s:?}");
        }
    }

    #[test]
    fn index_gives_the_pairwise_cosines() {
        let texts = [
            "Track orders",
            "track the order status",
            "",
            "aaaa aaa",
            "Größe ok",
            "export reports",
        ];
        let sets: Vec<Trigrams> = texts.iter().map(|t| Trigrams::new(t)).collect();
        let index = TrigramIndex::new(&sets);
        assert_eq!(index.len(), texts.len());
        let (mut dots, mut out) = (Vec::new(), Vec::new());
        for other in texts
            .iter()
            .chain(&["order tracking", "aa", "---", "größe"])
        {
            let other = Trigrams::new(other);
            index.cosines(&other, &mut dots, &mut out);
            let pairwise: Vec<f64> = sets.iter().map(|s| s.cosine(&other)).collect();
            assert_eq!(out, pairwise);
        }
    }

    #[test]
    fn unrelated_strings_score_low() {
        assert!(lexical("customer tracks order", "admin exports payroll") < 0.2);
    }
}
