//! The `srs-agents` pipeline through `goldgate run`, against a scripted OpenAI-compatible
//! server that answers each agent of each sample from a script (the agent is told by its
//! system prompt, the sample by a marker in its input and reference SRS): a full run with
//! freezes, a removal, a suggestion and items naming frozen and removed ids; each ablation;
//! the cache and the prompts in the fingerprint; and the faults — malformed JSON, 429 with
//! `Retry-After`, 500, a timeout, a cut stream, `finish_reason: length`, and an agent that
//! never answers JSON (that sample is an error naming the agent; the others are fine).

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::openai::{ChatCall, FakeOpenAi, Reply};
use crate::support::project::run_lines;
use crate::support::TempDir;

const AGENTS: [&str; 4] = ["ReqParse", "ReqExplore", "ReqClarify", "DocGenerate"];

/// Which agent a request is from: its system prompt says "You are <agent>".
fn agent_of(call: &ChatCall) -> &'static str {
    let system = call.message("system");
    AGENTS
        .into_iter()
        .find(|a| system.contains(&format!("You are {a}")))
        .unwrap_or_else(|| panic!("no agent in {system}"))
}

/// Which sample a request is for: the `SAMPLE-…` marker its messages carry.
fn sample_of(call: &ChatCall) -> String {
    let text = call.text();
    let at = text.find("SAMPLE-").expect("a sample marker");
    text[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect()
}

/// Replies per (sample, agent), in order; when a script runs out, `fallback` answers.
type Scripts = HashMap<(String, &'static str), VecDeque<Reply>>;

fn server(scripts: Scripts, fallback: fn(&str) -> Reply) -> FakeOpenAi {
    let scripts = Mutex::new(scripts);
    FakeOpenAi::start(move |call| {
        let key = (sample_of(call), agent_of(call));
        let next = scripts
            .lock()
            .unwrap()
            .get_mut(&key)
            .and_then(VecDeque::pop_front);
        next.unwrap_or_else(|| fallback(key.1))
    })
}

fn script(entries: Vec<(&str, &'static str, Vec<Reply>)>) -> Scripts {
    entries
        .into_iter()
        .map(|(sample, agent, replies)| ((sample.to_string(), agent), replies.into()))
        .collect()
}

const PARSE: &str = "Here is the list:\n```json\n[\n  {\"id\": \"FR-01\", \"content\": \"The user shall set heating schedules from the phone.\"},\n  {\"id\": \"FR-02\", \"content\": \"The thermostat shall report the temperature.\"},\n  {\"id\": \"NFR-01\", \"content\": \"The system shall answer within 2 seconds.\"},\n  {\"id\": \"CON-01\", \"content\": \"The app shall run on Android.\"},\n  {\"id\": \"FR-03\"}\n]\n```\nDone.";

const DOC: &str = "# 1 Introduction\n\n## 1.1 Purpose\n\nThermostat.\n\n# 3 Specific requirements\n\n- FR-01 The user shall set heating schedules from the phone.\n";

/// What an agent answers when its script has nothing more: a good, empty-handed answer.
fn quiet(agent: &str) -> Reply {
    match agent {
        "ReqParse" => Reply::content(PARSE),
        "DocGenerate" => Reply::content(DOC),
        _ => Reply::content("[]"),
    }
}

/// An e2e sample whose input and reference SRS carry `marker`.
fn sample(id: &str, marker: &str, conversation: bool) -> String {
    let input = match conversation {
        true => format!(
            "conversation:\n  - role: client\n    content: \"We need a thermostat app ({marker}).\"\n  - role: analyst\n    content: \"Which phones?\"\n  - role: client\n    content: \"Android only.\"\n"
        ),
        false => format!(
            "user_input: \"A smart thermostat app ({marker}): users set schedules from their phone.\"\n"
        ),
    };
    format!(
        "id: {id}\nkind: e2e\ndomain: iot\n{input}reference_srs: |\n  # Reference ({marker})\n  The user sets heating schedules from the phone.\nlabels:\n  requirements:\n    - id: FR-01\n      title: Set heating schedules\n      type: functional\n      actor: user\n      action: set heating schedules from the phone\n"
    )
}

/// A project in `dir`: the samples, and a goldgate.toml for srs-agents at `base_url` with
/// `agents` as its `[pipeline.agents]` lines and `pipeline` as more `[pipeline]` lines.
fn project(
    dir: &Path,
    samples: &[(&str, &str, bool)],
    base_url: &str,
    pipeline: &str,
    agents: &str,
) {
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    for (id, marker, conversation) in samples {
        std::fs::write(
            suite.join(format!("{id}.yaml")),
            sample(id, marker, *conversation),
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("goldgate.toml"),
        format!(
            "[pipeline]\nkind = \"srs-agents\"\nbase_url = \"{base_url}\"\nmodel = \"scripted-model\"\n{pipeline}\n[pipeline.agents]\n{agents}\n"
        ),
    )
    .unwrap();
}

/// Environment that would change the pipeline, removed; `GOLDGATE_TEST_BACKOFF_MS` unset so
/// `backoff_secs` decides.
const CLEAN_ENV: [&str; 8] = [
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "OPENAI_API_KEY",
    "OPENAI_TEMP_REQPARSE",
    "OPENAI_TEMP_REQEXPLORE",
    "OPENAI_TEMP_REQCLARIFY",
    "OPENAI_TEMP_DOCGENERATE",
    "GOLDGATE_TEST_BACKOFF_MS",
];

/// `goldgate ARGS` in `dir` with `env`, and nothing else of the environment that would
/// change the pipeline.
fn goldgate(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_goldgate"));
    command
        .args(args)
        .envs(env.iter().copied())
        .env_remove("GITHUB_ACTIONS")
        .current_dir(dir);
    for var in CLEAN_ENV
        .iter()
        .filter(|v| !env.iter().any(|(k, _)| k == *v))
    {
        command.env_remove(var);
    }
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    out
}

/// `goldgate run` of the project in `dir` into `run.jsonl`, and its records by sample.
fn run(dir: &Path, env: &[(&str, &str)]) -> (std::process::Output, HashMap<String, Value>) {
    let out = goldgate(
        dir,
        &["run", "--suite", "suite", "--output", "run.jsonl"],
        env,
    );
    let records = match dir.join("run.jsonl").exists() {
        true => run_lines(&dir.join("run.jsonl"))
            .into_iter()
            .map(|r| (r["sample_id"].as_str().unwrap().to_string(), r))
            .collect(),
        false => HashMap::new(),
    };
    (out, records)
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

fn agents_called(record: &Value) -> Vec<String> {
    record["trace"]["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["agent"].as_str().unwrap().to_string())
        .collect()
}

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
