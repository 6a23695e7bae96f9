//! Sufficient statistics. Every aggregate metric is a function of sums over
//! samples (true positives, calibration bin totals, confusion cells, …), so a record is
//! scored into named sums once, a sample's sums are the sums of its records (repeats pool),
//! and a group, the whole suite or a bootstrap resample is just another sum. The score file
//! keeps each sample's sums so `compare` can recompute any metric on paired resamples.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeMap;

use rayon::prelude::*;

use serde::{Deserialize, Serialize};

use crate::hash::{FastMap, FastSet};

/// Named sums of one record, sample or group. Zero entries are not stored. Keys are
/// static strings except for confusion-table cells, so scoring allocates little.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Stats(BTreeMap<Cow<'static, str>, f64>);

impl Stats {
    pub fn add(&mut self, key: &'static str, value: f64) {
        self.add_key(Cow::Borrowed(key), value);
    }

    /// Add under a key built at run time (confusion-table cells).
    pub fn add_dynamic(&mut self, key: String, value: f64) {
        self.add_key(Cow::Owned(key), value);
    }

    fn add_key(&mut self, key: Cow<'static, str>, value: f64) {
        if value == 0.0 {
            return;
        }
        match self.0.get_mut(key.as_ref()) {
            Some(sum) => *sum += value,
            None => {
                self.0.insert(key, value);
            }
        }
    }

    pub fn add_count(&mut self, key: &'static str, value: usize) {
        self.add(key, value as f64);
    }

    /// Add every sum of `other` (taking them as they are when this is empty).
    pub fn merge(&mut self, other: Stats) {
        if self.0.is_empty() {
            *self = other;
            return;
        }
        for (k, v) in other.0 {
            self.add_key(k, v);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), *v))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Read access to sums, by key or by key prefix (for confusion tables).
pub trait Sums {
    fn get(&self, key: &str) -> f64;
    /// Entries whose key starts with `prefix`, as (rest of key, value).
    fn prefixed(&self, prefix: &str) -> Vec<(&str, f64)>;
}

impl Sums for Stats {
    fn get(&self, key: &str) -> f64 {
        self.0.get(key).copied().unwrap_or(0.0)
    }

    fn prefixed(&self, prefix: &str) -> Vec<(&str, f64)> {
        self.0
            .range::<str, _>((
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            ))
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (&k[prefix.len()..], *v))
            .collect()
    }
}

/// Every key of a set of samples, sorted, with each sample's sums as sparse rows of key
/// indexes: built once per score, shared by every scope and resample.
#[derive(Clone, Debug, Default)]
pub struct Interned {
    pub names: Vec<String>,
    pub rows: Vec<Vec<(u32, f64)>>,
}

impl Interned {
    /// Intern the keys of every sample (on every core: this runs once per score over every
    /// sample's sums).
    pub fn new(all: &[&Stats]) -> Interned {
        let distinct = all
            .par_iter()
            .fold(FastSet::default, |mut keys: FastSet<&str>, stats| {
                keys.extend(stats.0.keys().map(|k| k.as_ref()));
                keys
            })
            .reduce(FastSet::default, |mut a, b| {
                a.extend(b);
                a
            });
        // Number the keys in name order so that a scope's columns come out sorted by name.
        let mut names: Vec<&str> = distinct.into_iter().collect();
        names.sort_unstable();
        let order: FastMap<&str, u32> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (*n, i as u32))
            .collect();
        let rows = all
            .par_iter()
            .map(|s| s.0.iter().map(|(k, v)| (order[k.as_ref()], *v)).collect())
            .collect();
        Interned {
            names: names.into_iter().map(str::to_string).collect(),
            rows,
        }
    }
}

/// Where each key of a scope is, by hash of the key, with a memo: a key asked for again is
/// found by the address of its text (metric functions ask for the same static keys on every
/// resample and every sample), checked against the text it was found for. One per thread.
pub struct KeyIndex<'a> {
    map: FastMap<&'a str, usize>,
    memo: RefCell<Vec<Remembered>>,
}

