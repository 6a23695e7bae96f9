//! One fast, non-cryptographic hasher for the maps on the scoring path (metric names,
//! trigram keys): a multiply-rotate over 8 bytes at a time, much cheaper than the standard
//! library's SipHash for short keys. Deterministic; used only where keys are short and a
//! slow lookup is the worst a crafted key can cause.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`Fast`] hashing.
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<Fast>>;
/// A `HashSet` with [`Fast`] hashing.
pub type FastSet<K> = HashSet<K, BuildHasherDefault<Fast>>;

const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// The hasher: each word is folded in with a rotate, an xor and a multiply; `finish` mixes
/// the high bits down so that the table index (low bits) and tag (high bits) both vary.
#[derive(Clone, Copy, Default)]
pub struct Fast(u64);

impl Fast {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for Fast {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_told_apart() {
        let words = [
            "ext.tp",
            "ext.fp",
            "ext.fn",
            "ext.cal.1.n",
            "ext.cal.1.conf",
            "",
            "a",
            "ab",
        ];
        let map: FastMap<&str, usize> = words.iter().enumerate().map(|(i, w)| (*w, i)).collect();
        for (i, w) in words.iter().enumerate() {
            assert_eq!(map[w], i);
        }
        assert_eq!(map.get("ext.tn"), None);
        // Strings that differ only past the first word, or by a trailing zero byte.
        let set: FastSet<&str> = ["ext.type_pair:a|b", "ext.type_pair:a|c", "x", "x\0"]
            .into_iter()
            .collect();
        assert_eq!(set.len(), 4);
    }
}
