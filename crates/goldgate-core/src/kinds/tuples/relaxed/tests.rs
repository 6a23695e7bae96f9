use proptest::prelude::*;

use super::*;

#[test]
fn the_most_matches_win_over_taking_the_first_eligible() {
    // Gold 0 may match predictions 0 and 1, gold 1 only prediction 0: taking the first
    // eligible prediction for gold 0 would leave gold 1 unmatched.
    let adjacent = vec![vec![0, 1], vec![0]];
    assert_eq!(max_matches(&adjacent, 2), 2);
    assert_eq!(assignment(&adjacent, 2), vec![(0, 1), (1, 0)]);
}

#[test]
fn among_the_largest_assignments_the_smallest_pairs_win() {
    // Every gold may match every prediction: the identity is the smallest.
    let adjacent = vec![vec![0, 1, 2], vec![0, 1, 2], vec![0, 1, 2]];
    assert_eq!(assignment(&adjacent, 3), vec![(0, 0), (1, 1), (2, 2)]);
    // Gold 0 cannot take prediction 0 without costing a match; gold 1 is left out rather
    // than gold 2, since (0, 1), (1, 0) … is smaller than anything leaving gold 0 out.
    let adjacent = vec![vec![0, 1], vec![0, 1], vec![1]];
    assert_eq!(max_matches(&adjacent, 2), 2);
    assert_eq!(assignment(&adjacent, 2), vec![(0, 0), (1, 1)]);
    let adjacent = vec![vec![1], vec![0, 1], vec![0]];
    assert_eq!(assignment(&adjacent, 2), vec![(0, 1), (1, 0)]);
    assert_eq!(assignment(&[vec![], vec![]], 0), vec![]);
}

/// Every matching by brute force: the largest size, and the smallest sorted pair list
/// among the largest.
fn brute(adjacent: &[Vec<usize>], preds: usize) -> (usize, Vec<(usize, usize)>) {
    fn go(
        g: usize,
        adjacent: &[Vec<usize>],
        used: &mut Vec<bool>,
        now: &mut Vec<(usize, usize)>,
        best: &mut (usize, Vec<(usize, usize)>),
    ) {
        if g == adjacent.len() {
            if now.len() > best.0 || (now.len() == best.0 && *now < best.1) {
                *best = (now.len(), now.clone());
            }
            return;
        }
        for &p in &adjacent[g] {
            if !used[p] {
                used[p] = true;
                now.push((g, p));
                go(g + 1, adjacent, used, now, best);
                now.pop();
                used[p] = false;
            }
        }
        go(g + 1, adjacent, used, now, best);
    }
    let mut best = (0, Vec::new());
    go(
        0,
        adjacent,
        &mut vec![false; preds],
        &mut Vec::new(),
        &mut best,
    );
    best
}

proptest! {
    #[test]
    fn matching_agrees_with_brute_force(edges in prop::collection::vec(prop::collection::vec(any::<bool>(), 0..6), 0..6)) {
        let preds = edges.iter().map(Vec::len).max().unwrap_or(0);
        let adjacent: Vec<Vec<usize>> = edges
            .iter()
            .map(|row| (0..row.len()).filter(|&p| row[p]).collect())
            .collect();
        let (size, pairs) = brute(&adjacent, preds);
        prop_assert_eq!(max_matches(&adjacent, preds), size);
        prop_assert_eq!(assignment(&adjacent, preds), pairs);
    }

    #[test]
    fn the_automaton_finds_the_longest_common_substring_as_the_table_does(a in "[ab ]{0,40}", b in "[abc]{0,40}") {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let table = longest_common_substring(&a, &b);
        prop_assert_eq!(by_automaton(&a, &b), table);
    }
}

#[test]
fn overlap_of_spans_is_intersection_over_union() {
    assert_eq!(iou((0, 4), (2, 6)), Some(2.0 / 6.0));
    assert_eq!(iou((0, 4), (4, 8)), Some(0.0));
    assert_eq!(iou((3, 3), (3, 3)), None, "an empty union never matches");
    assert_eq!(iou((0, 10), (2, 3)), Some(0.1));
}
