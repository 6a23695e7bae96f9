//! Task kinds as plug-ins. A kind (extraction, inference, validation, e2e, tuples) owns, in its
//! folder, what is specific to it: which answer keys it reads, how its gold data is
//! prepared, how a record is matched and scored into sums, its metrics and its primary
//! score, how its items read in a diff and how reports lay out its metrics, its chat
//! prompts (`prompt.j2`), its answer's JSON Schema (`answer.schema.json`), the samples
//! `init` writes (`example.yaml.j2`) and its parts of init's other files (`init/`), its
//! labels (`labels.rs`: their shapes, types and checks), its annotate form
//! (`annotate.js`), a good answer to a sample and the labels an answer would be. The
//! loader, the scorer, the metric registry, the chat pipeline, init, annotate and the
//! reports reach a kind only through [`TaskKind`]; adding a kind means adding a folder and
//! one line in [`ALL`]. docs/development.md walks through an example.

pub mod aligned;
pub mod bounds;
mod catalog;
pub mod compliance;
pub mod e2e;
pub mod explain;
pub mod extraction;
pub mod inference;
pub mod keys;
pub mod lint;
#[cfg(test)]
mod metric_tests;
#[cfg(any(test, feature = "test-support"))]
pub mod probe;
mod reading;
pub mod tuples;
pub mod validation;

use std::any::Any;

use crate::parse::json::Json;
use crate::parse::ParseOutcome;

use crate::metrics::registry::Metric;
use crate::metrics::stats::Stats;
use crate::metrics::ScoringConfig;
use crate::sample::findings::Findings;
use crate::sample::task::Tasks;
use crate::sample::{Kind, LabelList, LabelShape, RawSample, Sample};

use reading::{each_item, items};
pub use reading::{label_shapes, labels_of, read_labels};

pub use catalog::{catalog, find, is_family_member, is_listed_metric, metrics, names, owner};

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

/// What the LLM judge compares for a kind: a sample's reference document (a field of the
/// request) with the document the pipeline wrote (a key of its answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JudgedDocument {
    pub reference: &'static str,
    pub answer: &'static str,
}

/// One task kind.
pub trait TaskKind: Sync {
    /// The kind's name, as samples write it (`kind: NAME`).
    fn name(&self) -> &'static str;

    /// Whether the kind is offered where kinds are listed (`init`'s choices, the published
    /// schemas, the documented metrics); a kind that only tests build is not.
    fn listed(&self) -> bool {
        true
    }

    /// Its label keys (under `labels`, and in an annotation), each with its shape: how the
    /// list is read and checked (`labels.rs` in its folder). Kinds may share a shape.
    fn label_shapes(&self) -> &'static [&'static dyn LabelShape];

    /// The keys of `labels` (and of an annotation) a sample of this kind is labelled with.
    fn label_keys(&self) -> Vec<&'static str> {
        self.label_shapes().iter().map(|s| s.key()).collect()
    }

    /// Check a sample of this kind as written: its inputs and what only its labels need
    /// (the loader checks the id, the kind, the difficulty and the tags before, and the
    /// labels' common fields after).
    fn check_sample(&self, raw: &RawSample, tasks: &Tasks, findings: &mut Findings);

    /// What this kind forbids in a sample of another kind (the fields only it reads).
    fn check_sample_of_other_kind(&self, raw: &RawSample, findings: &mut Findings) {
        let _ = (raw, findings);
    }

    /// How many samples of this kind a suite aims for (`goldgate suite stats` measures a
    /// suite against it); `None`: the kind has no size target.
    fn suite_target(&self) -> Option<usize> {
        None
    }

    /// The keys of a pipeline's JSON answer this kind reads.
    fn answer_keys(&self) -> &'static [&'static str];

    /// What it reads at the top of an answer, to tell an answer that holds none of it
    /// ([`keys`]).
    fn reads(&self) -> keys::Reads;

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
        self.label_keys()
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

    /// Its form on the labelling page of `goldgate annotate` (`annotate.js` in its folder,
    /// served at `/js/kinds/<kind>.js`): an ES module whose default export is the kind's
    /// `kindForm` (the page's `form.js`), made of the page's shared section builders —
    /// its label keys, whether its requirements cite messages as sources, the form's model
    /// in and out, its checks and its review columns. It imports the page's modules as
    /// `../NAME.js` and another kind's form as `./KIND.js`.
    fn annotate_form(&self) -> &'static str;

    /// What `goldgate init` writes for it besides its samples (the `init/` of its folder).
    fn init_files(&self) -> InitFiles;

    /// The prefix of its confidence-bin sums (`PREFIX.b0` …), when its answers carry a
    /// confidence the reports chart for calibration; `None`: no chart.
    fn calibration(&self) -> Option<&'static str> {
        None
    }

    /// The document the LLM judge reviews for its samples, when it has one: the request
    /// field holding the reference and the answer key holding the pipeline's document.
    fn judged_document(&self) -> Option<JudgedDocument> {
        None
    }

    /// The prefix of its metric family's names, when it has one: metrics whose names
    /// depend on the answers (tuples: `tuples.pred_source[POINTER]`), looked up by
    /// [`TaskKind::family_member`] and reported after its other metrics.
    fn family_prefix(&self) -> Option<&'static str> {
        None
    }

    /// The metric `name` is, when it is a member of its family.
    fn family_member(&self, _name: &str) -> Option<&'static Metric> {
        None
    }

    /// The most one record of `sample` can add to its statistic `key`, known before the
    /// sample is answered (an answer holding a list over `cfg.max_items` is unreadable, so
    /// no answer counts more items than that). The sequential gate bounds what a sample not
    /// yet answered can do to a rule with it. `None`: no bound is known, and a rule reading
    /// `key` waits for every sample.
    fn record_bound(&self, key: &str, sample: &Sample, cfg: &ScoringConfig) -> Option<f64> {
        let _ = (key, sample, cfg);
        None
    }
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

