//! The validation kind: quality issues and personal data in requirements (answer keys
//! `issues` and `pii`). Issues match on (`issue_type`, `field`) after `norm`,
//! counted per key and paired in document order; PII as per-sample sets of `norm`'d strings;
//! severity agreement over matched issues.

use std::collections::{BTreeMap, BTreeSet};

use crate::metrics::stats::Stats;
use crate::metrics::{f1, precision, recall};
use crate::parse::json::Json;

use super::aligned::{Aligned, Item, Paired};
use crate::metrics::registry::Metric;
use crate::metrics::ScoringConfig;
use crate::sample::findings::Findings;
use crate::sample::task::Tasks;
use crate::sample::{RawSample, Sample};
use crate::text::norm;
use labels::Issue;
use prediction::PredIssue;

fn key(issue_type: Option<&str>, field: Option<&str>) -> (String, String) {
    (norm(issue_type.unwrap_or("")), norm(field.unwrap_or("")))
}

/// Score one validation record: its sums, its issue F1, and the issues it paired (each
/// gold issue with a predicted one of the same type and field, in document order).
pub fn score(
    gold: &[Issue],
    pii: &[String],
    issues: &[PredIssue],
    answered_pii: &[&str],
) -> super::Record {
    let mut s = Stats::default();
    type Side = Vec<(usize, String)>;
    let mut by_key: BTreeMap<(String, String), (Side, Side)> = BTreeMap::new();
    for (i, g) in gold.iter().enumerate() {
        let k = key(Some(&g.issue_type), g.field.as_deref());
        by_key.entry(k).or_default().0.push((i, norm(&g.severity)));
    }
    for (j, p) in issues.iter().enumerate() {
        let k = key(p.issue_type, p.field);
        by_key
            .entry(k)
            .or_default()
            .1
            .push((j, norm(p.severity.unwrap_or(""))));
    }
    let mut pairs = Vec::new();
    for (gold_sev, pred_sev) in by_key.values() {
        for ((i, g), (j, p)) in gold_sev.iter().zip(pred_sev) {
            s.add_dynamic(format!("val.severity:{g}|{p}"), 1.0);
            s.add("val.severity_pairs", 1.0);
            pairs.push(Paired::exact(*i, *j));
        }
    }
    let tp = pairs.len();
    let (fp, fn_) = ((issues.len() - tp) as f64, (gold.len() - tp) as f64);
    s.add("val.records", 1.0);
    s.add_count("val.tp", tp);
    s.add("val.fp", fp);
    s.add("val.fn", fn_);
    let gold_pii: BTreeSet<String> = pii.iter().map(|p| norm(p)).collect();
    let pred_pii: BTreeSet<String> = answered_pii.iter().map(|p| norm(p)).collect();
    let (pii_tp, pii_fp, pii_fn) = crate::metrics::set_counts(&gold_pii, &pred_pii);
    s.add_count("val.pii_tp", pii_tp);
    s.add_count("val.pii_fp", pii_fp);
    s.add_count("val.pii_fn", pii_fn);
    let tp = tp as f64;
    super::Record {
        pairs,
        ..(s, f1(precision(tp, fp, fn_), recall(tp, fp, fn_))).into()
    }
}

