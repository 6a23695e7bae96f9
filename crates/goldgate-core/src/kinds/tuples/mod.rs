//! The tuples kind (`kind: tuples`, docs/tuples.md): a pipeline reads a text and answers
//! with a list of fixed-shape tuples — `(event_type, role, argument)`, `(aspect_term,
//! polarity)`, any shape a suite's task defines. A record is scored on its final list
//! (found by the task's JSON pointers) against the gold tuples: exact (strict) and loose
//! (relaxed) matches, the types present, spans missing from the text, the schema, and —
//! as the task asks — chain-of-thought consistency, first stage against last, and label
//! conflicts. The primary score is the record's strict F1.

mod cot;
mod lint;
pub mod metrics;
pub mod read;
pub mod relaxed;
mod stages;

use crate::hash::FastSet;
use crate::metrics::stats::Stats;
use crate::metrics::PrfKeys;
use crate::metrics::{SchemaMode, ScoringConfig};
use crate::parse::json::Json;
use crate::sample::findings::Findings;
use crate::sample::task::Tasks;
use crate::sample::task::{SupportMode, Task};
use crate::sample::{RawSample, Sample};
use read::{Member, TupleSet};
use stages::Fraction;

use super::aligned::{Aligned, Item, Paired};
use super::{Gold, Parsed, Record, TaskKind};

pub struct Tuples;

/// A sample's gold, read once.
struct TupleGold {
    set: TupleSet,
    /// `norm` of the text (hallucination checks).
    norm_text: String,
}

