//! `goldgate run` and its answer cache, against the counting pipeline of `tests/pipelines/`:
//! a warm second run makes no calls (`--refresh-cache`, `--no-cache` and an edited
//! fingerprint file call again), repeats are separate records and cache entries, and shards
//! are disjoint, cover the suite and merge back (never twice, never across pipelines).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::support::pipelines::{calls, records, run_args, script, suite};
use crate::support::project::{git_repo, goldgate};
use crate::support::TempDir;

/// `goldgate run` of the counting pipeline (`count.sh`, its calls in `calls.txt`) with
/// `extra` arguments; it must exit 0.
fn counted(dir: &Path, extra: &[&str]) -> (Output, BTreeMap<String, Value>) {
    let command = script("count.sh");
    let args = run_args(&[&["--command", &command], extra].concat());
    let count = dir.join("calls.txt");
    let out = goldgate(dir, &args, &[("COUNT_FILE", count.to_str().unwrap())]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&dir.join("run.jsonl"));
    (out, recs)
}

#[test]
fn an_unchanged_pipeline_costs_nothing_the_second_time() {
    let dir = TempDir::new("run-cache");
    suite(&dir.0, 5);
    std::fs::write(dir.0.join("prompt.txt"), "v1").unwrap();
    let fp = ["--fingerprint-file", "prompt.txt"];
    let (_, first) = counted(&dir.0, &fp);
    assert_eq!(calls(&dir.0), 5);
    assert!(first.values().all(|r| r["cached"] == false));
    let (out, second) = counted(&dir.0, &fp);
    assert_eq!(calls(&dir.0), 5, "a warm cache makes no calls");
    assert!(second.values().all(|r| r["cached"] == true));
    assert!(String::from_utf8_lossy(&out.stdout).contains("100% hit rate"));
    for (id, r) in &second {
        assert_eq!(r["raw_output"], first[id]["raw_output"]);
    }
    counted(&dir.0, &[&fp[..], &["--refresh-cache"]].concat());
    assert_eq!(calls(&dir.0), 10, "--refresh-cache calls again");
    counted(
        &dir.0,
        &[&fp[..], &["--no-cache", "--cache-dir", "other-cache"]].concat(),
    );
    assert_eq!(calls(&dir.0), 15, "--no-cache calls again");
    assert!(
        !dir.0.join("other-cache").exists(),
        "--no-cache writes nothing"
    );
    std::fs::write(dir.0.join("prompt.txt"), "v2").unwrap();
    counted(&dir.0, &fp);
    assert_eq!(
        calls(&dir.0),
        20,
        "editing a fingerprint file invalidates the cache"
    );
}

#[test]
fn repeats_are_separate_records_and_cache_entries() {
    let dir = TempDir::new("run-repeat");
    suite(&dir.0, 3);
    git_repo(&dir.0); // answers are keyed on the repository's content
    let (_, _) = counted(&dir.0, &["--repeat", "3"]);
    assert_eq!(calls(&dir.0), 9);
    let text = std::fs::read_to_string(dir.0.join("run.jsonl")).unwrap();
    let mut keys: Vec<(String, u64)> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| {
            (
                v["sample_id"].as_str().unwrap().to_string(),
                v["repeat"].as_u64().unwrap(),
            )
        })
        .collect();
    keys.sort();
    assert_eq!(keys.len(), 9);
    assert_eq!(
        keys[..3],
        [("s-0".into(), 0), ("s-0".into(), 1), ("s-0".into(), 2)]
    );
    counted(&dir.0, &["--repeat", "3"]);
    assert_eq!(calls(&dir.0), 9, "every repeat is cached under its own key");
}

#[test]
fn shards_are_disjoint_cover_the_suite_and_merge_back() {
    let dir = TempDir::new("run-shards");
    suite(&dir.0, 20);
    let mut all = Vec::new();
    for i in 1..=3 {
        let output = format!("shard-{i}.jsonl");
        let shard = format!("{i}/3");
        let out = goldgate(
            &dir.0,
            &[
                "run",
                "--suite",
                "suite",
                "--output",
                &output,
                "--shard",
                &shard,
                "--command",
                &script("count.sh"),
            ],
            &[],
        );
        assert_eq!(out.status.code(), Some(0));
        all.extend(records(&dir.0.join(&output)).into_keys());
    }
    all.sort();
    let mut expected: Vec<String> = (0..20).map(|i| format!("s-{i}")).collect();
    expected.sort();
    assert_eq!(all, expected, "every sample in exactly one shard");

    let out = goldgate(
        &dir.0,
        &[
            "merge",
            "shard-1.jsonl",
            "shard-2.jsonl",
            "shard-3.jsonl",
            "--output",
            "run.jsonl",
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(records(&dir.0.join("run.jsonl")).len(), 20);

    let out = goldgate(
        &dir.0,
        &[
            "merge",
            "shard-1.jsonl",
            "shard-1.jsonl",
            "--output",
            "twice.jsonl",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is also at shard-1.jsonl:") && stderr.contains("hint:"),
        "{stderr}"
    );
    assert!(!dir.0.join("twice.jsonl").exists());

    let out = goldgate(
        &dir.0,
        &[
            "run",
            "--suite",
            "suite",
            "--output",
            "other.jsonl",
            "--shard",
            "1/3",
            "--model",
            "another",
            "--command",
            &script("count.sh"),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    let out = goldgate(
        &dir.0,
        &[
            "merge",
            "other.jsonl",
            "shard-2.jsonl",
            "--output",
            "mixed.jsonl",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("comes from another pipeline"));
}