/// An issue as a diff item: `issue_type | field | severity`.
fn issue_item(issue_type: &str, field: &str, severity: &str) -> Item {
    Item {
        name: String::new(),
        text: format!("{issue_type} | {field} | {severity}"),
        fields: [
            ("issue_type", issue_type),
            ("field", field),
            ("severity", severity),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    }
}

/// A personal-data string as a diff item.
fn pii_item(value: &str) -> Item {
    Item {
        name: String::new(),
        text: format!("pii: {value}"),
        fields: vec![("pii".into(), value.to_string())],
    }
}

#[cfg(test)]
mod aligned_tests;
pub mod labels;
pub mod metrics;
pub mod prediction;

/// Quality issues (and personal data) found in requirements.
pub struct Validation;

impl super::TaskKind for Validation {
    fn name(&self) -> &'static str {
        "validation"
    }

    fn reads(&self) -> super::keys::Reads {
        super::keys::Reads::Keys {
            keys: &[
                ("issues", super::keys::Shape::List),
                ("pii", super::keys::Shape::List),
            ],
            bare_list: false,
        }
    }

    fn label_shapes(&self) -> &'static [&'static dyn crate::sample::LabelShape] {
        &[&labels::Issues, &labels::Pii]
    }

    fn check_sample(&self, raw: &RawSample, _tasks: &Tasks, findings: &mut Findings) {
        super::lint::needs_conversation(self.name(), raw, findings);
    }

    fn suite_target(&self) -> Option<usize> {
        Some(50)
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

    fn answer_schema(&self) -> &'static str {
        include_str!("answer.schema.json")
    }

    fn example_samples(&self) -> &'static str {
        include_str!("example.yaml.j2")
    }

    fn about(&self) -> &'static str {
        "quality issues and personal data in requirements"
    }

    fn good_answer(&self, sample: &serde_json::Value, confidence: f64) -> serde_json::Value {
        serde_json::json!({
            "issues": super::confident(sample, "issues", confidence),
            "pii": sample["labels"]["pii"].as_array().cloned().unwrap_or_default(),
        })
    }

    fn chat_prompts(&self) -> super::ChatPrompts {
        super::ChatPrompts::built_in(include_str!("prompt.j2"))
    }

    /// Matched and missed issues and PII strings are at most the gold's, extra ones at most
    /// the answer's list (`max_items`).
    fn record_bound(&self, key: &str, sample: &Sample, cfg: &ScoringConfig) -> Option<f64> {
        let gold = sample.labels.list::<Issue>("issues").len() as f64;
        let pii = sample.labels.list::<String>("pii").len() as f64;
        match key {
            "val.tp" | "val.fn" => Some(gold),
            "val.pii_tp" | "val.pii_fn" => Some(pii),
            "val.fp" | "val.pii_fp" => Some(cfg.max_items as f64),
            "val.records" => Some(1.0),
            _ => None,
        }
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
        score(
            sample.labels.list::<Issue>("issues"),
            sample.labels.list::<String>("pii"),
            &prediction::issues(answer),
            &prediction::pii(answer),
        )
    }

    /// Issues paired as scoring paired them, then personal data: a gold string is matched
    /// by a predicted one equal after `norm`, as the PII metrics count them.
    fn aligned(&self, sample: &Sample, answer: Option<&Json<'_>>, pairs: &[Paired]) -> Aligned {
        let (gold_issues, gold_pii) = (
            sample.labels.list::<Issue>("issues"),
            sample.labels.list::<String>("pii"),
        );
        let issues = prediction::issues(answer);
        let pii = prediction::pii(answer);
        let mut gold: Vec<Item> = gold_issues
            .iter()
            .map(|i| issue_item(&i.issue_type, i.field.as_deref().unwrap_or(""), &i.severity))
            .collect();
        let mut predicted: Vec<Item> = issues
            .iter()
            .map(|i| {
                issue_item(
                    i.issue_type.unwrap_or_default(),
                    i.field.unwrap_or_default(),
                    i.severity.unwrap_or_default(),
                )
            })
            .collect();
        let mut pairs = pairs.to_vec();
        let (gold_at, pred_at) = (gold.len(), predicted.len());
        gold.extend(gold_pii.iter().map(|p| pii_item(p)));
        predicted.extend(pii.iter().map(|p| pii_item(p)));
        pairs.extend(super::aligned::equal_strings(
            gold_pii,
            &pii,
            (gold_at, pred_at),
        ));
        Aligned::new(gold, predicted, &pairs)
    }

    fn annotate_form(&self) -> &'static str {
        include_str!("annotate.js")
    }

    fn init_files(&self) -> super::InitFiles {
        super::InitFiles {
            thresholds: include_str!("init/thresholds.toml.j2"),
            settings: None,
            matching: false,
            stub: include_str!("init/pipeline.py.j2"),
            suite: None,
            guide: None,
            example: ("F1", "problems"),
        }
    }
}

impl super::ReadsLabels for Validation {
    fn has(key: &str) -> bool {
        matches!(key, "issues" | "pii")
    }

    fn read_de<'de, D: serde::Deserializer<'de>>(
        key: &str,
        de: D,
    ) -> Result<Box<dyn crate::sample::LabelList>, D::Error> {
        use serde::Deserialize;
        match key {
            "issues" => Vec::<labels::Issue>::deserialize(de).map(|v| Box::new(v) as _),
            _ => Vec::<String>::deserialize(de).map(|v| Box::new(v) as _),
        }
    }
}
