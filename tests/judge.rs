//! The LLM judge against a scripted OpenAI-compatible server: each e2e answer reviewed once
//! per judge repeat right after it comes back, the judgements averaged into `judge.*`
//! metrics (checked against hand-computed values), invalid judgements recorded with the
//! answer and the reason while the run goes on, retries, the judge cache (a rerun makes no
//! call; editing the judge prompt asks again), replayed reviews kept, and `goldgate judge`
//! reviewing an existing run file.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::openai::{ChatCall, FakeOpenAi, Reply};
use crate::support::project::{goldgate, run_lines};
use crate::support::TempDir;

/// A judge's answer with these seven metrics (rubric order) and categories.
pub(crate) fn verdict(v: [f64; 7], categories: [Option<f64>; 3]) -> String {
    json!({"metrics": {
        "coverage": v[0], "completeness": v[1], "consistency": v[2], "testability": v[3],
        "clarity": v[4], "traceability": v[5], "scope_discipline": v[6],
        "by_category": {"functional": categories[0], "non_functional": categories[1], "constraints": categories[2]}
    }})
    .to_string()
}

/// 0.20 coverage + 0.20 completeness + 0.10 consistency + 0.20 testability + 0.10 clarity
/// + 0.15 traceability + 0.05 scope_discipline.
pub(crate) fn weighted(v: [f64; 7]) -> f64 {
    0.20 * v[0] + 0.20 * v[1] + 0.10 * v[2] + 0.20 * v[3] + 0.10 * v[4] + 0.15 * v[5] + 0.05 * v[6]
}

pub(crate) const A: [f64; 7] = [0.8, 0.6, 1.0, 0.5, 0.9, 0.4, 0.7];
const B1: [f64; 7] = [0.6, 0.4, 0.8, 0.7, 0.7, 0.6, 0.9];
const B2: [f64; 7] = [1.0, 0.8, 1.0, 0.9, 0.9, 1.0, 1.0];

/// An e2e sample (`reference` `None`: without a reference SRS).
pub(crate) fn e2e(id: &str, reference: Option<&str>) -> Value {
    let mut s = json!({"id": id, "kind": "e2e", "user_input": "A thermostat app: users set heating schedules.",
        "labels": {"requirements": [{"id": "FR-01", "title": "Set schedules", "type": "functional",
            "actor": "user", "action": "set heating schedules"}]}});
    if let Some(r) = reference {
        s["reference_srs"] = json!(r);
    }
    s
}

/// A project: the suite, an outputs file answering each sample, and goldgate.toml replaying
/// it with `judge` as the `[judge]` table's body (`None`: no judge).
pub(crate) fn project(
    dir: &Path,
    samples: &[Value],
    answers: &[(&str, Value)],
    judge: Option<&str>,
) {
    std::fs::create_dir_all(dir.join("suite")).unwrap();
    let lines: String = samples.iter().map(|s| format!("{s}\n")).collect();
    std::fs::write(dir.join("suite/samples.jsonl"), lines).unwrap();
    let lines: String = answers
        .iter()
        .map(|(id, output)| format!("{}\n", json!({"id": id, "output": output})))
        .collect();
    std::fs::write(dir.join("answers.jsonl"), lines).unwrap();
    configure(dir, judge);
}

fn configure(dir: &Path, judge: Option<&str>) {
    let mut config =
        "[pipeline]\nkind = \"replay\"\nfile = \"answers.jsonl\"\n\n[check]\nsuite = \"suite\"\n"
            .to_string();
    if let Some(body) = judge {
        config.push_str(&format!("\n[judge]\n{body}\n"));
    }
    std::fs::write(dir.join("goldgate.toml"), config).unwrap();
}

pub(crate) fn judge_table(server: &FakeOpenAi, more: &str) -> String {
    format!(
        "model = \"judge-model\"\nbase_url = \"{}\"\n{more}",
        server.base_url()
    )
}

pub(crate) fn run(dir: &Path, output: &str) -> std::process::Output {
    goldgate(
        dir,
        &["run", "--suite", "suite", "--output", output],
        &[("GOLDGATE_TEST_BACKOFF_MS", "1")],
    )
}

pub(crate) fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub(crate) fn record<'a>(records: &'a [Value], id: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r["sample_id"] == json!(id))
        .unwrap()
}

/// `goldgate score` of a run file; the score file's metrics.
pub(crate) fn scored(dir: &Path, run: &str) -> Value {
    let out = goldgate(
        dir,
        &[
            "score",
            "--suite",
            "suite",
            "--run",
            run,
            "--output",
            "score.json",
        ],
        &[],
    );
    ok(&out);
    let score: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("score.json")).unwrap()).unwrap();
    score
}

