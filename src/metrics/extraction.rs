//! Extraction metrics (SPEC §5): requirement matching counts, type sets, acceptance-criteria
//! completeness, message-level identification kappa, type kappa over type-blind matches,
//! calibration, schema compliance and actor hallucination — scored per record into sums.

use serde_json::Value;

use super::calibration::{self, Bins};
use super::matching::{match_items, match_with, similarities, MatchItem, Pair};
use super::similarity::Trigrams;
use super::stats::{Stats, Sums};
use super::{f1, precision, recall, ScoringConfig};
use crate::parse::prediction::{integer, PredRequirement, Prediction};
use crate::suite::model::{enums, Requirement};
use crate::suite::Sample;
use crate::text::norm;

/// What matching needs of gold requirements, computed once per sample (repeats reuse it).
#[derive(Clone, Debug, Default)]
pub struct GoldRequirements {
    pub items: Vec<MatchItem>,
    pub criteria: Vec<Vec<Trigrams>>,
}

impl GoldRequirements {
    pub fn new(requirements: &[Requirement]) -> Self {
        GoldRequirements {
            items: requirements
                .iter()
                .map(|r| MatchItem::new(&r.title, &r.action, &r.type_, &r.actor))
                .collect(),
            criteria: requirements
                .iter()
                .map(|r| {
                    r.acceptance_criteria
                        .iter()
                        .map(|c| Trigrams::new(c))
                        .collect()
                })
                .collect(),
        }
    }
}

/// Match items of predicted requirements (missing fields read as empty text).
pub fn pred_items(preds: &[PredRequirement]) -> Vec<MatchItem> {
    preds
        .iter()
        .map(|p| {
            let s = |f: &Option<String>| f.clone().unwrap_or_default();
            MatchItem::new(&s(&p.title), &s(&p.action), &s(&p.type_), &s(&p.actor))
        })
        .collect()
}

/// The main requirement matching of a sample (type rule as configured).
pub fn match_requirements(
    gold: &GoldRequirements,
    pred: &[MatchItem],
    cfg: &ScoringConfig,
) -> Vec<Pair> {
    match_items(&gold.items, pred, cfg.rules(cfg.type_rule))
}

/// Score one extraction record. Returns its sums and its requirement F1.
pub fn score(
    sample: &Sample,
    gold: &GoldRequirements,
    pred: &Prediction,
    answer: Option<&Value>,
    cfg: &ScoringConfig,
) -> (Stats, f64) {
    let mut s = Stats::default();
    let items = pred_items(&pred.requirements);
    let sims = similarities(&gold.items, &items);
    let pairs = match_with(&gold.items, &items, &sims, cfg.rules(cfg.type_rule));
    let (g, p, tp) = (gold.items.len(), items.len(), pairs.len());
    let (fp, fn_) = ((p - tp) as f64, (g - tp) as f64);
    let sample_f1 = f1(precision(tp as f64, fp, fn_), recall(tp as f64, fp, fn_));
    s.add("ext.records", 1.0);
    s.add_count("ext.tp", tp);
    s.add("ext.fp", fp);
    s.add("ext.fn", fn_);
    s.add("ext.f1_sum", sample_f1);
    type_sets(&sample.labels.requirements, &pred.requirements, &mut s);
    completeness(gold, pred, &pairs, cfg, &mut s);
    identification(sample, &pred.requirements, &mut s);
    type_agreement(gold, &items, &sims, cfg, &mut s);
    let mut bins = Bins::default();
    for (j, r) in pred.requirements.iter().enumerate() {
        if let Some(c) = calibration::usable(r.confidence) {
            bins.add(c, pairs.iter().any(|pair| pair.pred == j));
        }
    }
    add_bins("ext.cal", &bins, &mut s);
    if schema_ok(answer, sample.conversation.len(), cfg) {
        s.add("ext.schema_ok", 1.0);
    }
    hallucination(sample, &pred.requirements, cfg, &mut s);
    (s, sample_f1)
}

