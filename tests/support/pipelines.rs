//! The pipelines of `tests/pipelines/` (crashing, hanging, slow, counting, echoing …) run
//! through `goldgate run`: their command lines, a suite whose labels and annotations must
//! never reach them, and the records a run wrote, by sample.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};

use super::project::goldgate;
use super::test_kind;

/// `sh tests/pipelines/NAME`.
pub fn script(name: &str) -> String {
    format!("sh {}/tests/pipelines/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `python3 tests/pipelines/NAME ARGS`.
pub fn python(name: &str, args: &str) -> String {
    format!(
        "python3 {}/tests/pipelines/{name} {args}",
        env!("CARGO_MANIFEST_DIR")
    )
    .trim_end()
    .to_string()
}

/// A suite of `n` samples `s-0` … of the test kind, with labels and annotations that must
/// never reach the pipeline.
pub fn suite(dir: &Path, n: usize) -> PathBuf {
    let root = dir.join("suite");
    std::fs::create_dir_all(&root).unwrap();
    let samples: Vec<Value> = (0..n)
        .map(|i| {
            let mut sample = test_kind::sample(
                &format!("s-{i}"),
                "Customers track orders.",
                &["SECRET-GOLD-TITLE"],
            );
            sample["domain"] = json!("shop");
            sample["annotations"] = json!([{"annotator": "SECRET-ANNOTATOR"}]);
            sample
        })
        .collect();
    std::fs::write(root.join("samples.jsonl"), test_kind::lines(&samples)).unwrap();
    root
}

/// A run file's records by sample id.
pub fn records(path: &Path) -> BTreeMap<String, Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["sample_id"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

/// The arguments of `goldgate run` of `suite` into `run.jsonl`, then `more`.
pub fn run_args<'a>(more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", "--suite", "suite", "--output", "run.jsonl"];
    args.extend_from_slice(more);
    args
}

/// `goldgate run` of `dir/suite` into `dir/run.jsonl` with the command `pipeline` and
/// `extra` arguments; the records it made final (none when the run is incomplete).
pub fn run_with(dir: &Path, pipeline: &str, extra: &[&str]) -> (Output, BTreeMap<String, Value>) {
    let args = run_args(&[&["--command", pipeline], extra].concat());
    let out = goldgate(dir, &args, &[]);
    let recs = if dir.join("run.jsonl").exists() {
        records(&dir.join("run.jsonl"))
    } else {
        BTreeMap::new()
    };
    (out, recs)
}

/// How many calls `count.sh` counted in `dir/calls.txt`.
pub fn calls(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("calls.txt")).map_or(0, |t| t.lines().count())
}
