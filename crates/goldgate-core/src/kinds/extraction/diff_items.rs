//! How a requirement shows in a broken sample's diff: gold and predicted requirements as
//! aligned items (`type | actor | title: action`, named by id), for the kinds whose labels
//! are requirements.

use super::labels::Requirement;
use super::prediction::PredRequirement;
use crate::kinds::aligned::Item;

/// The fields of a requirement a diff shows, as (name, value).
fn requirement_fields(
    type_: &str,
    actor: &str,
    title: &str,
    action: &str,
) -> Vec<(String, String)> {
    [
        ("type", type_),
        ("actor", actor),
        ("title", title),
        ("action", action),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// A gold requirement as an item: `type | actor | title: action`, named by its id.
pub fn gold_requirement(r: &Requirement) -> Item {
    Item {
        name: r.id.clone(),
        text: format!("{} | {} | {}: {}", r.type_, r.actor, r.title, r.action),
        fields: requirement_fields(&r.type_, &r.actor, &r.title, &r.action),
    }
}

/// A predicted requirement (the `index`-th of its list) as an item, named as the matching
/// explanation names it (its id, or `#index`).
pub fn predicted_requirement(r: &PredRequirement<'_>, index: usize) -> Item {
    let (type_, actor, title, action) = (
        r.type_.unwrap_or_default(),
        r.actor.unwrap_or_default(),
        r.title.unwrap_or_default(),
        r.action.unwrap_or_default(),
    );
    Item {
        name: crate::kinds::explain::predicted_name(r.id, index),
        text: format!("{type_} | {actor} | {title}: {action}"),
        fields: requirement_fields(type_, actor, title, action),
    }
}
