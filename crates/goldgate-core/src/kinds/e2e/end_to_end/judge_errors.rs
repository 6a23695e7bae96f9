//! The LLM judge when things go wrong: invalid judgements recorded with the answer and the
//! reason while the run goes on, a server asking to wait waited for, a judge rule without a
//! judge and a bad `[judge]` table refused before any call.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use super::judging::{
    ab_project, ab_server, close, e2e, judge_table, ok, project, record, run, scored, verdict, A,
};
use crate::support::openai::{ChatCall, FakeOpenAi, Reply};
use crate::support::project::{goldgate, run_lines};
use crate::support::TempDir;

#[test]
fn invalid_judgements_are_recorded_with_the_answer_and_the_run_goes_on() {
    let dir = TempDir::new("judge-invalid");
    let flaky = AtomicUsize::new(0);
    let server = FakeOpenAi::start(move |call: &ChatCall| {
        let user = call.message("user");
        if user.contains("DOC-OUT") {
            Reply::content(verdict([1.4, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [None; 3]))
        } else if user.contains("DOC-FLAKY") {
            match flaky.fetch_add(1, Ordering::SeqCst) {
                0 => Reply::content("I cannot produce JSON today."),
                1 => Reply::status(500, "overloaded"),
                _ => Reply::content(verdict(A, [None; 3])),
            }
        } else if user.contains("DOC-MISSING") {
            Reply::content(r#"{"metrics": {"coverage": 0.5}}"#)
        } else {
            Reply::status(401, "bad key")
        }
    });
    project(
        &dir.0,
        &[
            e2e("out", Some("REF")),
            e2e("flaky", Some("REF")),
            e2e("missing-field", Some("REF")),
            e2e("no-doc", Some("REF")),
            e2e("not-json", Some("REF")),
            e2e("refused", Some("REF")),
        ],
        &[
            (
                "out",
                json!({"requirements": [], "srs_markdown": "DOC-OUT"}),
            ),
            (
                "flaky",
                json!({"requirements": [], "srs_markdown": "DOC-FLAKY"}),
            ),
            (
                "missing-field",
                json!({"requirements": [], "srs_markdown": "DOC-MISSING"}),
            ),
            ("no-doc", json!({"requirements": []})),
            ("not-json", json!("Sorry, I could not write the SRS.")),
            (
                "refused",
                json!({"requirements": [], "srs_markdown": "DOC-REFUSED"}),
            ),
        ],
        Some(&judge_table(&server, "")),
    );
    let out = run(&dir.0, "run.jsonl");
    ok(&out);
    let records = run_lines(&dir.0.join("run.jsonl"));
    let only = |id: &str| record(&records, id)["judge"]["judgements"][0].clone();

    let j = only("out");
    assert_eq!(j["attempts"], json!(6), "{j}");
    assert_eq!(
        j["invalid"],
        json!("`metrics.coverage` = 1.4 is outside [0, 1]")
    );
    assert!(j["raw"].as_str().unwrap().contains("1.4") && j.get("metrics").is_none());
    // Every attempt's tokens.
    assert_eq!(
        j["usage"],
        json!({"prompt_tokens": 60, "completion_tokens": 30})
    );

    let j = only("missing-field");
    assert_eq!(
        j["invalid"],
        json!("`metrics.completeness` is missing"),
        "{j}"
    );

    let j = only("flaky");
    assert_eq!(j["attempts"], json!(3), "{j}");
    assert!(
        close(&j["metrics"]["coverage"], 0.8)
            && j.get("invalid").is_none()
            && j.get("raw").is_none()
    );

    let j = only("refused");
    assert_eq!(j["attempts"], json!(1), "a 401 is not asked again: {j}");
    assert!(j["invalid"].as_str().unwrap().contains("401"), "{j}");

    let j = only("no-doc");
    assert_eq!(
        j["invalid"],
        json!("nothing to judge: the answer has no `srs_markdown`")
    );
    assert_eq!(j["attempts"], json!(0));
    assert_eq!(
        only("not-json")["invalid"],
        json!("nothing to judge: the answer is not JSON")
    );

    let calls = server.calls();
    let asked = |doc: &str| {
        calls
            .iter()
            .filter(|c| c.message("user").contains(doc))
            .count()
    };
    assert_eq!(
        (
            asked("DOC-OUT"),
            asked("DOC-MISSING"),
            asked("DOC-FLAKY"),
            asked("DOC-REFUSED")
        ),
        (6, 6, 3, 1)
    );

    // Invalid judgements are not scores of 0: only `flaky` counts towards n.
    let m = &scored(&dir.0, "run.jsonl")["metrics"];
    assert_eq!(m["judge.coverage"]["n"], json!(1));
    assert!(close(&m["judge.coverage"]["value"], 0.8));
    assert!(
        close(&m["judge.invalid_rate"]["value"], 5.0 / 6.0),
        "{}",
        m["judge.invalid_rate"]
    );
    assert_eq!(m["judge.invalid_rate"]["n"], json!(6));

    // Invalid judgements are not cached: a rerun asks for them again, the valid one not.
    ok(&run(&dir.0, "again.jsonl"));
    let again: usize = server.calls().len() - calls.len();
    assert_eq!(
        again,
        6 + 6 + 1,
        "asked again: the two invalid answers and the refused call"
    );
}

#[test]
fn a_server_asking_to_wait_is_waited_for() {
    let dir = TempDir::new("judge-retry-after");
    let server = FakeOpenAi::scripted(vec![
        Reply::status(429, "slow down").retry_after("1"),
        Reply::content(verdict(A, [None; 3])),
    ]);
    project(
        &dir.0,
        &[e2e("e-0", Some("REF"))],
        &[("e-0", json!({"requirements": [], "srs_markdown": "DOC"}))],
        Some(&judge_table(&server, "")),
    );
    let started = Instant::now();
    ok(&run(&dir.0, "run.jsonl"));
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 is honoured"
    );
    let records = run_lines(&dir.0.join("run.jsonl"));
    let j = &record(&records, "e-0")["judge"]["judgements"][0];
    assert_eq!(j["attempts"], json!(2));
    assert!(j["metrics"].is_object(), "{j}");
}

#[test]
fn a_judge_rule_without_a_judge_is_refused_before_any_call() {
    let dir = TempDir::new("judge-rule-no-judge");
    let server = ab_server();
    ab_project(&dir.0, None);
    std::fs::write(
        dir.0.join("thresholds.toml"),
        "version = 1\n\n[metrics.\"judge.comprehensive_weighted\"]\nmin = 0.5\n",
    )
    .unwrap();
    // A pipeline that would cost something: refused before it is called.
    let out = goldgate(
        &dir.0,
        &[
            "run",
            "--suite",
            "suite",
            "--chat",
            "--base-url",
            &server.base_url(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("thresholds.toml:3")
            && stderr.contains(
                "a rule gates judge.comprehensive_weighted, but goldgate.toml configures no judge"
            ),
        "{stderr}"
    );
    assert!(server.calls().is_empty());
}

#[test]
fn a_bad_judge_table_names_its_line() {
    let dir = TempDir::new("judge-bad-config");
    ab_project(&dir.0, Some("model = \"m\"\ntemperature = 3\n"));
    let out = run(&dir.0, "run.jsonl");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("goldgate.toml:10") && stderr.contains("temperature = 3 is out of range"),
        "{stderr}"
    );
    ab_project(&dir.0, Some("model = \"m\"\nprompt = \"nowhere.j2\"\n"));
    let stderr = String::from_utf8_lossy(&run(&dir.0, "run.jsonl").stderr).into_owned();
    assert!(
        stderr.contains("goldgate.toml:10") && stderr.contains("nowhere.j2 does not exist"),
        "{stderr}"
    );
    std::fs::write(
        dir.0.join("bad.j2"),
        "{{ reference_srs }} {{ sample_id }}\n",
    )
    .unwrap();
    ab_project(
        &dir.0,
        Some("model = \"m\"\nprompt = \"bad.j2\"\nbase_url = \"http://127.0.0.1:9/v1\"\n"),
    );
    let stderr = String::from_utf8_lossy(&run(&dir.0, "run.jsonl").stderr).into_owned();
    assert!(
        stderr.contains("bad.j2:1") && stderr.contains("cannot be rendered"),
        "{stderr}"
    );
}
