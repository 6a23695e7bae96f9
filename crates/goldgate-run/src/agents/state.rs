//! The state machine of the `srs-agents` pipeline, as pure functions over data: the
//! requirement list, the scores, the frozen and removed items, the iteration counter, and
//! which agent runs next (ReqParse, then ReqExplore and ReqClarify in rounds, then
//! DocGenerate). Each agent's parsed answer is applied here by its rule: ReqParse's id
//! rules, ReqExplore's merge, ReqClarify's scores, freezes and removals. An answer that
//! cannot be used changes nothing and says why (the agent then tries again).

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::ids::{canonical, Id, Numbering, Prefix};

/// One requirement of the list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Req {
    pub id: String,
    pub content: String,
    /// The conversation messages it comes from, when the agent said.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_messages: Vec<i64>,
}

/// Which agents run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ablation {
    /// Every agent.
    #[default]
    None,
    /// The rounds are ReqExplore alone (nothing is scored, frozen or removed).
    NoClarify,
    /// ReqParse, then DocGenerate.
    NoExploreClarify,
}

impl Ablation {
    pub const NAMES: [&'static str; 3] = ["none", "no-clarify", "no-explore-clarify"];

    pub fn parse(text: &str) -> Option<Ablation> {
        match text {
            "none" => Some(Ablation::None),
            "no-clarify" => Some(Ablation::NoClarify),
            "no-explore-clarify" => Some(Ablation::NoExploreClarify),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Ablation::None => "none",
            Ablation::NoClarify => "no-clarify",
            Ablation::NoExploreClarify => "no-explore-clarify",
        }
    }
}

/// The four agents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Agent {
    ReqParse,
    ReqExplore,
    ReqClarify,
    DocGenerate,
}

impl Agent {
    pub const ALL: [Agent; 4] = [
        Agent::ReqParse,
        Agent::ReqExplore,
        Agent::ReqClarify,
        Agent::DocGenerate,
    ];

    /// Its name in traces and messages.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ReqParse => "ReqParse",
            Agent::ReqExplore => "ReqExplore",
            Agent::ReqClarify => "ReqClarify",
            Agent::DocGenerate => "DocGenerate",
        }
    }

    /// Its key in `goldgate.toml` and its prompt files' names.
    pub fn key(self) -> &'static str {
        match self {
            Agent::ReqParse => "reqparse",
            Agent::ReqExplore => "reqexplore",
            Agent::ReqClarify => "reqclarify",
            Agent::DocGenerate => "docgenerate",
        }
    }

    /// Whether its answer is JSON (DocGenerate writes Markdown).
    pub fn answers_json(self) -> bool {
        self != Agent::DocGenerate
    }
}

/// Why an answer could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unusable(pub String);

/// Where the pipeline is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Parse,
    Explore,
    Clarify,
    Document,
    Done,
}

/// The pipeline's state.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The stakeholder's input as text (a conversation as `[i] role: text` lines).
    pub user_input: String,
    /// What ReqClarify scores against.
    pub reference_srs: String,
    pub req_list: Vec<Req>,
    /// The latest score of each scored id.
    pub scores: BTreeMap<String, i64>,
    /// Frozen items with their content when frozen, in the order they were frozen.
    pub frozen: Vec<Req>,
    /// Removed items with their last content, in the order they were removed.
    pub removed: Vec<Req>,
    /// Rounds done.
    pub iteration: u32,
    pub max_iterations: u32,
    pub ablation: Ablation,
    /// DocGenerate's document.
    pub srs_markdown: Option<String>,
    phase: Phase,
}

/// The answer's list of items: a JSON array, or an object holding exactly one array (as in
/// `{"requirements": [...]}`).
fn list_of(value: &Value) -> Result<&Vec<Value>, Unusable> {
    match value {
        Value::Array(items) => Ok(items),
        Value::Object(map) => {
            let mut arrays = map.values().filter_map(Value::as_array);
            match (arrays.next(), arrays.next()) {
                (Some(items), None) => Ok(items),
                _ => Err(Unusable(
                    "the answer is a JSON object, not a list of items".into(),
                )),
            }
        }
        _ => Err(Unusable("the answer's JSON is not a list of items".into())),
    }
}

