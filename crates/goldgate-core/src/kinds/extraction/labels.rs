//! Extraction's labels: the requirements a labeller writes (shared by e2e), their keys,
//! enums and the checks `suite lint` holds them to.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::sample::findings::{check_confidence, check_enum, check_keys, child, Findings};
use crate::sample::{LabelList, LabelShape};

/// Allowed values of a requirement's enum fields, in their canonical spelling (compared
/// after `norm`).
pub mod enums {
    pub const REQUIREMENT_TYPE: &[&str] = &[
        "functional",
        "non-functional",
        "security",
        "data",
        "interface",
        "constraint",
    ];
    pub const PRIORITY: &[&str] = &["must", "should", "could"];
}

// A requirement as a labeller writes it. `type` and `priority` are kept as
/// written; `suite lint` checks them against [`enums`] after `norm`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    pub id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub actor: String,
    pub action: String,
    #[serde(default)]
    pub condition: Option<String>,
    #[serde(default)]
    pub acceptance_criteria: Vec<String>,
    #[serde(default)]
    pub priority: Option<String>,
    #[serde(default)]
    pub source_messages: Vec<i64>,
    #[serde(default)]
    pub rationale: Option<String>,
    #[serde(default)]
    pub confidence: Option<f64>,
}

/// In the order the labelling schema lists them (and an edit writes them).
pub const REQUIREMENT_KEYS: &[&str] = &[
    "id",
    "title",
    "type",
    "actor",
    "action",
    "condition",
    "acceptance_criteria",
    "priority",
    "source_messages",
    "rationale",
    "confidence",
];

/// The keys a requirement must have.
pub const REQUIREMENT_REQUIRED: &[&str] = &["id", "title", "type", "actor", "action"];

/// `labels.requirements`.
pub struct Requirements;

impl LabelShape for Requirements {
    fn key(&self) -> &'static str {
        "requirements"
    }

    fn empty(&self) -> Box<dyn LabelList> {
        Box::new(Vec::<Requirement>::new())
    }

    fn walk_keys(&self, list: &Value, pointer: &str, findings: &mut Findings) -> Vec<String> {
        super::super::each_item(list, pointer)
            .flat_map(|(p, r)| walk_requirement(r, &p, findings))
            .collect()
    }

    fn requirement_ids<'v>(&self, list: &'v Value) -> Vec<(String, &'v str)> {
        written_ids(list, "/id")
    }

    fn check(&self, list: &dyn LabelList, pointer: &str, messages: usize, findings: &mut Findings) {
        let mut ids = HashSet::new();
        for (i, r) in super::super::items::<Requirement>(list).iter().enumerate() {
            let p = format!("{pointer}/{i}");
            if !ids.insert(r.id.as_str()) {
                findings.error(
                    &child(&p, "id"),
                    format!("duplicate requirement id `{}` in this sample", r.id),
                    Some("requirement ids must be unique within a sample".to_string()),
                );
            }
            check_requirement(r, &p, messages, findings);
        }
    }

    fn inner_lists(&self, list: &dyn LabelList) -> Vec<(usize, &'static str, usize)> {
        super::super::items::<Requirement>(list)
            .iter()
            .enumerate()
            .map(|(i, r)| (i, "acceptance_criteria", r.acceptance_criteria.len()))
            .collect()
    }

    fn cited_messages(&self, list: &dyn LabelList) -> Option<Vec<i64>> {
        Some(
            super::super::items::<Requirement>(list)
                .iter()
                .flat_map(|r| r.source_messages.iter().copied())
                .collect(),
        )
    }

    fn write_order(&self) -> &'static [(&'static str, &'static [&'static str])] {
        &[("", REQUIREMENT_KEYS)]
    }

    fn enums(&self) -> &'static [(&'static str, &'static [&'static str])] {
        &[
            ("requirement_type", enums::REQUIREMENT_TYPE),
            ("priority", enums::PRIORITY),
        ]
    }
}

/// The unknown and missing keys of one requirement at `pointer`.
pub fn walk_requirement(r: &Value, pointer: &str, findings: &mut Findings) -> Vec<String> {
    check_keys(r, pointer, REQUIREMENT_KEYS, REQUIREMENT_REQUIRED, findings)
}

/// The checks on one requirement at `pointer` (`messages`: the conversation's length).
pub fn check_requirement(r: &Requirement, pointer: &str, messages: usize, findings: &mut Findings) {
    check_enum(
        &r.type_,
        enums::REQUIREMENT_TYPE,
        || child(pointer, "type"),
        "requirement type",
        findings,
    );
    match &r.priority {
        Some(p) => check_enum(
            p,
            enums::PRIORITY,
            || child(pointer, "priority"),
            "priority",
            findings,
        ),
        None => findings.warn(
            pointer,
            format!("requirement `{}` has no `priority`", r.id),
            "add must, should or could",
        ),
    }
    for (i, &index) in r.source_messages.iter().enumerate() {
        if index < 0 || index as usize >= messages {
            let range = match messages {
                0 => "the sample has no conversation".to_string(),
                n => format!("the conversation has {n} messages (indexes 0 to {})", n - 1),
            };
            findings.error(
                &format!("{pointer}/source_messages/{i}"),
                format!("source_messages index {index} is out of range: {range}"),
                Some("indexes are 0-based positions in `conversation`".to_string()),
            );
        }
    }
    check_confidence(r.confidence, || child(pointer, "confidence"), findings);
    for (key, value) in [
        ("title", &r.title),
        ("actor", &r.actor),
        ("action", &r.action),
    ] {
        if value.trim().is_empty() {
            findings.warn(
                &child(pointer, key),
                format!("empty `{key}`"),
                "every requirement names its title, actor and action",
            );
        }
    }
    if r.acceptance_criteria.len() < 2 {
        findings.warn(
            &child(pointer, "acceptance_criteria"),
            format!(
                "requirement `{}` has {} acceptance criteria",
                r.id,
                r.acceptance_criteria.len()
            ),
            "the labelling schema asks for at least 2 testable criteria",
        );
    }
}

/// The ids of a written list's items found at `at` below each item (`/id`,
/// `/requirement/id`), with their pointers below the list.
pub(crate) fn written_ids<'v>(list: &'v Value, at: &str) -> Vec<(String, &'v str)> {
    list.as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, item)| Some((format!("/{i}{at}"), item.pointer(at)?.as_str()?)))
        .collect()
}
