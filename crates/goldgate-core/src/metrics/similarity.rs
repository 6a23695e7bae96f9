//! The `lexical` similarity: cosine of character-trigram count vectors of
//! `" " + norm(s) + " "`, with integer counts and f64 arithmetic.

use crate::hash::FastMap;
use crate::text::norm;

/// A string's trigram multiset: each distinct trigram once with its count, and Σ count²,
/// ready for repeated cosines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trigrams {
    distinct: Vec<(u64, u32)>,
    norm_sq: u64,
    /// Whether every key is a compact id (below [`COMPACT`]): then cosines go through the
    /// dense table.
    compact: bool,
}

impl Trigrams {
    /// The trigrams of a text whose norm is empty: none.
    pub const EMPTY: Trigrams = Trigrams {
        distinct: Vec::new(),
        norm_sq: 0,
        compact: true,
    };

    /// Trigrams of `" " + norm(s) + " "`. A string whose norm is empty has none.
    pub fn new(s: &str) -> Self {
        Trigrams::of_parts(&[s])
    }

    /// Trigrams of the parts joined by single spaces (`title + " " + action`), without
    /// building the joined string.
    pub fn of_parts(parts: &[&str]) -> Self {
        KEYS.with_borrow_mut(|keys| {
            keys.clear();
            if parts.iter().all(|p| p.is_ascii()) {
                // NFKC is the identity on ASCII: normalise on the fly, no intermediate string.
                push_ascii_trigrams(parts, keys);
            } else {
                push_trigrams(norm(&parts.join(" ")).chars(), keys);
            }
            TABLE.with_borrow_mut(|table| Trigrams::count(keys, table))
        })
    }

    /// Count the distinct keys: compact ids in the dense table (in order of first
    /// occurrence), the others (trigrams with a character outside ` a-z0-9`) by sorting.
    fn count(keys: &mut Vec<u64>, table: &mut Table) -> Self {
        let counts = table.get();
        let mut distinct: Vec<(u64, u32)> = Vec::with_capacity(keys.len());
        let mut wide = 0;
        for &key in keys.iter() {
            if key < COMPACT {
                let count = &mut counts[key as usize];
                if *count == 0 {
                    distinct.push((key, 0));
                }
                *count += 1;
            } else {
                wide += 1;
            }
        }
        let mut norm_sq = 0u64;
        for entry in &mut distinct {
            let count = &mut counts[entry.0 as usize];
            entry.1 = *count;
            norm_sq += u64::from(*count) * u64::from(*count);
            *count = 0;
        }
        if wide > 0 {
            keys.retain(|&k| k >= COMPACT);
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
            compact: wide == 0,
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
        if !(self.compact && other.compact) {
            let (mut dots, mut out) = (Vec::new(), Vec::new());
            TrigramIndex::new([self]).cosines(other, &mut dots, &mut out);
            return out[0];
        }
        let dot = TABLE.with_borrow_mut(|table| {
            let counts = table.get();
            for &(key, count) in &self.distinct {
                counts[key as usize] = count;
            }
            let dot = other
                .distinct
                .iter()
                .map(|&(key, count)| u64::from(counts[key as usize]) * u64::from(count))
                .sum::<u64>();
            for &(key, _) in &self.distinct {
                counts[key as usize] = 0;
            }
            dot
        });
        dot as f64 / (self.norm_sq as f64 * other.norm_sq as f64).sqrt()
    }
}

/// Characters of a compact trigram: the space, `a`–`z` and `0`–`9`, everything ASCII text
/// holds after `norm`.
const ALPHABET: u64 = 37;
/// Trigrams of three [`ALPHABET`] characters have ids below this; every other trigram's key
/// (three 21-bit character codes, each at least a space) is far above it.
const COMPACT: u64 = ALPHABET * ALPHABET * ALPHABET;

/// The [`ALPHABET`] index of an ASCII character that `norm` keeps (a space, a lower-case
/// letter or a digit).
const fn symbol(b: u8) -> u64 {
    match b {
        b'a'..=b'z' => (b - b'a') as u64 + 1,
        b'0'..=b'9' => (b - b'0') as u64 + 27,
        _ => 0,
    }
}

/// The key of a trigram: its compact id when all three characters are in [`ALPHABET`],
/// else the three character codes side by side.
fn key(a: char, b: char, c: char) -> u64 {
    let in_alphabet = |c: char| c == ' ' || c.is_ascii_lowercase() || c.is_ascii_digit();
    if in_alphabet(a) && in_alphabet(b) && in_alphabet(c) {
        (symbol(a as u8) * ALPHABET + symbol(b as u8)) * ALPHABET + symbol(c as u8)
    } else {
        (u64::from(a) << 42) | (u64::from(b) << 21) | u64::from(c)
    }
}

/// One count per compact trigram id, all zero between uses (whoever fills entries clears
/// them): counting and cosines index it directly instead of hashing.
#[derive(Default)]
struct Table(Vec<u32>);

impl Table {
    fn get(&mut self) -> &mut [u32] {
        if self.0.is_empty() {
            self.0 = vec![0; COMPACT as usize];
        }
        &mut self.0
    }
}

thread_local! {
    /// The trigram keys of the text being counted, reused from one text to the next.
    static KEYS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    /// This thread's dense table of compact trigram counts.
    static TABLE: std::cell::RefCell<Table> = std::cell::RefCell::new(Table::default());
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

/// The [`ALPHABET`] index of each byte's lower-case form: 0 for a byte `norm` turns into a
/// separator (anything but an ASCII letter or digit).
const ASCII_SYMBOL: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let c = (b as u8).to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            table[b] = symbol(c);
        }
        b += 1;
    }
    table
};

