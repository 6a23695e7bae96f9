//! Whether an answer holds anything its kind reads: the keys each kind reads (for a tuple
//! task, the JSON pointers of its final lists), and — for an answer that parsed but holds
//! none of them, which scores as an empty answer — what it holds instead. Scoring counts such
//! answers into the score file's `keyless`, the runner into the run summary, and
//! `annotate --prefill` says so in a draft; all three ask here.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::parse::json::Json;
use crate::sample::task::Task;
use crate::sample::{Kind, Sample};

/// The type of value a kind reads under a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    List,
    Text,
}

/// What a kind reads at the top of an answer ([`super::TaskKind::reads`]).
#[derive(Clone, Copy, Debug)]
pub enum Reads {
    /// Each key with the type read there, and whether a bare list is read as the answer's
    /// first list.
    Keys {
        keys: &'static [(&'static str, Shape)],
        bare_list: bool,
    },
    /// The lists at the final pointers of the sample's task.
    TaskPointers,
}

/// A parsed answer, whichever tree it was parsed into.
pub trait Answer {
    /// The value under a top-level key of an object.
    fn member(&self, key: &str) -> Option<&Self>;
    /// The value a JSON pointer names.
    fn at(&self, pointer: &str) -> Option<&Self>;
    fn is_list(&self) -> bool;
    fn is_text(&self) -> bool;
    /// An object's keys, in order; `None` for any other value.
    fn keys(&self) -> Option<Vec<String>>;
    /// What a value that is not an object is, in words: `(a list)`, `(a string)`, ….
    fn shape(&self) -> &'static str;
}

impl Answer for Value {
    fn member(&self, key: &str) -> Option<&Self> {
        self.get(key)
    }
    fn at(&self, pointer: &str) -> Option<&Self> {
        self.pointer(pointer)
    }
    fn is_list(&self) -> bool {
        self.is_array()
    }
    fn is_text(&self) -> bool {
        self.is_string()
    }
    fn keys(&self) -> Option<Vec<String>> {
        self.as_object().map(|m| m.keys().cloned().collect())
    }
    fn shape(&self) -> &'static str {
        match self {
            Value::Array(_) => "(a list)",
            Value::String(_) => "(a string)",
            Value::Number(_) => "(a number)",
            Value::Bool(_) => "(true or false)",
            Value::Null => "(null)",
            Value::Object(_) => "(an object)",
        }
    }
}

impl Answer for Json<'_> {
    fn member(&self, key: &str) -> Option<&Self> {
        self.get(key)
    }
    fn at(&self, pointer: &str) -> Option<&Self> {
        self.pointer(pointer)
    }
    fn is_list(&self) -> bool {
        self.as_array().is_some()
    }
    fn is_text(&self) -> bool {
        self.is_string()
    }
    fn keys(&self) -> Option<Vec<String>> {
        self.as_object().map(|o| {
            let mut keys: Vec<String> = Vec::new();
            for key in o.keys() {
                if !keys.iter().any(|seen| seen == key) {
                    keys.push(key.to_string());
                }
            }
            keys
        })
    }
    fn shape(&self) -> &'static str {
        match self {
            Json::Array(_) => "(a list)",
            Json::String(_) => "(a string)",
            Json::Number(_) => "(a number)",
            Json::Bool(_) => "(true or false)",
            Json::Null => "(null)",
            Json::Object(_) => "(an object)",
        }
    }
}

/// The keys the kind reads in an answer: a tuple task's final pointers (`task`), the
/// kind's keys otherwise.
pub fn expected(kind: Kind, task: Option<&Task>) -> Vec<String> {
    match (crate::kinds::of(kind).reads(), task) {
        (Reads::TaskPointers, Some(task)) => task.final_paths.clone(),
        _ => crate::kinds::of(kind)
            .answer_keys()
            .iter()
            .map(|k| k.to_string())
            .collect(),
    }
}

/// Whether `answer` holds something the kind reads: one of its keys with the type read
/// there (a list; `srs_markdown` a string), a bare list for extraction and e2e, or, for a
/// tuple task, a list at one of its final pointers. Looks up at most two keys.
pub fn holds<A: Answer>(kind: Kind, task: Option<&Task>, answer: &A) -> bool {
    match crate::kinds::of(kind).reads() {
        Reads::TaskPointers => {
            let paths = task.map_or(&[][..], |t| t.final_paths.as_slice());
            paths
                .iter()
                .any(|p| answer.at(p).is_some_and(Answer::is_list))
        }
        Reads::Keys { keys, bare_list } => {
            (bare_list && answer.is_list())
                || keys.iter().any(|(key, shape)| {
                    answer.member(key).is_some_and(|v| match shape {
                        Shape::List => v.is_list(),
                        Shape::Text => v.is_text(),
                    })
                })
        }
    }
}

