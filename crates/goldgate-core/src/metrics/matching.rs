//! One-to-one requirement matching: eligibility (similarity threshold, type rule,
//! actor synonym classes) and the Hungarian assignment that first maximises the number of
//! matches, then the total similarity.

use std::collections::HashMap;

use super::texts::{Similarity, Text, TextIndex};
use crate::text::norm;

/// Actor synonym classes, keyed by `norm`'d member.
#[derive(Clone, Debug, Default)]
pub struct ActorClasses {
    class_of: HashMap<String, usize>,
    members: Vec<Vec<String>>,
}

impl ActorClasses {
    /// Build from classes of actor names (normalised here).
    pub fn new<S: AsRef<str>>(classes: &[Vec<S>]) -> Self {
        let mut out = ActorClasses::default();
        for (i, class) in classes.iter().enumerate() {
            let members: Vec<String> = class.iter().map(|m| norm(m.as_ref())).collect();
            for m in &members {
                out.class_of.entry(m.clone()).or_insert(i);
            }
            out.members.push(members);
        }
        out
    }

    /// Actors match when their norms are equal or both fall in one synonym class.
    pub fn matches(&self, a_norm: &str, b_norm: &str) -> bool {
        if a_norm == b_norm {
            return true;
        }
        match (self.class_of.get(a_norm), self.class_of.get(b_norm)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// The members of the class `actor_norm` belongs to (empty when it is in none).
    pub fn class_members(&self, actor_norm: &str) -> &[String] {
        self.class_of
            .get(actor_norm)
            .map(|&i| self.members[i].as_slice())
            .unwrap_or(&[])
    }
}

/// What the matcher needs of a requirement, gold or predicted, precomputed once.
#[derive(Clone, Debug, Default)]
pub struct MatchItem {
    pub type_norm: String,
    pub actor_norm: String,
    /// `title + " " + action`, prepared for similarity.
    pub text: Text,
}

impl MatchItem {
    pub fn new(title: &str, action: &str, type_: &str, actor: &str, sim: &Similarity) -> Self {
        MatchItem {
            type_norm: norm(type_),
            actor_norm: norm(actor),
            text: sim.text(&[title, action]),
        }
    }
}

/// The eligibility rules of one matching.
#[derive(Clone, Copy, Debug)]
pub struct MatchRules<'a> {
    pub threshold: f64,
    pub type_rule: bool,
    pub actor_rule: bool,
    pub actors: &'a ActorClasses,
}

/// A matched pair: gold index, predicted index, similarity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    pub gold: usize,
    pub pred: usize,
    pub similarity: f64,
}

/// The index of match items' texts, for [`similarities`]: built once per sample from the
/// gold items (a sample's repeats share it).
pub fn index(items: &[MatchItem], sim: &Similarity) -> TextIndex {
    sim.index(items.iter().map(|i| &i.text))
}

/// Similarities of every (gold, predicted) pair (`sims[gold][pred]`), the gold items given
/// by their [`index`]; computed once per record and shared by the matchings that apply
/// different rules to it.
pub fn similarities(sim: &Similarity, gold: &TextIndex, pred: &[MatchItem]) -> Vec<Vec<f64>> {
    let mut sims = vec![Vec::with_capacity(pred.len()); gold.len()];
    let (mut dots, mut column) = (Vec::new(), Vec::new());
    for p in pred {
        sim.cosines(gold, &p.text, &mut dots, &mut column);
        for (row, &s) in sims.iter_mut().zip(&column) {
            row.push(s);
        }
    }
    sims
}

/// Match gold against predicted items one-to-one under `rules`, over their [`similarities`].
/// Pairs come sorted by gold index.
pub fn match_with(
    gold: &[MatchItem],
    pred: &[MatchItem],
    sims: &[Vec<f64>],
    rules: MatchRules<'_>,
) -> Vec<Pair> {
    let eligible: Vec<Vec<Option<f64>>> = gold
        .iter()
        .zip(sims)
        .map(|(g, row)| {
            pred.iter()
                .zip(row)
                .map(|(p, &s)| eligible(g, p, s, rules).then_some(s))
                .collect()
        })
        .collect();
    assign(&eligible)
}

fn eligible(g: &MatchItem, p: &MatchItem, similarity: f64, rules: MatchRules<'_>) -> bool {
    similarity >= rules.threshold
        && (!rules.type_rule || g.type_norm == p.type_norm)
        && (!rules.actor_rule || rules.actors.matches(&g.actor_norm, &p.actor_norm))
}