pub(crate) fn close(v: &Value, expected: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - expected).abs() < 1e-9)
}

/// Answers DOC-A with A every time and DOC-B with B1 and B2 in turn.
fn ab_server() -> FakeOpenAi {
    let b = AtomicUsize::new(0);
    FakeOpenAi::start(move |call: &ChatCall| {
        let user = call.message("user");
        if user.contains("DOC-A") {
            Reply::content(verdict(A, [Some(0.9), Some(0.5), None]))
        } else if user.contains("DOC-B") {
            let scores = [B1, B2][b.fetch_add(1, Ordering::SeqCst) % 2];
            Reply::content(format!(
                "Here is my review:\n```json\n{}\n```",
                verdict(scores, [Some(0.7), None, None])
            ))
        } else {
            Reply::content("unexpected document")
        }
    })
}

fn ab_project(dir: &Path, judge: Option<&str>) {
    project(
        dir,
        &[
            e2e("e-0", Some("# Reference REF-0")),
            e2e("e-1", Some("# Reference REF-1")),
            e2e("e-2", None),
            json!({"id": "x-0", "kind": "extraction", "conversation": [{"role": "user", "content": "Customers track orders."}],
                "labels": {"requirements": [{"id": "REQ-001", "title": "Track orders", "type": "functional",
                "actor": "customer", "action": "track orders", "source_messages": [0]}]}}),
        ],
        &[
            (
                "e-0",
                json!({"requirements": [], "srs_markdown": "# DOC-A"}),
            ),
            (
                "e-1",
                json!({"requirements": [], "srs_markdown": "# DOC-B"}),
            ),
            (
                "e-2",
                json!({"requirements": [], "srs_markdown": "# DOC-C"}),
            ),
            ("x-0", json!({"requirements": []})),
        ],
        judge,
    );
}

