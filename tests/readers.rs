//! Property tests of the readers of files goldgate did not necessarily write: run files
//! (`score`, `replay`) and answer-cache entries. Whatever the bytes — not JSON, JSON of the
//! wrong shape, records with numbers no call can have (1e308, negative, 2^64 − 1, strings) —
//! a reader never panics and either gives an answer whose every number is in its range or
//! refuses with a typed problem.

use proptest::prelude::*;
use serde_json::{json, Value};

use goldgate_core::error::Error;
use goldgate_core::quantity::{MAX_COST_USD, MAX_LATENCY_MS, MAX_TOKENS};
use goldgate_core::runfile::reader::RunIndex;
use goldgate_core::runfile::record::Usage;
use goldgate_run::call::Reply;

/// A number as a hostile file writes it: ordinary, huge, negative, fractional, a string.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..2_000).prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|x| json!(x)),
        Just(json!(1e308)),
        Just(json!(-5.0)),
        Just(json!(u64::MAX)),
        "[0-9a-z.-]{0,6}".prop_map(|s| json!(s)),
        Just(Value::Null),
    ]
}

/// A run record, of the right shape or nearly: its numbers from [`number`].
fn record() -> impl Strategy<Value = Value> {
    (
        prop_oneof![Just("a"), Just("b"), Just("c")],
        0u32..3,
        proptest::option::of(number()),
        proptest::option::of((number(), number(), number(), number())),
        any::<bool>(),
    )
        .prop_map(|(id, repeat, latency, usage, output)| {
            let mut r = match output {
                true => json!({"sample_id": id, "repeat": repeat, "raw_output": "{\"requirements\": []}"}),
                false => json!({"id": id, "repeat": repeat, "output": {"requirements": []}}),
            };
            if let Some(l) = latency {
                r["latency_ms"] = l;
            }
            if let Some((p, c, t, cost)) = usage {
                r["usage"] = json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": t, "cost_usd": cost});
            }
            r
        })
}

/// One line of a run file: a record, or any bytes at all.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => record().prop_map(|r| r.to_string().into_bytes()),
        1 => proptest::collection::vec(any::<u8>(), 0..80),
        1 => "[{}\\[\\]\":,0-9a-z_ ]{0,60}".prop_map(String::into_bytes),
    ]
}

fn in_range(usage: Option<&Usage>, latency: Option<f64>) {
    if let Some(u) = usage {
        for n in [u.prompt_tokens, u.completion_tokens, u.total_tokens]
            .into_iter()
            .flatten()
        {
            assert!(n <= MAX_TOKENS, "{u:?}");
        }
        if let Some(c) = u.cost_usd {
            assert!(c.is_finite() && (0.0..=MAX_COST_USD).contains(&c), "{u:?}");
        }
        assert!(u.tokens().is_none_or(|t| t <= 3 * MAX_TOKENS), "{u:?}");
    }
    if let Some(l) = latency {
        assert!(l.is_finite() && (0.0..=MAX_LATENCY_MS).contains(&l), "{l}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_run_file_reads_as_answers_in_range_or_typed_problems(lines in proptest::collection::vec(line(), 0..8)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        let mut bytes = Vec::new();
        for l in &lines {
            bytes.extend_from_slice(l);
            bytes.push(b'\n');
        }
        std::fs::write(&path, &bytes).unwrap();
        match RunIndex::build(&path) {
            Err(Error::Invalid { problems, .. }) => prop_assert!(!problems.is_empty()),
            Err(other) => prop_assert!(false, "not a typed problem: {other}"),
            Ok(mut index) => {
                let reader = index.reader().unwrap();
                for (_, entries) in index.drain() {
                    for entry in entries {
                        match reader.read(&entry) {
                            Ok(answer) => in_range(answer.usage.as_ref(), answer.latency_ms),
                            Err(problem) => prop_assert_eq!(problem.location.line, entry.line),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_cache_entry_reads_as_an_answer_in_range_or_a_typed_problem(
        entry in prop_oneof![
            2 => (number(), (number(), number(), number(), number())).prop_map(|(l, (p, c, t, cost))| {
                json!({"text": "{}", "latency_ms": l,
                       "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": t, "cost_usd": cost}})
                    .to_string().into_bytes()
            }),
            1 => proptest::collection::vec(any::<u8>(), 0..120),
        ]
    ) {
        use goldgate_run::cache::{Cache, CacheMode};
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(std::sync::Arc::new(goldgate_core::cachedir::CacheDir::new(dir.path())), CacheMode::Use, None, 1 << 20);
        let key = "ab".repeat(32);
        cache.put(&key, &Reply::default(), 1.0);
        let stored = std::fs::read_dir(dir.path().join("ab")).unwrap().next().unwrap().unwrap().path();
        std::fs::write(&stored, &entry).unwrap();
        match cache.get(&key) {
            Ok(Some(reply)) => in_range(reply.usage.as_ref(), reply.latency_ms),
            Ok(None) => {}
            Err(problem) => prop_assert!(problem.field.is_some(), "{problem:?}"),
        }
    }
}
