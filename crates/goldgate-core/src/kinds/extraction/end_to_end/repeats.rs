//! Repeats taken as runs: with several records per sample (`--repeat N`), every aggregate of
//! score.json also carries the mean and sample standard deviation of the metric computed
//! over each repeat's records alone (`mean`, `std`, `runs`), beside the pooled value; the
//! reports show `mean ± std`. Values checked by hand, through the library and through
//! `goldgate score`, and the rendered artefacts as snapshots.

use std::path::Path;

use goldgate::report::{html, markdown, terminal};
use goldgate_core::gate::compare::compare;
use goldgate_core::gate::verdict::{by_name, Verdict};
use goldgate_core::score::ScoreFile;
use serde_json::{json, Value};

use super::scoring::{extraction, req};
use super::terminal::{gold, options, rules};
use crate::snapshots::settings;
use crate::support::project::goldgate;
use crate::support::TempDir;

/// Gold item `A` (REQ-001) and `B` (REQ-002) of every sample, and an invented one that
/// matches neither; `confidence` added when given.
fn item(which: char, confidence: Option<f64>) -> Value {
    let mut item = match which {
        'A' => gold()[0].clone(),
        'B' => gold()[1].clone(),
        _ => req(
            "REQ-009",
            "Archive invoices",
            "functional",
            "clerk",
            "archive old invoices",
            &[2],
        ),
    };
    if let Some(c) = confidence {
        item["confidence"] = json!(c);
    }
    item
}

fn answer(items: &str, confidence: Option<f64>) -> Value {
    json!({"requirements": items.chars().map(|c| item(c, confidence)).collect::<Vec<_>>()})
}

/// Three extraction samples: `s0` and `s1` in domain `shop`, `s2` in domain `other`.
fn samples() -> Vec<Value> {
    let mut s = vec![
        extraction("s0", gold()),
        extraction("s1", gold()),
        extraction("s2", gold()),
    ];
    s[2]["domain"] = json!("other");
    s
}

fn write_lines(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(path, text).unwrap();
}

/// Score `lines` (an outputs file, with `repeat`) against `samples`, through the library.
fn score_outputs(dir: &TempDir, samples: &[Value], lines: &[Value]) -> ScoreFile {
    std::fs::create_dir_all(dir.0.join("suite")).unwrap();
    write_lines(&dir.0.join("suite/samples.jsonl"), samples);
    write_lines(&dir.0.join("answers.jsonl"), lines);
    crate::support::score_files(&dir.0.join("suite"), &dir.0.join("answers.jsonl"), 200)
}

/// The expected mean and sample standard deviation of per-repeat values.
fn mean_std(values: &[f64]) -> (f64, f64) {
    let k = values.len() as f64;
    let mean = values.iter().sum::<f64>() / k;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (k - 1.0);
    (mean, var.sqrt())
}

/// `mean`, `std` and `runs` of one aggregate of a score file (as written), checked.
#[track_caller]
fn assert_spread(aggregate: &Value, expected: Option<(f64, Option<f64>)>, runs: u64) {
    let close = |got: &Value, want: f64| {
        got.as_f64()
            .is_some_and(|g| (g - want).abs() < 1e-12 * want.abs().max(1.0))
    };
    assert_eq!(aggregate["runs"], json!(runs), "{aggregate}");
    match expected {
        None => {
            assert!(
                aggregate["mean"].is_null() && aggregate.get("mean").is_some(),
                "{aggregate}"
            );
            assert!(
                aggregate["std"].is_null() && aggregate.get("std").is_some(),
                "{aggregate}"
            );
        }
        Some((mean, std)) => {
            assert!(close(&aggregate["mean"], mean), "mean {mean}: {aggregate}");
            match std {
                Some(std) => assert!(close(&aggregate["std"], std), "std {std}: {aggregate}"),
                None => assert!(
                    aggregate["std"].is_null() && aggregate.get("std").is_some(),
                    "std null: {aggregate}"
                ),
            }
        }
    }
}