fn type_sets(gold: &[Requirement], pred: &[PredRequirement], s: &mut Stats) {
    let g: std::collections::BTreeSet<String> = gold.iter().map(|r| norm(&r.type_)).collect();
    let p: std::collections::BTreeSet<String> = pred
        .iter()
        .filter_map(|r| r.type_.as_deref().map(norm))
        .collect();
    let (tp, fp, fn_) = super::set_counts(&g, &p);
    s.add_count("ext.type_tp", tp);
    s.add_count("ext.type_fp", fp);
    s.add_count("ext.type_fn", fn_);
}

fn completeness(
    gold: &GoldRequirements,
    pred: &Prediction,
    pairs: &[Pair],
    cfg: &ScoringConfig,
    s: &mut Stats,
) {
    for pair in pairs {
        let wanted = &gold.criteria[pair.gold];
        let offered: Vec<Trigrams> = pred.requirements[pair.pred]
            .acceptance_criteria
            .iter()
            .map(|c| Trigrams::new(c))
            .collect();
        let covered = wanted
            .iter()
            .filter(|w| offered.iter().any(|o| w.cosine(o) >= cfg.ac_threshold))
            .count();
        // A gold requirement without criteria has nothing left to cover.
        let fraction = if wanted.is_empty() {
            1.0
        } else {
            covered as f64 / wanted.len() as f64
        };
        s.add("ext.ac_sum", fraction);
        s.add("ext.ac_pairs", 1.0);
    }
}

/// Message-level identification labels: message i is 1 when some requirement cites it.
fn identification(sample: &Sample, pred: &[PredRequirement], s: &mut Stats) {
    let n = sample.conversation.len();
    let mut gold = vec![false; n];
    let mut predicted = vec![false; n];
    for r in &sample.labels.requirements {
        mark(&mut gold, r.source_messages.iter().copied());
    }
    for r in pred {
        mark(&mut predicted, r.source_messages.iter().copied());
    }
    for (g, p) in gold.into_iter().zip(predicted) {
        let key = match (g, p) {
            (true, true) => "ext.msg.11",
            (true, false) => "ext.msg.10",
            (false, true) => "ext.msg.01",
            (false, false) => "ext.msg.00",
        };
        s.add(key, 1.0);
        s.add("ext.msgs", 1.0);
    }
}

fn mark(labels: &mut [bool], indexes: impl Iterator<Item = i64>) {
    for i in indexes {
        if let Some(slot) = usize::try_from(i).ok().and_then(|i| labels.get_mut(i)) {
            *slot = true;
        }
    }
}

fn type_agreement(
    gold: &GoldRequirements,
    pred: &[MatchItem],
    sims: &[Vec<f64>],
    cfg: &ScoringConfig,
    s: &mut Stats,
) {
    for pair in match_with(&gold.items, pred, sims, cfg.rules(false)) {
        let key = format!(
            "ext.type_pair:{}|{}",
            gold.items[pair.gold].type_norm, pred[pair.pred].type_norm
        );
        s.add_dynamic(key, 1.0);
        s.add("ext.type_pairs", 1.0);
    }
}

/// The sum keys of calibration bins under one prefix (`ext.cal`, `inf.cal`), built once.
pub struct BinKeys {
    pub count: [String; calibration::BINS],
    pub confidence: [String; calibration::BINS],
    pub correct: [String; calibration::BINS],
    pub squared_error: String,
    pub total: String,
}