/// What an answer that holds nothing its kind reads holds instead: its top-level keys, or
/// what it is when it is not an object. `None` when it holds something the kind reads.
pub fn missing<A: Answer>(kind: Kind, task: Option<&Task>, answer: &A) -> Option<Vec<String>> {
    if holds(kind, task, answer) {
        return None;
    }
    Some(
        answer
            .keys()
            .unwrap_or_else(|| vec![answer.shape().to_string()]),
    )
}

/// What keyless answers hold, after their verb: `none of the keys extraction reads
/// (requirements); found: extracted_requirements`.
pub fn sentence(kind: Kind, task: Option<&str>, expected: &[String], found: &[String]) -> String {
    let reader = match task {
        Some(task) => format!("{} (task {task})", kind.as_str()),
        None => kind.as_str().to_string(),
    };
    let found = match found {
        [] => "nothing".to_string(),
        keys => keys.join(", "),
    };
    format!(
        "none of the keys {reader} reads ({}); found: {found}",
        expected.join(", ")
    )
}

/// What a sample's answers should hold: its kind, and the tuple task of a tuples sample.
#[derive(Clone, Debug)]
pub struct Expects {
    pub kind: Kind,
    pub task: Option<Arc<Task>>,
}

impl Expects {
    pub fn of(sample: &Sample) -> Expects {
        Expects {
            kind: sample.kind,
            task: sample.task.clone(),
        }
    }

    /// What `answer` holds instead, when it holds nothing the kind reads (see [`missing`]).
    pub fn missing<A: Answer>(&self, answer: &A) -> Option<Vec<String>> {
        missing(self.kind, self.task.as_deref(), answer)
    }

    /// Count in `tally` one answer of sample `id` that held `found` instead.
    pub fn count(&self, tally: &mut Tally, id: &str, found: &[String]) {
        let task = self.task.as_deref();
        let expected = expected(self.kind, task);
        tally.add(
            id,
            self.kind,
            task.map(|t| t.name.as_str()),
            &expected,
            found,
        );
    }
}

/// Answers of one kind (and tuple task) that parsed but hold none of the keys it reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Keyless {
    pub kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// How many answers.
    pub answers: usize,
    /// Of how many samples.
    pub samples: usize,
    /// The keys the kind reads (a tuple task's pointers).
    pub expected: Vec<String>,
    /// What those answers hold instead, the most frequent first, at most [`MAX_FOUND`].
    pub found: Vec<String>,
    /// The first few of their samples, in id order.
    pub examples: Vec<String>,
}

impl Keyless {
    /// `12 answers hold none of the keys extraction reads (requirements); found:
    /// extracted_requirements`.
    pub fn describe(&self) -> String {
        let what = match self.answers {
            1 => "1 answer holds".to_string(),
            n => format!("{n} answers hold"),
        };
        let sentence = sentence(self.kind, self.task.as_deref(), &self.expected, &self.found);
        format!("{what} {sentence}")
    }
}

/// Keys kept in [`Keyless::found`].
pub const MAX_FOUND: usize = 10;
/// Samples kept in [`Keyless::examples`].
pub const EXAMPLES: usize = 5;

/// Counts keyless answers as they are met, per kind and task.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    groups: BTreeMap<(Kind, Option<String>), Group>,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Group {
    answers: usize,
    expected: Vec<String>,
    /// Each key found and how often, in the order first met.
    found: Vec<(String, usize)>,
    /// The samples, in id order.
    samples: std::collections::BTreeSet<String>,
}

