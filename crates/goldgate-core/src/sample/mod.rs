//! The gold-sample data model, below the task kinds: a sample as written in a suite file
//! and as the loader checked it, its kind (a handle the kinds' registry gives out), its
//! labels and annotations, and the tuple tasks samples refer to ([`task`]). Every struct
//! denies unknown fields; enum-valued fields are kept as written and checked (after `norm`)
//! by the loader.

pub mod findings;
pub mod labels;
pub mod task;

pub use labels::{LabelList, LabelShape, Labels};

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use task::Task;

use crate::error::Location;

/// Allowed values of the enum fields every sample has, in their canonical spelling (compared
/// after `norm`); a kind's own enums are in its folder.
pub mod enums {
    pub const DIFFICULTY: &[&str] = &["easy", "medium", "hard"];
}

/// What a sample tests (`kind`): one of the task kinds, as the registry
/// (`kinds::ALL`) lists them. Only the registry makes one (`kinds::named`, `kinds::all`), so a
/// `Kind` always names a registered kind; kinds compare in the registry's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kind {
    /// Its place in the registry.
    index: usize,
    name: &'static str,
}

impl Kind {
    /// The kind at `index` of the registry, named `name`: for the registry alone (no other
    /// crate can make a `Kind`, so every `Kind` is one the registry holds).
    pub(crate) const fn registered(index: usize, name: &'static str) -> Kind {
        Kind { index, name }
    }

    /// Its name, as samples write it.
    pub fn as_str(self) -> &'static str {
        self.name
    }

    /// Its place in the registry.
    pub fn index(self) -> usize {
        self.index
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name)
    }
}

/// How hard a sample is (`difficulty`, default medium).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Difficulty {
    Easy,
    Medium,
    Hard,
}

impl Difficulty {
    pub const ALL: [Difficulty; 3] = [Difficulty::Easy, Difficulty::Medium, Difficulty::Hard];

    pub fn as_str(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Medium => "medium",
            Difficulty::Hard => "hard",
        }
    }

    pub fn from_norm(s: &str) -> Option<Difficulty> {
        Difficulty::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

/// One conversation turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Message {
    pub role: String,
    pub content: String,
}

/// One annotator's independent labels, for inter-annotator agreement.
#[derive(Clone, Debug, PartialEq)]
pub struct Annotation {
    pub annotator: String,
    pub labels: Labels,
}

/// Written as one mapping: `annotator` and the label lists.
impl Serialize for Annotation {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("annotator", &self.annotator)?;
        self.labels.serialize_entries(&mut map)?;
        map.end()
    }
}

/// An annotator's "needs discussion" note on a sample (top-level `discussion`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscussionNote {
    pub annotator: String,
    pub note: String,
}

/// Who made the gold `labels` from which annotators' labels, and when (top-level `review`,
/// written when a reviewer promotes annotations to gold).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Review {
    pub promoted_by: String,
    #[serde(default)]
    pub from: Vec<String>,
    /// When, as an RFC 3339 UTC timestamp.
    pub at: String,
}

/// A sample as written in a suite file, its labels read by their kinds' shapes, before the
/// loader's checks.
#[derive(Clone, Debug)]
pub struct RawSample {
    pub id: String,
    pub kind: String,
    pub domain: Option<String>,
    pub difficulty: Option<String>,
    pub conversation: Option<Vec<Message>>,
    pub user_input: Option<String>,
    /// Base requirements given to inference/validation pipelines. Kept as written: validation
    /// inputs are deliberately flawed, so they are not held to the labelling schema.
    pub requirements: Option<Vec<Value>>,
    pub reference_srs: Option<String>,
    /// The tuple task a `kind: tuples` sample belongs to (a `[tasks.NAME]` of suite.toml).
    pub task: Option<String>,
    /// The input of a `kind: tuples` sample.
    pub text: Option<String>,
    /// Free-form labels; every metric is also reported per tag. Never sent to the pipeline.
    pub tags: Option<Vec<String>>,
    pub labels: Labels,
    pub annotations: Vec<Annotation>,
    /// Notes of annotators who marked the sample as needing discussion.
    pub discussion: Vec<DiscussionNote>,
    pub review: Option<Review>,
}

/// A checked gold sample.
#[derive(Clone, Debug)]
pub struct Sample {
    pub id: String,
    pub kind: Kind,
    pub domain: String,
    pub difficulty: Difficulty,
    /// Empty when the sample has no conversation (e2e from `user_input`).
    pub conversation: Vec<Message>,
    pub user_input: Option<String>,
    pub reference_srs: Option<String>,
    /// The task of a `kind: tuples` sample.
    pub task: Option<Arc<Task>>,
    /// The input text of a `kind: tuples` sample.
    pub text: Option<String>,
    /// Its tags, each once, in the order written.
    pub tags: Vec<String>,
    pub labels: Labels,
    pub annotations: Vec<Annotation>,
    pub discussion: Vec<DiscussionNote>,
    pub review: Option<Review>,
    /// Input fields kept as written, for the pipeline request.
    pub written: Written,
    /// Where the sample was read from.
    pub origin: Location,
}

/// Input fields of a sample kept as written (the typed fields above are normalised).
#[derive(Clone, Debug, Default)]
pub struct Written {
    pub kind: String,
    pub domain: Option<String>,
    pub difficulty: Option<String>,
    pub conversation: bool,
    /// Base requirements given to inference/validation pipelines, as written.
    pub requirements: Option<Vec<Value>>,
}

impl Sample {
    /// The pipeline's input: the sample as written, without `labels`, `annotations` and
    /// `tags` (a tag can give the answer away).
    pub fn request(&self) -> Value {
        let mut map = serde_json::Map::new();
        let w = &self.written;
        map.insert("id".into(), Value::from(self.id.as_str()));
        map.insert("kind".into(), Value::from(w.kind.as_str()));
        let optional = [
            ("domain", w.domain.clone()),
            ("difficulty", w.difficulty.clone()),
        ];
        for (key, value) in optional {
            if let Some(v) = value {
                map.insert(key.into(), Value::from(v));
            }
        }
        if w.conversation {
            map.insert(
                "conversation".into(),
                serde_json::to_value(&self.conversation).unwrap_or_default(),
            );
        }
        if let Some(task) = &self.task {
            map.insert("task".into(), Value::from(task.name.as_str()));
        }
        let text = [
            ("text", &self.text),
            ("user_input", &self.user_input),
            ("reference_srs", &self.reference_srs),
        ];
        for (key, value) in text {
            if let Some(v) = value {
                map.insert(key.into(), Value::from(v.as_str()));
            }
        }
        if let Some(r) = &w.requirements {
            map.insert("requirements".into(), Value::Array(r.clone()));
        }
        Value::Object(map)
    }

    /// Whether message-based rules apply (a conversation wins over `user_input`).
    pub fn has_conversation(&self) -> bool {
        !self.conversation.is_empty()
    }

    /// `norm` of all message text, joined by spaces (used by the hallucination check).
    pub fn conversation_text(&self) -> String {
        let joined: Vec<&str> = self
            .conversation
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        crate::text::norm(&joined.join(" "))
    }
}

/// Domain used when a sample names none.
pub const UNSPECIFIED_DOMAIN: &str = "unspecified";
