//! Task kinds as plug-ins. A kind (extraction, inference, validation, e2e, tuples) owns, in its
//! folder, what is specific to it: which answer keys it reads, how its gold data is
//! prepared, how a record is matched and scored into sums, its metrics and its primary
//! score, how its items read in a diff and how reports lay out its metrics, its chat
//! prompts (`prompt.j2`), its answer's JSON Schema (`answer.schema.json`), the samples
//! `init` writes (`example.yaml.j2`) and its parts of init's other files (`init/`), a good
//! answer to a sample and the labels an answer would be. The scorer, the metric registry,
//! the chat pipeline, init, annotate's drafts and the reports reach a kind only through
//! [`TaskKind`]; adding a kind means adding a folder and one line in [`of`] and [`ALL`]
//! (and, today, its variant of `suite::Kind` and its labels in `suite`).
//! docs/development.md walks through an example.

pub mod aligned;
pub mod bounds;
pub mod compliance;
pub mod e2e;
pub mod explain;
pub mod extraction;
pub mod inference;
pub mod keys;
#[cfg(test)]
mod metric_tests;
pub mod tuples;
pub mod validation;

use std::any::Any;
use std::sync::LazyLock;

use crate::parse::json::Json;
use crate::parse::ParseOutcome;

use crate::metrics::registry::{Metric, SHARED};
use crate::metrics::stats::Stats;
use crate::metrics::ScoringConfig;
use crate::suite::{Kind, Sample};

/// Gold data a kind prepares once per sample; every repeat is scored against it.
pub type Gold = Box<dyn Any + Send + Sync>;

/// What scoring one record gives.
#[derive(Clone, Debug, Default)]
pub struct Record {
    /// The record's sums.
    pub stats: Stats,
    /// Its primary score in [0, 1].
    pub primary: f64,
    /// How its requirements matched, for kinds that match requirements.
    pub matching: Option<explain::Explanation>,
    /// The items it matched one to one (indexes into [`TaskKind::aligned`]'s lists), for
    /// kinds that pair items while scoring: what the diff of a broken sample lines up.
    pub pairs: Vec<aligned::Paired>,
    /// Why the answer is not schema-compliant, for kinds with a compliance metric.
    pub violations: compliance::Violations,
}

impl From<(Stats, f64)> for Record {
    fn from((stats, primary): (Stats, f64)) -> Self {
        Record {
            stats,
            primary,
            matching: None,
            pairs: Vec::new(),
            violations: compliance::Violations::default(),
        }
    }
}

/// One answer as the scorer read it: the JSON that parsed (if any), how it parsed, the
/// text it came from and where in that text the JSON is.
#[derive(Clone, Copy, Debug)]
pub struct Parsed<'r> {
    pub value: Option<&'r Json<'r>>,
    pub outcome: ParseOutcome,
    pub text: &'r str,
    pub region: Option<&'r std::ops::Range<usize>>,
}

/// A kind's prompts for the `chat` pipeline: minijinja templates rendered with a sample's
/// request.
#[derive(Clone, Copy, Debug)]
pub struct ChatPrompts {
    /// The user prompt goldgate sends for the kind's samples when a project names none;
    /// `None` when every project writes its own (a tuple task's fields are the suite's).
    pub built_in: Option<&'static str>,
    /// The user prompt `init` writes into a new project's `prompts/user.j2` for the kind.
    pub starter: &'static str,
    /// A system prompt of the kind's own that `init` writes (`None`: the shared one).
    pub system: Option<&'static str>,
}

impl ChatPrompts {
    /// One user prompt, sent by default and written by `init`, with the shared system
    /// prompt.
    pub const fn built_in(prompt: &'static str) -> ChatPrompts {
        ChatPrompts {
            built_in: Some(prompt),
            starter: prompt,
            system: None,
        }
    }
}

