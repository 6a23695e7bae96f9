//! `probe`, a task kind that exists only in test builds (`cfg(test)` or the `test-support`
//! feature): it proves that a kind is its folder plus one registration line. A sample names
//! some marks in a conversation (`labels.marks`, a list of strings); the pipeline answers
//! `{"marks": [...]}`, optionally with a `confidence` in [0, 1] that its marks are all
//! right; marks match as sets of `norm`'d strings. Besides the marks' precision, recall and
//! F1 it measures two rates where lower is better, as the gate's tests need: the share of
//! answers flagged for naming a mark the conversation does not (`flagged_rate`), and the
//! calibration error of the confidences (`ece`). Nothing outside this folder
//! names it: lint, scoring, the gate, the reports, `init` and `annotate` reach it through
//! the registry, as they reach every kind. It is not listed where kinds are offered.

use std::collections::BTreeSet;

use serde_json::Value;

use super::aligned::{Aligned, Item, Paired};
use crate::metrics::calibration::{self, add_bins, bins_from, Bins};
use crate::metrics::registry::{m, Higher, Lower, Metric};
use crate::metrics::stats::{Stats, Sums};
use crate::metrics::{f1, precision, recall, Prf, PrfKeys, ScoringConfig};
use crate::parse::json::Json;
use crate::sample::findings::Findings;
use crate::sample::task::Tasks;
use crate::sample::{LabelList, LabelShape, RawSample, Sample};
use crate::text::norm;

#[cfg(test)]
mod tests;

/// The test-only kind.
pub struct Probe;

/// `labels.marks`: the marks a conversation names, as strings.
pub struct Marks;

impl LabelShape for Marks {
    fn key(&self) -> &'static str {
        "marks"
    }

    fn empty(&self) -> Box<dyn LabelList> {
        Box::new(Vec::<String>::new())
    }

    fn check(&self, list: &dyn LabelList, pointer: &str, _: usize, findings: &mut Findings) {
        for (i, mark) in super::items::<String>(list).iter().enumerate() {
            if norm(mark).is_empty() {
                findings.error(
                    &format!("{pointer}/{i}"),
                    "empty mark".into(),
                    Some("a mark is a word the conversation names".into()),
                );
            }
        }
    }
}

const KEYS: PrfKeys = PrfKeys {
    tp: "probe.tp",
    fp: "probe.fp",
    fn_: "probe.fn",
};

fn precision_(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &KEYS).precision)
}
fn recall_(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &KEYS).recall)
}
fn f1_(s: &dyn Sums) -> Option<f64> {
    Some(Prf::of(s, &KEYS).f1)
}
fn flagged_rate(s: &dyn Sums) -> Option<f64> {
    Some(s.get("probe.flagged_records") / s.get("probe.records"))
}
fn ece(s: &dyn Sums) -> Option<f64> {
    bins_from("probe.cal", s).ece()
}

static METRICS: &[Metric] = &[
    m(
        "probe.precision",
        Higher,
        "probe.records",
        precision_,
        "micro precision of the marks",
    )
    .as_ratio(
        &[("probe.tp", 1.0)],
        &[("probe.tp", 1.0), ("probe.fp", 1.0)],
    ),
    m(
        "probe.recall",
        Higher,
        "probe.records",
        recall_,
        "micro recall of the marks",
    )
    .as_ratio(
        &[("probe.tp", 1.0)],
        &[("probe.tp", 1.0), ("probe.fn", 1.0)],
    ),
    m(
        "probe.f1",
        Higher,
        "probe.records",
        f1_,
        "micro F1 of the marks",
    )
    .as_ratio(
        &[("probe.tp", 2.0)],
        &[("probe.tp", 2.0), ("probe.fp", 1.0), ("probe.fn", 1.0)],
    ),
    m(
        "probe.flagged_rate",
        Lower,
        "probe.records",
        flagged_rate,
        "share of answers naming a mark the conversation does not",
    )
    .as_ratio(&[("probe.flagged_records", 1.0)], &[("probe.records", 1.0)]),
    m(
        "probe.ece",
        Lower,
        "probe.cal.n",
        ece,
        "expected calibration error of the answers' confidences",
    ),
];

/// The marks of an answer, each `norm`'d once.
fn answered(answer: Option<&Json<'_>>) -> Vec<String> {
    answer
        .and_then(|a| a.get("marks"))
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .map(str::to_string)
        .collect()
}

fn item(mark: &str) -> Item {
    Item {
        name: String::new(),
        text: mark.to_string(),
        fields: vec![("mark".into(), mark.to_string())],
    }
}

