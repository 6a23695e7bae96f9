//! A record's items lined up by the matching scoring made, for the diff of a broken sample:
//! the gold items and the predicted items (each a name and its fields), the pairs scoring
//! matched with their similarity, and why a gold item found no match. A kind lists its
//! items ([`super::TaskKind::aligned`]); the pairs are the ones its `score` matched
//! ([`super::Record::pairs`]), so the diff shows exactly what the metrics counted.

use crate::text::norm;

/// One item: its name (an id, empty when items have none), the line it reads as, and its
/// fields (a matched pair's differing fields are shown).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Item {
    pub name: String,
    pub text: String,
    pub fields: Vec<(String, String)>,
}

/// A gold item and the prediction scoring matched it with (indexes into
/// [`Aligned::gold`] and [`Aligned::predicted`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Paired {
    pub gold: usize,
    pub predicted: usize,
    /// How similar the two were, for kinds that match by similarity.
    pub similarity: Option<f64>,
    /// How they matched, when it is not the kind's usual way (`loose match`).
    pub how: Option<&'static str>,
}

/// Strings paired one to one when equal after `norm`, each gold string with the first
/// predicted one not yet taken (indexes shifted by `at`: where each list starts among the
/// items): how strings compared as sets of `norm`'d strings line up in a diff.
pub fn equal_strings<G: AsRef<str>, P: AsRef<str>>(
    gold: &[G],
    predicted: &[P],
    at: (usize, usize),
) -> Vec<Paired> {
    let predicted: Vec<String> = predicted.iter().map(|p| norm(p.as_ref())).collect();
    let mut taken = vec![false; predicted.len()];
    let mut pairs = Vec::new();
    for (i, g) in gold.iter().enumerate() {
        let g = norm(g.as_ref());
        if let Some(j) = (0..predicted.len()).find(|&j| !taken[j] && predicted[j] == g) {
            taken[j] = true;
            pairs.push(Paired::exact(at.0 + i, at.1 + j));
        }
    }
    pairs
}

impl Paired {
    /// A pair matched by similarity.
    pub fn similar(gold: usize, predicted: usize, similarity: f64) -> Self {
        Paired {
            gold,
            predicted,
            similarity: Some(similarity),
            how: None,
        }
    }

    /// A pair matched exactly (the same key).
    pub fn exact(gold: usize, predicted: usize) -> Self {
        Paired {
            gold,
            predicted,
            similarity: None,
            how: None,
        }
    }
}

/// A record's items lined up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Aligned {
    /// The gold items, in the order the diff shows them.
    pub gold: Vec<Item>,
    /// The predicted items, in the answer's order.
    pub predicted: Vec<Item>,
    pub pairs: Vec<Paired>,
    /// Why a gold item found no match (its index and the reason), where scoring says.
    pub misses: Vec<(usize, String)>,
    /// What else the answer held that is no item (a list element that is no tuple).
    pub extra: Vec<String>,
}

impl Aligned {
    /// Items and the pairs scoring matched; a pair naming an item that is not there is left
    /// out (the pairs and the items come from the same answer, so none is).
    pub fn new(gold: Vec<Item>, predicted: Vec<Item>, pairs: &[Paired]) -> Self {
        let pairs = pairs
            .iter()
            .filter(|p| p.gold < gold.len() && p.predicted < predicted.len())
            .copied()
            .collect();
        Aligned {
            gold,
            predicted,
            pairs,
            misses: Vec::new(),
            extra: Vec::new(),
        }
    }
}
