//! The `srs-agents` pipeline through `goldgate run`, against a scripted OpenAI-compatible
//! server (`support::agents`): a full run with freezes, a removal, a suggestion and items
//! naming frozen and removed ids; each ablation; the temperatures; the cache and the prompts
//! in the fingerprint. The faults are in `agents_faults`.

use serde_json::{json, Value};

use super::agents_project::{
    agents_called, goldgate, ids, project, quiet, run, script, server, Scripts, DOC, PARSE,
};
use crate::support::openai::Reply;
use crate::support::project::run_lines;
use crate::support::TempDir;

#[test]
fn a_full_run_freezes_removes_suggests_and_discards_out_of_bounds_items() {
    let dir = TempDir::new("agents-full");
    let full = "SAMPLE-FULL";
    let fake = server(
        script(vec![
            (full, "ReqParse", vec![Reply::content(PARSE)]),
            (full, "ReqExplore", vec![
                Reply::content(r#"[{"id": "FR-02", "content": "The thermostat shall report the room temperature every minute."}, {"id": "SUG-01", "content": "The user shall export readings as CSV."}]"#),
                // FR-01 is frozen and NFR-01 removed: both are discarded; NFR-05 is new and
                // continues NFR's numbering past the removed NFR-01.
                Reply::content("```json\n[{\"id\": \"FR-01\", \"content\": \"The user shall do something else.\"}, {\"id\": \"NFR-01\", \"content\": \"The system shall answer within 1 second.\"}, {\"id\": \"CON-01\", \"content\": \"The app shall run on Android 12 or later.\"}, {\"id\": \"NFR-05\", \"content\": \"The system shall keep readings for 30 days.\"}]\n```"),
                Reply::content(r#"[{"id": "NFR-02", "content": "The system shall keep readings for 90 days."}]"#),
            ]),
            (full, "ReqClarify", vec![
                Reply::content(r#"[{"id": "FR-01", "score": 2, "reason": "exact"}, {"id": "FR-02", "score": 1, "reason": "close"}, {"id": "NFR-01", "score": -2, "reason": "not wanted"}, {"id": "CON-01", "score": 0, "reason": "unclear"}, {"id": "SUG-01", "score": 2, "reason": "in the reference"}]"#),
                Reply::content(r#"[{"id": "FR-02", "score": 1, "reason": "r"}, {"id": "CON-01", "score": 1, "reason": "r"}, {"id": "NFR-02", "score": 0, "reason": "r"}]"#),
                Reply::content(r#"[{"id": "NFR-02", "score": 1, "reason": "r"}]"#),
            ]),
        ]),
        quiet,
    );
    let pricing = "[pipeline.pricing]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0";
    project(
        &dir.0,
        &[("e2e-full", full, false)],
        &fake.base_url(),
        pricing,
        "backoff_secs = 0.01",
    );
    let (out, records) = run(&dir.0, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = &records["e2e-full"];
    assert_eq!(r["error"], Value::Null, "{r}");
    let state = &r["trace"]["state"];
    assert_eq!(
        state["requirements"],
        json!([
            {"id": "FR-01", "content": "The user shall set heating schedules from the phone."},
            {"id": "FR-02", "content": "The thermostat shall report the room temperature every minute."},
            {"id": "CON-01", "content": "The app shall run on Android 12 or later."},
            {"id": "SUG-01", "content": "The user shall export readings as CSV."},
            {"id": "NFR-02", "content": "The system shall keep readings for 90 days."},
        ])
    );
    assert_eq!(
        state["scores"],
        json!({"CON-01": 1, "FR-01": 2, "FR-02": 1, "NFR-01": -2, "NFR-02": 1, "SUG-01": 2})
    );
    assert_eq!(
        state["frozen"],
        json!(["FR-01", "SUG-01", "FR-02", "CON-01", "NFR-02"])
    );
    assert_eq!(state["removed"], json!(["NFR-01"]));
    // Everything was frozen after round 3 of at most 5: the rounds stop there.
    assert_eq!(
        (state["iterations"].clone(), state["max_iterations"].clone()),
        (json!(3), json!(5))
    );
    assert_eq!(
        agents_called(r),
        [
            "ReqParse",
            "ReqExplore",
            "ReqClarify",
            "ReqExplore",
            "ReqClarify",
            "ReqExplore",
            "ReqClarify",
            "DocGenerate"
        ]
    );
    assert_eq!(fake.calls().len(), 8);
    let calls = r["trace"]["calls"].as_array().unwrap();
    assert_eq!(calls[0]["effect"]["dropped"][0]["why"], "no content");
    assert_eq!(
        calls[3]["effect"]["discarded"],
        json!([
            {"item": {"id": "FR-01", "content": "The user shall do something else."}, "why": "names a frozen item"},
            {"item": {"id": "NFR-01", "content": "The system shall answer within 1 second."}, "why": "names a removed item"},
        ])
    );
    assert_eq!(
        calls[3]["effect"]["added"],
        json!([{"id": "NFR-02", "written": "NFR-05"}])
    );
    assert_eq!(
        calls
            .iter()
            .map(|c| c["iteration"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [0, 0, 0, 1, 1, 2, 2, 3]
    );
    // Each call keeps its messages, answer, parsed answer, usage and latency.
    assert_eq!(calls[1]["messages"][0]["role"], "system");
    assert!(calls[1]["raw_output"].as_str().unwrap().contains("SUG-01"));
    assert_eq!(calls[1]["parsed"][1]["id"], "SUG-01");
    assert_eq!(
        calls[1]["usage"],
        json!({"prompt_tokens": 10, "completion_tokens": 5})
    );
    assert!(calls[1]["latency_ms"].as_f64().unwrap() > 0.0);
    // Tokens summed over the eight calls, priced by [pipeline.pricing].
    let usage = &r["usage"];
    assert_eq!(
        [
            &usage["prompt_tokens"],
            &usage["completion_tokens"],
            &usage["total_tokens"]
        ],
        [&json!(80), &json!(40), &json!(120)]
    );
    assert!(
        (usage["cost_usd"].as_f64().unwrap() - 0.00016).abs() < 1e-12,
        "{usage}"
    );
    assert_eq!(r["finish_reason"], "stop");
    assert_eq!(r["model"], "scripted-model");
    // The answer goldgate scores.
    let p = &r["prediction"];
    assert_eq!(
        ids(&p["requirements"]),
        ["FR-01", "FR-02", "CON-01", "SUG-01", "NFR-02"]
    );
    let types: Vec<&str> = p["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "functional",
            "functional",
            "constraint",
            "functional",
            "non-functional"
        ]
    );
    assert_eq!(p["requirements"][1]["actor"], "thermostat");
    assert_eq!(
        p["requirements"][1]["action"],
        "report the room temperature every minute"
    );
    assert_eq!(
        p["requirements"][1]["title"],
        "Report the room temperature every minute"
    );
    assert_eq!(p["requirements"][0]["confidence"], 1.0);
    assert_eq!(p["srs_markdown"], DOC.trim());
    // What each agent was sent: its temperature, the model, a stream for DocGenerate only,
    // and ReqClarify scores only the open items.
    let sent = fake.calls();
    let temperatures: Vec<f64> = sent
        .iter()
        .map(|c| c.body["temperature"].as_f64().unwrap())
        .collect();
    assert_eq!(temperatures, [0.2, 0.6, 0.2, 0.6, 0.2, 0.6, 0.2, 0.1]);
    assert!(sent.iter().all(|c| c.body["model"] == "scripted-model"));
    assert_eq!(sent.iter().filter(|c| c.stream()).count(), 1);
    assert!(sent[7].stream());
    let clarify_2 = sent[4].message("user");
    assert!(
        clarify_2.contains("\"CON-01\"") && !clarify_2.contains("\"FR-01\""),
        "{clarify_2}"
    );
    let explore_2 = sent[3].message("user");
    assert!(
        explore_2.contains("\"score\": 0") && explore_2.contains("NFR-01"),
        "{explore_2}"
    );

    // Unchanged pipeline and sample: the second run is answered from the cache, trace and all.
    let (out, again) = run(&dir.0, &[]);
    assert!(out.status.success());
    assert_eq!(fake.calls().len(), 8, "no call the second time");
    assert_eq!(again["e2e-full"]["cached"], true);
    assert_eq!(again["e2e-full"]["trace"], r["trace"]);
    assert_eq!(again["e2e-full"]["prediction"], r["prediction"]);

    // Replayed, the record keeps its trace, so reports of an offline run still show it.
    let out = goldgate(
        &dir.0,
        &[
            "run",
            "--suite",
            "suite",
            "--replay",
            "run.jsonl",
            "--output",
            "replayed.jsonl",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replayed = run_lines(&dir.0.join("replayed.jsonl"));
    let full = replayed
        .iter()
        .find(|x| x["sample_id"] == "e2e-full")
        .unwrap();
    assert_eq!(full["trace"], r["trace"]);
}

#[test]
fn no_clarify_runs_explore_rounds_alone() {
    let dir = TempDir::new("agents-no-clarify");
    let s = "SAMPLE-NOCLARIFY";
    let fake = server(
        script(vec![(
            s,
            "ReqExplore",
            vec![
                Reply::content(
                    r#"[{"id": "FR-02", "content": "The thermostat shall report the temperature every minute."}, {"id": "SUG-01", "content": "The user shall export readings."}]"#,
                ),
                Reply::content(
                    r#"[{"id": "SUG-01", "content": "The user shall export readings as CSV."}, {"id": "CON-09", "content": "The app shall work offline."}]"#,
                ),
            ],
        )]),
        quiet,
    );
    project(
        &dir.0,
        &[("e2e-nc", s, false)],
        &fake.base_url(),
        "",
        "ablation = \"no-clarify\"\nmax_iterations = 2\nbackoff_secs = 0.01",
    );
    let (out, records) = run(&dir.0, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = &records["e2e-nc"];
    let state = &r["trace"]["state"];
    assert_eq!(
        ids(&state["requirements"]),
        ["FR-01", "FR-02", "NFR-01", "CON-01", "SUG-01", "CON-02"]
    );
    assert_eq!(
        state["requirements"][4]["content"],
        "The user shall export readings as CSV."
    );
    assert_eq!(state["scores"], json!({}));
    assert_eq!(
        (state["frozen"].clone(), state["removed"].clone()),
        (json!([]), json!([]))
    );
    assert_eq!(state["iterations"], 2);
    assert_eq!(state["ablation"], "no-clarify");
    assert_eq!(
        agents_called(r),
        ["ReqParse", "ReqExplore", "ReqExplore", "DocGenerate"]
    );
    assert_eq!(fake.calls().len(), 4);
    assert!(
        r["prediction"]["requirements"][0]
            .get("confidence")
            .is_none(),
        "nothing was scored"
    );
}

#[test]
fn no_explore_clarify_goes_from_parse_to_the_document() {
    let dir = TempDir::new("agents-no-explore");
    let s = "SAMPLE-DIRECT";
    let parse = r#"[{"id": "FR-01", "content": "The client shall control the thermostat from a phone.", "source_messages": [0]}, {"id": "CON-01", "content": "The app shall run on Android.", "source_messages": [2]}]"#;
    let fake = server(
        script(vec![(s, "ReqParse", vec![Reply::content(parse)])]),
        quiet,
    );
    project(
        &dir.0,
        &[("e2e-direct", s, true)],
        &fake.base_url(),
        "",
        "ablation = \"no-explore-clarify\"",
    );
    let (out, records) = run(&dir.0, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = &records["e2e-direct"];
    let state = &r["trace"]["state"];
    assert_eq!(
        state["requirements"],
        json!([
            {"id": "FR-01", "content": "The client shall control the thermostat from a phone.", "source_messages": [0]},
            {"id": "CON-01", "content": "The app shall run on Android.", "source_messages": [2]},
        ])
    );
    assert_eq!(state["iterations"], 0);
    assert_eq!(state["scores"], json!({}));
    assert_eq!(agents_called(r), ["ReqParse", "DocGenerate"]);
    assert_eq!(fake.calls().len(), 2);
    assert_eq!(
        r["prediction"]["requirements"][1]["source_messages"],
        json!([2])
    );
    assert_eq!(r["prediction"]["requirements"][0]["actor"], "client");
    // The conversation reaches ReqParse as numbered lines, with the rule for sources.
    let parse_call = &fake.calls()[0];
    assert!(
        parse_call.message("user").contains("[0] client: We need a thermostat app (SAMPLE-DIRECT).\n[1] analyst: Which phones?\n[2] client: Android only."),
        "{}",
        parse_call.message("user")
    );
    assert!(parse_call.message("system").contains("source_messages"));
    // `check --format html` shows each record's trace, one collapsed section per call.
    let out = goldgate(
        &dir.0,
        &["check", "--suite", "suite", "--format", "html"],
        &[],
    );
    let html = String::from_utf8_lossy(&out.stdout);
    assert!(
        html.contains("<h2 id=\"traces-title\">Pipeline traces</h2>"),
        "{html}"
    );
    assert!(html.contains("<code>e2e-direct</code> · 2 calls"), "{html}");
    assert!(
        html.contains("<summary>ReqParse · iteration 0 · 1 attempt · 15 tokens"),
        "{html}"
    );
    assert!(
        html.contains("<summary>DocGenerate · iteration 0 · 1 attempt"),
        "{html}"
    );
    assert!(
        html.contains("[0] client: We need a thermostat app (SAMPLE-DIRECT)."),
        "the messages sent"
    );
    assert_eq!(
        fake.calls().len(),
        2,
        "check's run was answered from the cache"
    );
}

#[test]
fn temperatures_come_from_config_then_environment_then_defaults() {
    let dir = TempDir::new("agents-temperatures");
    let fake = server(Scripts::new(), quiet);
    project(
        &dir.0,
        &[("e2e-t", "SAMPLE-T", false)],
        &fake.base_url(),
        "cache = false",
        "ablation = \"no-explore-clarify\"\n\n[pipeline.agents.reqparse]\ntemperature = 0.9",
    );
    let env = [
        ("OPENAI_TEMP_REQPARSE", "0.5"),
        ("OPENAI_TEMP_DOCGENERATE", "0.7"),
    ];
    let (out, _) = run(&dir.0, &env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent: Vec<f64> = fake
        .calls()
        .iter()
        .map(|c| c.body["temperature"].as_f64().unwrap())
        .collect();
    assert_eq!(
        sent,
        [0.9, 0.7],
        "the config wins over the environment, which wins over the default"
    );
    let (out, _) = run(&dir.0, &[("OPENAI_TEMP_REQCLARIFY", "warm")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("OPENAI_TEMP_REQCLARIFY = `warm` is not a temperature")
            && stderr.contains("a number from 0 to 2"),
        "{stderr}"
    );
    assert_eq!(fake.calls().len(), 2, "a bad setting makes no call");
}

#[test]
fn editing_a_prompt_file_invalidates_the_cache() {
    let dir = TempDir::new("agents-prompt");
    let fake = server(Scripts::new(), quiet);
    std::fs::create_dir_all(dir.0.join("prompts")).unwrap();
    let prompt = dir.0.join("prompts/parse.j2");
    std::fs::write(&prompt, "Input:\n{{ user_input }}\n").unwrap();
    project(
        &dir.0,
        &[("e2e-p", "SAMPLE-P", false)],
        &fake.base_url(),
        "",
        "ablation = \"no-explore-clarify\"\n\n[pipeline.agents.reqparse]\nprompt = \"prompts/parse.j2\"",
    );
    let (out, _) = run(&dir.0, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fake.calls()[0].message("user"),
        "Input:\nA smart thermostat app (SAMPLE-P): users set schedules from their phone.\n"
    );
    run(&dir.0, &[]);
    assert_eq!(fake.calls().len(), 2, "unchanged: answered from the cache");
    std::fs::write(&prompt, "The input:\n{{ user_input }}\n").unwrap();
    let (_, records) = run(&dir.0, &[]);
    assert_eq!(fake.calls().len(), 4, "an edited prompt is a new pipeline");
    assert_eq!(records["e2e-p"]["cached"], false);
    // A prompt naming a variable that does not exist fails before any call.
    std::fs::write(&prompt, "{{ user_inptu }}\n").unwrap();
    let (out, _) = run(&dir.0, &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("parse.j2:1") && stderr.contains("cannot be rendered"),
        "{stderr}"
    );
    assert_eq!(fake.calls().len(), 4);
}