/// Why a gold item was left without a match, judged against its most similar prediction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Miss {
    /// The answer has no requirement at all.
    NoPrediction,
    /// The most similar prediction is below the requirement threshold.
    BelowThreshold,
    /// It is similar enough, but its type differs (the type rule is on).
    TypeDiffers,
    /// It is similar enough, but its actor differs (the actor rule is on).
    ActorDiffers,
    /// It was eligible, but the assignment gave it to another gold item.
    MatchedElsewhere,
}

impl Miss {
    /// The reason in words, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Miss::NoPrediction => "the answer has no requirements",
            Miss::BelowThreshold => "below the threshold",
            Miss::TypeDiffers => "the type differs",
            Miss::ActorDiffers => "the actor differs",
            Miss::MatchedElsewhere => "matched to another gold item",
        }
    }
}

/// A gold item without a match: its most similar prediction (index, similarity) and why
/// that one did not match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unmatched {
    pub gold: usize,
    pub best: Option<(usize, f64)>,
    pub reason: Miss,
}

/// The gold items `pairs` left unmatched, each with its most similar prediction (the
/// first of equally similar ones) and the first rule that prediction fails.
pub fn unmatched(
    gold: &[MatchItem],
    pred: &[MatchItem],
    sims: &[Vec<f64>],
    rules: MatchRules<'_>,
    pairs: &[Pair],
) -> Vec<Unmatched> {
    (0..gold.len())
        .filter(|g| !pairs.iter().any(|p| p.gold == *g))
        .map(|g| {
            let best = sims[g].iter().copied().enumerate().fold(
                None,
                |best: Option<(usize, f64)>, (j, s)| match best {
                    Some((_, b)) if b >= s => best,
                    _ => Some((j, s)),
                },
            );
            let reason = match best {
                None => Miss::NoPrediction,
                Some((_, s)) if s < rules.threshold => Miss::BelowThreshold,
                Some((j, _)) if rules.type_rule && gold[g].type_norm != pred[j].type_norm => {
                    Miss::TypeDiffers
                }
                Some((j, _))
                    if rules.actor_rule
                        && !rules
                            .actors
                            .matches(&gold[g].actor_norm, &pred[j].actor_norm) =>
                {
                    Miss::ActorDiffers
                }
                Some(_) => Miss::MatchedElsewhere,
            };
            Unmatched {
                gold: g,
                best,
                reason,
            }
        })
        .collect()
}

