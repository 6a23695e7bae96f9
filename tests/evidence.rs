//! A verdict rests on evidence: a rule whose metric has no value in the run (a kind the
//! suite does not have; a judge that failed every call is the judged kind's test) makes the
//! run incomplete, naming the
//! metric and why; answers that hold none of the keys their kind reads make it incomplete
//! even without a rules file, and `baseline refresh` refuses them; a change is called
//! significant only with enough paired samples for the paired test to reach the rule's
//! confidence.

use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};

use crate::support::output::{assert_exit, text};
use crate::support::project::goldgate;
use crate::support::{test_kind, TempDir};

#[track_caller]
pub(crate) fn exit(out: &Output, code: i32) {
    assert_exit(out, code, "");
}

/// The marks of sample `id`: `n` features.
fn marks(id: &str, n: usize) -> Vec<String> {
    (0..n).map(|r| format!("feature {r} of {id}")).collect()
}

/// A sample `id` of the test kind whose gold has `n` marks.
fn sample(id: &str, n: usize) -> Value {
    let marks = marks(id, n);
    let marks: Vec<&str> = marks.iter().map(String::as_str).collect();
    let mut sample = test_kind::sample(id, "Customers use the features every day.", &marks);
    sample["domain"] = json!("shop");
    sample
}

/// The gold marks of [`sample`], the first `keep` of them, as an answer.
fn found(id: &str, n: usize, keep: usize) -> Value {
    let marks = marks(id, n);
    let marks: Vec<&str> = marks.iter().take(keep).map(String::as_str).collect();
    test_kind::answer(&marks)
}

/// `dir/suite/samples.jsonl` holding `samples`.
pub(crate) fn suite(dir: &Path, samples: &[Value]) {
    std::fs::create_dir_all(dir.join("suite")).unwrap();
    let lines: String = samples.iter().map(|s| format!("{s}\n")).collect();
    std::fs::write(dir.join("suite/samples.jsonl"), lines).unwrap();
}

/// `dir/NAME` answering each sample id with its output.
pub(crate) fn answers(dir: &Path, name: &str, outputs: &[(String, Value)]) {
    let lines: String = outputs
        .iter()
        .map(|(id, output)| format!("{}\n", json!({"id": id, "output": output})))
        .collect();
    std::fs::write(dir.join(name), lines).unwrap();
}

/// `goldgate check` of `dir/suite` replaying `answers`, no baseline needed.
fn check_replay(dir: &Path, answers: &str) -> Output {
    let args = [
        "check",
        "--suite",
        "suite",
        "--replay",
        answers,
        "--allow-missing-baseline",
    ];
    goldgate(dir, &args, &[])
}

/// `goldgate baseline refresh` of `dir/suite` replaying `answers`, with `env` added.
fn refresh(dir: &Path, answers: &str, env: &[(&str, &str)]) -> Output {
    let args = [
        "baseline", "refresh", "--suite", "suite", "--replay", answers,
    ];
    goldgate(dir, &args, env)
}

/// A rules file's rule on a kind the suite does not have has nothing to judge: the run is
/// incomplete, saying so, instead of the rule holding on "no data".
#[test]
fn a_rule_on_a_kind_the_run_does_not_have_makes_it_incomplete() {
    let dir = TempDir::new("evidence-absent-kind");
    suite(&dir.0, &[sample("s-0", 2)]);
    answers(
        &dir.0,
        "answers.jsonl",
        &[("s-0".into(), found("s-0", 2, 2))],
    );
    // A listed kind's primary metric: the suite has none of its samples.
    let absent = goldgate_core::kinds::listed().next().unwrap();
    let absent_metric = goldgate_core::kinds::of(absent).primary_metric();
    std::fs::write(
        dir.0.join("thresholds.toml"),
        format!(
            "version = 1\n[metrics.\"{}\"]\nmin = 0.5\n[metrics.\"{absent_metric}\"]\nmin = 0.5\n",
            test_kind::metric("f1")
        ),
    )
    .unwrap();
    let out = check_replay(&dir.0, "answers.jsonl");
    exit(&out, 3);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(absent_metric)
            && stdout.contains(&format!(
                "no data in this run: the run has no {} sample",
                absent.as_str()
            )),
        "{stdout}"
    );
}