/// How reports lay out a kind's metrics, for a kind whose metrics need more than one row
/// each in the order of the registry.
#[derive(Clone, Copy, Debug)]
pub struct ReportLayout {
    /// The rows a report's main table leads with when the kind's first row has a value,
    /// in order (they may include shared metrics, such as the parse rates).
    pub headline: &'static [&'static str],
    /// The diagnostic rates a report shows apart, in order: never main rows.
    pub diagnostics: &'static [&'static str],
    /// Whether a metric belongs to the diagnostics (shown apart, or not at all).
    pub is_diagnostic: fn(&str) -> bool,
    /// The counts the diagnostics' coverage is told with: checked, skipped, did not parse.
    pub coverage: [&'static str; 3],
}

/// What `goldgate init` writes for a kind besides its samples ([`TaskKind::example_samples`]):
/// minijinja templates from the `init/` of its folder (with `docs`, the address of
/// goldgate's documentation), which the shared templates under `templates/init/` include
/// for each kind a new project has, and what those templates say of it.
#[derive(Clone, Copy, Debug)]
pub struct InitFiles {
    /// Its rules in `thresholds.toml` (`init/thresholds.toml.j2`): a comment saying what
    /// its samples are, then a commented `[metrics."NAME"]` table for each metric a new
    /// project gates.
    pub thresholds: &'static str,
    /// Tables of its own settings, written in `thresholds.toml` after the shared ones
    /// (`init/settings.toml.j2`); `None`: it has none.
    pub settings: Option<&'static str>,
    /// Its metrics depend on how requirements are matched: `thresholds.toml` gets the
    /// `[matching]` table when one of the project's kinds' do.
    pub matching: bool,
    /// Its function in the stub pipeline `pipeline.py` (`init/pipeline.py.j2`), named after
    /// the kind: what a request holds and what the answer must be, answering the example
    /// samples from `EXAMPLES` until a user calls their pipeline there.
    pub stub: &'static str,
    /// Its part of `suite/suite.toml` (`init/suite.toml.j2`), such as the tuple task its
    /// samples name; `None`: it needs none.
    pub suite: Option<&'static str>,
    /// The page of goldgate's documentation on its samples, beyond `suites.md`, that
    /// `GOLDGATE.md` points to, and what the page is about: `("tuples.md", "tuple
    /// tasks")`; `None`: `suites.md` says it all.
    pub guide: Option<(&'static str, &'static str)>,
    /// Its primary score in a word or two (`F1`), and a key a pipeline might answer
    /// instead of the first of its [`TaskKind::answer_keys`]
    /// (`extracted_requirements`): what the comments of `thresholds.toml` cite as an
    /// example when the kind is `init`'s default (the first of [`ALL`]).
    pub example: (&'static str, &'static str),
}

/// One task kind.
pub trait TaskKind: Sync {
    /// The kind, as samples name it.
    fn kind(&self) -> Kind;

