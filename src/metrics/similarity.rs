//! The `lexical` similarity: cosine of character-trigram count vectors of
//! `" " + norm(s) + " "`, with integer counts and f64 arithmetic.

use crate::hash::FastMap;
use crate::text::norm;

/// A string's trigram multiset: each distinct trigram once with its count (in order of
/// first occurrence), and Σ count², ready for repeated cosines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trigrams {
    distinct: Vec<(u64, u32)>,
    norm_sq: u64,
    /// Whether `distinct` is in key order (then two such sets merge for a cosine).
    sorted: bool,
}

impl Trigrams {
    /// Trigrams of `" " + norm(s) + " "`. A string whose norm is empty has none.
    pub fn new(s: &str) -> Self {
        Trigrams::of_parts(&[s])
    }

    /// Trigrams of the parts joined by single spaces (`title + " " + action`), without
    /// building the joined string; for [`TrigramIndex`]es.
    pub fn of_parts(parts: &[&str]) -> Self {
        Trigrams::build(parts, false)
    }

    /// Trigrams of `s` in key order, for [`Trigrams::cosine`] against another sorted set
    /// (a merge, cheaper than an index for a handful of pairs).
    pub fn sorted(s: &str) -> Self {
        Trigrams::build(&[s], true)
    }

    fn build(parts: &[&str], sorted: bool) -> Self {
        KEYS.with_borrow_mut(|keys| {
            keys.clear();
            if parts.iter().all(|p| p.is_ascii()) {
                // NFKC is the identity on ASCII: normalise on the fly, no intermediate string.
                push_ascii_trigrams(parts, keys);
            } else {
                push_trigrams(norm(&parts.join(" ")).chars(), keys);
            }
            Trigrams::count(keys, sorted)
        })
    }

    /// Count the distinct keys: through a small open-addressing table for short texts
    /// (unless asked for key order), by sorting otherwise.
    fn count(keys: &mut [u64], sorted: bool) -> Self {
        let mut distinct: Vec<(u64, u32)> = Vec::with_capacity(keys.len());
        let mut norm_sq = 0u64;
        let by_table = !sorted && keys.len() <= SMALL;
        if by_table {
            // Keys are never 0 (every character code is at least a space), so 0 marks a
            // free slot.
            let mut slots = [(0u64, 0u8); SLOTS];
            for &key in keys.iter() {
                let mut h = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOT_BITS)) as usize;
                loop {
                    let (k, at) = slots[h];
                    if k == key {
                        let entry = &mut distinct[usize::from(at)];
                        norm_sq += 2 * u64::from(entry.1) + 1; // (c + 1)² − c²
                        entry.1 += 1;
                        break;
                    }
                    if k == 0 {
                        slots[h] = (key, distinct.len() as u8);
                        distinct.push((key, 1));
                        norm_sq += 1;
                        break;
                    }
                    h = (h + 1) % SLOTS;
                }
            }
        } else {
            keys.sort_unstable();
            for run in keys.chunk_by(|a, b| a == b) {
                let c = run.len() as u64;
                distinct.push((run[0], c as u32));
                norm_sq += c * c;
            }
        }
        Trigrams {
            distinct,
            norm_sq,
            sorted: !by_table,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.distinct.is_empty()
    }

    /// Cosine similarity: dot / sqrt(|a|² · |b|²); 0 when either side has no trigrams.
    pub fn cosine(&self, other: &Trigrams) -> f64 {
        if self.is_empty() || other.is_empty() {
            return 0.0;
        }
        if !(self.sorted && other.sorted) {
            let (mut dots, mut out) = (Vec::new(), Vec::new());
            TrigramIndex::new([self]).cosines(other, &mut dots, &mut out);
            return out[0];
        }
        let dot = self.dot(other);
        dot as f64 / (self.norm_sq as f64 * other.norm_sq as f64).sqrt()
    }

    /// Σ count_a(k)·count_b(k) over two sets in key order.
    fn dot(&self, other: &Trigrams) -> u64 {
        let (a, b) = (&self.distinct, &other.distinct);
        let (mut i, mut j, mut dot) = (0, 0, 0u64);
        while i < a.len() && j < b.len() {
            let ((ka, ca), (kb, cb)) = (a[i], b[j]);
            if ka < kb {
                i += 1;
            } else if ka > kb {
                j += 1;
            } else {
                dot += u64::from(ca) * u64::from(cb);
                i += 1;
                j += 1;
            }
        }
        dot
    }
}

/// Texts up to this many trigrams are counted in a table of [`SLOTS`] slots (at most half
/// full); longer ones are sorted.
const SMALL: usize = 128;
const SLOT_BITS: u32 = 8;
const SLOTS: usize = 1 << SLOT_BITS;