impl Tally {
    /// Count one keyless answer of sample `id`, which held `found`.
    pub fn add(
        &mut self,
        id: &str,
        kind: Kind,
        task: Option<&str>,
        expected: &[String],
        found: &[String],
    ) {
        let group = self
            .groups
            .entry((kind, task.map(str::to_string)))
            .or_default();
        group.answers += 1;
        if group.expected.is_empty() {
            group.expected = expected.to_vec();
        }
        for key in found {
            match group.found.iter_mut().find(|(k, _)| k == key) {
                Some((_, n)) => *n += 1,
                None => group.found.push((key.clone(), 1)),
            }
        }
        if !group.samples.contains(id) {
            group.samples.insert(id.to_string());
        }
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Every group, in kind order.
    pub fn finish(&self) -> Vec<Keyless> {
        self.groups
            .iter()
            .map(|((kind, task), g)| {
                let mut found = g.found.clone();
                // Stable: among keys found as often, the first met comes first.
                found.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
                Keyless {
                    kind: *kind,
                    task: task.clone(),
                    answers: g.answers,
                    samples: g.samples.len(),
                    expected: g.expected.clone(),
                    found: found.into_iter().take(MAX_FOUND).map(|(k, _)| k).collect(),
                    examples: g.samples.iter().take(EXAMPLES).cloned().collect(),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kind(name: &str) -> Kind {
        crate::kinds::named(name).unwrap()
    }

    #[test]
    fn each_kinds_table_names_the_keys_it_reads() {
        for kind in crate::kinds::ALL {
            if let Reads::Keys { keys, .. } = kind.reads() {
                let names: Vec<&str> = keys.iter().map(|(k, _)| *k).collect();
                assert_eq!(names, kind.answer_keys());
            }
        }
    }

    #[test]
    fn an_answer_without_the_kinds_keys_says_what_it_holds() {
        let wrong = json!({"extracted_requirements": [], "notes": "x"});
        assert_eq!(
            missing(kind("extraction"), None, &wrong),
            Some(vec!["extracted_requirements".into(), "notes".into()])
        );
        assert_eq!(missing(kind("extraction"), None, &json!([])), None);
        assert_eq!(
            missing(kind("extraction"), None, &json!({"requirements": []})),
            None
        );
        assert_eq!(
            missing(kind("extraction"), None, &json!({"requirements": {}})),
            Some(vec!["requirements".into()]),
            "a key of the wrong type is not read"
        );
        assert_eq!(
            missing(kind("inference"), None, &json!([])),
            Some(vec!["(a list)".into()])
        );
        assert_eq!(missing(kind("validation"), None, &json!({"pii": []})), None);
        assert_eq!(
            missing(kind("e2e"), None, &json!({"srs_markdown": "# x"})),
            None
        );
        assert_eq!(
            missing(kind("e2e"), None, &json!({"srs_markdown": 3})),
            Some(vec!["srs_markdown".into()])
        );
        let text = r#"{"extracted_requirements": [1]}"#;
        let parsed = Json::parse(text).unwrap();
        assert_eq!(
            missing(kind("extraction"), None, &parsed),
            Some(vec!["extracted_requirements".into()])
        );
    }

    #[test]
    fn a_tuple_task_reads_its_pointers() {
        let tasks = crate::sample::task::parse_tasks(
            "[tasks.t]\nfields = [{ name = \"a\", role = \"span\" }]\nfinal_paths = [\"/out/list\", \"\"]\n",
        );
        let task = tasks.get("t").map(|t| t.as_ref());
        assert!(holds(kind("tuples"), task, &json!({"out": {"list": []}})));
        assert!(holds(kind("tuples"), task, &json!([])));
        assert_eq!(
            missing(kind("tuples"), task, &json!({"tuples": []})),
            Some(vec!["tuples".into()])
        );
        assert_eq!(expected(kind("tuples"), task), vec!["/out/list", ""]);
        assert_eq!(expected(kind("validation"), None), vec!["issues", "pii"]);
    }

    #[test]
    fn the_tally_groups_by_kind_and_task_most_frequent_keys_first() {
        let mut tally = Tally::default();
        let expected = vec!["requirements".to_string()];
        for (id, found) in [
            ("b", vec!["x", "y"]),
            ("a", vec!["y"]),
            ("b", vec!["y", "z"]),
        ] {
            let found: Vec<String> = found.into_iter().map(String::from).collect();
            tally.add(id, kind("extraction"), None, &expected, &found);
        }
        let [group] = tally.finish().try_into().unwrap();
        assert_eq!(group.found, ["y", "x", "z"]);
        assert_eq!(
            (group.examples.as_slice(), group.samples),
            (&["a".to_string(), "b".to_string()][..], 2)
        );
        assert_eq!(
            group.describe(),
            "3 answers hold none of the keys extraction reads (requirements); found: y, x, z"
        );
    }
}
