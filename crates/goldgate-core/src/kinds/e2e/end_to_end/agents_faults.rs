//! The `srs-agents` pipeline's faults, against a scripted OpenAI-compatible server
//! (`support::agents`): malformed JSON, 429 with `Retry-After`, 500, a timeout, a cut
//! stream, `finish_reason: length`, and an agent that never answers JSON (that sample is an
//! error naming the agent; the others are fine); API failures a retry cannot fix stop at
//! once.

use std::time::Duration;

use serde_json::{json, Value};

use super::agents_project::{agents_called, project, quiet, run, script, server, DOC};
use crate::support::openai::Reply;
use crate::support::TempDir;

#[test]
fn faults_are_retried_recorded_and_a_failing_agent_fails_only_its_sample() {
    let dir = TempDir::new("agents-faults");
    let good_parse = r#"[{"id": "FR-01", "content": "The user shall set schedules."}]"#;
    let fake = server(
        script(vec![
            (
                "SAMPLE-MALFORMED",
                "ReqParse",
                vec![
                    Reply::content("```json\n[{\"id\": \"FR-01\", \"content\": \"x\"\n```"),
                    Reply::content(good_parse),
                ],
            ),
            (
                "SAMPLE-RATE",
                "ReqParse",
                vec![
                    Reply::status(429, "slow down").retry_after("1"),
                    Reply::content(good_parse),
                ],
            ),
            (
                "SAMPLE-DOWN",
                "ReqParse",
                vec![
                    Reply::status(500, "upstream exploded"),
                    Reply::content(good_parse),
                ],
            ),
            (
                "SAMPLE-SLOW",
                "ReqParse",
                vec![
                    Reply::content(good_parse).delay(Duration::from_millis(2500)),
                    Reply::content(good_parse),
                ],
            ),
            (
                "SAMPLE-CUT",
                "DocGenerate",
                vec![Reply::content(DOC).cut_after(3), Reply::content(DOC)],
            ),
            (
                "SAMPLE-LENGTH",
                "ReqParse",
                vec![Reply::content(good_parse).finish(Some("length"))],
            ),
            (
                "SAMPLE-LENGTH",
                "ReqExplore",
                vec![
                    Reply::content("[{\"id\": \"FR-01\", \"content\": \"The user shall")
                        .finish(Some("length")),
                    Reply::content("[]"),
                ],
            ),
            (
                "SAMPLE-NOJSON",
                "ReqClarify",
                vec![
                    Reply::content("I cannot score these."),
                    Reply::content("Sorry, still no."),
                    Reply::content("No."),
                ],
            ),
        ]),
        quiet,
    );
    let samples = [
        ("e2e-malformed", "SAMPLE-MALFORMED", false),
        ("e2e-rate", "SAMPLE-RATE", false),
        ("e2e-down", "SAMPLE-DOWN", false),
        ("e2e-slow", "SAMPLE-SLOW", false),
        ("e2e-cut", "SAMPLE-CUT", false),
        ("e2e-length", "SAMPLE-LENGTH", false),
        ("e2e-nojson", "SAMPLE-NOJSON", false),
    ];
    project(
        &dir.0,
        &samples,
        &fake.base_url(),
        "timeout_secs = 1",
        "max_iterations = 1\nbackoff_secs = 0.01",
    );
    let (out, records) = run(&dir.0, &[]);
    // One sample of seven failed: more than the built-in run.error_rate rule allows.
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(records.len(), 7, "every sample has its record");
    let retries = |id: &str, call: usize| records[id]["trace"]["calls"][call]["retries"].clone();
    for id in [
        "e2e-malformed",
        "e2e-rate",
        "e2e-down",
        "e2e-slow",
        "e2e-cut",
        "e2e-length",
    ] {
        assert_eq!(records[id]["error"], Value::Null, "{id}: {}", records[id]);
        assert_eq!(
            records[id]["trace"]["calls"].as_array().unwrap().len(),
            4,
            "{id}"
        );
        assert_eq!(
            records[id]["trace"]["state"]["requirements"][0]["id"], "FR-01",
            "{id}"
        );
    }
    // Malformed JSON, then a good answer.
    let r = retries("e2e-malformed", 0);
    assert_eq!(r.as_array().unwrap().len(), 1);
    assert_eq!(r[0]["error"], "no JSON array or object in the answer");
    assert!(r[0]["raw_output"]
        .as_str()
        .unwrap()
        .contains("\"content\": \"x\""));
    assert!(
        (r[0]["waited_ms"].as_f64().unwrap() - 10.0).abs() < 1e-6,
        "{r}"
    );
    // 429: the server's Retry-After (1 s) is longer than the backoff (10 ms), so it wins.
    let r = retries("e2e-rate", 0);
    assert!(r[0]["error"].as_str().unwrap().contains("429"), "{r}");
    assert_eq!(r[0]["waited_ms"], 1000.0);
    // 500, then success.
    let r = retries("e2e-down", 0);
    assert!(r[0]["error"].as_str().unwrap().contains("500"), "{r}");
    // A timeout, then success.
    let r = retries("e2e-slow", 0);
    assert_eq!(r.as_array().unwrap().len(), 1);
    assert!(r[0]["error"].as_str().unwrap().contains("time"), "{r}");
    // DocGenerate's stream cut mid-way, then a whole one.
    let r = retries("e2e-cut", 3);
    assert_eq!(r.as_array().unwrap().len(), 1, "{r}");
    assert_eq!(records["e2e-cut"]["prediction"]["srs_markdown"], DOC.trim());
    // finish_reason length is recorded; a cut JSON answer is retried, saying why.
    let calls = &records["e2e-length"]["trace"]["calls"];
    assert_eq!(calls[0]["finish_reason"], "length");
    assert_eq!(
        records["e2e-length"]["finish_reason"], "length",
        "the record says an answer was cut"
    );
    assert_eq!(records["e2e-down"]["finish_reason"], "stop");
    assert_eq!(calls[1]["finish_reason"], "stop");
    let r = retries("e2e-length", 1);
    assert_eq!(
        r[0]["error"],
        "no JSON array or object in the answer (the answer was cut at the token limit: finish_reason length)"
    );
    assert_eq!(r[0]["finish_reason"], "length");
    // An agent that never answers JSON: its sample is an error naming it and the round,
    // with the trace so far (the failed call's three attempts included).
    let failed = &records["e2e-nojson"];
    assert_eq!(
        failed["error"],
        json!({"kind": "output", "message": "ReqClarify in round 1 failed after 3 attempts: no JSON array or object in the answer"})
    );
    assert_eq!(
        agents_called(failed),
        ["ReqParse", "ReqExplore", "ReqClarify"]
    );
    let clarify = &failed["trace"]["calls"][2];
    assert_eq!(clarify["retries"].as_array().unwrap().len(), 3);
    assert_eq!(clarify["retries"][2]["raw_output"], "No.");
    assert!(clarify.get("raw_output").is_none());
    assert_eq!(failed["trace"]["state"]["iterations"], 0);
    assert_eq!(
        failed["usage"]["total_tokens"], 75,
        "five answers of 15 tokens were spent"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ReqClarify in round 1 failed after 3 attempts"),
        "{stderr}"
    );
}

#[test]
fn api_failures_that_a_retry_cannot_fix_stop_at_once() {
    let dir = TempDir::new("agents-401");
    let fake = server(
        script(vec![(
            "SAMPLE-AUTH",
            "ReqParse",
            vec![Reply::status(401, "bad key")],
        )]),
        quiet,
    );
    project(
        &dir.0,
        &[("e2e-auth", "SAMPLE-AUTH", false)],
        &fake.base_url(),
        "",
        "backoff_secs = 0.01",
    );
    let (_, records) = run(&dir.0, &[]);
    let error = &records["e2e-auth"]["error"];
    assert_eq!(error["kind"], "http");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("ReqParse failed after 1 attempt: ") && message.contains("401"),
        "{message}"
    );
    assert_eq!(fake.calls().len(), 1);
}
