//! Relaxed matching of tuples (docs/tuples.md): which gold and predicted tuples may match
//! (equal label keys, and every span field matching exactly, by containment or character
//! overlap, or by span overlap in the text), and the one-to-one assignment with the most
//! matches — among those, the one whose pairs, sorted, are lexicographically smallest.

use std::collections::HashMap;

use super::read::Member;
use crate::sample::task::{MatchMode, Role, Task};

/// Where each span value of a member is in the text: `[start, end)` in characters, or
/// `None` when it has no span.
pub type Spans = Vec<Option<(usize, usize)>>;

/// The spans of a member's span fields (in the order of [`Task::span_fields`]): its own
/// offsets when valid and the task has exactly one span field, else the first occurrence
/// of the value as written.
pub fn spans(task: &Task, member: &Member, text: &str, text_chars: usize) -> Spans {
    let span_fields: Vec<usize> = task.span_fields().collect();
    let own = match (span_fields.len(), member.offsets) {
        (1, Some((s, e))) if s <= e && e <= text_chars as u64 => Some((s as usize, e as usize)),
        _ => None,
    };
    span_fields
        .iter()
        .map(|&f| {
            own.or_else(|| {
                let raw = &member.raw[f];
                let at = text.find(raw.as_str())?;
                let start = text[..at].chars().count();
                Some((start, start + raw.chars().count()))
            })
        })
        .collect()
}

/// The members of one side with their spans (computed only for `span_iou`).
pub struct Side<'m> {
    pub members: &'m [Member],
    pub spans: Vec<Spans>,
}

impl<'m> Side<'m> {
    pub fn new(task: &Task, members: &'m [Member], text: &str) -> Side<'m> {
        let spans = if task.relaxed.match_mode == MatchMode::SpanIou {
            let chars = text.chars().count();
            members
                .iter()
                .map(|m| spans(task, m, text, chars))
                .collect()
        } else {
            Vec::new()
        };
        Side { members, spans }
    }
}

/// For each gold member, the predicted members it may match, in increasing order.
pub fn eligible(task: &Task, gold: &Side<'_>, pred: &Side<'_>) -> Vec<Vec<usize>> {
    gold.members
        .iter()
        .enumerate()
        .map(|(g, gm)| {
            (0..pred.members.len())
                .filter(|&p| pair(task, gold, g, gm, pred, p))
                .collect()
        })
        .collect()
}

/// Whether gold member `g` and predicted member `p` may match.
fn pair(task: &Task, gold: &Side<'_>, g: usize, gm: &Member, pred: &Side<'_>, p: usize) -> bool {
    let pm = &pred.members[p];
    let mut span_index = 0;
    for (f, field) in task.fields.iter().enumerate() {
        let (a, b) = (&gm.key[f], &pm.key[f]);
        if field.role == Role::Label {
            if a != b {
                return false;
            }
            continue;
        }
        let i = span_index;
        span_index += 1;
        if a == b {
            continue;
        }
        let matched = match task.relaxed.match_mode {
            MatchMode::IncludeOrCharOverlap => {
                let contains = !a.is_empty()
                    && !b.is_empty()
                    && (a.contains(b.as_str()) || b.contains(a.as_str()));
                contains || overlaps(a, b, task.relaxed.char_overlap_threshold)
            }
            MatchMode::SpanIou => match (gold.spans[g][i], pred.spans[p][i]) {
                (Some(x), Some(y)) => {
                    iou(x, y).is_some_and(|v| v >= task.relaxed.span_iou_threshold)
                }
                _ => false,
            },
        };
        if !matched {
            return false;
        }
    }
    true
}

/// `|∩| / |∪|` of two half-open intervals (`None` when the union is empty).
fn iou((a0, a1): (usize, usize), (b0, b1): (usize, usize)) -> Option<f64> {
    let inter = a1.min(b1).saturating_sub(a0.max(b0));
    let union = (a1 - a0) + (b1 - b0) - inter;
    (union > 0).then(|| inter as f64 / union as f64)
}

/// Whether `lcs / max(len_a, len_b)`, in characters, reaches `threshold` (a ratio of 0
/// when both are empty). The common substring is never longer than the shorter key, so a
/// pair whose lengths alone cannot reach the threshold is not compared further.
fn overlaps(a: &str, b: &str, threshold: f64) -> bool {
    let ratio = |lcs: usize, longest: usize| match longest {
        0 => 0.0,
        n => lcs as f64 / n as f64,
    };
    if a.is_ascii() && b.is_ascii() {
        let (x, y) = (a.as_bytes(), b.as_bytes());
        let longest = x.len().max(y.len());
        return ratio(x.len().min(y.len()), longest) >= threshold
            && ratio(longest_common_substring(x, y), longest) >= threshold;
    }
    let (x, y): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let longest = x.len().max(y.len());
    ratio(x.len().min(y.len()), longest) >= threshold
        && ratio(longest_common_substring(&x, &y), longest) >= threshold
}

/// The length of the longest common substring: by dynamic programming for ordinary
/// lengths, by a suffix automaton (linear) for very long values.
pub fn longest_common_substring<T: Copy + Eq + std::hash::Hash>(a: &[T], b: &[T]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    if a.len().saturating_mul(b.len()) > 1 << 22 {
        return by_automaton(a, b);
    }
    let mut row = vec![0usize; b.len() + 1];
    let mut best = 0;
    for &x in a {
        let mut diagonal = 0;
        for (j, &y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if x == y { diagonal + 1 } else { 0 };
            best = best.max(row[j + 1]);
            diagonal = above;
        }
    }
    best
}

/// Longest common substring through the suffix automaton of `a`.
fn by_automaton<T: Copy + Eq + std::hash::Hash>(a: &[T], b: &[T]) -> usize {
    struct State<T> {
        len: usize,
        link: Option<usize>,
        next: HashMap<T, usize>,
    }
    let mut states = vec![State {
        len: 0,
        link: None,
        next: HashMap::new(),
    }];
    let mut last = 0;
    for &c in a {
        let current = states.len();
        states.push(State {
            len: states[last].len + 1,
            link: None,
            next: HashMap::new(),
        });
        let mut p = Some(last);
        while let Some(q) = p.filter(|&q| !states[q].next.contains_key(&c)) {
            states[q].next.insert(c, current);
            p = states[q].link;
        }
        match p {
            None => states[current].link = Some(0),
            Some(p) => {
                let q = states[p].next[&c];
                if states[p].len + 1 == states[q].len {
                    states[current].link = Some(q);
                } else {
                    let clone = states.len();
                    let copy = State {
                        len: states[p].len + 1,
                        link: states[q].link,
                        next: states[q].next.clone(),
                    };
                    states.push(copy);
                    let mut r = Some(p);
                    while let Some(s) = r.filter(|&s| states[s].next.get(&c) == Some(&q)) {
                        states[s].next.insert(c, clone);
                        r = states[s].link;
                    }
                    states[q].link = Some(clone);
                    states[current].link = Some(clone);
                }
            }
        }
        last = current;
    }
    let (mut state, mut length, mut best) = (0, 0, 0);
    for &c in b {
        while state != 0 && !states[state].next.contains_key(&c) {
            state = states[state].link.unwrap_or(0);
            length = states[state].len;
        }
        if let Some(&next) = states[state].next.get(&c) {
            state = next;
            length += 1;
        }
        best = best.max(length);
    }
    best
}

/// A one-to-one matching of gold to predicted members.
#[derive(Clone)]
struct Matching {
    of_gold: Vec<Option<usize>>,
    of_pred: Vec<Option<usize>>,
}

impl Matching {
    fn new(golds: usize, preds: usize) -> Matching {
        Matching {
            of_gold: vec![None; golds],
            of_pred: vec![None; preds],
        }
    }