thread_local! {
    /// The trigram keys of the text being counted, reused from one text to the next.
    static KEYS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Several trigram sets indexed by trigram, to take the cosine of one other set against
/// all of them at once: the cost is the trigrams the sets share, not every pair of keys.
/// [`TrigramIndex::cosines`] gives exactly what [`Trigrams::cosine`] gives for each set.
#[derive(Clone, Debug, Default)]
pub struct TrigramIndex {
    norms: Vec<u64>,
    /// Trigram → range of `postings` holding (set, count) of every set that has it.
    spans: FastMap<u64, (u32, u32)>,
    postings: Vec<(u32, u32)>,
}

impl TrigramIndex {
    pub fn new<'a>(sets: impl IntoIterator<Item = &'a Trigrams>) -> Self {
        let sets: Vec<&Trigrams> = sets.into_iter().collect();
        let capacity = sets.iter().map(|s| s.distinct.len()).sum();
        // Count the sets holding each trigram, then place the postings after those counts.
        let mut spans: FastMap<u64, (u32, u32)> =
            FastMap::with_capacity_and_hasher(capacity, Default::default());
        for set in &sets {
            for &(key, _) in &set.distinct {
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
            for &(key, count) in &set.distinct {
                if let Some(span) = spans.get_mut(&key) {
                    postings[span.1 as usize] = (i as u32, count);
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
        for &(key, count) in &other.distinct {
            if let Some(&(start, end)) = self.spans.get(&key) {
                for &(i, c) in &self.postings[start as usize..end as usize] {
                    dots[i as usize] += u64::from(c) * u64::from(count);
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
    Trigrams::sorted(a).cosine(&Trigrams::sorted(b))
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
        assert_eq!(t.distinct.len(), 3);
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
            let got = expanded(&Trigrams::new(s));
            assert_eq!(got, expected, "{s:?}");
        }
    }

    /// The cosine by merging the two sorted key lists: dot / sqrt(|a|² · |b|²).
    fn merged_cosine(a: &Trigrams, b: &Trigrams) -> f64 {
        let count = |keys: Vec<u64>| -> std::collections::BTreeMap<u64, u64> {
            let mut m = std::collections::BTreeMap::new();
            keys.into_iter().for_each(|k| *m.entry(k).or_insert(0) += 1);
            m
        };
        let (ca, cb) = (count(expanded(a)), count(expanded(b)));
        let dot: u64 = ca.iter().map(|(k, x)| x * cb.get(k).unwrap_or(&0)).sum();
        let (na, nb): (u64, u64) = (
            ca.values().map(|x| x * x).sum(),
            cb.values().map(|x| x * x).sum(),
        );
        if na == 0 || nb == 0 {
            return 0.0;
        }
        dot as f64 / (na as f64 * nb as f64).sqrt()
    }

    /// Every key as often as it occurs, sorted.
    fn expanded(t: &Trigrams) -> Vec<u64> {
        let mut keys: Vec<u64> = t
            .distinct
            .iter()
            .flat_map(|&(k, c)| std::iter::repeat_n(k, c as usize))
            .collect();
        keys.sort_unstable();
        keys
    }

    /// The table and the sorting count alike, on either side of the size that picks one.
    #[test]
    fn long_and_short_texts_count_alike() {
        for words in [1, 10, 25, 26, 27, 40, 200] {
            let text: Vec<String> = (0..words).map(|i| format!("w{}", i % 13)).collect();
            let text = text.join(" ");
            let t = Trigrams::new(&text);
            let keys = expanded(&t);
            let norm_sq: u64 = keys
                .chunk_by(|a, b| a == b)
                .map(|r| (r.len() * r.len()) as u64)
                .sum();
            assert_eq!(t.norm_sq, norm_sq, "{words} words");
            assert_eq!(
                keys.len(),
                text.len(),
                "one trigram per character of the padded text"
            );
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
        for text in texts
            .iter()
            .chain(&["order tracking", "aa", "---", "größe"])
        {
            let other = Trigrams::new(text);
            index.cosines(&other, &mut dots, &mut out);
            let pairwise: Vec<f64> = sets.iter().map(|s| merged_cosine(s, &other)).collect();
            assert_eq!(out, pairwise);
            let one_by_one: Vec<f64> = sets.iter().map(|s| s.cosine(&other)).collect();
            assert_eq!(out, one_by_one);
            let sorted_other = Trigrams::sorted(text);
            let merged: Vec<f64> = texts
                .iter()
                .map(|t| Trigrams::sorted(t).cosine(&sorted_other))
                .collect();
            assert_eq!(out, merged);
        }
    }

    #[test]
    fn unrelated_strings_score_low() {
        assert!(lexical("customer tracks order", "admin exports payroll") < 0.2);
    }
}