/// Every answer holds `extracted_KEY` instead of the kind's `KEY`: checked without a rules
/// file, this used to read `KIND.f1 – → 0.0000 … ok`, PASS, and `baseline refresh` stored
/// it. The built-in `parse.keyless_rate` ceiling makes the run incomplete,
/// with the keys expected and found, and refresh refuses it.
#[test]
fn keyless_answers_make_the_run_incomplete_and_are_never_a_baseline() {
    let dir = TempDir::new("evidence-keyless");
    let samples: Vec<Value> = (0..8).map(|i| sample(&format!("s-{i}"), 2)).collect();
    suite(&dir.0, &samples);
    let outputs: Vec<(String, Value)> = (0..8)
        .map(|i| {
            let id = format!("s-{i}");
            let answer = found(&id, 2, 2);
            let mut keyless = serde_json::Map::new();
            keyless.insert(
                format!("extracted_{}", test_kind::key()),
                answer[test_kind::key()].clone(),
            );
            (id, Value::Object(keyless))
        })
        .collect();
    answers(&dir.0, "answers.jsonl", &outputs);
    let check = check_replay(&dir.0, "answers.jsonl");
    exit(&check, 3);
    let stdout = text(&check.stdout);
    assert!(stdout.starts_with("INCOMPLETE"), "{stdout}");
    assert!(
        stdout.contains("parse.keyless_rate")
            && stdout.contains(&format!(
                "none of the keys {kind} reads ({key}); found: extracted_{key}",
                kind = test_kind::name(),
                key = test_kind::key()
            )),
        "{stdout}"
    );
    let refresh = refresh(
        &dir.0,
        "answers.jsonl",
        &[("TMPDIR", dir.0.to_str().unwrap())],
    );
    exit(&refresh, 3);
    let stderr = text(&refresh.stderr);
    assert!(
        stderr.contains("parse.keyless_rate") && stderr.contains("the baseline was not changed"),
        "{stderr}"
    );
    assert!(!dir.0.join("baselines/main.json").exists());
}

/// `parse.keyless_rate` is a metric a rules file gates like the other run-health rates:
/// 3 keyless answers in 10 pass the built-in ceiling of one half, not a ceiling of 0.2.
#[test]
fn a_rules_file_sets_the_keyless_ceiling() {
    let dir = TempDir::new("evidence-keyless-rule");
    let samples: Vec<Value> = (0..10).map(|i| sample(&format!("s-{i}"), 2)).collect();
    suite(&dir.0, &samples);
    let outputs: Vec<(String, Value)> = (0..10)
        .map(|i| {
            let id = format!("s-{i}");
            let answer = found(&id, 2, 2);
            let output = match i < 3 {
                true => json!({"reqs": answer[test_kind::key()]}),
                false => answer,
            };
            (id, output)
        })
        .collect();
    answers(&dir.0, "answers.jsonl", &outputs);
    exit(&check_replay(&dir.0, "answers.jsonl"), 0);
    std::fs::write(
        dir.0.join("thresholds.toml"),
        "version = 1\n[metrics.\"parse.keyless_rate\"]\nmax = 0.2\n",
    )
    .unwrap();
    let out = check_replay(&dir.0, "answers.jsonl");
    exit(&out, 3);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("0.3000 is above the ceiling 0.2000") && stdout.contains("found: reqs"),
        "{stdout}"
    );
}

/// One sample, and a pipeline that drops one of its two requirements: a regression rule
/// requiring significance used to fail it on a zero-width interval drawn from that one
/// sample. Below the samples the paired test needs at the rule's confidence, the change is
/// not tested ("too few samples to test") and only floors and ceilings apply; the same drop
/// on six samples is a significant failure.
#[test]
fn a_change_on_too_few_samples_is_not_called_significant() {
    let gate = |n: usize| {
        let dir = TempDir::new(&format!("evidence-too-few-{n}"));
        let ids: Vec<String> = (0..n).map(|i| format!("s-{i}")).collect();
        let samples: Vec<Value> = ids.iter().map(|id| sample(id, 2)).collect();
        suite(&dir.0, &samples);
        let all: Vec<_> = ids.iter().map(|id| (id.clone(), found(id, 2, 2))).collect();
        let half: Vec<_> = ids.iter().map(|id| (id.clone(), found(id, 2, 1))).collect();
        answers(&dir.0, "good.jsonl", &all);
        answers(&dir.0, "worse.jsonl", &half);
        std::fs::write(
            dir.0.join("thresholds.toml"),
            format!(
                "version = 1\n[metrics.\"{}\"]\nmax_regression = 0.02\nrequire_significance = true\n",
                test_kind::metric("recall")
            ),
        )
        .unwrap();
        let refresh = refresh(&dir.0, "good.jsonl", &[]);
        exit(&refresh, 0);
        let out = goldgate(
            &dir.0,
            &["check", "--suite", "suite", "--replay", "worse.jsonl"],
            &[],
        );
        (out, dir)
    };
    let (one, _dir) = gate(1);
    exit(&one, 0);
    let stdout = text(&one.stdout);
    assert!(
        stdout.contains("too few samples to test: n = 1, at least 6 needed at 95%"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("[-0.500, -0.500]"),
        "no interval from one sample: {stdout}"
    );
    let (six, _dir) = gate(6);
    exit(&six, 1);
    let stdout = text(&six.stdout);
    assert!(
        stdout.starts_with("FAIL") && !stdout.contains("too few samples"),
        "{stdout}"
    );
}