impl TaskKind for Tuples {
    fn name(&self) -> &'static str {
        "tuples"
    }

    fn reads(&self) -> super::keys::Reads {
        super::keys::Reads::TaskPointers
    }

    fn label_shapes(&self) -> &'static [&'static dyn crate::sample::LabelShape] {
        &[&lint::TupleLabels]
    }

    fn check_sample(&self, raw: &RawSample, tasks: &Tasks, findings: &mut Findings) {
        lint::check_tuples_sample(raw, tasks, findings);
    }

    fn check_sample_of_other_kind(&self, raw: &RawSample, findings: &mut Findings) {
        lint::check_no_tuples_fields(raw, findings);
    }

    fn answer_keys(&self) -> &'static [&'static str] {
        &["final_tuples", "tuples"]
    }

    fn metrics(&self) -> &'static [crate::metrics::registry::Metric] {
        metrics::METRICS
    }

    fn primary_metric(&self) -> &'static str {
        "tuples.strict_f1"
    }

    fn answer_schema(&self) -> &'static str {
        include_str!("answer.schema.json")
    }

    fn example_samples(&self) -> &'static str {
        include_str!("example.yaml.j2")
    }

    fn about(&self) -> &'static str {
        "fixed-shape tuples from a text (aspect sentiment, event arguments)"
    }

    /// The tuples are the list at the first of the task's `final_paths` that names one.
    fn labels_from_answer(
        &self,
        sample: &Sample,
        answer: &serde_json::Value,
    ) -> serde_json::Map<String, serde_json::Value> {
        let list = sample.task.as_ref().and_then(|task| {
            task.final_paths
                .iter()
                .find_map(|p| answer.pointer(p).filter(|v| v.is_array()))
        });
        [("tuples".to_string(), super::list_or_empty(list))]
            .into_iter()
            .collect()
    }

    /// The main table leads with the tuple headline (strict, relaxed and type F1, the
    /// parse rates, schema compliance, hallucination); the chain-of-thought diagnostics are
    /// never main rows and always come with their coverage.
    fn family_prefix(&self) -> Option<&'static str> {
        Some(metrics::SOURCE_PREFIX)
    }

    fn family_member(&self, name: &str) -> Option<&'static crate::metrics::registry::Metric> {
        metrics::source(name)
    }

    fn report_layout(&self) -> Option<super::ReportLayout> {
        Some(super::ReportLayout {
            headline: &[
                "tuples.strict_f1",
                "tuples.relaxed_f1",
                "tuples.type_f1",
                "parse.raw_success_rate",
                "parse.repair_success_rate",
                "parse.error_rate",
                "parse.no_json_rate",
                "tuples.schema_compliance",
                "tuples.hallucination_rate",
            ],
            diagnostics: &[
                "tuples.cot_faithfulness",
                "tuples.cot_type_consistency",
                "tuples.cot_argument_consistency",
                "tuples.cot_coverage_rate",
            ],
            is_diagnostic: metrics::is_cot,
            coverage: [
                "tuples.cot_checked",
                "tuples.cot_skipped",
                "tuples.cot_parse_fail",
            ],
        })
    }

    fn good_answer(&self, sample: &serde_json::Value, confidence: f64) -> serde_json::Value {
        serde_json::json!({"final_tuples": super::confident(sample, "tuples", confidence)})
    }

    /// No built-in prompt: a tuple task's fields are the suite's. `init` writes a starting
    /// point for aspect sentiment, with a system prompt of its own.
    fn chat_prompts(&self) -> super::ChatPrompts {
        super::ChatPrompts {
            built_in: None,
            starter: include_str!("prompt.j2"),
            system: Some(include_str!("system.j2")),
        }
    }

    /// Matched and missed tuples are at most the gold's, extra ones at most the answer's
    /// list (`max_items`).
    fn record_bound(&self, key: &str, sample: &Sample, cfg: &ScoringConfig) -> Option<f64> {
        let gold = gold_set(sample).unwrap_or_default().count() as f64;
        match key {
            "tuples.strict_tp" | "tuples.strict_fn" => Some(gold),
            "tuples.strict_fp" => Some(cfg.max_items as f64),
            "tuples.records" | "tuples.f1_sum" => Some(1.0),
            _ => None,
        }
    }

    fn prepare(&self, sample: &Sample, _cfg: &ScoringConfig) -> Gold {
        Box::new(TupleGold {
            set: gold_set(sample).unwrap_or_default(),
            norm_text: crate::text::norm(sample.text.as_deref().unwrap_or_default()),
        })
    }

    fn score(
        &self,
        sample: &Sample,
        gold: &Gold,
        answer: &Parsed<'_>,
        _cfg: &ScoringConfig,
    ) -> Record {
        let Some(task) = sample.task.as_deref() else {
            return Record::default(); // the loader gives every tuples sample its task
        };
        let gold: &TupleGold = super::gold(gold);
        let text = sample.text.as_deref().unwrap_or_default();
        score(task, gold, text, answer)
    }

    /// Tuples do not pair while scoring (the metrics count matches): they are paired here
    /// by the same rules — each gold tuple with the prediction of the same key, then the
    /// rest by the relaxed rules' assignment.
    fn aligned(&self, sample: &Sample, answer: Option<&Json<'_>>, _pairs: &[Paired]) -> Aligned {
        let Some(task) = sample.task.as_deref() else {
            return Aligned::default();
        };
        let gold = gold_set(sample).unwrap_or_default();
        let set = read::first_list(answer, &task.final_paths)
            .map(|(_, list)| TupleSet::read(task, list))
            .unwrap_or_default();
        aligned(
            task,
            &gold,
            &set,
            sample.text.as_deref().unwrap_or_default(),
        )
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
            suite: Some(include_str!("init/suite.toml.j2")),
            guide: Some(("tuples.md", "tuple tasks")),
            example: ("strict F1", "aspects"),
        }
    }
}

/// The gold tuples of a sample, read like an answer.
fn gold_set(sample: &Sample) -> Option<TupleSet> {
    let task = sample.task.as_deref()?;
    let text = serde_json::Value::Array(sample.labels.list::<serde_json::Value>("tuples").to_vec())
        .to_string();
    let list = Json::parse_owned(&text).ok()?;
    Some(TupleSet::read(task, list.as_array()?))
}