/// Three samples × three repeats with known matches per repeat (TP/FP/FN by hand):
///
/// | repeat | s0 | s1 | s2 (domain `other`) | ΣTP ΣFP ΣFN | F1 |
/// |---|---|---|---|---|---|
/// | 0 | A B (conf 0.9) | A B (conf 0.9) | A B (no conf) | 6 0 0 | 1 |
/// | 1 | A | A B | – | 3 0 3 | 2/3 |
/// | 2 | A X (conf 0.9) | A B X (conf 0.9) | A (conf 0.9) | 4 2 2 | 2/3 |
///
/// Pooled F1 is 26/33 (ΣTP 13, ΣFP 2, ΣFN 5); the runs' mean is 7/9 with std 1/√27.
/// ECE: repeat 0 has 4 correct predictions at 0.9 (ECE 0.1), repeat 1 no confidence (null,
/// left out), repeat 2 has 4 of 6 correct at 0.9 (|4/6 − 0.9|): two runs. In domain
/// `other` only repeat 2 has a confidence: one run, so `std` is null.
#[test]
fn mean_and_std_over_repeats_by_hand() {
    let dir = TempDir::new("repeats-hand");
    let c = Some(0.9);
    let out = |id: &str, repeat: u32, items: &str, conf: Option<f64>| json!({"id": id, "repeat": repeat, "output": answer(items, conf)});
    let lines = [
        out("s0", 0, "AB", c),
        out("s1", 0, "AB", c),
        out("s2", 0, "AB", None),
        out("s0", 1, "A", None),
        out("s1", 1, "AB", None),
        out("s2", 1, "", None),
        out("s0", 2, "AX", c),
        out("s1", 2, "ABX", c),
        out("s2", 2, "A", c),
    ];
    let file = score_outputs(&dir, &samples(), &lines);
    let written = serde_json::to_value(&file).unwrap();
    let all = &written["metrics"];
    // The pooled value is what it always was.
    assert!((all["extraction.f1"]["value"].as_f64().unwrap() - 26.0 / 33.0).abs() < 1e-12);
    let (mean, std) = mean_std(&[1.0, 2.0 / 3.0, 2.0 / 3.0]);
    assert!((mean - 7.0 / 9.0).abs() < 1e-15 && (std - 27f64.sqrt().recip()).abs() < 1e-15);
    assert_spread(&all["extraction.f1"], Some((mean, Some(std))), 3);
    // A metric without support in one repeat leaves that repeat out.
    let ece = [0.1, (4.0 / 6.0 - 0.9f64).abs()];
    let (mean, std) = mean_std(&ece);
    assert_spread(&all["extraction.ece"], Some((mean, Some(std))), 2);
    // No data at all: null mean and std over no runs.
    assert_spread(&all["inference.relevance"], None, 0);
    // Groups too: domain `other` is s2 alone (F1 1, 0, 2/3; ECE only in repeat 2).
    let other = &written["groups"]["domain"]["other"];
    let (mean, std) = mean_std(&[1.0, 0.0, 2.0 / 3.0]);
    assert_spread(&other["extraction.f1"], Some((mean, Some(std))), 3);
    assert_spread(&other["extraction.ece"], Some((0.1, None)), 1);
    // Domain `shop` is s0 and s1: TP/FP/FN 4/0/0, 3/0/1, 3/2/1.
    let shop = &written["groups"]["domain"]["shop"];
    let (mean, std) = mean_std(&[1.0, 6.0 / 7.0, 2.0 / 3.0]);
    assert_spread(&shop["extraction.f1"], Some((mean, Some(std))), 3);
    // Sample-level fields are as before: the mean primary score with its population std.
    assert_eq!(file.samples[2].primary_runs, vec![1.0, 0.0, 2.0 / 3.0]);
    // The file reads back with its spreads.
    let read: ScoreFile = serde_json::from_value(written.clone()).unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap(), written);
}