    fn size(&self) -> usize {
        self.of_gold.iter().flatten().count()
    }

    /// Grow the matching by one along an augmenting path that leaves the pairs of `locked`
    /// golds alone; whether there was one (breadth-first, so no deep recursion).
    fn augment(&mut self, adjacent: &[Vec<usize>], locked: &[bool]) -> bool {
        let preds = self.of_pred.len();
        let mut reached_from: Vec<Option<usize>> = vec![None; preds];
        let mut queue: std::collections::VecDeque<usize> = (0..self.of_gold.len())
            .filter(|&g| self.of_gold[g].is_none() && !locked[g])
            .collect();
        let mut seen_gold = vec![false; self.of_gold.len()];
        for &g in &queue {
            seen_gold[g] = true;
        }
        while let Some(g) = queue.pop_front() {
            for &p in &adjacent[g] {
                if reached_from[p].is_some() {
                    continue;
                }
                match self.of_pred[p] {
                    Some(owner) if locked[owner] || seen_gold[owner] => continue,
                    Some(owner) => {
                        reached_from[p] = Some(g);
                        seen_gold[owner] = true;
                        queue.push_back(owner);
                    }
                    None => {
                        reached_from[p] = Some(g);
                        self.flip(p, &reached_from);
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Flip the path ending at the free predicted member `p`.
    fn flip(&mut self, mut p: usize, reached_from: &[Option<usize>]) {
        while let Some(g) = reached_from[p] {
            let before = self.of_gold[g];
            self.of_gold[g] = Some(p);
            self.of_pred[p] = Some(g);
            match before {
                Some(previous) => p = previous,
                None => break,
            }
        }
    }
}

/// The largest number of one-to-one matches.
pub fn max_matches(adjacent: &[Vec<usize>], preds: usize) -> usize {
    let mut matching = Matching::new(adjacent.len(), preds);
    let unlocked = vec![false; adjacent.len()];
    while matching.augment(adjacent, &unlocked) {}
    matching.size()
}

/// The assignment with the most matches whose pairs, sorted by (gold, prediction), are
/// lexicographically smallest: each gold in turn takes the smallest prediction that still
/// leaves a largest assignment possible.
pub fn assignment(adjacent: &[Vec<usize>], preds: usize) -> Vec<(usize, usize)> {
    let golds = adjacent.len();
    let mut matching = Matching::new(golds, preds);
    let mut locked = vec![false; golds];
    while matching.augment(adjacent, &locked) {}
    let most = matching.size();
    for g in 0..golds {
        for &p in &adjacent[g] {
            if matching.of_pred[p].is_some_and(|owner| locked[owner]) {
                continue;
            }
            if matching.of_gold[g] == Some(p) {
                locked[g] = true;
                break;
            }
            let before = matching.clone();
            if let Some(previous) = matching.of_gold[g] {
                matching.of_pred[previous] = None;
            }
            if let Some(owner) = matching.of_pred[p] {
                matching.of_gold[owner] = None;
            }
            matching.of_gold[g] = Some(p);
            matching.of_pred[p] = Some(g);
            locked[g] = true;
            if matching.size() == most || matching.augment(adjacent, &locked) {
                break;
            }
            matching = before;
            locked[g] = false;
        }
    }
    (0..golds)
        .filter_map(|g| matching.of_gold[g].map(|p| (g, p)))
        .collect()
}

#[cfg(test)]
mod tests;
