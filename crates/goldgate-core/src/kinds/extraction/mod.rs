//! The extraction kind: requirements extracted from a conversation (answer key
//! `requirements`). Owns its gold preparation, one-to-one requirement matching, and per
//! record: matching counts, type sets, acceptance-criteria completeness, message-level
//! identification kappa, type kappa over type-blind matches, calibration, schema compliance
//! and actor hallucination, scored into sums. Its primary score is the requirement F1;
//! its metrics are in [`metrics`].

use super::aligned::{Aligned, Paired};
use super::explain::{predicted_name, Explanation};
use super::Record;
use crate::metrics::calibration::{self, add_bins, Bins};
use crate::metrics::matching::{self, match_with, similarities, MatchItem, Pair};
use crate::metrics::registry::Metric;
use crate::metrics::stats::Stats;
use crate::metrics::texts::{joined, Similarity, Text, TextIndex};
use crate::metrics::{f1, precision, recall, ScoringConfig};
use crate::parse::json::Json;
use crate::sample::findings::Findings;
use crate::sample::task::Tasks;
use crate::sample::{RawSample, Sample};
use crate::text::norm;
use labels::Requirement;
use prediction::PredRequirement;

/// What matching needs of gold requirements, computed once per sample (repeats reuse it).
#[derive(Clone, Debug, Default)]
pub struct GoldRequirements {
    /// The requirements' ids, for explanations.
    pub ids: Vec<String>,
    pub items: Vec<MatchItem>,
    /// The items' texts indexed for similarity against every prediction.
    pub index: TextIndex,
    /// Every requirement's acceptance criteria, for pairwise cosines.
    pub criteria: Vec<Vec<Text>>,
}

impl GoldRequirements {
    pub fn new(requirements: &[Requirement], sim: &Similarity) -> Self {
        let items: Vec<MatchItem> = requirements
            .iter()
            .map(|r| MatchItem::new(&r.title, &r.action, &r.type_, &r.actor, sim))
            .collect();
        GoldRequirements {
            ids: requirements.iter().map(|r| r.id.clone()).collect(),
            index: matching::index(&items, sim),
            items,
            criteria: requirements
                .iter()
                .map(|r| {
                    r.acceptance_criteria
                        .iter()
                        .map(|c| sim.text(&[c]))
                        .collect()
                })
                .collect(),
        }
    }
}

/// Match items of predicted requirements (missing fields read as empty text).
pub fn pred_items(preds: &[PredRequirement], sim: &Similarity) -> Vec<MatchItem> {
    preds
        .iter()
        .map(|p| {
            MatchItem::new(
                p.title.unwrap_or_default(),
                p.action.unwrap_or_default(),
                p.type_.unwrap_or_default(),
                p.actor.unwrap_or_default(),
                sim,
            )
        })
        .collect()
}

/// The texts [`GoldRequirements::new`] compares: each requirement's `title + " " + action`
/// and its acceptance criteria (an embedding backend embeds them before scoring).
pub fn gold_texts(requirements: &[Requirement], out: &mut Vec<String>) {
    for r in requirements {
        out.push(joined(&[&r.title, &r.action]));
        out.extend(r.acceptance_criteria.iter().cloned());
    }
}

/// The texts scoring compares of predicted requirements: as [`gold_texts`].
pub fn predicted_texts(preds: &[PredRequirement], out: &mut Vec<String>) {
    for p in preds {
        out.push(joined(&[
            p.title.unwrap_or_default(),
            p.action.unwrap_or_default(),
        ]));
        out.extend(p.acceptance_criteria.iter().map(|c| c.to_string()));
    }
}

/// The main requirement matching of a sample (type rule as configured), and how it came out.
pub fn match_requirements(
    gold: &GoldRequirements,
    preds: &[PredRequirement],
    items: &[MatchItem],
    cfg: &ScoringConfig,
) -> (Vec<Pair>, Explanation) {
    let sims = similarities(&cfg.similarity, &gold.index, items);
    let pairs = match_with(&gold.items, items, &sims, cfg.rules(cfg.type_rule));
    let explanation = explain(gold, preds, items, &sims, &pairs, cfg);
    (pairs, explanation)
}

/// How the main matching came out (see [`Explanation`]).
pub fn explain(
    gold: &GoldRequirements,
    preds: &[PredRequirement],
    items: &[MatchItem],
    sims: &[Vec<f64>],
    pairs: &[Pair],
    cfg: &ScoringConfig,
) -> Explanation {
    let misses = matching::unmatched(&gold.items, items, sims, cfg.rules(cfg.type_rule), pairs);
    let ids: Vec<&str> = gold.ids.iter().map(String::as_str).collect();
    let names: Vec<String> = preds
        .iter()
        .enumerate()
        .map(|(i, p)| predicted_name(p.id, i))
        .collect();
    Explanation::new(&ids, &names, pairs, &misses)
}

