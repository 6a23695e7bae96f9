//! `check --plan`: what a check would send before it sends anything — per kind, the calls
//! the cache answers and those to make, with the tokens and cost to expect from the
//! baseline's per-call usage; how many samples a sequential check would send if the
//! answers were like the baseline's (its decisions played over the baseline's own scores
//! in 20 sending orders); and the rules that keep every sample running. No call is made.
//! [`cheapest`] is what `--max-cost` checks before the first call.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::sequential::{asked, load, planned, stratum, SequentialSettings};
use super::CheckSettings;
use goldgate_core::error::Result;
use goldgate_core::gate::sequential::decide::{Decisions, Planned};
use goldgate_core::gate::sequential::order::send_order;
use goldgate_core::gate::sequential::questions::keys;
use goldgate_core::metrics::stats::Sums;
use goldgate_core::score::ScoreFile;
use goldgate_core::suite::Suite;

/// Sending orders the sequential estimate is the mean of.
const ORDERS: u64 = 20;

/// What a check would send.
#[derive(Clone, Debug, Serialize)]
pub struct CheckPlan {
    pub pipeline_fingerprint: String,
    pub samples: usize,
    pub repeats: u32,
    pub kinds: Vec<KindPlan>,
    /// With `--sequential`, when the baseline lets it be estimated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequential: Option<SequentialPlan>,
}

/// One kind's calls.
#[derive(Clone, Debug, Serialize)]
pub struct KindPlan {
    pub kind: String,
    pub samples: usize,
    /// Calls the cache answers, and calls to make.
    pub cached: usize,
    pub to_send: usize,
    /// Per call, from the baseline's calls of the kind (`None`: it has no such usage).
    pub tokens_per_call: Option<f64>,
    pub cost_per_call: Option<f64>,
    /// The cheapest call of the kind the baseline made (USD).
    pub cheapest_call: Option<f64>,
}

impl KindPlan {
    pub fn tokens(&self) -> Option<f64> {
        self.tokens_per_call.map(|t| t * self.to_send as f64)
    }

    pub fn cost(&self) -> Option<f64> {
        self.cost_per_call.map(|c| c * self.to_send as f64)
    }
}

/// What a sequential check is expected to send.
#[derive(Clone, Debug, Serialize)]
pub struct SequentialPlan {
    /// Samples answered (the cache's included) when every rule is decided, if the answers
    /// are like the baseline's: the mean over [`ORDERS`] sending orders; the suite's size
    /// when some rule keeps every sample running.
    pub expected_samples: f64,
    /// The rules that keep every sample running, and why.
    pub waiting: Vec<String>,
}

/// The plan of the check `s` would run against `baseline` (as [`super::read_baseline`]
/// reads it), with the sequential estimate when `sequential`. No call is made.
pub fn plan(
    s: &CheckSettings,
    baseline: Option<&ScoreFile>,
    sequential: bool,
) -> Result<CheckPlan> {
    let (cache, calls) = goldgate_run::plan::planned_calls(&s.run)?;
    let usage = baseline.map(per_call).unwrap_or_default();
    let mut by_kind: BTreeMap<String, KindPlan> = BTreeMap::new();
    let mut samples: Vec<&str> = Vec::new();
    for call in &calls {
        let k = by_kind.entry(call.kind.clone()).or_insert_with(|| {
            let u = usage.get(&call.kind).copied().unwrap_or_default();
            KindPlan {
                kind: call.kind.clone(),
                samples: 0,
                cached: 0,
                to_send: 0,
                tokens_per_call: u.tokens,
                cost_per_call: u.cost,
                cheapest_call: u.cheapest,
            }
        });
        if call.repeat == 0 {
            k.samples += 1;
            samples.push(&call.sample_id);
        }
        match call.cached {
            true => k.cached += 1,
            false => k.to_send += 1,
        }
    }
    let sequential = match (baseline, sequential) {
        (Some(b), true) => Some(expected(s, b, &calls)?),
        _ => None,
    };
    Ok(CheckPlan {
        pipeline_fingerprint: cache.fingerprint.value,
        samples: samples.len(),
        repeats: s.run.repeat,
        kinds: by_kind.into_values().collect(),
        sequential,
    })
}

/// The least the check could spend before its verdict (USD), from the baseline's cheapest
/// call of each kind: every call to make, or, sequentially, its first batch of them.
/// `None` when the baseline does not know what its calls cost.
pub fn cheapest(
    plan: &CheckPlan,
    sequential: Option<&SequentialSettings>,
    jobs: usize,
) -> Option<f64> {
    let mut each: Vec<f64> = Vec::new();
    for k in &plan.kinds {
        let cheapest = match k.to_send {
            0 => continue,
            _ => k.cheapest_call?,
        };
        each.extend(std::iter::repeat_n(cheapest, k.to_send));
    }
    each.sort_by(f64::total_cmp);
    let calls = match sequential {
        None => each.len(),
        Some(s) => {
            let batch = s
                .batch
                .unwrap_or_else(|| super::default_batch(jobs, plan.samples));
            (batch * plan.repeats.max(1) as usize).min(each.len())
        }
    };
    Some(each.iter().take(calls).sum())
}