/// An item's id, content and source messages; or why it is dropped.
fn read_item(value: &Value) -> Result<(String, Req), &'static str> {
    let Some(map) = value.as_object() else {
        return Err("not an object");
    };
    let text = |key: &str| {
        map.get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let id = text("id").ok_or("no id")?;
    let content = text("content").ok_or("no content")?;
    let source_messages = map
        .get("source_messages")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default();
    let req = Req {
        id: canonical(id),
        content: content.to_string(),
        source_messages,
    };
    Ok((id.to_string(), req))
}

fn dropped(item: &Value, why: &str) -> Value {
    json!({"item": item, "why": why})
}

fn ids(reqs: &[Req]) -> Vec<&str> {
    reqs.iter().map(|r| r.id.as_str()).collect()
}

impl State {
    pub fn new(
        user_input: String,
        reference_srs: String,
        max_iterations: u32,
        ablation: Ablation,
    ) -> State {
        State {
            user_input,
            reference_srs,
            req_list: Vec::new(),
            scores: BTreeMap::new(),
            frozen: Vec::new(),
            removed: Vec::new(),
            iteration: 0,
            max_iterations,
            ablation,
            srs_markdown: None,
            phase: Phase::Parse,
        }
    }

    /// The agent to call next (`None`: the document is written).
    pub fn next_agent(&self) -> Option<Agent> {
        match self.phase {
            Phase::Parse => Some(Agent::ReqParse),
            Phase::Explore => Some(Agent::ReqExplore),
            Phase::Clarify => Some(Agent::ReqClarify),
            Phase::Document => Some(Agent::DocGenerate),
            Phase::Done => None,
        }
    }

    pub fn is_frozen(&self, id: &str) -> bool {
        self.frozen.iter().any(|r| r.id == id)
    }

    fn is_removed(&self, id: &str) -> bool {
        self.removed.iter().any(|r| r.id == id)
    }

    /// The items ReqExplore may change and ReqClarify scores.
    pub fn unfrozen(&self) -> impl Iterator<Item = &Req> {
        self.req_list.iter().filter(|r| !self.is_frozen(&r.id))
    }

    /// Another round, or the document: rounds go on while fewer than `max_iterations` are
    /// done and some item is not frozen.
    fn after_round(&mut self) {
        self.phase = match self.iteration < self.max_iterations && self.unfrozen().next().is_some()
        {
            true => Phase::Explore,
            false => Phase::Document,
        };
    }

    /// ReqParse's answer: items without an id or content are dropped, and so are ids outside
    /// the `FR-`, `NFR-` and `CON-` sequences; the rest are numbered in their order, each
    /// sequence from 01. An answer with no item left is unusable.
    pub fn apply_parse(&mut self, answer: &Value) -> Result<Value, Unusable> {
        let items = list_of(answer)?;
        let mut numbering = Numbering::default();
        let (mut list, mut report_dropped, mut renamed) = (Vec::new(), Vec::new(), Vec::new());
        for item in items {
            let (written, mut req) = match read_item(item) {
                Ok(read) => read,
                Err(why) => {
                    report_dropped.push(dropped(item, why));
                    continue;
                }
            };
            let Some(prefix) = Id::parse(&written)
                .map(|id| id.prefix)
                .filter(|p| Prefix::PARSE.contains(p))
            else {
                report_dropped.push(dropped(item, "id is not FR-nn, NFR-nn or CON-nn"));
                continue;
            };
            req.id = numbering.next(prefix);
            if req.id != written {
                renamed.push(json!({"from": written, "to": req.id}));
            }
            list.push(req);
        }
        if list.is_empty() {
            return Err(Unusable(format!(
                "no usable requirement in the answer ({}, each without an id, content or a FR-/NFR-/CON- id)",
                goldgate_core::text::plural(items.len(), "item")
            )));
        }
        self.req_list = list;
        self.phase = match self.ablation {
            Ablation::NoExploreClarify => Phase::Document,
            _ => Phase::Explore,
        };
        if self.phase == Phase::Explore {
            self.after_round();
        }
        Ok(json!({"kept": ids(&self.req_list), "renamed": renamed, "dropped": report_dropped}))
    }