    /// The keys of a pipeline's JSON answer this kind reads.
    fn answer_keys(&self) -> &'static [&'static str];

    /// Its metrics, in report order; their names start with the kind's name (the e2e kind's
    /// judge metrics with `judge.`).
    fn metrics(&self) -> &'static [Metric];

    /// The one of its metrics that says best whether the kind got better or worse (higher
    /// is better): without a `thresholds.toml`, the gate's built-in rules fail a significant
    /// drop of it.
    fn primary_metric(&self) -> &'static str;

    /// Its prompts for the `chat` pipeline (`prompt.j2` in its folder).
    fn chat_prompts(&self) -> ChatPrompts;

    /// The JSON Schema (2020-12) of a pipeline's answer to a sample of this kind
    /// (`answer.schema.json` in its folder), published as
    /// `schemas/answer-<kind>.schema.json`.
    fn answer_schema(&self) -> &'static str;

    /// The labelled samples `goldgate init` writes into a new project's suite
    /// (`example.yaml.j2` in its folder): a minijinja template (with `docs`, the address of
    /// goldgate's documentation) of YAML samples separated by `---` lines, the first with a
    /// comment explaining the kind's samples.
    fn example_samples(&self) -> &'static str;

    /// What its samples ask of a pipeline, in a few words (`goldgate init` asks with it).
    fn about(&self) -> &'static str;

    /// A good answer to `sample` (a sample as its YAML reads): its gold labels in the shape
    /// of the kind's answer, each item with `confidence`. `goldgate init`'s stub pipeline
    /// answers the example samples with it.
    fn good_answer(&self, sample: &serde_json::Value, confidence: f64) -> serde_json::Value;

    /// How reports lay out its metrics (`None`: one row each, in registry order, as the
    /// report's rule for rows picks them).
    fn report_layout(&self) -> Option<ReportLayout> {
        None
    }

    /// The labels a parsed answer to `sample` would be, key by key (`goldgate annotate`
    /// offers them as a draft): each of the kind's label keys with the list the answer
    /// holds under it, an empty list where it holds none.
    fn labels_from_answer(
        &self,
        sample: &Sample,
        answer: &serde_json::Value,
    ) -> serde_json::Map<String, serde_json::Value> {
        let _ = sample;
        self.kind()
            .label_keys()
            .iter()
            .map(|key| (key.to_string(), list_or_empty(answer.get(*key))))
            .collect()
    }

    /// Gold data prepared once per sample.
    fn prepare(&self, sample: &Sample, cfg: &ScoringConfig) -> Gold;

    /// Every text [`TaskKind::score`] compares by similarity, for the sample's gold data and
    /// for each of its answers (`None`: did not parse). An embedding backend embeds exactly
    /// these before scoring; a kind that compares no texts lists none.
    fn texts(&self, sample: &Sample, answers: &[Option<&Json<'_>>], out: &mut Vec<String>) {
        let _ = (sample, answers, out);
    }

    /// Score one record: `answer.value` is the parsed answer (`None`: it did not parse).
    fn score(
        &self,
        sample: &Sample,
        gold: &Gold,
        answer: &Parsed<'_>,
        cfg: &ScoringConfig,
    ) -> Record;

    /// The gold items and the predicted items of a parsed answer to `sample`, lined up by
    /// `pairs` (the [`Record::pairs`] its `score` gave): what the diff of a broken sample
    /// shows. A kind that does not pair items while scoring pairs them here by the rules its
    /// metrics count with.
    fn aligned(
        &self,
        sample: &Sample,
        answer: Option<&Json<'_>>,
        pairs: &[aligned::Paired],
    ) -> aligned::Aligned;

    /// What `goldgate init` writes for it besides its samples (the `init/` of its folder).
    fn init_files(&self) -> InitFiles;
}

/// `value` when it is a list, else an empty list.
pub fn list_or_empty(value: Option<&serde_json::Value>) -> serde_json::Value {
    value
        .filter(|v| v.is_array())
        .cloned()
        .unwrap_or(serde_json::Value::Array(Vec::new()))
}

/// The items of `sample.labels[key]`, each with `confidence`: a good answer's items.
pub fn confident(sample: &serde_json::Value, key: &str, confidence: f64) -> serde_json::Value {
    let items = sample["labels"][key]
        .as_array()
        .cloned()
        .unwrap_or_default();
    serde_json::Value::Array(
        items
            .into_iter()
            .map(|mut item| {
                if let Some(fields) = item.as_object_mut() {
                    fields.insert("confidence".into(), serde_json::json!(confidence));
                }
                item
            })
            .collect(),
    )
}

/// Every kind, in report order. The first is the one `goldgate init` starts a project with
/// when nobody chooses.
pub static ALL: [&dyn TaskKind; 5] = [
    &extraction::Extraction,
    &inference::Inference,
    &validation::Validation,
    &e2e::E2e,
    &tuples::Tuples,
];

/// The implementation of `kind`.
pub fn of(kind: Kind) -> &'static dyn TaskKind {
    match kind {
        Kind::Extraction => &extraction::Extraction,
        Kind::Inference => &inference::Inference,
        Kind::Validation => &validation::Validation,
        Kind::E2e => &e2e::E2e,
        Kind::Tuples => &tuples::Tuples,
    }
}