/// [`push_trigrams`] for ASCII parts joined by spaces, one byte at a time: every trigram is
/// compact, its id rolled along from the last two characters' symbols.
fn push_ascii_trigrams(parts: &[&str], keys: &mut Vec<u64>) {
    let (mut prev2, mut prev1, mut len) = (0u64, 0u64, 1usize);
    let (mut started, mut pending_space) = (false, false);
    let mut push = |s: u64| {
        len += 1;
        if len >= 3 {
            keys.push((prev2 * ALPHABET + prev1) * ALPHABET + s);
        }
        prev2 = prev1;
        prev1 = s;
    };
    for (i, part) in parts.iter().enumerate() {
        pending_space |= i > 0;
        for &b in part.as_bytes() {
            let s = ASCII_SYMBOL[usize::from(b)];
            if s != 0 {
                if pending_space && started {
                    push(0);
                }
                pending_space = false;
                started = true;
                push(s);
            } else {
                pending_space = true;
            }
        }
    }
    if started {
        push(0);
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
                expected = chars.windows(3).map(|w| key(w[0], w[1], w[2])).collect();
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
            let reversed: Vec<f64> = sets.iter().map(|s| other.cosine(s)).collect();
            assert_eq!(out, reversed);
        }
        // Counting and cosines leave the dense table as they found it: all zero.
        TABLE.with_borrow_mut(|table| assert!(table.get().iter().all(|&c| c == 0)));
    }

    /// Compact ids cover exactly the trigrams of ` a-z0-9`, and never meet a wide key.
    #[test]
    fn compact_ids_are_distinct_and_below_wide_keys() {
        let alphabet: Vec<char> = " abcdefghijklmnopqrstuvwxyz0123456789".chars().collect();
        let mut seen = std::collections::HashSet::new();
        for &a in &alphabet {
            for &b in &alphabet {
                for &c in &alphabet {
                    let k = key(a, b, c);
                    assert!(k < COMPACT);
                    assert!(seen.insert(k), "{a}{b}{c}");
                }
            }
        }
        assert_eq!(seen.len() as u64, COMPACT);
        assert!(key(' ', ' ', 'é') > COMPACT);
        assert!(!Trigrams::new("café").compact && Trigrams::new("cafe").compact);
    }

    #[test]
    fn unrelated_strings_score_low() {
        assert!(lexical("customer tracks order", "admin exports payroll") < 0.2);
    }
}
