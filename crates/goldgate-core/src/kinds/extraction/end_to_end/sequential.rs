//! `check --sequential` on a 400-sample extraction suite whose pipeline answers from
//! prepared answers and counts its own calls: a clear drop in F1 fails, a clear improvement
//! passes and an identical candidate passes, on ten sending orders each, with the verdict
//! of the full check and on at most half the calls for a clear change.

use std::path::Path;

use serde_json::{json, Value};

use super::scoring::{extraction, req, store_requirement, ANSWERING_PIPELINE};
use crate::support::output::text;
use crate::support::project::goldgate;
use crate::support::scoring::write_jsonl;
use crate::support::TempDir;

const SAMPLES: usize = 400;
const SEEDS: usize = 10;

/// Sample `i` has 3–8 gold requirements.
fn gold(i: usize) -> Vec<Value> {
    (0..3 + i % 6).map(|j| store_requirement(i, j)).collect()
}

/// The pipeline's answer to sample `i`: its gold requirements (a third of them when
/// `dropped`), and in every fourth sample one it invented.
fn answer(i: usize, dropped: bool) -> Value {
    let mut items = gold(i);
    if dropped {
        items.truncate(items.len() / 3);
    }
    if i.is_multiple_of(4) {
        items.push(req(
            "REQ-099",
            "Print labels",
            "functional",
            "clerk",
            "print shipping labels",
            &[0],
        ));
    }
    json!({ "requirements": items })
}

/// Whether sample `i` is among the 30% whose answers a drop cuts to a third.
fn cut(i: usize) -> bool {
    (i * 7) % 10 < 3
}

/// Answers by id: a drop in the samples [`cut`] picks when `dropped`.
fn answers(dropped: bool) -> Value {
    (0..SAMPLES)
        .map(|i| (format!("s{i:03}"), answer(i, dropped && cut(i))))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// A project: the suite, rules gating extraction F1's change, the pipeline, and the two
/// answer files (`full.json`, `dropped.json`).
fn project(dir: &Path) {
    std::fs::create_dir_all(dir.join("suite")).unwrap();
    let samples: Vec<Value> = (0..SAMPLES)
        .map(|i| extraction(&format!("s{i:03}"), gold(i)))
        .collect();
    write_jsonl(&dir.join("suite/samples.jsonl"), &samples);
    std::fs::write(
        dir.join("thresholds.toml"),
        "version = 1\n\n[matching]\nmax_items = 12\n\n[metrics.\"extraction.f1\"]\nmax_regression = 0.02\nrequire_significance = true\n",
    )
    .unwrap();
    std::fs::write(dir.join("pipeline.py"), ANSWERING_PIPELINE).unwrap();
    for (name, dropped) in [("full", false), ("dropped", true)] {
        std::fs::write(
            dir.join(format!("{name}.json")),
            answers(dropped).to_string(),
        )
        .unwrap();
    }
}

/// `goldgate ARGS` with the pipeline named `name` answering from `answers`: its exit code
/// and the calls it counted.
fn with_pipeline(dir: &Path, name: &str, answers: &str, args: &[&str]) -> (i32, usize, String) {
    let count = dir.join(format!("calls-{name}"));
    let _ = std::fs::remove_file(&count);
    let command = format!("python3 pipeline.py {name}");
    let mut all = args.to_vec();
    all.extend(["--command", &command, "--mode", "jsonl", "--jobs", "4"]);
    let out = goldgate(
        dir,
        &all,
        &[
            ("ANSWERS", &dir.join(answers).display().to_string()),
            ("COUNT_FILE", &count.display().to_string()),
        ],
    );
    let calls = std::fs::read_to_string(&count).map_or(0, |t| t.lines().count());
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (out.status.code().unwrap_or(-1), calls, said)
}

/// One scenario: a baseline answering from `baseline`, then `check --full` and ten
/// `check --sequential` (ten pipeline names, ten sending orders) answering from
/// `candidate`. The full check's exit code, each sequential one's, and their mean calls.
fn scenario(dir: &Path, label: &str, baseline: &str, candidate: &str) -> (i32, Vec<i32>, f64) {
    let stored = format!("baselines/{label}.json");
    let (code, _, said) = with_pipeline(
        dir,
        &format!("{label}-baseline"),
        baseline,
        &[
            "baseline",
            "refresh",
            "--suite",
            "suite",
            "--baseline",
            &stored,
        ],
    );
    assert_eq!(code, 0, "{said}");
    let gate = ["check", "--suite", "suite", "--baseline", &stored];
    let out = format!("out/{label}-full");
    let mut args = gate.to_vec();
    args.extend(["--full", "--out-dir", &out]);
    let (full, calls, said) = with_pipeline(dir, &format!("{label}-full"), candidate, &args);
    assert_eq!(calls, SAMPLES, "the full check sends every sample: {said}");
    let mut codes = Vec::new();
    let mut sent = 0;
    for seed in 0..SEEDS {
        let out = format!("out/{label}-{seed}");
        let mut args = gate.to_vec();
        args.extend(["--sequential", "--out-dir", &out]);
        let name = format!("{label}-{seed}");
        let (code, calls, said) = with_pipeline(dir, &name, candidate, &args);
        let verdict: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(&out).join("verdict.json")).unwrap(),
        )
        .unwrap();
        let sequential = &verdict["sequential"];
        // What the verdict says was sent is what the pipeline counted.
        let not_made = sequential["calls_not_made"].as_u64().unwrap() as usize;
        assert_eq!(calls + not_made, SAMPLES, "{said}\n{sequential}");
        assert!(
            verdict["missing"].as_array().unwrap().is_empty(),
            "{verdict}"
        );
        if not_made > 0 {
            assert!(said.contains("not needed"), "{said}");
        }
        codes.push(code);
        sent += calls;
    }
    (full, codes, sent as f64 / SEEDS as f64)
}

#[test]
fn a_sequential_check_gives_the_full_checks_verdict_on_fewer_calls() {
    let tmp = TempDir::new("sequential-acceptance");
    let dir = &tmp.0;
    project(dir);
    let mut agree = 0;
    // A clear drop: 30% of the samples keep a third of their requirements.
    let (full, codes, sent) = scenario(dir, "drop", "full.json", "dropped.json");
    assert_eq!(full, 1, "the full check fails the drop");
    assert!(
        codes.iter().all(|&c| c == 1),
        "every order fails the drop: {codes:?}"
    );
    assert!(sent <= SAMPLES as f64 / 2.0, "{sent} calls on average");
    agree += codes.iter().filter(|&&c| c == full).count();
    // A clear improvement of the same size.
    let (full, codes, sent) = scenario(dir, "improvement", "dropped.json", "full.json");
    assert_eq!(full, 0, "the full check passes the improvement");
    assert!(
        codes.iter().all(|&c| c == 0),
        "every order passes the improvement: {codes:?}"
    );
    assert!(sent <= SAMPLES as f64 / 2.0, "{sent} calls on average");
    agree += codes.iter().filter(|&&c| c == full).count();
    // A candidate identical to the baseline.
    let (full, codes, _) = scenario(dir, "same", "full.json", "full.json");
    assert_eq!(full, 0);
    assert!(
        codes.iter().all(|&c| c == 0),
        "every order passes: {codes:?}"
    );
    agree += codes.iter().filter(|&&c| c == full).count();
    assert!(
        agree as f64 >= 0.95 * (3 * SEEDS) as f64,
        "{agree} of {} agree",
        3 * SEEDS
    );
}