impl super::TaskKind for Probe {
    fn name(&self) -> &'static str {
        "probe"
    }

    fn listed(&self) -> bool {
        false
    }

    fn label_shapes(&self) -> &'static [&'static dyn LabelShape] {
        &[&Marks]
    }

    fn check_sample(&self, raw: &RawSample, _: &Tasks, findings: &mut Findings) {
        super::lint::needs_conversation(self.name(), raw, findings);
    }

    fn answer_keys(&self) -> &'static [&'static str] {
        &["marks"]
    }

    fn reads(&self) -> super::keys::Reads {
        super::keys::Reads::Keys {
            keys: &[("marks", super::keys::Shape::List)],
            bare_list: false,
        }
    }

    fn metrics(&self) -> &'static [Metric] {
        METRICS
    }

    fn primary_metric(&self) -> &'static str {
        "probe.f1"
    }

    fn chat_prompts(&self) -> super::ChatPrompts {
        super::ChatPrompts::built_in(include_str!("prompt.j2"))
    }

    fn answer_schema(&self) -> &'static str {
        include_str!("answer.schema.json")
    }

    fn example_samples(&self) -> &'static str {
        include_str!("example.yaml.j2")
    }

    fn about(&self) -> &'static str {
        "the marks a conversation names (a kind for goldgate's own tests)"
    }

    fn good_answer(&self, sample: &Value, _confidence: f64) -> Value {
        serde_json::json!({"marks": super::list_or_empty(sample["labels"].get("marks"))})
    }

    fn init_files(&self) -> super::InitFiles {
        super::InitFiles {
            thresholds: include_str!("init/thresholds.toml.j2"),
            settings: None,
            matching: false,
            stub: include_str!("init/pipeline.py.j2"),
            suite: None,
            guide: None,
            example: ("F1", "found_marks"),
        }
    }

    fn annotate_form(&self) -> &'static str {
        include_str!("annotate.js")
    }

    /// Found and missed marks are at most the gold's, extra ones at most the answer's list.
    fn record_bound(&self, key: &str, sample: &Sample, cfg: &ScoringConfig) -> Option<f64> {
        let gold = sample.labels.list::<String>("marks").len() as f64;
        match key {
            "probe.tp" | "probe.fn" => Some(gold),
            "probe.fp" => Some(cfg.max_items as f64),
            "probe.records" | "probe.flagged_records" => Some(1.0),
            _ => None,
        }
    }

    fn prepare(&self, _: &Sample, _: &ScoringConfig) -> super::Gold {
        Box::new(())
    }

    fn score(
        &self,
        sample: &Sample,
        _: &super::Gold,
        answer: &super::Parsed<'_>,
        _: &ScoringConfig,
    ) -> super::Record {
        let gold: BTreeSet<String> = sample
            .labels
            .list::<String>("marks")
            .iter()
            .map(|m| norm(m))
            .collect();
        let predicted: BTreeSet<String> = answered(answer.value).iter().map(|m| norm(m)).collect();
        let (tp, fp, fn_) = crate::metrics::set_counts(&gold, &predicted);
        let mut s = Stats::default();
        s.add("probe.records", 1.0);
        s.add_count("probe.tp", tp);
        s.add_count("probe.fp", fp);
        s.add_count("probe.fn", fn_);
        // Flagged: a mark whose `norm`'d text the conversation's does not hold.
        let conversation = sample.conversation_text();
        let flagged = predicted.iter().any(|m| !conversation.contains(m.as_str()));
        s.add("probe.flagged_records", f64::from(u8::from(flagged)));
        let confidence = answer.value.and_then(|a| a.get("confidence"));
        if let Some(c) = calibration::usable(confidence.and_then(Json::as_f64)) {
            let mut bins = Bins::default();
            bins.add(c, gold == predicted);
            add_bins("probe.cal", &bins, &mut s);
        }
        let (tp, fp, fn_) = (tp as f64, fp as f64, fn_ as f64);
        (s, f1(precision(tp, fp, fn_), recall(tp, fp, fn_))).into()
    }

    fn aligned(&self, sample: &Sample, answer: Option<&Json<'_>>, _: &[Paired]) -> Aligned {
        let gold = sample.labels.list::<String>("marks");
        let predicted = answered(answer);
        let pairs = super::aligned::equal_strings(gold, &predicted, (0, 0));
        Aligned::new(
            gold.iter().map(|g| item(g)).collect(),
            predicted.iter().map(|p| item(p)).collect(),
            &pairs,
        )
    }
}

impl super::ReadsLabels for Probe {
    fn has(key: &str) -> bool {
        key == "marks"
    }

    fn read_de<'de, D: serde::Deserializer<'de>>(
        _key: &str,
        de: D,
    ) -> Result<Box<dyn crate::sample::LabelList>, D::Error> {
        use serde::Deserialize;
        Vec::<String>::deserialize(de).map(|v| Box::new(v) as _)
    }
}