/// The bin keys of `prefix` (only the two calibration prefixes are ever used).
pub fn bin_keys(prefix: &'static str) -> &'static BinKeys {
    static EXT: std::sync::OnceLock<BinKeys> = std::sync::OnceLock::new();
    static INF: std::sync::OnceLock<BinKeys> = std::sync::OnceLock::new();
    let cell = if prefix == "inf.cal" { &INF } else { &EXT };
    cell.get_or_init(|| BinKeys {
        count: std::array::from_fn(|b| format!("{prefix}.{b}.n")),
        confidence: std::array::from_fn(|b| format!("{prefix}.{b}.conf")),
        correct: std::array::from_fn(|b| format!("{prefix}.{b}.correct")),
        squared_error: format!("{prefix}.sq"),
        total: format!("{prefix}.n"),
    })
}

/// Calibration bins as sums under `prefix`.
pub fn add_bins(prefix: &'static str, bins: &Bins, s: &mut Stats) {
    let keys = bin_keys(prefix);
    for b in 0..calibration::BINS {
        s.add(keys.count[b].as_str(), bins.count[b]);
        s.add(keys.confidence[b].as_str(), bins.confidence[b]);
        s.add(keys.correct[b].as_str(), bins.correct[b]);
    }
    s.add(keys.squared_error.as_str(), bins.squared_error);
    s.add(keys.total.as_str(), bins.total());
}

/// Calibration bins read back from sums under `prefix`.
pub fn bins_from(prefix: &'static str, sums: &dyn Sums) -> Bins {
    let keys = bin_keys(prefix);
    let mut bins = Bins::default();
    for b in 0..calibration::BINS {
        bins.count[b] = sums.get(&keys.count[b]);
        bins.confidence[b] = sums.get(&keys.confidence[b]);
        bins.correct[b] = sums.get(&keys.correct[b]);
    }
    bins.squared_error = sums.get(&keys.squared_error);
    bins
}

/// Schema compliance of a parsed answer (SPEC §5). A failed parse fails.
pub fn schema_ok(answer: Option<&Value>, messages: usize, cfg: &ScoringConfig) -> bool {
    let list = match answer {
        Some(Value::Array(list)) => list,
        Some(Value::Object(map)) => match map.get("requirements") {
            Some(Value::Array(list)) => list,
            _ => return false,
        },
        _ => return false,
    };
    match cfg.schema {
        SchemaMode::SyntaxOnly => true,
        SchemaMode::Strict => list.iter().all(|r| requirement_ok(r, messages, cfg)),
    }
}

/// How strictly answers are held to the schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaMode {
    /// Every field of the SPEC §2 table present with its type and rule.
    #[default]
    #[serde(rename = "schema_strict")]
    Strict,
    /// Only the top-level shape: an object whose `requirements` is a list, or a list.
    SyntaxOnly,
}

fn requirement_ok(value: &Value, messages: usize, cfg: &ScoringConfig) -> bool {
    let Some(r) = value.as_object() else {
        return false;
    };
    let text = |k: &str| r.get(k).and_then(Value::as_str);
    let non_empty = |k: &str| text(k).is_some_and(|s| !s.is_empty());
    let in_enum = |k: &str, allowed: &[&str]| {
        text(k).is_some_and(|v| allowed.iter().any(|a| norm(a) == norm(v)))
    };
    let id_ok = text("id").is_some_and(|id| cfg.id_pattern.is_match(id));
    let condition_ok = matches!(
        r.get("condition"),
        Some(Value::String(_)) | Some(Value::Null)
    );
    let criteria_ok = r
        .get("acceptance_criteria")
        .and_then(Value::as_array)
        .is_some_and(|c| c.len() >= 2 && c.iter().all(Value::is_string));
    let sources_ok = r
        .get("source_messages")
        .and_then(Value::as_array)
        .is_some_and(|s| {
            s.iter()
                .all(|v| integer(v).is_some_and(|i| i >= 0 && (i as u64) < messages as u64))
        });
    let confidence_ok = r
        .get("confidence")
        .and_then(Value::as_f64)
        .is_some_and(|c| (0.0..=1.0).contains(&c));
    id_ok
        && non_empty("title")
        && non_empty("actor")
        && non_empty("action")
        && in_enum("type", enums::REQUIREMENT_TYPE)
        && in_enum("priority", enums::PRIORITY)
        && text("rationale").is_some()
        && condition_ok
        && criteria_ok
        && sources_ok
        && confidence_ok
}

/// Unsupported requirements: an out-of-range source index, an empty actor, or an actor that
/// (with its synonyms) never occurs in the conversation and is not generic.
fn hallucination(sample: &Sample, pred: &[PredRequirement], cfg: &ScoringConfig, s: &mut Stats) {
    if pred.is_empty() {
        return;
    }
    let text = sample.conversation_text();
    let unsupported = pred
        .iter()
        .filter(|r| !supported(r, &text, sample.conversation.len(), cfg))
        .count();
    s.add_count("ext.checked", pred.len());
    s.add_count("ext.unsupported", unsupported);
    if unsupported > 0 {
        s.add("ext.halluc_records", 1.0);
    }
}