/// A key looked up before: the address and text it was asked with, and where it is.
#[derive(Default)]
struct Remembered {
    address: usize,
    key: Box<str>,
    at: Option<usize>,
}

/// Slots of the memo (direct-mapped by address).
const MEMO_SLOTS: usize = 1024;

impl<'a> KeyIndex<'a> {
    /// The index of `names`, each at its position.
    pub fn new(names: &[&'a str]) -> Self {
        KeyIndex {
            map: names.iter().enumerate().map(|(i, n)| (*n, i)).collect(),
            memo: RefCell::new(
                std::iter::repeat_with(Remembered::default)
                    .take(MEMO_SLOTS)
                    .collect(),
            ),
        }
    }

    pub fn find(&self, key: &str) -> Option<usize> {
        let address = key.as_ptr() as usize;
        let slot = (address >> 3 ^ key.len()).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54;
        let mut memo = self.memo.borrow_mut();
        let remembered = &mut memo[slot % MEMO_SLOTS];
        if remembered.address == address && *remembered.key == *key {
            return remembered.at;
        }
        let at = self.map.get(key).copied();
        *remembered = Remembered {
            address,
            key: key.into(),
            at,
        };
        at
    }
}

/// Sums over a scope's own keys, looked up by hash; prefix queries by sorted names.
pub struct ScopeSums<'a> {
    names: &'a [&'a str],
    lookup: &'a KeyIndex<'a>,
    values: &'a [f64],
}

impl<'a> ScopeSums<'a> {
    pub fn new(names: &'a [&'a str], lookup: &'a KeyIndex<'a>, values: &'a [f64]) -> Self {
        ScopeSums {
            names,
            lookup,
            values,
        }
    }
}

impl Sums for ScopeSums<'_> {
    fn get(&self, key: &str) -> f64 {
        self.lookup.find(key).map_or(0.0, |i| self.values[i])
    }

    fn prefixed(&self, prefix: &str) -> Vec<(&str, f64)> {
        let start = self.names.partition_point(|n| *n < prefix);
        self.names[start..]
            .iter()
            .take_while(|n| n.starts_with(prefix))
            .zip(&self.values[start..])
            .filter(|(_, v)| **v != 0.0)
            .map(|(n, v)| (&n[prefix.len()..], *v))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_prefixes_agree_between_sparse_and_dense() {
        let mut a = Stats::default();
        a.add("ext.tp", 2.0);
        a.add_dynamic("ext.pair:x|y".to_string(), 1.0);
        a.add("ext.zero", 0.0);
        let mut b = Stats::default();
        b.add("ext.tp", 1.0);
        b.add_dynamic("ext.pair:x|x".to_string(), 3.0);
        let mut total = a.clone();
        total.merge(b.clone());
        assert_eq!(total.get("ext.tp"), 3.0);
        assert_eq!(total.get("ext.zero"), 0.0);
        assert_eq!(
            total.prefixed("ext.pair:"),
            vec![("x|x", 3.0), ("x|y", 1.0)]
        );
        let interned = Interned::new(&[&a, &b]);
        let names: Vec<&str> = interned.names.iter().map(String::as_str).collect();
        let lookup = KeyIndex::new(&names);
        let mut dense = vec![0.0; names.len()];
        for row in &interned.rows {
            for &(i, v) in row {
                dense[i as usize] += v;
            }
        }
        let view = ScopeSums::new(&names, &lookup, &dense);
        assert_eq!(view.get("ext.tp"), 3.0);
        // Asked again through the memo, and with the same text at another address.
        assert_eq!(view.get("ext.tp"), 3.0);
        assert_eq!(view.get(&String::from("ext.tp")), 3.0);
        assert_eq!(view.get("ext.nothing"), 0.0);
        assert_eq!(view.get("ext.nothing"), 0.0);
        assert_eq!(view.prefixed("ext.pair:"), total.prefixed("ext.pair:"));
    }
}
