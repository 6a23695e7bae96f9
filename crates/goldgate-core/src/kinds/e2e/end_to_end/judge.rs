//! The LLM judge against a scripted OpenAI-compatible server: each e2e answer reviewed once
//! per judge repeat right after it comes back, the judgements averaged into `judge.*`
//! metrics (checked against hand-computed values), the judge cache (a rerun makes no call;
//! editing the judge prompt asks again), replayed reviews kept, and `goldgate judge`
//! reviewing an existing run file. What goes wrong is in `judge_errors`.

use serde_json::{json, Value};

use super::judging::{
    ab_project, ab_server, close, configure, judge_table, ok, record, run, scored, weighted, A, B1,
    B2,
};
use crate::support::project::{goldgate, run_lines};
use crate::support::TempDir;

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
