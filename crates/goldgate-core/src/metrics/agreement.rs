//! Agreement statistics: Cohen's kappa (binary and categorical, from a confusion table),
//! Fleiss' kappa for three or more raters, and the interpretation bands (docs/metrics.md).

use std::collections::BTreeMap;

/// Cohen's kappa from (label a, label b, count) cells. `None` when there are no observations;
/// 1.0 when chance agreement is 1 (every observation in one category on both sides).
pub fn cohen_kappa_cells<'a>(
    cells: impl IntoIterator<Item = (&'a str, &'a str, f64)>,
) -> Option<f64> {
    let mut rows: BTreeMap<&str, f64> = BTreeMap::new();
    let mut cols: BTreeMap<&str, f64> = BTreeMap::new();
    let (mut total, mut agree) = (0.0, 0.0);
    for (a, b, count) in cells {
        *rows.entry(a).or_default() += count;
        *cols.entry(b).or_default() += count;
        total += count;
        if a == b {
            agree += count;
        }
    }
    if total <= 0.0 {
        return None;
    }
    let po = agree / total;
    let pe: f64 = rows
        .iter()
        .map(|(label, r)| r / total * cols.get(label).copied().unwrap_or(0.0) / total)
        .sum();
    Some(kappa(po, pe))
}

/// Cohen's kappa of two equally long label sequences.
pub fn cohen_kappa<S: AsRef<str>>(a: &[S], b: &[S]) -> Option<f64> {
    let mut cells: BTreeMap<(&str, &str), f64> = BTreeMap::new();
    for (x, y) in a.iter().zip(b) {
        *cells.entry((x.as_ref(), y.as_ref())).or_default() += 1.0;
    }
    cohen_kappa_cells(cells.into_iter().map(|((x, y), n)| (x, y, n)))
}

/// Binary Cohen's kappa from the four cells (gold, pred): 11, 10, 01, 00.
pub fn binary_kappa(n11: f64, n10: f64, n01: f64, n00: f64) -> Option<f64> {
    cohen_kappa_cells([
        ("1", "1", n11),
        ("1", "0", n10),
        ("0", "1", n01),
        ("0", "0", n00),
    ])
}

fn kappa(po: f64, pe: f64) -> f64 {
    if pe >= 1.0 {
        1.0
    } else {
        (po - pe) / (1.0 - pe)
    }
}

/// Fleiss' kappa over subjects, each given as the labels its raters chose. Subjects may have
/// different numbers of raters (at least two each count). `None` without such subjects.
pub fn fleiss_kappa<S: AsRef<str>>(subjects: &[Vec<S>]) -> Option<f64> {
    let mut category_totals: BTreeMap<&str, f64> = BTreeMap::new();
    let (mut ratings, mut p_sum, mut subjects_used) = (0.0, 0.0, 0.0);
    for labels in subjects.iter().filter(|l| l.len() >= 2) {
        let mut counts: BTreeMap<&str, f64> = BTreeMap::new();
        for l in labels {
            *counts.entry(l.as_ref()).or_default() += 1.0;
        }
        let n = labels.len() as f64;
        p_sum += counts.values().map(|c| c * (c - 1.0)).sum::<f64>() / (n * (n - 1.0));
        for (label, c) in counts {
            *category_totals.entry(label).or_default() += c;
        }
        ratings += n;
        subjects_used += 1.0;
    }
    if subjects_used == 0.0 {
        return None;
    }
    let p_bar = p_sum / subjects_used;
    let pe: f64 = category_totals
        .values()
        .map(|c| (c / ratings).powi(2))
        .sum();
    Some(kappa(p_bar, pe))
}

/// The interpretation band of a kappa value (no gaps).
pub fn band(kappa: f64) -> &'static str {
    match kappa {
        k if k < 0.0 => "poor",
        k if k <= 0.20 => "slight",
        k if k <= 0.40 => "fair",
        k if k <= 0.60 => "moderate",
        k if k <= 0.80 => "substantial",
        _ => "almost perfect",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_kappa_check() {
        let a = ["1", "1", "0", "1", "0", "1", "1", "0"];
        let b = ["1", "1", "0", "1", "1", "1", "0", "0"];
        let k = cohen_kappa(&a, &b).unwrap();
        assert!((k - 0.4667).abs() < 5e-5, "{k}");
        assert_eq!(band(k), "moderate");
    }

    #[test]
    fn degenerate_and_empty() {
        assert_eq!(cohen_kappa(&["x", "x"], &["x", "x"]), Some(1.0));
        assert_eq!(cohen_kappa::<&str>(&[], &[]), None);
        assert_eq!(binary_kappa(0.0, 0.0, 0.0, 5.0), Some(1.0));
    }

    #[test]
    fn bands_have_no_gaps() {
        assert_eq!(band(-0.01), "poor");
        assert_eq!(band(0.0), "slight");
        assert_eq!(band(0.2), "slight");
        assert_eq!(band(0.2000001), "fair");
        assert_eq!(band(0.8), "substantial");
        assert_eq!(band(0.81), "almost perfect");
        assert_eq!(band(1.0), "almost perfect");
    }

    #[test]
    fn fleiss_perfect_agreement() {
        let subjects = vec![vec!["1", "1", "1"], vec!["0", "0", "0"]];
        assert_eq!(fleiss_kappa(&subjects), Some(1.0));
    }
}
