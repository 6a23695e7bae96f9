//! Inference metrics (SPEC §5): matching on the `requirement` fields of inferred
//! requirements; relevance weighted by the gold item's necessity, false inferences, recall of
//! necessary items and calibration of the item's outer confidence.

use super::calibration::{self, Bins};
use super::extraction::{add_bins, match_requirements, pred_items, GoldRequirements};
use super::stats::Stats;
use super::{f1, precision, recall, ScoringConfig};
use crate::parse::prediction::{PredRequirement, Prediction};
use crate::suite::model::InferredRequirement;
use crate::text::norm;

/// Gold inferred requirements prepared for matching, once per sample.
#[derive(Clone, Debug, Default)]
pub struct GoldInferred {
    pub requirements: GoldRequirements,
    /// Relevance score of a match with each gold item: necessary 2, recommended 1, optional 0.
    pub weight: Vec<f64>,
}

impl GoldInferred {
    pub fn new(items: &[InferredRequirement]) -> Self {
        let requirements: Vec<_> = items.iter().map(|i| i.requirement.clone()).collect();
        GoldInferred {
            requirements: GoldRequirements::new(&requirements),
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

/// Score one inference record. Returns its sums and its F1 of inferred requirements.
pub fn score(gold: &GoldInferred, pred: &Prediction, cfg: &ScoringConfig) -> (Stats, f64) {
    let mut s = Stats::default();
    let reqs: Vec<PredRequirement> = pred
        .inferred_requirements
        .iter()
        .map(|i| i.requirement.clone())
        .collect();
    let items = pred_items(&reqs);
    let pairs = match_requirements(&gold.requirements, &items, cfg);
    let mut bins = Bins::default();
    let (mut relevance, mut zero) = (0.0, 0usize);
    for (j, item) in pred.inferred_requirements.iter().enumerate() {
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
    (s, primary)
}

/// Aggregate metric functions over sums.
pub mod agg {
    use super::super::extraction::bins_from;
    use super::super::stats::Sums;
    use super::super::{ratio_or, recall};

    /// Σ score / (2·|P|); 1.0 when there are no predictions.
    pub fn relevance(s: &dyn Sums) -> Option<f64> {
        Some(ratio_or(
            s.get("inf.relevance"),
            2.0 * s.get("inf.pred"),
            1.0,
        ))
    }
    /// Share of predictions scoring 0; 0.0 when there are no predictions.
    pub fn false_inference_rate(s: &dyn Sums) -> Option<f64> {
        Some(ratio_or(s.get("inf.zero"), s.get("inf.pred"), 0.0))
    }
    /// Matched necessary gold items / necessary gold items (zero-denominator rule of §5).
    pub fn recall_(s: &dyn Sums) -> Option<f64> {
        let (tp, all) = (s.get("inf.necessary_matched"), s.get("inf.necessary"));
        Some(recall(tp, s.get("inf.pred") - tp, all - tp))
    }
    pub fn ece(s: &dyn Sums) -> Option<f64> {
        bins_from("inf.cal", s).ece()
    }
}
