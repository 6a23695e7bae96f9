//! Validation metrics (SPEC §5): issues match on (`issue_type`, `field`) after `norm`,
//! counted per key and paired in document order; PII as per-sample sets of `norm`'d strings;
//! severity agreement over matched issues.

use std::collections::{BTreeMap, BTreeSet};

use super::stats::Stats;
use super::{f1, precision, recall};
use crate::parse::prediction::Prediction;
use crate::suite::model::Issue;
use crate::text::norm;

fn key(issue_type: Option<&str>, field: Option<&str>) -> (String, String) {
    (norm(issue_type.unwrap_or("")), norm(field.unwrap_or("")))
}

/// Score one validation record. Returns its sums and its issue F1.
pub fn score(gold: &[Issue], pii: &[String], pred: &Prediction) -> (Stats, f64) {
    let mut s = Stats::default();
    let mut by_key: BTreeMap<(String, String), (Vec<String>, Vec<String>)> = BTreeMap::new();
    for g in gold {
        let k = key(Some(&g.issue_type), g.field.as_deref());
        by_key.entry(k).or_default().0.push(norm(&g.severity));
    }
    for p in &pred.issues {
        let k = key(p.issue_type.as_deref(), p.field.as_deref());
        by_key
            .entry(k)
            .or_default()
            .1
            .push(norm(p.severity.as_deref().unwrap_or("")));
    }
    let mut tp = 0usize;
    for (gold_sev, pred_sev) in by_key.values() {
        for (g, p) in gold_sev.iter().zip(pred_sev) {
            s.add_dynamic(format!("val.severity:{g}|{p}"), 1.0);
            s.add("val.severity_pairs", 1.0);
            tp += 1;
        }
    }
    let (fp, fn_) = ((pred.issues.len() - tp) as f64, (gold.len() - tp) as f64);
    s.add("val.records", 1.0);
    s.add_count("val.tp", tp);
    s.add("val.fp", fp);
    s.add("val.fn", fn_);
    let gold_pii: BTreeSet<String> = pii.iter().map(|p| norm(p)).collect();
    let pred_pii: BTreeSet<String> = pred.pii.iter().map(|p| norm(p)).collect();
    let (pii_tp, pii_fp, pii_fn) = super::set_counts(&gold_pii, &pred_pii);
    s.add_count("val.pii_tp", pii_tp);
    s.add_count("val.pii_fp", pii_fp);
    s.add_count("val.pii_fn", pii_fn);
    let tp = tp as f64;
    (s, f1(precision(tp, fp, fn_), recall(tp, fp, fn_)))
}

/// Aggregate metric functions over sums.
pub mod agg {
    use super::super::agreement::cohen_kappa_cells;
    use super::super::stats::Sums;
    use super::super::{f1, precision, recall};

    fn counts(s: &dyn Sums, prefix: &str) -> (f64, f64, f64) {
        (
            s.get(&format!("{prefix}tp")),
            s.get(&format!("{prefix}fp")),
            s.get(&format!("{prefix}fn")),
        )
    }
    pub fn precision_(s: &dyn Sums) -> Option<f64> {
        let (tp, fp, fn_) = counts(s, "val.");
        Some(precision(tp, fp, fn_))
    }
    pub fn recall_(s: &dyn Sums) -> Option<f64> {
        let (tp, fp, fn_) = counts(s, "val.");
        Some(recall(tp, fp, fn_))
    }
    pub fn f1_(s: &dyn Sums) -> Option<f64> {
        let (tp, fp, fn_) = counts(s, "val.");
        Some(f1(precision(tp, fp, fn_), recall(tp, fp, fn_)))
    }
    pub fn pii_precision(s: &dyn Sums) -> Option<f64> {
        let (tp, fp, fn_) = counts(s, "val.pii_");
        Some(precision(tp, fp, fn_))
    }
    pub fn pii_recall(s: &dyn Sums) -> Option<f64> {
        let (tp, fp, fn_) = counts(s, "val.pii_");
        Some(recall(tp, fp, fn_))
    }
    pub fn pii_f1(s: &dyn Sums) -> Option<f64> {
        let (tp, fp, fn_) = counts(s, "val.pii_");
        Some(f1(precision(tp, fp, fn_), recall(tp, fp, fn_)))
    }
    pub fn severity_kappa(s: &dyn Sums) -> Option<f64> {
        let cells = s.prefixed("val.severity:");
        cohen_kappa_cells(
            cells
                .iter()
                .filter_map(|(k, n)| k.split_once('|').map(|(g, p)| (g, p, *n))),
        )
    }
}