/// Score one extraction record: its sums, its requirement F1 and its matching.
pub fn score(
    sample: &Sample,
    gold: &GoldRequirements,
    preds: &[PredRequirement],
    answer: Option<&Json<'_>>,
    cfg: &ScoringConfig,
) -> Record {
    let mut s = Stats::default();
    let items = pred_items(preds, &cfg.similarity);
    let sims = similarities(&cfg.similarity, &gold.index, &items);
    let pairs = match_with(&gold.items, &items, &sims, cfg.rules(cfg.type_rule));
    let matching = explain(gold, preds, &items, &sims, &pairs, cfg);
    let (g, p, tp) = (gold.items.len(), items.len(), pairs.len());
    let (fp, fn_) = ((p - tp) as f64, (g - tp) as f64);
    let sample_f1 = f1(precision(tp as f64, fp, fn_), recall(tp as f64, fp, fn_));
    s.add("ext.records", 1.0);
    s.add_count("ext.tp", tp);
    s.add("ext.fp", fp);
    s.add("ext.fn", fn_);
    s.add("ext.f1_sum", sample_f1);
    type_sets(
        sample.labels.list::<Requirement>("requirements"),
        preds,
        &mut s,
    );
    completeness(gold, preds, &pairs, cfg, &mut s);
    identification(sample, preds, &mut s);
    type_agreement(gold, &items, &sims, cfg, &mut s);
    let mut bins = Bins::default();
    for (j, r) in preds.iter().enumerate() {
        if let Some(c) = calibration::usable(r.confidence) {
            bins.add(c, pairs.iter().any(|pair| pair.pred == j));
        }
    }
    add_bins("ext.cal", &bins, &mut s);
    let violations = compliance::check(answer, Some(sample.conversation.len()), cfg);
    if violations.is_empty() {
        s.add("ext.schema_ok", 1.0);
    }
    hallucination(sample, preds, cfg, &mut s);
    Record {
        stats: s,
        primary: sample_f1,
        matching: Some(matching),
        pairs: paired(&pairs),
        violations,
    }
}

fn type_sets(gold: &[Requirement], pred: &[PredRequirement], s: &mut Stats) {
    let g: std::collections::BTreeSet<String> = gold.iter().map(|r| norm(&r.type_)).collect();
    let p: std::collections::BTreeSet<String> =
        pred.iter().filter_map(|r| r.type_.map(norm)).collect();
    let (tp, fp, fn_) = crate::metrics::set_counts(&g, &p);
    s.add_count("ext.type_tp", tp);
    s.add_count("ext.type_fp", fp);
    s.add_count("ext.type_fn", fn_);
}

