//! The validation kind: quality issues and personal data in requirements (answer keys
//! `issues` and `pii`). Issues match on (`issue_type`, `field`) after `norm`,
//! counted per key and paired in document order; PII as per-sample sets of `norm`'d strings;
//! severity agreement over matched issues.

use std::collections::{BTreeMap, BTreeSet};

use crate::metrics::stats::Stats;
use crate::metrics::{f1, precision, recall};
use crate::parse::json::Json;

use crate::metrics::registry::Metric;
use crate::metrics::ScoringConfig;
use crate::parse::prediction::{self, Prediction};
use crate::suite::model::Issue;
use crate::suite::{Kind, Sample};
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
        let k = key(p.issue_type, p.field);
        by_key
            .entry(k)
            .or_default()
            .1
            .push(norm(p.severity.unwrap_or("")));
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
    let (pii_tp, pii_fp, pii_fn) = crate::metrics::set_counts(&gold_pii, &pred_pii);
    s.add_count("val.pii_tp", pii_tp);
    s.add_count("val.pii_fp", pii_fp);
    s.add_count("val.pii_fn", pii_fn);
    let tp = tp as f64;
    (s, f1(precision(tp, fp, fn_), recall(tp, fp, fn_)))
}

pub mod metrics;

/// Quality issues (and personal data) found in requirements.
pub struct Validation;

impl super::TaskKind for Validation {
    fn kind(&self) -> Kind {
        Kind::Validation
    }

    fn answer_keys(&self) -> &'static [&'static str] {
        &["issues", "pii"]
    }

    fn metrics(&self) -> &'static [Metric] {
        metrics::METRICS
    }

    fn primary_metric(&self) -> &'static str {
        "validation.f1"
    }

    fn prepare(&self, _sample: &Sample, _cfg: &ScoringConfig) -> super::Gold {
        Box::new(())
    }

    fn score(
        &self,
        sample: &Sample,
        _gold: &super::Gold,
        parsed: &super::Parsed<'_>,
        _cfg: &ScoringConfig,
    ) -> super::Record {
        let answer = parsed.value;
        let pred = Prediction {
            issues: prediction::issues(answer),
            pii: prediction::pii(answer),
            ..Prediction::default()
        };
        score(&sample.labels.issues, &sample.labels.pii, &pred).into()
    }

    fn gold_lines(&self, sample: &Sample) -> Vec<String> {
        let l = &sample.labels;
        let issues = l.issues.iter().map(|i| {
            format!(
                "{} | {} | {}",
                i.issue_type,
                i.field.as_deref().unwrap_or(""),
                i.severity
            )
        });
        super::sorted(
            issues
                .chain(l.pii.iter().map(|p| format!("pii: {p}")))
                .collect(),
        )
    }

    fn predicted_lines(&self, _sample: &Sample, answer: Option<&Json<'_>>) -> Vec<String> {
        let issues = prediction::issues(answer);
        let lines = issues.iter().map(|i| {
            format!(
                "{} | {} | {}",
                i.issue_type.unwrap_or_default(),
                i.field.unwrap_or_default(),
                i.severity.unwrap_or_default()
            )
        });
        let pii = prediction::pii(answer);
        super::sorted(
            lines
                .chain(pii.iter().map(|x| format!("pii: {x}")))
                .collect(),
        )
    }
}