    /// ReqExplore's answer, merged: in the previous order, frozen items keep their frozen
    /// content, the others take the answer's content (or keep theirs when it has none for
    /// them), then items with genuinely new ids are appended, numbered to continue their
    /// sequence (`FR-`, `NFR-`, `CON-`, `SUG-`). An item naming a frozen or removed id is
    /// discarded, and so is every repetition of an id.
    pub fn apply_explore(&mut self, answer: &Value) -> Result<Value, Unusable> {
        let items = list_of(answer)?;
        let mut numbering = Numbering::after(
            self.req_list
                .iter()
                .chain(&self.frozen)
                .chain(&self.removed)
                .map(|r| r.id.as_str()),
        );
        let mut updates: BTreeMap<String, Req> = BTreeMap::new();
        let mut seen = HashSet::new();
        let (mut added, mut discarded, mut report_dropped) = (Vec::new(), Vec::new(), Vec::new());
        for item in items {
            let (written, req) = match read_item(item) {
                Ok(read) => read,
                Err(why) => {
                    report_dropped.push(dropped(item, why));
                    continue;
                }
            };
            if !seen.insert(req.id.clone()) {
                report_dropped.push(dropped(item, "repeats an id of this answer"));
            } else if self.is_frozen(&req.id) {
                discarded.push(dropped(item, "names a frozen item"));
            } else if self.is_removed(&req.id) {
                discarded.push(dropped(item, "names a removed item"));
            } else if self.req_list.iter().any(|r| r.id == req.id) {
                updates.insert(req.id.clone(), req);
            } else if let Some(id) = Id::parse(&written) {
                let id = numbering.next(id.prefix);
                added.push((written, Req { id, ..req }));
            } else {
                report_dropped.push(dropped(item, "id is not FR-nn, NFR-nn, CON-nn or SUG-nn"));
            }
        }
        let mut changed = Vec::new();
        let mut list: Vec<Req> = Vec::with_capacity(self.req_list.len() + added.len());
        for old in &self.req_list {
            if let Some(frozen) = self.frozen.iter().find(|f| f.id == old.id) {
                list.push(frozen.clone());
                continue;
            }
            match updates.remove(&old.id) {
                Some(new) => {
                    let source_messages = match new.source_messages.is_empty() {
                        true => old.source_messages.clone(),
                        false => new.source_messages,
                    };
                    let new = Req {
                        source_messages,
                        ..new
                    };
                    if new != *old {
                        changed.push(old.id.clone());
                    }
                    list.push(new);
                }
                None => list.push(old.clone()),
            }
        }
        let mut report_added = Vec::new();
        for (written, req) in added {
            report_added.push(json!({"id": req.id, "written": written}));
            list.push(req);
        }
        self.req_list = list;
        match self.ablation {
            Ablation::NoClarify => {
                self.iteration += 1;
                self.after_round();
            }
            _ => self.phase = Phase::Clarify,
        }
        Ok(json!({
            "changed": changed,
            "added": report_added,
            "discarded": discarded,
            "dropped": report_dropped,
        }))
    }

