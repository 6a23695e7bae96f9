//! Tuple task definitions: the `[tasks.NAME]` tables of `suite.toml` (docs/tuples.md), read
//! with the line of every key, checked (every problem of the file at once), and resolved
//! with their defaults into [`Task`]s that samples of `kind: tuples` name. A task also owns
//! how a written value becomes the key a tuple is compared by ([`Task::label_key`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Deserialize;

use crate::metrics::SchemaMode;
use crate::text::norm;

/// What a field of a tuple holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Text taken from the input (an argument, an aspect term): compared by `norm`.
    Span,
    /// A value from a fixed set (an event type, a polarity): compared after mapping.
    Label,
}

/// How two span values that differ may still match (relaxed metrics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchMode {
    /// One key contains the other, or their longest common substring is long enough.
    IncludeOrCharOverlap,
    /// Their character spans in the text overlap enough (intersection over union).
    SpanIou,
}

/// How a span value is checked against the text (hallucination metrics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SupportMode {
    /// `norm(value)` is a substring of `norm(text)`.
    NormalizedSubstring,
    /// The value as written is a substring of the text.
    ExactSpan,
}

/// One field of a task's tuples.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub role: Role,
    /// The canonical values of a label field (empty: any value).
    pub values: Vec<String>,
    /// Synonyms of each canonical value, by its index in `values`.
    pub synonyms: Vec<Vec<String>>,
}

/// Relaxed matching settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Relaxed {
    pub match_mode: MatchMode,
    pub char_overlap_threshold: f64,
    pub span_iou_threshold: f64,
}

/// Chain-of-thought diagnostics settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cot {
    pub enabled: bool,
    pub require_thought_block: bool,
}

/// A tuple task, resolved with its defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    pub name: String,
    pub fields: Vec<Field>,
    /// The label field whose keys the type metrics compare (`None`: the task has no label
    /// field).
    pub type_field: Option<usize>,
    pub relaxed: Relaxed,
    pub hallucination: SupportMode,
    pub schema: SchemaMode,
    pub cot: Cot,
    /// JSON pointers tried in order for the final tuples.
    pub final_paths: Vec<String>,
    /// JSON pointers tried in order for the first stage's tuples (none: no stage metrics).
    pub stage1_paths: Vec<String>,
    pub label_conflicts: bool,
    /// Per label field: a written value → its canonical value's index, exactly, then by norm.
    lookup: Vec<Lookup>,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Lookup {
    exact: HashMap<String, usize>,
    normed: HashMap<String, usize>,
    /// The key of each canonical value.
    keys: Vec<String>,
}

/// The key of a written label value, and whether it maps to one of the field's values.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelKey {
    pub key: String,
    pub mapped: bool,
}

impl Task {
    /// The key of `value` written in field `field`: a label maps to its canonical value's
    /// norm (exact spellings and synonyms first, then by norm); a span, or a label that maps
    /// to nothing, keeps its own norm.
    pub fn label_key(&self, field: usize, value: &str) -> LabelKey {
        match self.value_index(field, value) {
            Some(i) => LabelKey {
                key: self.lookup[field].keys[i].clone(),
                mapped: true,
            },
            None => LabelKey {
                key: norm(value),
                mapped: false,
            },
        }
    }

    /// The canonical value a label written as `value` maps to, if any; `None` for a span
    /// field.
    pub fn canonical_value(&self, field: usize, value: &str) -> Option<&str> {
        let i = self.value_index(field, value)?;
        Some(&self.fields[field].values[i])
    }

    /// Which canonical value `value` maps to: exact spellings and synonyms first, then by
    /// non-empty norm.
    fn value_index(&self, field: usize, value: &str) -> Option<usize> {
        if self.fields[field].role != Role::Label {
            return None;
        }
        let lookup = &self.lookup[field];
        lookup.exact.get(value).copied().or_else(|| {
            let n = norm(value);
            (!n.is_empty()).then(|| lookup.normed.get(&n).copied())?
        })
    }

    /// Indexes of the span fields, in field order.
    pub fn span_fields(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.fields.len()).filter(|&i| self.fields[i].role == Role::Span)
    }

    /// Indexes of the label fields, in field order.
    pub fn label_fields(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.fields.len()).filter(|&i| self.fields[i].role == Role::Label)
    }

    /// The task as a canonical text: what the suite fingerprint hashes (two definitions
    /// that score alike hash alike, however the TOML is laid out).
    pub fn canonical(&self) -> String {
        let fields: Vec<serde_json::Value> = self
            .fields
            .iter()
            .map(|f| serde_json::json!([f.name, f.role, f.values, f.synonyms]))
            .collect();
        serde_json::json!({
            "name": self.name,
            "fields": fields,
            "type_field": self.type_field,
            "relaxed": [self.relaxed.match_mode, self.relaxed.char_overlap_threshold, self.relaxed.span_iou_threshold],
            "hallucination": self.hallucination,
            "schema": self.schema,
            "cot": [self.cot.enabled, self.cot.require_thought_block],
            "final_paths": self.final_paths,
            "stage1_paths": self.stage1_paths,
            "label_conflicts": self.label_conflicts,
        })
        .to_string()
    }
}

/// The tasks of a suite, by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tasks(BTreeMap<String, Arc<Task>>);

impl Tasks {
    pub fn get(&self, name: &str) -> Option<&Arc<Task>> {
        self.0.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<Task>> {
        self.0.values()
    }
}

mod read;

pub(crate) use read::{resolve, RawTask};

#[cfg(test)]
mod tests;

/// The tasks of a `suite.toml` text (tests build tasks from TOML as users write them).
#[cfg(test)]
pub fn parse_tasks(text: &str) -> Tasks {
    use crate::error::Location;
    use toml::Spanned;
    #[derive(Deserialize)]
    struct File {
        tasks: BTreeMap<String, Spanned<RawTask>>,
    }
    let file: File = toml::from_str(text).expect("valid TOML");
    let at = |_| Location::file(std::path::Path::new("suite.toml"));
    resolve(file.tasks, &at).expect("valid tasks")
}