/// Score one record into its sums; its primary score is its strict F1.
fn score(task: &Task, gold: &TupleGold, text: &str, answer: &Parsed<'_>) -> Record {
    let mut s = Stats::default();
    s.add("tuples.records", 1.0);
    let parsed = answer.outcome.is_success();
    if parsed {
        s.add("tuples.parsed", 1.0);
    }
    let found = read::first_list(answer.value, &task.final_paths);
    match found {
        Some((i, _)) => {
            let source = format!("{}{}]", metrics::SOURCE_PREFIX, task.final_paths[i]);
            s.add_dynamic(source, 1.0);
            s.add("tuples.pred_source_fallback", f64::from(u8::from(i > 0)));
        }
        None => s.add("tuples.pred_source_none", 1.0),
    }
    let set = found
        .map(|(_, list)| TupleSet::read(task, list))
        .unwrap_or_default();
    let (predicted, expected) = (set.count(), gold.set.count());
    let gold_keys = gold.set.keys();
    let tp = set
        .members
        .iter()
        .filter(|m| gold_keys.contains(m.key.as_slice()))
        .count();
    add_counts(&mut s, &metrics::STRICT, tp, predicted, expected);
    let f1 = Fraction::f1(tp, predicted, expected).value();
    s.add("tuples.f1_sum", f1);
    let adjacent = relaxed::eligible(
        task,
        &relaxed::Side::new(task, &gold.set.members, text),
        &relaxed::Side::new(task, &set.members, text),
    );
    let loose = relaxed::max_matches(&adjacent, set.members.len());
    add_counts(&mut s, &metrics::RELAXED, loose, predicted, expected);
    if let Some(t) = task.type_field {
        let (g, p) = (types(&gold.set.members, t), types(&set.members, t));
        s.add("tuples.typed_records", 1.0);
        add_counts(
            &mut s,
            &metrics::TYPES,
            g.intersection(&p).count(),
            p.len(),
            g.len(),
        );
    }
    if parsed {
        hallucination(&mut s, task, &set, &gold.norm_text, text);
    }
    let schema_ok = found.is_some()
        && (task.schema == SchemaMode::SyntaxOnly || (set.malformed == 0 && set.labels_known));
    s.add("tuples.schema_ok", f64::from(u8::from(schema_ok)));
    let violations = match schema_ok {
        true => Default::default(),
        false => read::violations(task, found),
    };
    if task.cot.enabled {
        s.add("tuples.cot_records", 1.0);
        match cot::check(task, answer, &set.members) {
            cot::Outcome::ParseFail => s.add("tuples.cot_parse_fail", 1.0),
            cot::Outcome::Skipped => s.add("tuples.cot_skipped", 1.0),
            cot::Outcome::Checked { types, arguments } => {
                s.add("tuples.cot_checked", 1.0);
                s.add("tuples.cot_types", f64::from(u8::from(types)));
                s.add("tuples.cot_arguments", f64::from(u8::from(arguments)));
                s.add(
                    "tuples.cot_faithful",
                    f64::from(u8::from(types && arguments)),
                );
            }
        }
    }
    if let Some((_, list)) = read::first_list(answer.value, &task.stage1_paths) {
        stages::add(
            &mut s,
            &TupleSet::read(task, list),
            &set,
            &gold.set,
            &gold_keys,
            answer.value,
        );
    }
    if let (true, true, Some(t)) = (task.label_conflicts, parsed, task.type_field) {
        let spans: Vec<usize> = task.span_fields().collect();
        let (raw, after) = stages::conflicts(&set.members, &spans, t);
        s.add("tuples.conflict_records", 1.0);
        s.add("tuples.conflict_raw", f64::from(u8::from(raw)));
        s.add("tuples.conflict", f64::from(u8::from(after)));
    }
    Record {
        violations,
        ..Record::from((s, f1))
    }
}

/// The distinct keys of field `t` among `members`.
fn types(members: &[Member], t: usize) -> FastSet<&str> {
    members.iter().map(|m| m.key[t].as_str()).collect()
}

/// TP, FP and FN of one family under its sum keys.
fn add_counts(s: &mut Stats, keys: &PrfKeys, tp: usize, predicted: usize, gold: usize) {
    s.add_count(keys.tp, tp);
    s.add_count(keys.fp, predicted - tp);
    s.add_count(keys.fn_, gold - tp);
}

/// Spans of the final tuples that the text does not hold (members marked implicit claim
/// none).
fn hallucination(s: &mut Stats, task: &Task, set: &TupleSet, norm_text: &str, text: &str) {
    let (mut checked, mut unsupported) = (0, 0);
    for member in set.members.iter().filter(|m| !m.implicit) {
        for f in task.span_fields() {
            checked += 1;
            let key = &member.key[f];
            let supported = !key.is_empty()
                && match task.hallucination {
                    SupportMode::NormalizedSubstring => norm_text.contains(key.as_str()),
                    SupportMode::ExactSpan => text.contains(member.raw[f].as_str()),
                };
            unsupported += usize::from(!supported);
        }
    }
    s.add_count("tuples.halluc_checked", checked);
    s.add_count("tuples.halluc_unsupported", unsupported);
    s.add(
        "tuples.halluc_records",
        f64::from(u8::from(unsupported > 0)),
    );
}