    /// ReqClarify's scores: a score counts when its id names an item being scored (not
    /// frozen, not removed), it is an integer (1.0 counts as 1) from −2 to +2, and its id
    /// was not scored before in this answer. Items scored −2 are removed for good; when the
    /// round's highest score is +1 or more, every item with that score is frozen with its
    /// current content. The round counts even when no score does.
    pub fn apply_clarify(&mut self, answer: &Value) -> Result<Value, Unusable> {
        let items = list_of(answer)?;
        let mut round: Vec<(String, i64)> = Vec::new();
        let mut ignored = Vec::new();
        for item in items {
            let id = item
                .get("id")
                .and_then(Value::as_str)
                .map(canonical)
                .unwrap_or_default();
            let score = item.get("score").and_then(Value::as_f64);
            let why = if id.is_empty() {
                Some("no id")
            } else if round.iter().any(|(seen, _)| *seen == id) {
                Some("repeats an id of this answer")
            } else if self.is_frozen(&id) {
                Some("names a frozen item")
            } else if self.is_removed(&id) {
                Some("names a removed item")
            } else if !self.req_list.iter().any(|r| r.id == id) {
                Some("names no item of the list")
            } else {
                match score {
                    Some(s) if s.fract() == 0.0 && (-2.0..=2.0).contains(&s) => None,
                    Some(s) if s.fract() == 0.0 => Some("score outside -2..+2"),
                    _ => Some("score is not an integer"),
                }
            };
            match why {
                Some(why) => ignored.push(dropped(item, why)),
                None => round.push((id, score.unwrap_or_default() as i64)),
            }
        }
        for (id, score) in &round {
            self.scores.insert(id.clone(), *score);
        }
        let removed: Vec<String> = round
            .iter()
            .filter(|(_, s)| *s == -2)
            .map(|(id, _)| id.clone())
            .collect();
        let best = round.iter().map(|(_, s)| *s).max().filter(|s| *s >= 1);
        let freeze: Vec<String> = self
            .req_list
            .iter()
            .filter(|r| best.is_some_and(|b| round.iter().any(|(id, s)| *id == r.id && *s == b)))
            .map(|r| r.id.clone())
            .collect();
        for id in &removed {
            if let Some(at) = self.req_list.iter().position(|r| r.id == *id) {
                self.removed.push(self.req_list.remove(at));
            }
        }
        for id in &freeze {
            if let Some(req) = self.req_list.iter().find(|r| r.id == *id) {
                self.frozen.push(req.clone());
            }
        }
        self.iteration += 1;
        self.after_round();
        Ok(json!({
            "scored": round.iter().map(|(id, s)| json!({"id": id, "score": s})).collect::<Vec<_>>(),
            "frozen": freeze,
            "removed": removed,
            "ignored": ignored,
        }))
    }

    /// DocGenerate's document: the answer's text, or the inside of a fence wrapping the
    /// whole answer. An empty document is unusable.
    pub fn apply_document(&mut self, answer: &str) -> Result<Value, Unusable> {
        let text = unfence(answer).trim();
        if text.is_empty() {
            return Err(Unusable("the document is empty".into()));
        }
        self.srs_markdown = Some(text.to_string());
        self.phase = Phase::Done;
        Ok(json!({"chars": text.chars().count()}))
    }

    /// What the run ended with: the final list, the scores, the frozen and removed ids and
    /// the rounds done.
    pub fn summary(&self) -> Value {
        json!({
            "requirements": self.req_list,
            "scores": self.scores,
            "frozen": ids(&self.frozen),
            "removed": ids(&self.removed),
            "iterations": self.iteration,
            "max_iterations": self.max_iterations,
            "ablation": self.ablation,
        })
    }
}

/// The text inside a ``` fence that wraps the whole answer (with any info string such as
/// `markdown`), else the answer.
fn unfence(answer: &str) -> &str {
    let trimmed = answer.trim();
    let Some(rest) = trimmed.strip_prefix("```") else {
        return answer;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return answer;
    };
    match body.find('\n') {
        Some(newline) if !body[..newline].contains('`') => &body[newline + 1..],
        _ => answer,
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
