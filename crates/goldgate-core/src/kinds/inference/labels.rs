//! Inference's labels: the implied requirements a labeller writes, their keys, enums and
//! the checks `suite lint` holds them to.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::extraction::labels::{
    check_requirement, walk_requirement, written_ids, Requirement,
};
use crate::sample::findings::{check_confidence, check_enum, check_keys, child, Findings};
use crate::sample::{LabelList, LabelShape};

/// Allowed values of an inferred requirement's enum fields (compared after `norm`).
pub mod enums {
    pub const INFERENCE_TYPE: &[&str] = &[
        "security",
        "performance",
        "scalability",
        "compliance",
        "usability",
    ];
    pub const NECESSITY: &[&str] = &["necessary", "recommended", "optional"];
}

/// An implied requirement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InferredRequirement {
    pub requirement: Requirement,
    pub inference_type: String,
    #[serde(default)]
    pub triggered_by: Vec<String>,
    pub necessity: String,
    #[serde(default)]
    pub rationale: Option<String>,
    #[serde(default)]
    pub confidence: Option<f64>,
}

/// In the order the labelling schema lists them (and an edit writes them).
pub const INFERRED_KEYS: &[&str] = &[
    "requirement",
    "inference_type",
    "triggered_by",
    "necessity",
    "rationale",
    "confidence",
];

/// `labels.inferred_requirements`.
pub struct InferredRequirements;

impl LabelShape for InferredRequirements {
    fn key(&self) -> &'static str {
        "inferred_requirements"
    }

    fn empty(&self) -> Box<dyn LabelList> {
        Box::new(Vec::<InferredRequirement>::new())
    }

    fn walk_keys(&self, list: &Value, pointer: &str, findings: &mut Findings) -> Vec<String> {
        let mut unknown = Vec::new();
        for (p, inferred) in super::super::each_item(list, pointer) {
            unknown.extend(check_keys(
                inferred,
                &p,
                INFERRED_KEYS,
                &["requirement", "inference_type", "necessity"],
                findings,
            ));
            if let Some(r) = inferred.get("requirement") {
                unknown.extend(walk_requirement(r, &child(&p, "requirement"), findings));
            }
        }
        unknown
    }

    fn requirement_ids<'v>(&self, list: &'v Value) -> Vec<(String, &'v str)> {
        written_ids(list, "/requirement/id")
    }

    fn check(&self, list: &dyn LabelList, pointer: &str, messages: usize, findings: &mut Findings) {
        let mut ids = std::collections::HashSet::new();
        for (i, inferred) in super::super::items::<InferredRequirement>(list)
            .iter()
            .enumerate()
        {
            let p = format!("{pointer}/{i}");
            if !ids.insert(inferred.requirement.id.as_str()) {
                findings.error(
                    &child(&child(&p, "requirement"), "id"),
                    format!(
                        "duplicate requirement id `{}` in this sample",
                        inferred.requirement.id
                    ),
                    Some("requirement ids must be unique within a sample".to_string()),
                );
            }
            check_requirement(
                &inferred.requirement,
                &child(&p, "requirement"),
                messages,
                findings,
            );
            check_enum(
                &inferred.inference_type,
                enums::INFERENCE_TYPE,
                || child(&p, "inference_type"),
                "inference_type",
                findings,
            );
            check_enum(
                &inferred.necessity,
                enums::NECESSITY,
                || child(&p, "necessity"),
                "necessity",
                findings,
            );
            check_confidence(inferred.confidence, || child(&p, "confidence"), findings);
        }
    }

    fn inner_lists(&self, list: &dyn LabelList) -> Vec<(usize, &'static str, usize)> {
        super::super::items::<InferredRequirement>(list)
            .iter()
            .enumerate()
            .map(|(i, r)| {
                (
                    i,
                    "acceptance_criteria",
                    r.requirement.acceptance_criteria.len(),
                )
            })
            .collect()
    }

    fn write_order(&self) -> &'static [(&'static str, &'static [&'static str])] {
        &[
            ("", INFERRED_KEYS),
            (
                "requirement",
                super::super::extraction::labels::REQUIREMENT_KEYS,
            ),
        ]
    }

    fn enums(&self) -> &'static [(&'static str, &'static [&'static str])] {
        &[
            ("inference_type", enums::INFERENCE_TYPE),
            ("necessity", enums::NECESSITY),
        ]
    }
}