/// A tuple as a diff item: each field's value (a label as its canonical value).
fn item(task: &Task, member: &Member) -> Item {
    let fields: Vec<(String, String)> = task
        .fields
        .iter()
        .enumerate()
        .map(|(f, field)| {
            let value = task
                .canonical_value(f, &member.raw[f])
                .unwrap_or(&member.raw[f]);
            (field.name.clone(), value.to_string())
        })
        .collect();
    let values: Vec<String> = fields.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let implicit = if member.implicit { " (implicit)" } else { "" };
    Item {
        name: String::new(),
        text: format!("{}{implicit}", values.join(" | ")),
        fields,
    }
}

/// The gold tuples (in the order of their lines) and the predicted ones, paired: each gold
/// tuple with the prediction of the same key, then the rest by the relaxed rules' assignment
/// (a loose match); elements that are no tuple are listed apart.
fn aligned(task: &Task, gold: &TupleSet, set: &TupleSet, text: &str) -> Aligned {
    let mut order: Vec<usize> = (0..gold.members.len()).collect();
    let gold_items: Vec<Item> = gold.members.iter().map(|m| item(task, m)).collect();
    order.sort_by(|a, b| gold_items[*a].text.cmp(&gold_items[*b].text));
    let mut taken = vec![false; set.members.len()];
    let mut pairs = Vec::new();
    let mut partner: Vec<Option<usize>> = vec![None; gold.members.len()];
    for (g, member) in gold.members.iter().enumerate() {
        partner[g] = set.members.iter().position(|p| p.key == member.key);
        if let Some(p) = partner[g] {
            taken[p] = true;
            pairs.push(Paired::exact(g, p));
        }
    }
    let open_gold: Vec<usize> = (0..gold.members.len())
        .filter(|&g| partner[g].is_none())
        .collect();
    let open_pred: Vec<usize> = (0..set.members.len()).filter(|&p| !taken[p]).collect();
    let pick = |all: &[Member], at: &[usize]| -> Vec<Member> {
        at.iter().map(|&i| all[i].clone()).collect()
    };
    let (gold_open, pred_open) = (
        pick(&gold.members, &open_gold),
        pick(&set.members, &open_pred),
    );
    let adjacent = relaxed::eligible(
        task,
        &relaxed::Side::new(task, &gold_open, text),
        &relaxed::Side::new(task, &pred_open, text),
    );
    for (g, p) in relaxed::assignment(&adjacent, pred_open.len()) {
        pairs.push(Paired {
            how: Some("loose match"),
            ..Paired::exact(open_gold[g], open_pred[p])
        });
    }
    // The gold tuples in the order of their lines; the pairs follow them.
    let mut at = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        at[old] = new;
    }
    for pair in &mut pairs {
        pair.gold = at[pair.gold];
    }
    let mut gold_items: Vec<Option<Item>> = gold_items.into_iter().map(Some).collect();
    let gold_sorted = order.iter().filter_map(|&g| gold_items[g].take()).collect();
    let predicted = set.members.iter().map(|m| item(task, m)).collect();
    let mut aligned = Aligned::new(gold_sorted, predicted, &pairs);
    aligned.extra = vec!["(an element that is not a well-formed tuple)".to_string(); set.malformed];
    aligned
}

impl super::ReadsLabels for Tuples {
    fn has(key: &str) -> bool {
        key == "tuples"
    }

    fn read_de<'de, D: serde::Deserializer<'de>>(
        _key: &str,
        de: D,
    ) -> Result<Box<dyn crate::sample::LabelList>, D::Error> {
        use serde::Deserialize;
        Vec::<serde_json::Value>::deserialize(de).map(|v| Box::new(v) as _)
    }
}

#[cfg(test)]
mod layout_tests;
#[cfg(test)]
mod prompt_tests;
#[cfg(test)]
mod tests;
