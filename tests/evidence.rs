//! A verdict rests on evidence: a rule whose metric has no value in the run (a judge that
//! failed every call, a kind the suite does not have) makes the run incomplete, naming the
//! metric and why; answers that hold none of the keys their kind reads make it incomplete
//! even without a rules file, and `baseline refresh` refuses them; a change is called
//! significant only with enough paired samples for the paired test to reach the rule's
//! confidence.

use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};

use crate::support::openai::{FakeOpenAi, Reply};
use crate::support::output::{assert_exit, text};
use crate::support::project::goldgate;
use crate::support::TempDir;

#[track_caller]
fn exit(out: &Output, code: i32) {
    assert_exit(out, code, "");
}

/// An extraction sample `id` whose gold has `requirements` requirements.
fn extraction(id: &str, requirements: usize) -> Value {
    let items: Vec<Value> = (0..requirements)
        .map(|r| {
            json!({"id": format!("REQ-{r:03}"), "title": format!("Feature {r} of {id}"),
                "type": "functional", "actor": "customer",
                "action": format!("use feature {r} of {id} every day"), "source_messages": [0]})
        })
        .collect();
    json!({"id": id, "kind": "extraction", "domain": "shop",
        "conversation": [{"role": "user", "content": "Customers use the features every day."}],
        "labels": {"requirements": items}})
}

/// The gold requirements of [`extraction`], the first `keep` of them, as an answer.
fn found(id: &str, requirements: usize, keep: usize) -> Value {
    let gold = extraction(id, requirements);
    let items: Vec<Value> = gold["labels"]["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .take(keep)
        .cloned()
        .collect();
    json!({"requirements": items})
}

/// `dir/suite/samples.jsonl` holding `samples`.
fn suite(dir: &Path, samples: &[Value]) {
    std::fs::create_dir_all(dir.join("suite")).unwrap();
    let lines: String = samples.iter().map(|s| format!("{s}\n")).collect();
    std::fs::write(dir.join("suite/samples.jsonl"), lines).unwrap();
}

/// `dir/NAME` answering each sample id with its output.
fn answers(dir: &Path, name: &str, outputs: &[(String, Value)]) {
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

/// A judge rule, and a judge whose endpoint refuses every call (401): every judgement is
/// invalid, so `judge.comprehensive_weighted` has no value. The rule used to read "no data
/// in this run" and pass (exit 0) while `judge.invalid_rate` was 1.0.
#[test]
fn a_judge_rule_whose_judge_fails_every_call_makes_the_run_incomplete() {
    let dir = TempDir::new("evidence-judge-401");
    let server = FakeOpenAi::start(|_| Reply::status(401, "bad key"));
    let sample = |i: usize| {
        json!({"id": format!("e-{i}"), "kind": "e2e", "user_input": "A thermostat app.",
            "reference_srs": "# Reference", "labels": {"requirements": [{"id": "FR-01",
            "title": "Set schedules", "type": "functional", "actor": "user",
            "action": "set heating schedules"}]}})
    };
    suite(&dir.0, &[sample(0), sample(1)]);
    let output = json!({"requirements": [], "srs_markdown": "# Document"});
    answers(
        &dir.0,
        "answers.jsonl",
        &[("e-0".into(), output.clone()), ("e-1".into(), output)],
    );
    std::fs::write(
        dir.0.join("goldgate.toml"),
        format!(
            "[pipeline]\nkind = \"replay\"\nfile = \"answers.jsonl\"\n\n[check]\nsuite = \"suite\"\nallow_missing_baseline = true\n\n[judge]\nmodel = \"judge-model\"\nbase_url = \"{}\"\n",
            server.base_url()
        ),
    )
    .unwrap();
    std::fs::write(
        dir.0.join("thresholds.toml"),
        "version = 1\n[metrics.\"judge.comprehensive_weighted\"]\nmin = 0.6\n",
    )
    .unwrap();
    let out = goldgate(&dir.0, &["check"], &[("GOLDGATE_TEST_BACKOFF_MS", "1")]);
    exit(&out, 3);
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("INCOMPLETE"), "{stdout}");
    assert!(
        stdout.contains("judge.comprehensive_weighted")
            && stdout.contains("no data in this run")
            && stdout.contains("the judge gave no valid review: all 2 judgements were invalid"),
        "{stdout}"
    );
    let verdict: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.0.join(".goldgate/out/verdict.json")).unwrap(),
    )
    .unwrap();
    let metric = verdict["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "judge.comprehensive_weighted")
        .unwrap();
    assert_eq!(metric["status"], "incomplete", "{metric}");
    assert!(
        metric["no_data"]
            .as_str()
            .is_some_and(|why| why.contains("no valid review")),
        "{metric}"
    );
}

