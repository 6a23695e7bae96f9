//! Reading a sample document into a [`RawSample`]: its fields by serde, its labels (and each
//! annotation's) by the shape the kinds declare for each label key, so a type error in a
//! label list is reported where it is, as serde reports any other. A document's value is
//! moved, never copied; a valid JSON line is read straight from its text in one pass, each
//! label list by its kind ([`kinds::ReadsLabels`]).

use std::borrow::Cow;

use serde::de::{DeserializeSeed, Error as _, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::document::pointer_of;
use crate::kinds;
use crate::sample::findings::Findings;
use crate::sample::{Annotation, DiscussionNote, LabelList, Labels, Message, RawSample, Review};
use crate::text::explain_serde;

/// A sample as written, its label lists (`L`) and annotations (`A`) not yet read: taken from
/// a document's value, or (`ReadLists`, `ReadAnnotation`) read straight from a JSON line.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleDoc<L = Map<String, Value>, A = AnnotationDoc> {
    pub id: String,
    pub kind: String,
    #[serde(default)]
    pub domain: Option<String>,
    #[serde(default)]
    pub difficulty: Option<String>,
    #[serde(default)]
    pub conversation: Option<Vec<Message>>,
    #[serde(default)]
    pub user_input: Option<String>,
    /// Base requirements given to inference/validation pipelines. Kept as written: validation
    /// inputs are deliberately flawed, so they are not held to the labelling schema.
    #[serde(default)]
    pub requirements: Option<Vec<Value>>,
    #[serde(default)]
    pub reference_srs: Option<String>,
    /// The tuple task a `kind: tuples` sample belongs to (a `[tasks.NAME]` of suite.toml).
    #[serde(default)]
    pub task: Option<String>,
    /// The input of a `kind: tuples` sample.
    #[serde(default)]
    pub text: Option<String>,
    /// Free-form labels; every metric is also reported per tag. Never sent to the pipeline.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    pub labels: L,
    #[serde(default = "Vec::new")]
    pub annotations: Vec<A>,
    /// Notes of annotators who marked the sample as needing discussion.
    #[serde(default)]
    pub discussion: Vec<DiscussionNote>,
    #[serde(default)]
    pub review: Option<Review>,
}

/// An annotation as written: its annotator and its label lists, not yet read.
#[derive(Debug, Deserialize)]
pub struct AnnotationDoc {
    annotator: String,
    #[serde(flatten)]
    lists: Map<String, Value>,
}

/// Label lists read straight from a JSON line by their kinds ([`kinds::read_list_de`]), in
/// the order written; a key no kind has, or one written twice, is an error (so the line
/// takes the way that says where).
pub struct ReadLists(Vec<(&'static str, Box<dyn LabelList>)>);

/// An annotation read straight from a JSON line: its annotator and its lists.
pub struct ReadAnnotation {
    annotator: String,
    lists: ReadLists,
}

/// Reads one label list by its key.
struct ListSeed(&'static str);

impl<'de> DeserializeSeed<'de> for ListSeed {
    type Value = Box<dyn LabelList>;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        kinds::read_list_de(self.0, de)
    }
}

/// The next list of `map` under `key`, added to `lists`.
fn next_list<'de, M: MapAccess<'de>>(
    map: &mut M,
    key: &str,
    lists: &mut Vec<(&'static str, Box<dyn LabelList>)>,
) -> Result<(), M::Error> {
    let Some(shape) = kinds::label_shapes().iter().find(|s| s.key() == key) else {
        return Err(M::Error::custom(format!("unknown field `{key}`")));
    };
    if lists.iter().any(|(k, _)| *k == shape.key()) {
        return Err(M::Error::custom(format!("duplicate field `{key}`")));
    }
    lists.push((shape.key(), map.next_value_seed(ListSeed(shape.key()))?));
    Ok(())
}

impl<'de> Deserialize<'de> for ReadLists {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Lists;
        impl<'de> Visitor<'de> for Lists {
            type Value = ReadLists;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping of label lists")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<ReadLists, M::Error> {
                let mut lists = Vec::new();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    next_list(&mut map, &key, &mut lists)?;
                }
                Ok(ReadLists(lists))
            }
        }
        deserializer.deserialize_map(Lists)
    }
}