fn completeness(
    gold: &GoldRequirements,
    preds: &[PredRequirement],
    pairs: &[Pair],
    cfg: &ScoringConfig,
    s: &mut Stats,
) {
    for pair in pairs {
        let wanted = &gold.criteria[pair.gold];
        let sim = &cfg.similarity;
        let offered: Vec<Text> = preds[pair.pred]
            .acceptance_criteria
            .iter()
            .map(|c| sim.text(&[c]))
            .collect();
        let covered = wanted
            .iter()
            .filter(|w| offered.iter().any(|o| sim.cosine(w, o) >= cfg.ac_threshold))
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
    for r in sample.labels.list::<Requirement>("requirements") {
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
    let actor = norm(r.actor.unwrap_or(""));
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

pub mod compliance;
pub mod diff_items;
pub mod labels;
pub mod metrics;
pub mod prediction;

/// Requirements extracted from a conversation.
pub struct Extraction;

impl super::TaskKind for Extraction {
    fn name(&self) -> &'static str {
        "extraction"
    }

    fn reads(&self) -> super::keys::Reads {
        super::keys::Reads::Keys {
            keys: &[("requirements", super::keys::Shape::List)],
            bare_list: true,
        }
    }

    fn label_shapes(&self) -> &'static [&'static dyn crate::sample::LabelShape] {
        &[&labels::Requirements]
    }

    fn check_sample(&self, raw: &RawSample, _tasks: &Tasks, findings: &mut Findings) {
        super::lint::needs_conversation(self.name(), raw, findings);
    }

    fn suite_target(&self) -> Option<usize> {
        Some(80)
    }

    fn answer_keys(&self) -> &'static [&'static str] {
        &["requirements"]
    }

    fn metrics(&self) -> &'static [Metric] {
        metrics::METRICS
    }

    fn primary_metric(&self) -> &'static str {
        "extraction.f1"
    }

    fn answer_schema(&self) -> &'static str {
        include_str!("answer.schema.json")
    }

    fn example_samples(&self) -> &'static str {
        include_str!("example.yaml.j2")
    }

    fn about(&self) -> &'static str {
        "requirements stated in a conversation"
    }

    /// A bare list of requirements is the requirements.
    fn labels_from_answer(
        &self,
        _sample: &crate::sample::Sample,
        answer: &serde_json::Value,
    ) -> serde_json::Map<String, serde_json::Value> {
        let list = match answer {
            serde_json::Value::Array(_) => Some(answer),
            _ => answer.get("requirements"),
        };
        [("requirements".to_string(), super::list_or_empty(list))]
            .into_iter()
            .collect()
    }

    fn good_answer(&self, sample: &serde_json::Value, confidence: f64) -> serde_json::Value {
        serde_json::json!({"requirements": super::confident(sample, "requirements", confidence)})
    }

    fn chat_prompts(&self) -> super::ChatPrompts {
        super::ChatPrompts::built_in(include_str!("prompt.j2"))
    }

    /// Matched and missed requirements are at most the gold's, extra ones at most the
    /// answer's list (`max_items`); one record adds one F1.
    fn record_bound(&self, key: &str, sample: &Sample, cfg: &ScoringConfig) -> Option<f64> {
        let gold = sample.labels.list::<Requirement>("requirements").len() as f64;
        match key {
            "ext.tp" | "ext.fn" => Some(gold),
            "ext.fp" => Some(cfg.max_items as f64),
            "ext.records" | "ext.f1_sum" | "ext.schema_ok" | "ext.halluc_records" => Some(1.0),
            _ => None,
        }
    }

    fn prepare(&self, sample: &Sample, cfg: &ScoringConfig) -> super::Gold {
        Box::new(GoldRequirements::new(
            sample.labels.list::<Requirement>("requirements"),
            &cfg.similarity,
        ))
    }

    fn texts(&self, sample: &Sample, answers: &[Option<&Json<'_>>], out: &mut Vec<String>) {
        gold_texts(sample.labels.list::<Requirement>("requirements"), out);
        for answer in answers {
            predicted_texts(&prediction::requirements(*answer), out);
        }
    }

    fn score(
        &self,
        sample: &Sample,
        gold: &super::Gold,
        parsed: &super::Parsed<'_>,
        cfg: &ScoringConfig,
    ) -> Record {
        let answer = parsed.value;
        let preds = prediction::requirements(answer);
        score(sample, super::gold(gold), &preds, answer, cfg)
    }

    fn aligned(&self, sample: &Sample, answer: Option<&Json<'_>>, pairs: &[Paired]) -> Aligned {
        let preds = prediction::requirements(answer);
        requirements_aligned(
            sample.labels.list::<Requirement>("requirements"),
            &preds,
            pairs,
        )
    }

    fn calibration(&self) -> Option<&'static str> {
        Some("ext.cal")
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
            example: ("F1", "extracted_requirements"),
        }
    }
}

/// Gold and predicted requirements as items, lined up by the pairs scoring matched.
pub fn requirements_aligned(
    gold: &[Requirement],
    preds: &[PredRequirement],
    pairs: &[Paired],
) -> Aligned {
    Aligned::new(
        gold.iter().map(diff_items::gold_requirement).collect(),
        preds
            .iter()
            .enumerate()
            .map(|(i, p)| diff_items::predicted_requirement(p, i))
            .collect(),
        pairs,
    )
}

/// The pairs of a requirement matching, as the diff lines them up.
pub fn paired(pairs: &[Pair]) -> Vec<Paired> {
    pairs
        .iter()
        .map(|p| Paired::similar(p.gold, p.pred, p.similarity))
        .collect()
}

impl super::ReadsLabels for Extraction {
    fn has(key: &str) -> bool {
        key == "requirements"
    }

    fn read_de<'de, D: serde::Deserializer<'de>>(
        _key: &str,
        de: D,
    ) -> Result<Box<dyn crate::sample::LabelList>, D::Error> {
        use serde::Deserialize;
        Vec::<labels::Requirement>::deserialize(de).map(|v| Box::new(v) as _)
    }
}
