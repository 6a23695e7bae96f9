//! The numbers a run record carries, each in its range ([`crate::quantity`]): the record's
//! latency and usage, its trace's calls (latency, tokens, waits) and its judge's reviews
//! (scores in [0, 1], tokens, cost, latency). A run file given to `score`, a replayed one and
//! an answer-cache entry are read through here: the first impossible number is named by its
//! JSON pointer in the record, with why, so a reader can say file, line and field.

use crate::judge::JudgeRecord;
use crate::llm::TokenUsage;
use crate::quantity;

use super::record::{RunRecord, Usage};
use super::trace::Trace;

/// An impossible number: where it is in the record (a JSON pointer) and why.
pub type Impossible = (String, String);

/// The first impossible number of a run record.
pub fn record(r: &RunRecord) -> Option<Impossible> {
    reply(r.latency_ms, r.usage.as_ref(), r.trace.as_ref())
        .or_else(|| r.judge.as_ref().and_then(judge))
}

/// The first impossible number of what a call brought back (a run record's or a cache
/// entry's latency, usage and trace).
pub fn reply(
    latency_ms: Option<f64>,
    usage: Option<&Usage>,
    trace: Option<&Trace>,
) -> Option<Impossible> {
    if let Some(why) = latency_ms.and_then(|l| quantity::latency(l).err()) {
        return Some(("/latency_ms".into(), why));
    }
    if let Some((field, why)) = usage.and_then(Usage::problem) {
        return Some((format!("/usage/{field}"), why));
    }
    trace.and_then(trace_problem)
}

fn trace_problem(trace: &Trace) -> Option<Impossible> {
    for (i, call) in trace.calls.iter().enumerate() {
        let here = format!("/trace/calls/{i}");
        if let Err(why) = quantity::latency(call.latency_ms) {
            return Some((format!("{here}/latency_ms"), why));
        }
        if let Some(p) = call.usage.as_ref().and_then(|u| tokens(u, &here)) {
            return Some(p);
        }
        for (j, retry) in call.retries.iter().enumerate() {
            let times = [
                ("latency_ms", Some(retry.latency_ms)),
                ("waited_ms", retry.waited_ms),
            ];
            for (key, ms) in times {
                if let Some(why) = ms.and_then(|ms| quantity::latency(ms).err()) {
                    return Some((format!("{here}/retries/{j}/{key}"), why));
                }
            }
        }
    }
    None
}

fn tokens(usage: &TokenUsage, at: &str) -> Option<Impossible> {
    [
        ("prompt_tokens", usage.prompt_tokens),
        ("completion_tokens", usage.completion_tokens),
    ]
    .into_iter()
    .find_map(|(key, n)| {
        let why = quantity::check_tokens(n).err()?;
        Some((format!("{at}/usage/{key}"), why))
    })
}

fn judge(judge: &JudgeRecord) -> Option<Impossible> {
    judge
        .judgements
        .iter()
        .enumerate()
        .find_map(|(i, j)| judgement(j, &format!("/judge/judgements/{i}")))
}

/// The first impossible number of one judgement (its cost, latency, tokens and scores),
/// located below `here`: a run record's, or a judge-cache entry's.
pub fn judgement(j: &crate::judge::Judgement, here: &str) -> Option<Impossible> {
    if let Some(why) = j.cost_usd.and_then(|c| quantity::cost(c).err()) {
        return Some((format!("{here}/cost_usd"), why));
    }
    if let Some(why) = j.latency_ms.and_then(|l| quantity::latency(l).err()) {
        return Some((format!("{here}/latency_ms"), why));
    }
    if let Some(p) = j.usage.as_ref().and_then(|u| tokens(u, here)) {
        return Some(p);
    }
    let Some(scores) = &j.metrics else {
        return None;
    };
    let names = crate::judge::rubric::METRICS;
    let values = scores
        .values()
        .into_iter()
        .zip(names.iter().map(|n| n.to_string()));
    let categories = scores.by_category.values().into_iter().zip(
        crate::judge::rubric::CATEGORIES
            .iter()
            .map(|c| format!("by_category/{c}")),
    );
    let categories = categories.filter_map(|(v, name)| Some((v?, name)));
    if let Some((x, name)) = values
        .chain(categories)
        .find(|(x, _)| !quantity::within(*x, 0.0, 1.0))
    {
        let why = format!(
            "{} is not a judge's score (a number from 0 to 1)",
            crate::quantity::number(x)
        );
        return Some((format!("{here}/metrics/{name}"), why));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record_of(value: serde_json::Value) -> RunRecord {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn the_first_impossible_number_is_named_by_its_pointer() {
        let ok = record_of(json!({"sample_id": "a", "latency_ms": 12.0,
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "cost_usd": 0.001}}));
        assert_eq!(record(&ok), None);
        for (value, pointer) in [
            (
                json!({"sample_id": "a", "latency_ms": 1e308}),
                "/latency_ms",
            ),
            (json!({"sample_id": "a", "latency_ms": -5.0}), "/latency_ms"),
            (
                json!({"sample_id": "a", "usage": {"cost_usd": 1e308}}),
                "/usage/cost_usd",
            ),
            (
                json!({"sample_id": "a", "usage": {"cost_usd": -100.0}}),
                "/usage/cost_usd",
            ),
            (
                json!({"sample_id": "a", "usage": {"prompt_tokens": u64::MAX, "completion_tokens": 1}}),
                "/usage/prompt_tokens",
            ),
            (
                json!({"sample_id": "a", "trace": {"calls": [{"agent": "A", "iteration": 0,
                    "temperature": 0.2, "messages": [], "latency_ms": 1.0,
                    "usage": {"prompt_tokens": 1, "completion_tokens": u64::MAX}}]}}),
                "/trace/calls/0/usage/completion_tokens",
            ),
            (
                json!({"sample_id": "a", "judge": {"model": "m", "prompt_fingerprint": "p",
                    "judgements": [{"cost_usd": -1.0}]}}),
                "/judge/judgements/0/cost_usd",
            ),
        ] {
            let (at, why) = record(&record_of(value.clone())).unwrap();
            assert_eq!(at, pointer, "{value}: {why}");
        }
    }
}
