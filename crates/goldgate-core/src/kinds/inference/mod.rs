//! The inference kind: requirements implied by explicit ones (answer key
//! `inferred_requirements`). Matching on the `requirement` fields of inferred requirements; relevance weighted by the gold item's necessity, false inferences, recall of
//! necessary items and calibration of the item's outer confidence.

use crate::kinds::extraction::{
    gold_texts, match_requirements, pred_items, predicted_texts, requirements_aligned,
    GoldRequirements,
};
use crate::metrics::calibration::add_bins;
use crate::metrics::calibration::{self, Bins};
use crate::metrics::stats::Stats;
use crate::metrics::texts::Similarity;
use crate::metrics::{f1, precision, recall, ScoringConfig};
use crate::parse::json::Json;

use super::extraction::prediction::PredRequirement;
use crate::metrics::registry::Metric;
use crate::sample::findings::Findings;
use crate::sample::task::Tasks;
use crate::sample::{RawSample, Sample};
use crate::text::norm;
use labels::InferredRequirement;
use prediction::PredInferred;

/// Gold inferred requirements prepared for matching, once per sample.
#[derive(Clone, Debug, Default)]
pub struct GoldInferred {
    pub requirements: GoldRequirements,
    /// Relevance score of a match with each gold item: necessary 2, recommended 1, optional 0.
    pub weight: Vec<f64>,
}

impl GoldInferred {
    pub fn new(items: &[InferredRequirement], sim: &Similarity) -> Self {
        let requirements: Vec<_> = items.iter().map(|i| i.requirement.clone()).collect();
        GoldInferred {
            requirements: GoldRequirements::new(&requirements, sim),
            weight: items
                .iter()
                .map(|i| match norm(&i.necessity).as_str() {
                    "necessary" => 2.0,
                    "recommended" => 1.0,
                    _ => 0.0,
                })
                .collect(),
        }
    }
}

/// Score one inference record: its sums, its F1 of inferred requirements and its matching.
pub fn score(gold: &GoldInferred, preds: &[PredInferred], cfg: &ScoringConfig) -> super::Record {
    let mut s = Stats::default();
    let reqs: Vec<PredRequirement> = preds.iter().map(|i| i.requirement.clone()).collect();
    let items = pred_items(&reqs, &cfg.similarity);
    let (pairs, matching) = match_requirements(&gold.requirements, &reqs, &items, cfg);
    let mut bins = Bins::default();
    let (mut relevance, mut zero) = (0.0, 0usize);
    for (j, item) in preds.iter().enumerate() {
        let matched = pairs.iter().find(|p| p.pred == j);
        let score = matched.map_or(0.0, |p| gold.weight[p.gold]);
        relevance += score;
        zero += usize::from(score == 0.0);
        if let Some(c) = calibration::usable(item.confidence) {
            bins.add(c, matched.is_some());
        }
    }
    let necessary = gold.weight.iter().filter(|&&w| w == 2.0).count();
    let necessary_matched = pairs.iter().filter(|p| gold.weight[p.gold] == 2.0).count();
    let (tp, p, g) = (
        pairs.len() as f64,
        items.len() as f64,
        gold.weight.len() as f64,
    );
    s.add("inf.records", 1.0);
    s.add("inf.tp", tp);
    s.add("inf.pred", p);
    s.add("inf.gold", g);
    s.add("inf.relevance", relevance);
    s.add_count("inf.zero", zero);
    s.add_count("inf.necessary", necessary);
    s.add_count("inf.necessary_matched", necessary_matched);
    add_bins("inf.cal", &bins, &mut s);
    let primary = f1(precision(tp, p - tp, g - tp), recall(tp, p - tp, g - tp));
    super::Record {
        stats: s,
        primary,
        matching: Some(matching),
        pairs: crate::kinds::extraction::paired(&pairs),
        violations: Default::default(),
    }
}

#[cfg(test)]
mod aligned_tests;
pub mod labels;
#[cfg(test)]
mod labels_tests;
pub mod metrics;
pub mod prediction;

/// Requirements inferred from (implied by) explicit ones.
pub struct Inference;