fn supported(r: &PredRequirement, text: &str, messages: usize, cfg: &ScoringConfig) -> bool {
    let in_range = r
        .source_messages
        .iter()
        .all(|&i| i >= 0 && (i as u64) < messages as u64);
    let actor = norm(r.actor.as_deref().unwrap_or(""));
    if !in_range || actor.is_empty() {
        return false;
    }
    if cfg.generic_actors.contains(&actor) || text.contains(&actor) {
        return true;
    }
    cfg.actors
        .class_members(&actor)
        .iter()
        .any(|m| !m.is_empty() && text.contains(m.as_str()))
}

/// Aggregate metric functions over sums.
pub mod agg {
    use super::super::agreement::{binary_kappa, cohen_kappa_cells};
    use super::super::{f1, precision, ratio_or, recall};
    use super::{bins_from, Sums};

    fn counts(s: &dyn Sums, prefix: &str) -> (f64, f64, f64) {
        (
            s.get(&format!("{prefix}tp")),
            s.get(&format!("{prefix}fp")),
            s.get(&format!("{prefix}fn")),
        )
    }
    pub fn precision_(s: &dyn Sums) -> Option<f64> {
        let (tp, fp, fn_) = counts(s, "ext.");
        Some(precision(tp, fp, fn_))
    }
    pub fn recall_(s: &dyn Sums) -> Option<f64> {
        let (tp, fp, fn_) = counts(s, "ext.");
        Some(recall(tp, fp, fn_))
    }
    pub fn f1_(s: &dyn Sums) -> Option<f64> {
        let (tp, fp, fn_) = counts(s, "ext.");
        Some(f1(precision(tp, fp, fn_), recall(tp, fp, fn_)))
    }
    pub fn f1_macro(s: &dyn Sums) -> Option<f64> {
        Some(s.get("ext.f1_sum") / s.get("ext.records"))
    }
    pub fn type_f1(s: &dyn Sums) -> Option<f64> {
        let (tp, fp, fn_) = counts(s, "ext.type_");
        Some(f1(precision(tp, fp, fn_), recall(tp, fp, fn_)))
    }
    pub fn ac_completeness(s: &dyn Sums) -> Option<f64> {
        Some(ratio_or(s.get("ext.ac_sum"), s.get("ext.ac_pairs"), 0.0))
    }
    pub fn kappa(s: &dyn Sums) -> Option<f64> {
        let c = |k: &str| s.get(&format!("ext.msg.{k}"));
        binary_kappa(c("11"), c("10"), c("01"), c("00"))
    }
    pub fn type_kappa(s: &dyn Sums) -> Option<f64> {
        let pairs = s.prefixed("ext.type_pair:");
        cohen_kappa_cells(
            pairs
                .iter()
                .filter_map(|(k, n)| k.split_once('|').map(|(g, p)| (g, p, *n))),
        )
    }
    pub fn ece(s: &dyn Sums) -> Option<f64> {
        bins_from("ext.cal", s).ece()
    }
    pub fn mce(s: &dyn Sums) -> Option<f64> {
        bins_from("ext.cal", s).mce()
    }
    pub fn brier(s: &dyn Sums) -> Option<f64> {
        bins_from("ext.cal", s).brier()
    }
    pub fn schema_compliance(s: &dyn Sums) -> Option<f64> {
        Some(s.get("ext.schema_ok") / s.get("ext.records"))
    }
    pub fn hallucination_rate(s: &dyn Sums) -> Option<f64> {
        Some(s.get("ext.halluc_records") / s.get("ext.records"))
    }
    pub fn hallucination_entity_rate(s: &dyn Sums) -> Option<f64> {
        Some(ratio_or(
            s.get("ext.unsupported"),
            s.get("ext.checked"),
            0.0,
        ))
    }
}