/// A kind's usage per call in the baseline.
#[derive(Clone, Copy, Debug, Default)]
struct Usage {
    tokens: Option<f64>,
    cost: Option<f64>,
    cheapest: Option<f64>,
}

/// Each kind's tokens and cost per call in `baseline`, over the calls whose usage it knows.
fn per_call(baseline: &ScoreFile) -> HashMap<String, Usage> {
    let mut sums: HashMap<String, [f64; 5]> = HashMap::new();
    let mut cheapest: HashMap<String, f64> = HashMap::new();
    for s in &baseline.samples {
        let kind = s.kind.as_str().to_string();
        let st = &s.stats;
        let e = sums.entry(kind.clone()).or_default();
        e[0] += st.get("run.tokens");
        e[1] += st.get("run.tokens_known");
        e[2] += st.get("run.cost");
        e[3] += st.get("run.cost_known");
        e[4] += st.get("run.records");
        let known = st.get("run.cost_known");
        if known > 0.0 && known == st.get("run.records") {
            let c = cheapest.entry(kind).or_insert(f64::INFINITY);
            *c = c.min(st.get("run.cost") / known);
        }
    }
    sums.into_iter()
        .map(|(kind, [tokens, tokens_known, cost, cost_known, _])| {
            let usage = Usage {
                tokens: (tokens_known > 0.0).then(|| tokens / tokens_known),
                cost: (cost_known > 0.0).then(|| cost / cost_known),
                cheapest: cheapest.get(&kind).copied(),
            };
            (kind, usage)
        })
        .collect()
}

/// The samples a sequential check would send if the candidate answered like `baseline`:
/// its questions decided over the baseline's own scores in [`ORDERS`] sending orders (the
/// cache's samples known first).
fn expected(
    s: &CheckSettings,
    baseline: &ScoreFile,
    calls: &[goldgate_run::plan::PlannedCall],
) -> Result<SequentialPlan> {
    let loaded = load(&Suite::open(&s.run.suite, s.run.max_sample_bytes)?)?;
    let scores: HashMap<&str, &goldgate_core::score::SampleScore> = baseline
        .samples
        .iter()
        .map(|b| (b.id.as_str(), b))
        .collect();
    let reference = s.compare.reference.as_deref().map(|r| &r.file);
    let asked = asked(
        &s.thresholds,
        (Some(baseline), reference),
        &loaded,
        s.run.max_errors,
        loaded.len() * s.run.repeat.max(1) as usize,
    );
    let waiting: Vec<String> = asked
        .iter()
        .filter_map(|q| Some(format!("{} ({})", q.describe(), q.waits.as_ref()?)))
        .collect();
    let keys = keys(&asked);
    // Each sample to send (a repeat the cache does not answer), with the baseline's score
    // standing for its answer; the others are known.
    let sent: std::collections::HashSet<&str> = calls
        .iter()
        .filter(|c| !c.cached)
        .map(|c| c.sample_id.as_str())
        .collect();
    let mut all: Vec<&str> = calls.iter().map(|c| c.sample_id.as_str()).collect();
    all.dedup();
    let (to_send, cached): (Vec<&str>, Vec<&str>) =
        all.into_iter().partition(|id| sent.contains(id));
    let total = to_send.len() + cached.len();
    let unscored = to_send
        .iter()
        .chain(&cached)
        .any(|id| !scores.contains_key(id) || !loaded.contains_key(*id));
    if !waiting.is_empty() || unscored || to_send.is_empty() {
        return Ok(SequentialPlan {
            expected_samples: total as f64,
            waiting,
        });
    }
    let strata_known: Vec<String> = cached.iter().map(|id| stratum(&loaded[*id])).collect();
    let known: Vec<goldgate_core::gate::sequential::decide::Known<'_>> = cached
        .iter()
        .zip(&strata_known)
        .map(
            |(id, stratum)| goldgate_core::gate::sequential::decide::Known {
                score: scores[id],
                stratum,
            },
        )
        .collect();
    // Each sample planned once; each order sends them in its own sequence.
    let scoring = s.thresholds.scoring();
    let each: Vec<Planned> = to_send
        .iter()
        .map(|id| planned(&loaded[*id], &keys, &scoring, s.run.repeat))
        .collect();
    let strata: Vec<&str> = each.iter().map(|p| p.stratum.as_str()).collect();
    let mut answered = 0;
    for seed in 0..ORDERS {
        let order = send_order(&strata, seed);
        let planned = order.iter().map(|&i| each[i].clone()).collect();
        let mut decisions = Decisions::new(
            asked.clone(),
            keys.clone(),
            planned,
            &known,
            (Some(baseline), reference),
        );
        for &i in &order {
            if decisions.all_decided() {
                break;
            }
            decisions.observe(scores[to_send[i]]);
        }
        answered += decisions.answered();
    }
    Ok(SequentialPlan {
        expected_samples: answered as f64 / ORDERS as f64,
        waiting,
    })
}