/// A run of one repeat writes no spread, and score files without one read as before.
#[test]
fn without_repeats_the_score_file_has_no_spread() {
    let dir = TempDir::new("repeats-none");
    let lines: Vec<Value> = ["s0", "s1", "s2"]
        .iter()
        .map(|id| json!({"id": id, "output": answer("A", None)}))
        .collect();
    let file = score_outputs(&dir, &samples(), &lines);
    let mut text = Vec::new();
    file.write_to(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    for key in ["\"mean\"", "\"std\"", "\"runs\""] {
        assert!(!text.contains(key), "{key} in a single run's score");
    }
}

/// `goldgate score` on a run.jsonl whose records carry repeats 0, 1 and 2, in no order, with
/// s2's repeat 1 missing (a record's `repeat` field says which run it belongs to, not its
/// position among the sample's records); latencies differ by repeat.
#[test]
fn score_reports_mean_and_std_over_repeats_end_to_end() {
    let dir = TempDir::new("repeats-e2e");
    std::fs::create_dir_all(dir.0.join("suite")).unwrap();
    write_lines(&dir.0.join("suite/samples.jsonl"), &samples());
    let record = |id: &str, repeat: u32, items: &str, latency: f64| json!({"sample_id": id, "repeat": repeat, "raw_output": answer(items, None).to_string(), "latency_ms": latency});
    write_lines(
        &dir.0.join("run.jsonl"),
        &[
            record("s2", 2, "", 300.0),
            record("s0", 0, "AB", 10.0),
            record("s1", 1, "", 50.0),
            record("s1", 0, "AB", 20.0),
            record("s0", 2, "AB", 100.0),
            record("s2", 0, "AB", 30.0),
            record("s0", 1, "A", 40.0),
            record("s1", 2, "A", 110.0),
        ],
    );
    let out = goldgate(
        &dir.0,
        &[
            "score",
            "--suite",
            "suite",
            "--run",
            "run.jsonl",
            "--output",
            "score.json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.join("score.json")).unwrap()).unwrap();
    assert_eq!(written["provenance"]["repeats"], 3);
    let all = &written["metrics"];
    // F1 per repeat: 6/0/0 → 1; s0 A, s1 nothing → TP 1, FN 3 → 0.4; s0 AB, s1 A, s2
    // nothing → TP 3, FN 3 → 2/3.
    let (mean, std) = mean_std(&[1.0, 0.4, 2.0 / 3.0]);
    assert_spread(&all["extraction.f1"], Some((mean, Some(std))), 3);
    // Latency quantiles over each repeat's records: p50 of [10, 20, 30], [40, 50], [100,
    // 110, 300].
    let (mean, std) = mean_std(&[20.0, 45.0, 110.0]);
    assert_spread(&all["run.latency_p50_ms"], Some((mean, Some(std))), 3);
    // Pooled: the median of all eight latencies.
    assert_eq!(all["run.latency_p50_ms"]["value"], json!(45.0), "pooled");
    // Domain `other` (s2) has no record in repeat 1: F1 1 and 0 over two runs.
    let other = &written["groups"]["domain"]["other"];
    assert_spread(&other["extraction.f1"], Some((0.5, Some(0.5f64.sqrt()))), 2);
    let shop = &written["groups"]["domain"]["shop"];
    let (mean, std) = mean_std(&[1.0, 0.4, 6.0 / 7.0]);
    assert_spread(&shop["extraction.f1"], Some((mean, Some(std))), 3);
    // The terminal summary shows mean ± std beside the pooled value.
    assert!(stdout.contains("mean ± std over runs"), "{stdout}");
    let f1_line = stdout
        .lines()
        .find(|l| l.starts_with("extraction.f1 "))
        .unwrap();
    assert!(f1_line.contains("0.6889 ± 0.3006 (3 runs)"), "{stdout}");
}

/// A candidate and a baseline of three repeats each (the candidate loses B in repeat 1 and
/// 2 on every sample), compared under the recall rule.
fn repeated_gate() -> (Verdict, ScoreFile) {
    let run = |name: &str, per_repeat: [&str; 3]| {
        let dir = TempDir::new(name);
        let lines: Vec<Value> = (0..3u32)
            .flat_map(|r| {
                ["s0", "s1", "s2"].map(|id| {
                    json!({"id": id, "repeat": r, "output": answer(per_repeat[r as usize], None)})
                })
            })
            .collect();
        score_outputs(&dir, &samples(), &lines)
    };
    let base = run("repeats-snap-base", ["AB", "AB", "A"]);
    let cand = run("repeats-snap-cand", ["AB", "A", "A"]);
    let verdict = compare(&cand, Some(&base), &rules(), &options()).unwrap();
    (verdict, cand)
}

/// The verdict carries each side's spread per metric, in verdict.json too.
#[test]
fn the_verdict_carries_both_sides_spreads() {
    let (verdict, _) = repeated_gate();
    let recall = by_name(&verdict)["extraction.recall"];
    let json = serde_json::to_value(recall).unwrap();
    // Candidate recall per repeat: 1, 1/2, 1/2; baseline: 1, 1, 1/2.
    let (mean, std) = mean_std(&[1.0, 0.5, 0.5]);
    assert_spread(&json["candidate_runs"], Some((mean, Some(std))), 3);
    let (mean, std) = mean_std(&[1.0, 1.0, 0.5]);
    assert_spread(&json["baseline_runs"], Some((mean, Some(std))), 3);
}

/// A verdict file from elsewhere keeps the candidate's spreads through `publish`'s checks
/// and judging again; with a trusted baseline, the baseline's spreads are its own.
#[test]
fn published_verdicts_keep_the_spreads() {
    use goldgate_core::gate::rederive::{rederive, RederiveOptions};
    let (verdict, cand) = repeated_gate();
    let dir = TempDir::new("repeats-publish");
    let path = dir.0.join("verdict.json");
    goldgate_core::gate::verdict::write(&path, &verdict).unwrap();
    let read = goldgate_core::gate::untrusted::read(&path).unwrap();
    assert_eq!(read, verdict);
    let options = RederiveOptions {
        ratchet: &[],
        allow_version_change: false,
        reference: None,
    };
    let again = rederive(&read, None, &rules(), options).unwrap().verdict;
    let (before, after) = (by_name(&verdict), by_name(&again));
    let recall = "extraction.recall";
    assert!(after[recall].candidate_runs.is_some());
    assert_eq!(after[recall].candidate_runs, before[recall].candidate_runs);
    assert_eq!(after[recall].baseline_runs, before[recall].baseline_runs);
    // Against a trusted baseline (here the candidate itself), its spreads replace the file's.
    let trusted = rederive(&read, Some(&cand), &rules(), options)
        .unwrap()
        .verdict;
    assert_eq!(
        by_name(&trusted)[recall].baseline_runs,
        cand.metrics[recall].spread
    );
}

#[test]
fn the_rendered_reports_show_mean_and_std() {
    let (verdict, cand) = repeated_gate();
    let comment = markdown::comment(&verdict, "goldgate", None).unwrap();
    let page = html::report(&verdict, &cand, None).unwrap();
    let gated: Vec<_> = verdict
        .metrics
        .iter()
        .filter(|m| m.rule.is_some())
        .collect();
    let metrics = serde_json::to_string_pretty(&gated).unwrap();
    settings().bind(|| {
        insta::assert_snapshot!("repeats_comment", comment);
        insta::assert_snapshot!("repeats_report_html", page);
        insta::assert_snapshot!("repeats_verdict_text", terminal::verdict(&verdict));
        insta::assert_snapshot!("repeats_verdict_brief", terminal::brief(&verdict));
        insta::assert_snapshot!(
            "repeats_score_summary",
            terminal::score_summary(&cand, Path::new("score.json"))
        );
        insta::assert_snapshot!("repeats_verdict_metrics_json", metrics);
    });
}