impl<'de> Deserialize<'de> for ReadAnnotation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct One;
        impl<'de> Visitor<'de> for One {
            type Value = ReadAnnotation;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an annotation")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<ReadAnnotation, M::Error> {
                let (mut annotator, mut lists) = (None, Vec::new());
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if key == "annotator" {
                        if annotator.is_some() {
                            return Err(M::Error::custom("duplicate field `annotator`"));
                        }
                        annotator = Some(map.next_value::<String>()?);
                    } else {
                        next_list(&mut map, &key, &mut lists)?;
                    }
                }
                let annotator = annotator.ok_or_else(|| M::Error::missing_field("annotator"))?;
                Ok(ReadAnnotation {
                    annotator,
                    lists: ReadLists(lists),
                })
            }
        }
        deserializer.deserialize_map(One)
    }
}

/// The sample of a document whose keys were checked (unknown keys removed), or `None`
/// with the first type error in `findings` (a missing field is reported by the key walk).
pub(super) fn read(value: Value, findings: &mut Findings) -> Option<RawSample> {
    let mut doc: SampleDoc = match serde_path_to_error::deserialize(value) {
        Ok(doc) => doc,
        Err(e) => {
            let pointer = pointer_of(e.path());
            report(findings, pointer, e.into_inner().to_string());
            return None;
        }
    };
    let labels = read_labels(std::mem::take(&mut doc.labels), "/labels", findings)?;
    let written = std::mem::take(&mut doc.annotations);
    let mut annotations = Vec::with_capacity(written.len());
    for (i, a) in written.into_iter().enumerate() {
        let labels = read_labels(a.lists, &format!("/annotations/{i}"), findings)?;
        annotations.push(Annotation {
            annotator: a.annotator,
            labels,
        });
    }
    Some(raw_sample(doc, labels, annotations))
}

/// The sample of a JSON text when it reads without a problem (the fast path for valid
/// JSONL lines; anything else goes the way of [`read`], which locates the problem).
pub(super) fn read_valid(text: &str) -> Option<RawSample> {
    let mut doc: SampleDoc<ReadLists, ReadAnnotation> = serde_json::from_str(text).ok()?;
    let labels = kinds::labels_of(std::mem::take(&mut doc.labels.0));
    let annotations = std::mem::take(&mut doc.annotations)
        .into_iter()
        .map(|a| Annotation {
            annotator: a.annotator,
            labels: kinds::labels_of(a.lists.0),
        })
        .collect();
    Some(raw_sample(doc, labels, annotations))
}

/// The sample of a document, its labels and annotations read.
fn raw_sample<L, A>(
    doc: SampleDoc<L, A>,
    labels: Labels,
    annotations: Vec<Annotation>,
) -> RawSample {
    RawSample {
        id: doc.id,
        kind: doc.kind,
        domain: doc.domain,
        difficulty: doc.difficulty,
        conversation: doc.conversation,
        user_input: doc.user_input,
        requirements: doc.requirements,
        reference_srs: doc.reference_srs,
        task: doc.task,
        text: doc.text,
        tags: doc.tags,
        labels,
        annotations,
        discussion: doc.discussion,
        review: doc.review,
    }
}

/// The labels of `lists` (at `pointer`), read by the kinds' shapes; `None` with the first
/// type error in `findings`.
fn read_labels(
    lists: Map<String, Value>,
    pointer: &str,
    findings: &mut Findings,
) -> Option<Labels> {
    match kinds::read_labels(lists) {
        Ok(labels) => Some(labels),
        Err((key, e)) => {
            let at = format!("{pointer}/{key}{}", pointer_of(e.path()));
            report(findings, at, e.into_inner().to_string());
            None
        }
    }
}

/// A serde error at `pointer`, unless it is a missing field the key walk has reported.
fn report(findings: &mut Findings, pointer: String, message: String) {
    if !message.starts_with("missing field") || findings.0.is_empty() {
        let (message, hint) = explain_serde(&message);
        let hint = hint.unwrap_or_else(|| {
            "check the value's type against the sample format in docs/suites.md".to_string()
        });
        findings.error(&pointer, message, Some(hint));
    }
}