/// Every metric goldgate reports, in report order: each kind's, then the shared parse and
/// run-health metrics.
pub fn metrics() -> &'static [Metric] {
    static ALL_METRICS: LazyLock<Vec<Metric>> = LazyLock::new(|| {
        ALL.iter()
            .flat_map(|k| k.metrics().iter().copied())
            .chain(SHARED.iter().copied())
            .collect()
    });
    &ALL_METRICS
}

/// Look a metric up by name (a `tuples.pred_source[POINTER]` too).
pub fn find(name: &str) -> Option<&'static Metric> {
    metrics()
        .iter()
        .find(|m| m.name == name)
        .or_else(|| tuples::metrics::source(name))
}

/// Every metric of a score whose metric names or sum keys are `names`: [`metrics`], with
/// each per-pointer source count among `names` (`tuples.pred_source[POINTER]`, a family
/// whose members depend on the answers) after the other tuples metrics, in name order.
pub fn catalog<'n>(names: impl IntoIterator<Item = &'n str>) -> &'static [Metric] {
    use std::collections::{BTreeSet, HashMap};
    use std::sync::Mutex;
    static MADE: LazyLock<Mutex<HashMap<Vec<String>, &'static [Metric]>>> =
        LazyLock::new(Mutex::default);
    let family: BTreeSet<&str> = names
        .into_iter()
        .filter(|n| n.starts_with(tuples::metrics::SOURCE_PREFIX))
        .collect();
    if family.is_empty() {
        return metrics();
    }
    let key: Vec<String> = family.iter().map(|s| s.to_string()).collect();
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(list) = made.get(&key) {
        return list;
    }
    let all = metrics();
    let at = all
        .iter()
        .rposition(|m| m.name.starts_with("tuples."))
        .map_or(all.len(), |i| i + 1);
    let members = family
        .iter()
        .filter_map(|n| tuples::metrics::source(n))
        .copied();
    let list: Vec<Metric> = all[..at]
        .iter()
        .copied()
        .chain(members)
        .chain(all[at..].iter().copied())
        .collect();
    let list: &'static [Metric] = Box::leak(list.into_boxed_slice());
    made.insert(key, list);
    list
}

/// The kind whose metric `name` is (`None`: a metric every kind shares, or none).
pub fn owner(name: &str) -> Option<Kind> {
    if name.starts_with(tuples::metrics::SOURCE_PREFIX) {
        return Some(Kind::Tuples);
    }
    ALL.iter()
        .find(|k| k.metrics().iter().any(|m| m.name == name))
        .map(|k| k.kind())
}

/// Every metric name, for did-you-mean hints.
pub fn names() -> impl Iterator<Item = &'static str> {
    metrics().iter().map(|m| m.name)
}

/// The prepared gold of the kind that made it.
fn gold<T: 'static>(gold: &Gold) -> &T {
    gold.downcast_ref::<T>()
        .expect("a kind is only given the gold it prepared")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_registered_once_with_its_own_metrics() {
        for kind in Kind::ALL {
            assert_eq!(of(kind).kind(), kind);
            assert!(ALL.iter().filter(|k| k.kind() == kind).count() == 1);
            let prefix = format!("{}.", kind.as_str());
            // The e2e kind also reports its judge's metrics.
            let judged = |name: &str| kind == Kind::E2e && name.starts_with("judge.");
            assert!(of(kind)
                .metrics()
                .iter()
                .all(|m| m.name.starts_with(&prefix) || judged(m.name)));
            let primary = of(kind).primary_metric();
            assert!(
                of(kind)
                    .metrics()
                    .iter()
                    .any(|m| m.name == primary && m.direction == crate::metrics::registry::Higher),
                "{primary}: one of the kind's own metrics, higher is better"
            );
        }
        let names: Vec<&str> = names().collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(names.len(), unique.len(), "metric names are unique");
    }
}