/// Reading a kind's label lists straight from a deserializer, which a [`TaskKind`] trait
/// object cannot do (the method is generic): the one place a kind says which type each of
/// its label keys reads into. The loader reads a document's lists, and a valid JSON line's
/// straight from its text, this way; the kind's [`LabelShape`]s check the same type (a test
/// compares them).
pub trait ReadsLabels {
    /// Whether one of the kind's shapes has `key`.
    fn has(key: &str) -> bool;

    /// The list under `key` (one [`ReadsLabels::has`]) read from `de`.
    fn read_de<'de, D: serde::Deserializer<'de>>(
        key: &str,
        de: D,
    ) -> Result<Box<dyn LabelList>, D::Error>;
}

/// The registry: [`ALL`] and [`read_list_de`] from one list of kinds.
macro_rules! registry {
    ($($(#[$m:meta])* $kind:path),* $(,)?) => {
        /// Every kind, in report order. The first listed one is the one `goldgate init`
        /// starts a project with when nobody chooses.
        pub static ALL: &[&dyn TaskKind] = &[$($(#[$m])* &$kind),*];

        /// The list under `key` read straight from `de` by the first kind with a shape for
        /// it (an error when none has one).
        pub fn read_list_de<'de, D: serde::Deserializer<'de>>(
            key: &str,
            de: D,
        ) -> Result<Box<dyn LabelList>, D::Error> {
            $(
                $(#[$m])*
                if <$kind as ReadsLabels>::has(key) {
                    return <$kind as ReadsLabels>::read_de(key, de);
                }
            )*
            Err(serde::de::Error::custom(format!("no kind has the label key `{key}`")))
        }
    };
}

// The one line a kind adds to register itself.
registry![
    extraction::Extraction,
    inference::Inference,
    validation::Validation,
    e2e::E2e,
    tuples::Tuples,
    #[cfg(any(test, feature = "test-support"))]
    probe::Probe,
];

/// Every registered kind's handle, in registry order.
pub fn all() -> impl Iterator<Item = Kind> {
    ALL.iter()
        .enumerate()
        .map(|(index, kind)| Kind::registered(index, kind.name()))
}

/// Every kind offered where kinds are listed ([`TaskKind::listed`]), in registry order.
pub fn listed() -> impl Iterator<Item = Kind> {
    all().filter(|k| of(*k).listed())
}

/// The kind samples call `name` (exactly; the loader compares after `norm`).
pub fn named(name: &str) -> Option<Kind> {
    all().find(|k| k.as_str() == name)
}

/// The implementation of `kind`.
pub fn of(kind: Kind) -> &'static dyn TaskKind {
    ALL[kind.index()]
}

/// The handle of a registered implementation.
pub fn kind_of(implementation: &dyn TaskKind) -> Kind {
    named(implementation.name()).expect("every implementation is registered")
}

impl Kind {
    /// The kind samples call `name` (see [`named`]).
    pub fn named(name: &str) -> Option<Kind> {
        named(name)
    }

    /// The keys of `labels` its samples are labelled with ([`TaskKind::label_keys`]).
    pub fn label_keys(self) -> Vec<&'static str> {
        of(self).label_keys()
    }
}

/// A kind is read by its name (score and verdict files), and only a registered kind is.
impl<'de> serde::Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Kind, D::Error> {
        let name = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
        named(&name).ok_or_else(|| {
            let names: Vec<String> = listed().map(|k| format!("`{}`", k.as_str())).collect();
            serde::de::Error::custom(format!(
                "unknown variant `{name}`, expected one of {}",
                names.join(", ")
            ))
        })
    }
}

/// The prepared gold of the kind that made it.
fn gold<T: 'static>(gold: &Gold) -> &T {
    gold.downcast_ref::<T>()
        .expect("a kind is only given the gold it prepared")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a kind reads a label key's list into is the type its shape checks (a list of
    /// another type would read, and then be skipped by every check as empty).
    #[test]
    fn every_label_key_reads_into_the_type_its_shape_checks() {
        for shape in label_shapes() {
            let read = read_list_de(shape.key(), serde_json::json!([])).unwrap();
            assert_eq!(
                read.as_any().type_id(),
                shape.empty().as_any().type_id(),
                "{}",
                shape.key()
            );
        }
        assert!(read_list_de("no-such-key", serde_json::Value::Null).is_err());
    }

    #[test]
    fn every_kind_is_registered_once_with_its_own_metrics() {
        for kind in all() {
            assert_eq!(of(kind).name(), kind.as_str());
            assert_eq!(named(kind.as_str()), Some(kind));
            assert!(ALL.iter().filter(|k| k.name() == kind.as_str()).count() == 1);
            let prefix = format!("{}.", kind.as_str());
            // The e2e kind also reports its judge's metrics.
            let judged =
                |name: &str| of(kind).name() == e2e::E2e.name() && name.starts_with("judge.");
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