/// One-to-one assignment over a matrix of eligible similarities (`None` = not eligible) that
/// first maximises the number of pairs, then their total similarity. Deterministic.
pub fn assign(sim: &[Vec<Option<f64>>]) -> Vec<Pair> {
    let rows = sim.len();
    let cols = sim.first().map_or(0, Vec::len);
    if rows == 0 || cols == 0 || sim.iter().flatten().all(Option::is_none) {
        return Vec::new();
    }
    // Every extra match outweighs any similarity total: totals are below min(rows, cols) + 1.
    let big = rows.min(cols) as f64 + 1.0;
    let weight = |r: usize, c: usize| sim[r][c].map_or(0.0, |s| big + s);
    let transposed = rows > cols;
    let (n, m) = if transposed {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let cost = |i: usize, j: usize| {
        let (r, c) = if transposed { (j, i) } else { (i, j) };
        -weight(r, c)
    };
    let mut pairs: Vec<Pair> = hungarian(n, m, cost)
        .into_iter()
        .map(|(i, j)| if transposed { (j, i) } else { (i, j) })
        .filter_map(|(r, c)| {
            sim[r][c].map(|s| Pair {
                gold: r,
                pred: c,
                similarity: s,
            })
        })
        .collect();
    pairs.sort_by_key(|p| p.gold);
    pairs
}

/// Minimum-cost assignment of every one of `n` rows to distinct columns among `m >= n`
/// (the classic O(n²m) potentials method). Returns (row, column) pairs.
fn hungarian(n: usize, m: usize, cost: impl Fn(usize, usize) -> f64) -> Vec<(usize, usize)> {
    let inf = f64::INFINITY;
    let mut u = vec![0.0; n + 1];
    let mut v = vec![0.0; m + 1];
    let mut owner = vec![0usize; m + 1]; // owner[j] = 1-based row assigned to column j
    let mut way = vec![0usize; m + 1];
    for i in 1..=n {
        owner[0] = i;
        let mut j0 = 0;
        let mut minv = vec![inf; m + 1];
        let mut used = vec![false; m + 1];
        loop {
            used[j0] = true;
            let i0 = owner[j0];
            let mut delta = inf;
            let mut j1 = 0;
            for j in 1..=m {
                if used[j] {
                    continue;
                }
                let cur = cost(i0 - 1, j - 1) - u[i0] - v[j];
                if cur < minv[j] {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if minv[j] < delta {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for j in 0..=m {
                if used[j] {
                    u[owner[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if owner[j0] == 0 {
                break;
            }
        }
        while j0 != 0 {
            let j1 = way[j0];
            owner[j0] = owner[j1];
            j0 = j1;
        }
    }
    (1..=m)
        .filter(|&j| owner[j] != 0)
        .map(|j| (owner[j] - 1, j - 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(rows: &[&[f64]], threshold: f64) -> Vec<Vec<Option<f64>>> {
        rows.iter()
            .map(|r| r.iter().map(|&x| (x >= threshold).then_some(x)).collect())
            .collect()
    }

    #[test]
    fn prefers_more_matches_over_a_higher_single_similarity() {
        let pairs = assign(&s(&[&[0.99, 0.61], &[0.62, 0.0]], 0.6));
        assert_eq!(pairs.len(), 2);
        let total: f64 = pairs.iter().map(|p| p.similarity).sum();
        assert!((total - 1.23).abs() < 1e-12);
    }

    #[test]
    fn one_to_one_where_argmax_would_double_claim() {
        // Both gold items prefer prediction 0; only one may have it.
        let pairs = assign(&s(&[&[0.9, 0.7], &[0.95, 0.0]], 0.6));
        assert_eq!(
            pairs,
            vec![
                Pair {
                    gold: 0,
                    pred: 1,
                    similarity: 0.7
                },
                Pair {
                    gold: 1,
                    pred: 0,
                    similarity: 0.95
                }
            ]
        );
    }

    #[test]
    fn ties_are_deterministic() {
        let m = s(&[&[0.9, 0.9, 0.9], &[0.9, 0.9, 0.9]], 0.6);
        let first = assign(&m);
        assert_eq!(first.len(), 2);
        for _ in 0..5 {
            assert_eq!(assign(&m), first);
        }
    }

    #[test]
    fn empty_and_ineligible() {
        assert!(assign(&[]).is_empty());
        assert!(assign(&[vec![]]).is_empty());
        assert!(assign(&s(&[&[0.1, 0.2]], 0.6)).is_empty());
        // More gold than predictions (transposed internally).
        let pairs = assign(&s(&[&[0.7], &[0.8], &[0.9]], 0.6));
        assert_eq!(
            pairs,
            vec![Pair {
                gold: 2,
                pred: 0,
                similarity: 0.9
            }]
        );
    }

    #[test]
    fn unmatched_gold_items_say_their_best_candidate_and_why() {
        let classes = ActorClasses::new(&[vec!["user", "customer"]]);
        let sim = Similarity::Lexical;
        let item = |t: &str, a: &str| MatchItem::new("x", "y", t, a, &sim);
        let gold = [
            item("functional", "user"),
            item("functional", "user"),
            item("security", "user"),
            item("functional", "admin"),
        ];
        let pred = [item("functional", "customer"), item("functional", "clerk")];
        let sims = vec![
            vec![0.9, 0.2],
            vec![0.3, 0.5],
            vec![0.9, 0.1],
            vec![0.1, 0.95],
        ];
        let rules = MatchRules {
            threshold: 0.6,
            type_rule: true,
            actor_rule: true,
            actors: &classes,
        };
        let pairs = match_with(&gold, &pred, &sims, rules);
        assert_eq!(pairs.len(), 1);
        let misses = unmatched(&gold, &pred, &sims, rules, &pairs);
        let reasons: Vec<(usize, Option<usize>, Miss)> = misses
            .iter()
            .map(|u| (u.gold, u.best.map(|b| b.0), u.reason))
            .collect();
        assert_eq!(
            reasons,
            vec![
                (1, Some(1), Miss::BelowThreshold),
                (2, Some(0), Miss::TypeDiffers),
                (3, Some(1), Miss::ActorDiffers),
            ]
        );
        let none = unmatched(&gold[..1], &[], &[vec![]], rules, &[]);
        assert_eq!(none[0].reason, Miss::NoPrediction);
    }

    #[test]
    fn actor_classes() {
        let classes = ActorClasses::new(&[vec!["user", "Customer", "end user"], vec!["system"]]);
        assert!(classes.matches("customer", "end user"));
        assert!(classes.matches("clerk", "clerk"));
        assert!(!classes.matches("customer", "system"));
        assert!(!classes.matches("clerk", "user"));
        assert_eq!(classes.class_members("user").len(), 3);
    }
}
