//! A judge rule rests on evidence: a judge that failed every call makes the run
//! incomplete, naming the metric and why.

use serde_json::{json, Value};

use crate::evidence::{answers, exit, suite};
use crate::support::openai::{FakeOpenAi, Reply};
use crate::support::output::text;
use crate::support::project::goldgate;
use crate::support::TempDir;

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
    let metric = crate::support::output::metric_row(&verdict, "judge.comprehensive_weighted");
    assert_eq!(metric["status"], "incomplete", "{metric}");
    assert!(
        metric["no_data"]
            .as_str()
            .is_some_and(|why| why.contains("no valid review")),
        "{metric}"
    );
}