impl super::TaskKind for Inference {
    fn name(&self) -> &'static str {
        "inference"
    }

    fn reads(&self) -> super::keys::Reads {
        super::keys::Reads::Keys {
            keys: &[("inferred_requirements", super::keys::Shape::List)],
            bare_list: false,
        }
    }

    fn label_shapes(&self) -> &'static [&'static dyn crate::sample::LabelShape] {
        &[&labels::InferredRequirements]
    }

    fn check_sample(&self, raw: &RawSample, _tasks: &Tasks, findings: &mut Findings) {
        super::lint::needs_conversation(self.name(), raw, findings);
    }

    fn suite_target(&self) -> Option<usize> {
        Some(50)
    }

    fn answer_keys(&self) -> &'static [&'static str] {
        &["inferred_requirements"]
    }

    fn metrics(&self) -> &'static [Metric] {
        metrics::METRICS
    }

    fn primary_metric(&self) -> &'static str {
        "inference.recall"
    }

    fn answer_schema(&self) -> &'static str {
        include_str!("answer.schema.json")
    }

    fn example_samples(&self) -> &'static str {
        include_str!("example.yaml.j2")
    }

    fn about(&self) -> &'static str {
        "requirements implied by agreed ones"
    }

    fn good_answer(&self, sample: &serde_json::Value, confidence: f64) -> serde_json::Value {
        serde_json::json!({"inferred_requirements": super::confident(sample, "inferred_requirements", confidence)})
    }

    fn chat_prompts(&self) -> super::ChatPrompts {
        super::ChatPrompts::built_in(include_str!("prompt.j2"))
    }

    /// The necessary gold items found are at most the necessary gold items; predictions at
    /// most the answer's list (`max_items`), each of relevance at most 2.
    fn record_bound(&self, key: &str, sample: &Sample, cfg: &ScoringConfig) -> Option<f64> {
        let gold = self.prepare(sample, cfg);
        let necessary = super::gold::<GoldInferred>(&gold)
            .weight
            .iter()
            .filter(|&&w| w == 2.0)
            .count();
        match key {
            "inf.necessary" | "inf.necessary_matched" => Some(necessary as f64),
            "inf.records" => Some(1.0),
            // Each prediction scores at most 2 (a necessary match).
            "inf.pred" => Some(cfg.max_items as f64),
            "inf.relevance" => Some(2.0 * cfg.max_items as f64),
            _ => None,
        }
    }

    fn prepare(&self, sample: &Sample, cfg: &ScoringConfig) -> super::Gold {
        Box::new(GoldInferred::new(
            sample
                .labels
                .list::<InferredRequirement>("inferred_requirements"),
            &cfg.similarity,
        ))
    }

    fn texts(&self, sample: &Sample, answers: &[Option<&Json<'_>>], out: &mut Vec<String>) {
        let gold: Vec<_> = sample
            .labels
            .list::<InferredRequirement>("inferred_requirements")
            .iter()
            .map(|i| i.requirement.clone())
            .collect();
        gold_texts(&gold, out);
        for answer in answers {
            let preds: Vec<PredRequirement> = prediction::inferred_requirements(*answer)
                .into_iter()
                .map(|i| i.requirement)
                .collect();
            predicted_texts(&preds, out);
        }
    }

    fn score(
        &self,
        _sample: &Sample,
        gold: &super::Gold,
        parsed: &super::Parsed<'_>,
        cfg: &ScoringConfig,
    ) -> super::Record {
        let answer = parsed.value;
        score(
            super::gold(gold),
            &prediction::inferred_requirements(answer),
            cfg,
        )
    }

    fn aligned(
        &self,
        sample: &Sample,
        answer: Option<&Json<'_>>,
        pairs: &[super::aligned::Paired],
    ) -> super::aligned::Aligned {
        let gold = &sample
            .labels
            .list::<InferredRequirement>("inferred_requirements");
        let preds: Vec<PredRequirement> = prediction::inferred_requirements(answer)
            .into_iter()
            .map(|i| i.requirement)
            .collect();
        let requirements: Vec<_> = gold.iter().map(|i| i.requirement.clone()).collect();
        let mut aligned = requirements_aligned(&requirements, &preds, pairs);
        // The gold item's necessity weighs its match: shown with it.
        for (item, inferred) in aligned.gold.iter_mut().zip(gold.iter()) {
            item.text = format!("{} ({})", item.text, inferred.necessity);
        }
        aligned
    }

    fn calibration(&self) -> Option<&'static str> {
        Some("inf.cal")
    }

    fn annotate_form(&self) -> &'static str {
        include_str!("annotate.js")
    }

    fn init_files(&self) -> super::InitFiles {
        super::InitFiles {
            thresholds: include_str!("init/thresholds.toml.j2"),
            settings: None,
            matching: true,
            stub: include_str!("init/pipeline.py.j2"),
            suite: None,
            guide: None,
            example: ("recall", "implied_requirements"),
        }
    }
}

impl super::ReadsLabels for Inference {
    fn has(key: &str) -> bool {
        key == "inferred_requirements"
    }

    fn read_de<'de, D: serde::Deserializer<'de>>(
        _key: &str,
        de: D,
    ) -> Result<Box<dyn crate::sample::LabelList>, D::Error> {
        use serde::Deserialize;
        Vec::<labels::InferredRequirement>::deserialize(de).map(|v| Box::new(v) as _)
    }
}