#[test]
fn each_e2e_answer_is_reviewed_once_per_judge_repeat_and_the_metrics_are_their_means() {
    let dir = TempDir::new("judge-runner");
    let server = ab_server();
    ab_project(
        &dir.0,
        Some(&judge_table(
            &server,
            "judge_repeats = 2\n[judge.pricing]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n",
        )),
    );
    ok(&run(&dir.0, "run.jsonl"));
    let calls = server.calls();
    // Two e2e samples with a reference, two judge repeats each; the sample without a
    // reference and the extraction sample are not the judge's.
    assert_eq!(calls.len(), 4);
    for call in &calls {
        assert_eq!(call.body["model"], json!("judge-model"));
        assert_eq!(call.body["temperature"], json!(0.2));
        assert!(
            call.message("system").contains("reviewer"),
            "{}",
            call.message("system")
        );
        let user = call.message("user");
        assert!(
            (user.contains("REF-0") && user.contains("DOC-A"))
                || (user.contains("REF-1") && user.contains("DOC-B")),
            "{user}"
        );
    }
    let records = run_lines(&dir.0.join("run.jsonl"));
    assert!(record(&records, "e-2").get("judge").is_none());
    assert!(record(&records, "x-0").get("judge").is_none());
    let judged = &record(&records, "e-0")["judge"];
    assert_eq!(judged["model"], json!("judge-model"));
    assert!(judged["prompt_fingerprint"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));
    let judgements = judged["judgements"].as_array().unwrap();
    assert_eq!(judgements.len(), 2);
    for j in judgements {
        assert!(close(&j["metrics"]["coverage"], 0.8), "{j}");
        assert_eq!(j["attempts"], json!(1));
        assert_eq!(
            j["usage"],
            json!({"prompt_tokens": 10, "completion_tokens": 5})
        );
        // 10 tokens at $1 and 5 at $2 per million.
        assert!(close(&j["cost_usd"], 2e-5), "{j}");
        assert!(j.get("cached").is_none() && j.get("invalid").is_none());
    }

    let score = scored(&dir.0, "run.jsonl");
    let m = &score["metrics"];
    // e-0: A twice; e-1: the mean of B1 and B2 = [0.8, 0.6, 0.9, 0.8, 0.8, 0.8, 0.95].
    let b_mean: Vec<f64> = B1.iter().zip(B2).map(|(x, y)| (x + y) / 2.0).collect();
    assert!(
        close(&m["judge.coverage"]["value"], (0.8 + 0.8) / 2.0),
        "{}",
        m["judge.coverage"]
    );
    assert_eq!(m["judge.coverage"]["n"], json!(2));
    assert!(close(&m["judge.testability"]["value"], (0.5 + 0.8) / 2.0));
    let simple = (A.iter().sum::<f64>() / 7.0 + b_mean.iter().sum::<f64>() / 7.0) / 2.0;
    assert!(
        close(&m["judge.comprehensive_simple"]["value"], simple),
        "{}",
        m["judge.comprehensive_simple"]
    );
    // By hand: A weighs 0.16 + 0.12 + 0.10 + 0.10 + 0.09 + 0.06 + 0.035 = 0.665; B1 0.625,
    // B2 0.2 + 0.16 + 0.1 + 0.18 + 0.09 + 0.15 + 0.05 = 0.93, their mean 0.7775; the mean of
    // the two samples (0.665 + 0.7775) / 2 = 0.72125.
    assert!((weighted(A) - 0.665).abs() < 1e-12 && (weighted(B1) - 0.625).abs() < 1e-12);
    assert!((weighted(B2) - 0.93).abs() < 1e-12);
    assert!(
        close(&m["judge.comprehensive_weighted"]["value"], 0.72125),
        "{}",
        m["judge.comprehensive_weighted"]
    );
    assert!(
        m["judge.comprehensive_weighted"]["ci"].is_array(),
        "an interval like every metric"
    );
    // Categories: functional (0.9 + 0.7) / 2; non-functional only e-0's; constraints: none.
    assert!(close(&m["judge.by_category.functional"]["value"], 0.8));
    assert!(close(&m["judge.by_category.non_functional"]["value"], 0.5));
    assert_eq!(m["judge.by_category.non_functional"]["n"], json!(1));
    assert_eq!(m["judge.by_category.constraints"]["value"], Value::Null);
    assert_eq!(m["judge.by_category.constraints"]["n"], json!(0));
    // The judge's own spread: e-0 0, e-1 |0.93 - 0.625| / 2 = 0.1525; mean 0.07625.
    assert!(
        close(&m["judge.spread"]["value"], 0.07625),
        "{}",
        m["judge.spread"]
    );
    assert!(close(&m["judge.invalid_rate"]["value"], 0.0));
    assert!(close(&m["judge.cost_usd"]["value"], 4.0 * 2e-5));
    // Per sample, and in provenance.
    let e1 = score["samples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == json!("e-1"))
        .unwrap();
    assert!(
        close(&e1["metrics"]["judge.comprehensive_weighted"], 0.7775),
        "{e1}"
    );
    let judge = &score["provenance"]["scoring"]["judge"];
    assert_eq!(judge["model"], json!("judge-model"));
    assert_eq!(judge["prompt_fingerprint"], judged["prompt_fingerprint"]);
}

#[test]
fn a_rerun_asks_the_judge_nothing_and_a_changed_prompt_asks_again() {
    let dir = TempDir::new("judge-cache");
    let server = ab_server();
    std::fs::write(
        dir.0.join("judge.j2"),
        "Judge {{ srs_markdown }} against {{ reference_srs }}.\n",
    )
    .unwrap();
    ab_project(
        &dir.0,
        Some(&judge_table(&server, "prompt = \"judge.j2\"\n")),
    );
    ok(&run(&dir.0, "run.jsonl"));
    assert_eq!(server.calls().len(), 2);
    let users: Vec<String> = server.calls().iter().map(|c| c.message("user")).collect();
    assert!(
        users.contains(&"Judge # DOC-A against # Reference REF-0.\n".to_string()),
        "{users:?}"
    );
    let first = run_lines(&dir.0.join("run.jsonl"));

    // Again: every judgement from the judge cache, none asked.
    ok(&run(&dir.0, "again.jsonl"));
    assert_eq!(server.calls().len(), 2, "a rerun costs nothing");
    let again = run_lines(&dir.0.join("again.jsonl"));
    for id in ["e-0", "e-1"] {
        let j = &record(&again, id)["judge"]["judgements"][0];
        assert_eq!(
            (j["cached"].clone(), j["attempts"].clone()),
            (json!(true), json!(0)),
            "{j}"
        );
        assert_eq!(
            j["metrics"],
            record(&first, id)["judge"]["judgements"][0]["metrics"]
        );
    }
    let fingerprint = record(&again, "e-0")["judge"]["prompt_fingerprint"].clone();

    // Editing the judge's prompt is another judge: asked again, with another fingerprint.
    std::fs::write(
        dir.0.join("judge.j2"),
        "Review {{ srs_markdown }} against {{ reference_srs }}.\n",
    )
    .unwrap();
    ok(&run(&dir.0, "edited.jsonl"));
    assert_eq!(server.calls().len(), 4);
    let edited = run_lines(&dir.0.join("edited.jsonl"));
    assert_ne!(
        record(&edited, "e-0")["judge"]["prompt_fingerprint"],
        fingerprint
    );
    assert!(record(&edited, "e-0")["judge"]["judgements"][0]
        .get("cached")
        .is_none());

    // --no-cache asks again without touching the cache.
    let out = goldgate(
        &dir.0,
        &[
            "run",
            "--suite",
            "suite",
            "--output",
            "fresh.jsonl",
            "--no-cache",
        ],
        &[],
    );
    ok(&out);
    assert_eq!(server.calls().len(), 6);
}

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
fn goldgate_judge_reviews_an_existing_run_file() {
    let dir = TempDir::new("judge-command");
    let server = ab_server();
    ab_project(&dir.0, None);
    ok(&run(&dir.0, "run.jsonl"));
    assert!(run_lines(&dir.0.join("run.jsonl"))
        .iter()
        .all(|r| r.get("judge").is_none()));
    let before = scored(&dir.0, "run.jsonl");
    assert_eq!(
        before["metrics"]["judge.comprehensive_weighted"]["n"],
        json!(0)
    );
    assert!(before["provenance"]["scoring"].get("judge").is_none());

    configure(&dir.0, Some(&judge_table(&server, "judge_repeats = 2\n")));
    let out = goldgate(&dir.0, &["judge", "--run", "run.jsonl"], &[]);
    ok(&out);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("reviewed 2 of 4 records in run.jsonl (4 judgements: 4 valid, 0 from the judge cache, 0 with nothing to judge)"),
        "{said}"
    );
    assert_eq!(server.calls().len(), 4);
    let records = run_lines(&dir.0.join("run.jsonl"));
    assert_eq!(records.len(), 4);
    assert!(
        records[0].get("provenance").is_some(),
        "the run's provenance stays on the first record"
    );
    assert_eq!(
        record(&records, "e-0")["judge"]["judgements"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert!(record(&records, "x-0").get("judge").is_none());
    let after = scored(&dir.0, "run.jsonl");
    assert!(close(
        &after["metrics"]["judge.comprehensive_weighted"]["value"],
        0.72125
    ));

    // Again: from the judge cache.
    let out = goldgate(&dir.0, &["judge", "--run", "run.jsonl"], &[]);
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("4 from the judge cache"));
    assert_eq!(server.calls().len(), 4);

    // Without a judge configured, there is nothing to review with.
    configure(&dir.0, None);
    let out = goldgate(&dir.0, &["judge", "--run", "run.jsonl"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no judge is configured"));
}

#[test]
fn a_replayed_run_keeps_its_reviews_unless_another_judge_is_configured() {
    let dir = TempDir::new("judge-replay");
    let server = ab_server();
    ab_project(&dir.0, Some(&judge_table(&server, "")));
    ok(&run(&dir.0, "recorded.jsonl"));
    assert_eq!(server.calls().len(), 2);
    let recorded = run_lines(&dir.0.join("recorded.jsonl"));

    // Replaying the recorded run with no judge configured keeps its reviews.
    std::fs::write(dir.0.join("goldgate.toml"), "[check]\nsuite = \"suite\"\n").unwrap();
    let replay = |output: &str| {
        goldgate(
            &dir.0,
            &[
                "run",
                "--suite",
                "suite",
                "--replay",
                "recorded.jsonl",
                "--output",
                output,
                "--no-cache",
            ],
            &[],
        )
    };
    ok(&replay("kept.jsonl"));
    let kept = run_lines(&dir.0.join("kept.jsonl"));
    assert_eq!(
        record(&kept, "e-0")["judge"],
        record(&recorded, "e-0")["judge"]
    );
    assert_eq!(server.calls().len(), 2);

    // With the same judge configured: kept too (even with the cache off).
    std::fs::write(
        dir.0.join("goldgate.toml"),
        format!(
            "[check]\nsuite = \"suite\"\n\n[judge]\n{}",
            judge_table(&server, "")
        ),
    )
    .unwrap();
    ok(&replay("same.jsonl"));
    assert_eq!(server.calls().len(), 2);
    assert_eq!(
        record(&run_lines(&dir.0.join("same.jsonl")), "e-1")["judge"],
        record(&recorded, "e-1")["judge"]
    );

    // Another judge reviews them again.
    std::fs::write(
        dir.0.join("goldgate.toml"),
        format!(
            "[check]\nsuite = \"suite\"\n\n[judge]\n{}",
            judge_table(&server, "").replace("judge-model", "other-judge")
        ),
    )
    .unwrap();
    ok(&replay("other.jsonl"));
    assert_eq!(server.calls().len(), 4);
    assert_eq!(
        record(&run_lines(&dir.0.join("other.jsonl")), "e-0")["judge"]["model"],
        json!("other-judge")
    );
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
