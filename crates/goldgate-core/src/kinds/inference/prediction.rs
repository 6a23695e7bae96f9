//! What inference reads from an answer: its inferred requirements, each with its
//! requirement read as extraction reads one.

use super::super::extraction::prediction::PredRequirement;
use crate::parse::answer::{list, number, object};
use crate::parse::json::Json;

/// A predicted inferred requirement.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PredInferred<'a> {
    pub requirement: PredRequirement<'a>,
    /// The item's outer `confidence`.
    pub confidence: Option<f64>,
}

/// `inferred_requirements`.
pub fn inferred_requirements<'a>(value: Option<&'a Json<'_>>) -> Vec<PredInferred<'a>> {
    object(value)
        .map(|map| {
            list(map, "inferred_requirements")
                .map(PredInferred::read)
                .collect()
        })
        .unwrap_or_default()
}

impl<'a> PredInferred<'a> {
    pub fn read(value: &'a Json<'_>) -> PredInferred<'a> {
        let Some(map) = value.as_object() else {
            return PredInferred::default();
        };
        PredInferred {
            requirement: map
                .get("requirement")
                .map(PredRequirement::read)
                .unwrap_or_default(),
            confidence: number(map, "confidence"),
        }
    }
}