/// A rules file's rule on a kind the suite does not have has nothing to judge: the run is
/// incomplete, saying so, instead of the rule holding on "no data".
#[test]
fn a_rule_on_a_kind_the_run_does_not_have_makes_it_incomplete() {
    let dir = TempDir::new("evidence-absent-kind");
    suite(&dir.0, &[extraction("s-0", 2)]);
    answers(
        &dir.0,
        "answers.jsonl",
        &[("s-0".into(), found("s-0", 2, 2))],
    );
    std::fs::write(
        dir.0.join("thresholds.toml"),
        "version = 1\n[metrics.\"extraction.f1\"]\nmin = 0.5\n[metrics.\"inference.recall\"]\nmin = 0.5\n",
    )
    .unwrap();
    let out = check_replay(&dir.0, "answers.jsonl");
    exit(&out, 3);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("inference.recall")
            && stdout.contains("no data in this run: the run has no inference sample"),
        "{stdout}"
    );
}

/// Every answer holds `extracted_requirements` instead of `requirements`: checked without a
/// rules file, this used to read `extraction.f1 – → 0.0000 … ok`, PASS, and `baseline
/// refresh` stored it. The built-in `parse.keyless_rate` ceiling makes the run incomplete,
/// with the keys expected and found, and refresh refuses it.
#[test]
fn keyless_answers_make_the_run_incomplete_and_are_never_a_baseline() {
    let dir = TempDir::new("evidence-keyless");
    let samples: Vec<Value> = (0..8).map(|i| extraction(&format!("s-{i}"), 2)).collect();
    suite(&dir.0, &samples);
    let outputs: Vec<(String, Value)> = (0..8)
        .map(|i| {
            let id = format!("s-{i}");
            let answer = found(&id, 2, 2);
            (
                id,
                json!({"extracted_requirements": answer["requirements"]}),
            )
        })
        .collect();
    answers(&dir.0, "answers.jsonl", &outputs);
    let check = check_replay(&dir.0, "answers.jsonl");
    exit(&check, 3);
    let stdout = text(&check.stdout);
    assert!(stdout.starts_with("INCOMPLETE"), "{stdout}");
    assert!(
        stdout.contains("parse.keyless_rate")
            && stdout.contains(
                "none of the keys extraction reads (requirements); found: extracted_requirements"
            ),
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
    let samples: Vec<Value> = (0..10).map(|i| extraction(&format!("s-{i}"), 2)).collect();
    suite(&dir.0, &samples);
    let outputs: Vec<(String, Value)> = (0..10)
        .map(|i| {
            let id = format!("s-{i}");
            let answer = found(&id, 2, 2);
            let output = match i < 3 {
                true => json!({"reqs": answer["requirements"]}),
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
        let samples: Vec<Value> = ids.iter().map(|id| extraction(id, 2)).collect();
        suite(&dir.0, &samples);
        let all: Vec<_> = ids.iter().map(|id| (id.clone(), found(id, 2, 2))).collect();
        let half: Vec<_> = ids.iter().map(|id| (id.clone(), found(id, 2, 1))).collect();
        answers(&dir.0, "good.jsonl", &all);
        answers(&dir.0, "worse.jsonl", &half);
        std::fs::write(
            dir.0.join("thresholds.toml"),
            "version = 1\n[metrics.\"extraction.recall\"]\nmax_regression = 0.02\nrequire_significance = true\n",
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
