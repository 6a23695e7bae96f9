//! The slow leak: twelve successive baselines in a git repository, each about 0.015 below the
//! last on `extraction.f1` (each within the per-PR allowance of 0.02). Once `[drift]` names
//! the first as the reference, `check` on the twelfth fails on drift, naming the reference
//! and the refreshes since; `baseline refresh` refuses until `--accept-drift` says why (who
//! and why kept in the baseline); `history` shows all twelve versions, its JSON the
//! committed files' values; `baseline pin` moves the reference.

use std::path::Path;

use serde_json::{json, Value};

use super::scoring::{extraction, store_requirement, ANSWERING_PIPELINE};
use crate::support::output::text;
use crate::support::project::{commit_all, git, git_repo, goldgate};
use crate::support::scoring::write_jsonl;
use crate::support::TempDir;

const SAMPLES: usize = 100;
const VERSIONS: usize = 12;
/// 2026-10-01T00:00:00Z: the first baseline is made then, each later one a day after.
const FIRST_DAY: u64 = 1_790_812_800;

/// Sample `i` has 4–8 gold requirements, no two alike.
fn gold(i: usize) -> Vec<Value> {
    (0..4 + i % 5).map(|j| store_requirement(i, j)).collect()
}

/// The answers that drop `dropped` requirements in all, one per sample in turn (so the
/// drop is spread over the suite, as a slow leak is).
fn answers(dropped: usize) -> Value {
    let mut keep: Vec<usize> = (0..SAMPLES).map(|i| gold(i).len()).collect();
    for d in 0..dropped {
        keep[d % SAMPLES] -= 1;
    }
    (0..SAMPLES)
        .map(|i| {
            let items: Vec<Value> = gold(i).into_iter().take(keep[i]).collect();
            (format!("s{i:03}"), json!({ "requirements": items }))
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// How many requirements to drop for an F1 of `f1`: with every answer exact, F1 is
/// 2(G − d) / (2G − d) for G gold requirements and d dropped.
fn dropped_for(f1: f64, gold: usize) -> usize {
    let g = gold as f64;
    (2.0 * g * (1.0 - f1) / (2.0 - f1)).round() as usize
}

/// `goldgate ARGS` with the pipeline answering as state `state` does, made on day `day`.
fn at(dir: &Path, state: usize, day: usize, args: &[&str]) -> (i32, String) {
    let command = format!("python3 pipeline.py state-{state}");
    let mut all = args.to_vec();
    all.extend(["--command", &command, "--mode", "jsonl", "--jobs", "4"]);
    let answers = dir.join(format!("answers/state-{state}.json"));
    let epoch = (FIRST_DAY + 86_400 * day as u64).to_string();
    let out = goldgate(
        dir,
        &all,
        &[
            ("ANSWERS", answers.to_str().unwrap()),
            ("SOURCE_DATE_EPOCH", &epoch),
            ("GITHUB_ACTOR", "octo-reviewer"),
        ],
    );
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (out.status.code().unwrap_or(-1), said)
}

/// `goldgate ARGS` for a command that runs no pipeline (`history`, `baseline pin`).
fn plain(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = goldgate(dir, args, &[]);
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (out.status.code().unwrap_or(-1), said)
}

fn f1_of(file: &Value) -> f64 {
    file["metrics"]["extraction.f1"]["value"].as_f64().unwrap()
}

#[test]
fn a_slow_leak_within_every_allowance_fails_on_drift() {
    let tmp = TempDir::new("drift-acceptance");
    let dir = &tmp.0;
    std::fs::create_dir_all(dir.join("suite")).unwrap();
    std::fs::create_dir_all(dir.join("answers")).unwrap();
    let samples: Vec<Value> = (0..SAMPLES)
        .map(|i| extraction(&format!("s{i:03}"), gold(i)))
        .collect();
    write_jsonl(&dir.join("suite/samples.jsonl"), &samples);
    let total: usize = (0..SAMPLES).map(|i| gold(i).len()).sum();
    for state in 0..VERSIONS {
        let f1 = 1.0 - 0.015 * state as f64;
        let answers = answers(dropped_for(f1, total));
        std::fs::write(
            dir.join(format!("answers/state-{state}.json")),
            answers.to_string(),
        )
        .unwrap();
    }
    std::fs::write(dir.join("pipeline.py"), ANSWERING_PIPELINE).unwrap();
    let rules = "version = 1\n\n[metrics.\"extraction.f1\"]\nmax_regression = 0.02\n";
    std::fs::write(dir.join("thresholds.toml"), rules).unwrap();
    git_repo(dir);
    // Twelve nightly refreshes, each committed, before any drift budget existed.
    let refresh = ["baseline", "refresh", "--suite", "suite"];
    for state in 0..VERSIONS {
        let (code, said) = at(dir, state, state, &refresh);
        assert_eq!(code, 0, "refresh {state}: {said}");
        commit_all(dir, &format!("nightly baseline {}", state + 1));
    }
    let committed: Vec<Value> = git(dir, &["log", "--format=%H", "--", "baselines/main.json"])
        .lines()
        .rev()
        .map(|c| {
            serde_json::from_str(&git(dir, &["show", &format!("{c}:baselines/main.json")])).unwrap()
        })
        .collect();
    assert_eq!(committed.len(), VERSIONS);
    let f1s: Vec<f64> = committed.iter().map(f1_of).collect();
    for pair in f1s.windows(2) {
        let step = pair[0] - pair[1];
        assert!(
            (0.01..0.02).contains(&step),
            "each step within the allowance: {f1s:?}"
        );
    }
    // The team pins the first baseline (its last release) as the reference.
    let first = git(
        dir,
        &[
            "log",
            "--reverse",
            "--format=%H",
            "--",
            "baselines/main.json",
        ],
    );
    let first = first.lines().next().unwrap();
    std::fs::write(
        dir.join("baselines/reference.json"),
        git(dir, &["show", &format!("{first}:baselines/main.json")]),
    )
    .unwrap();
    std::fs::write(
        dir.join("thresholds.toml"),
        format!("{rules}\n[drift]\nreference = \"baselines/reference.json\"\n"),
    )
    .unwrap();
    commit_all(dir, "a drift budget against the last release");

    // The twelfth state, checked: the same as its baseline, and far below the reference.
    let last = VERSIONS - 1;
    let check = ["check", "--suite", "suite", "--out-dir", "out"];
    let (code, said) = at(dir, last, VERSIONS, &check);
    assert_eq!(code, 1, "{said}");
    let verdict: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/verdict.json")).unwrap())
            .unwrap();
    let f1 = crate::support::output::metric_row(&verdict, "extraction.f1");
    assert_eq!(f1["status"], "fail", "{f1}");
    assert_eq!(
        f1["delta"].as_f64(),
        Some(0.0),
        "no change against the baseline: {f1}"
    );
    let reason = f1["reasons"][0].as_str().unwrap();
    let drop = f1s[0] - f1s[last];
    let said = format!(
        "{drop:.3} below the reference of 2026-10-01 (budget 0.05), 11 refreshes ago; the baseline itself is already {drop:.3} below it"
    );
    assert_eq!(reason, said);
    assert_eq!(verdict["drift"]["reference"], "baselines/reference.json");
    assert_eq!(verdict["drift"]["refreshes"], 11);
    let comment = std::fs::read_to_string(dir.join("out/report.md")).unwrap();
    assert!(comment.contains("11 refreshes ago"), "{comment}");

    // A refresh now refuses to write a baseline beyond the budget, and says how to go on.
    let before = std::fs::read(dir.join("baselines/main.json")).unwrap();
    let (code, said) = at(dir, last, VERSIONS, &refresh);
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("drifted beyond its budget") && said.contains("--accept-drift"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(dir.join("baselines/main.json")).unwrap(),
        before
    );

    // The history: all twelve versions, the first pinned; the JSON is the committed values.
    let (code, said) = plain(dir, &["history"]);
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("12 versions") && said.contains("pinned as the reference"),
        "{said}"
    );
    let (code, json) = plain(dir, &["history", "--format", "json"]);
    assert_eq!(code, 0, "{json}");
    let history: Value = serde_json::from_str(&json).unwrap();
    let points = history["points"].as_array().unwrap();
    assert_eq!(points.len(), VERSIONS);
    for (point, file) in points.iter().zip(&committed) {
        assert_eq!(point["created_at"], file["provenance"]["created_at"]);
        for (name, aggregate) in file["metrics"].as_object().unwrap() {
            assert_eq!(
                point["metrics"][name]["value"], aggregate["value"],
                "{name}"
            );
            assert_eq!(point["metrics"][name]["ci"], aggregate["ci"], "{name}");
        }
    }
    assert_eq!(points[0]["pinned"], true);
    assert!(points[1..].iter().all(|p| p["pinned"] == false));

    // Accepted, with who and why kept in the baseline and shown in the history.
    let mut accept = refresh.to_vec();
    accept.extend(["--accept-drift", "the new tokenizer trades recall for cost"]);
    let (code, said) = at(dir, last, VERSIONS, &accept);
    assert_eq!(code, 0, "{said}");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("baselines/main.json")).unwrap())
            .unwrap();
    let accepted = &written["provenance"]["accepted_drift"];
    assert_eq!(accepted["by"], "octo-reviewer");
    assert_eq!(
        accepted["reason"],
        "the new tokenizer trades recall for cost"
    );
    assert!(
        accepted["drifts"][0]
            .as_str()
            .unwrap()
            .starts_with("extraction.f1: "),
        "{accepted}"
    );
    commit_all(dir, "nightly baseline, drift accepted");
    let (_, said) = plain(dir, &["history"]);
    assert!(
        said.contains("13 versions")
            && said.contains("drift accepted by octo-reviewer: the new tokenizer"),
        "{said}"
    );

    // A pull request that points [drift] at a copy of its own baseline is still measured
    // against the reference the base branch's rules name.
    let rules_text = std::fs::read_to_string(dir.join("thresholds.toml")).unwrap();
    std::fs::copy(
        dir.join("baselines/main.json"),
        dir.join("baselines/other.json"),
    )
    .unwrap();
    std::fs::write(
        dir.join("thresholds.toml"),
        rules_text.replace("baselines/reference.json", "baselines/other.json"),
    )
    .unwrap();
    let moved = [&check[..], &["--base-ref", "HEAD"]].concat();
    let (code, said) = at(dir, last, VERSIONS + 1, &moved);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("moved by this change"), "{said}");
    std::fs::write(dir.join("thresholds.toml"), &rules_text).unwrap();

    // Nor can it move its rules to a new file through goldgate.toml: the ratchet and the
    // reference are read where the base branch keeps its rules, and the move is said.
    std::fs::create_dir_all(dir.join("gate")).unwrap();
    std::fs::write(
        dir.join("gate/rules.toml"),
        rules_text.replace("baselines/reference.json", "../baselines/other.json"),
    )
    .unwrap();
    std::fs::write(
        dir.join("goldgate.toml"),
        "[check]\nthresholds = \"gate/rules.toml\"\n",
    )
    .unwrap();
    let (code, said) = at(dir, last, VERSIONS + 1, &moved);
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("rules file moved by this change from thresholds.toml to")
            && said.contains("below the reference of 2026-10-01"),
        "{said}"
    );
    // Without [drift] in the new file, the removed budget is called out.
    std::fs::write(dir.join("gate/rules.toml"), rules).unwrap();
    let (_, said) = at(dir, last, VERSIONS + 1, &moved);
    assert!(
        said.contains("rules file moved by this change")
            && said.contains("the drift budget was removed"),
        "{said}"
    );
    std::fs::remove_dir_all(dir.join("gate")).unwrap();
    std::fs::remove_file(dir.join("goldgate.toml")).unwrap();
    std::fs::remove_file(dir.join("baselines/other.json")).unwrap();

    // Pinned: the reference is the current baseline, and the check passes again, but a pull
    // request that re-pins its own reference is still held to the base branch's.
    let (code, said) = plain(dir, &["baseline", "pin"]);
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        std::fs::read(dir.join("baselines/reference.json")).unwrap(),
        std::fs::read(dir.join("baselines/main.json")).unwrap()
    );
    let mut against_main = check.to_vec();
    against_main.extend(["--base-ref", "HEAD"]);
    let (code, said) = at(dir, last, VERSIONS + 1, &against_main);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("re-pinned by this change"), "{said}");
    commit_all(dir, "pin the reference");
    let (code, said) = at(dir, last, VERSIONS + 1, &against_main);
    assert_eq!(code, 0, "{said}");

    // A change that replaces the baseline itself is compared with it, and says so.
    let main = dir.join("baselines/main.json");
    let mut replaced: Value =
        serde_json::from_str(&std::fs::read_to_string(&main).unwrap()).unwrap();
    replaced["provenance"]["created_at"] = json!("2026-12-01T00:00:00Z");
    std::fs::write(&main, serde_json::to_string_pretty(&replaced).unwrap()).unwrap();
    let (_, said) = at(dir, last, VERSIONS + 1, &against_main);
    assert!(
        said.contains("replaced by this change (made 2026-12-01T00:00:00Z"),
        "{said}"
    );
}
