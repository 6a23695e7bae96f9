//! The LLM judge's test project: e2e samples answered from a file replayed by
//! `goldgate.toml`, a `[judge]` table pointing at a scripted OpenAI-compatible server, the
//! judge's answers (seven rubric metrics and categories) with their weighted score worked
//! out by hand, and the run and score read back.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value};

use crate::support::openai::{ChatCall, FakeOpenAi, Reply};
use crate::support::output::assert_exit;
use crate::support::project::goldgate;

/// A judge's answer with these seven metrics (rubric order) and categories.
pub fn verdict(v: [f64; 7], categories: [Option<f64>; 3]) -> String {
    json!({"metrics": {
        "coverage": v[0], "completeness": v[1], "consistency": v[2], "testability": v[3],
        "clarity": v[4], "traceability": v[5], "scope_discipline": v[6],
        "by_category": {"functional": categories[0], "non_functional": categories[1], "constraints": categories[2]}
    }})
    .to_string()
}

/// 0.20 coverage + 0.20 completeness + 0.10 consistency + 0.20 testability + 0.10 clarity
/// + 0.15 traceability + 0.05 scope_discipline.
pub fn weighted(v: [f64; 7]) -> f64 {
    0.20 * v[0] + 0.20 * v[1] + 0.10 * v[2] + 0.20 * v[3] + 0.10 * v[4] + 0.15 * v[5] + 0.05 * v[6]
}

/// The review of DOC-A.
pub const A: [f64; 7] = [0.8, 0.6, 1.0, 0.5, 0.9, 0.4, 0.7];
/// The two reviews of DOC-B, in turn.
pub const B1: [f64; 7] = [0.6, 0.4, 0.8, 0.7, 0.7, 0.6, 0.9];
pub const B2: [f64; 7] = [1.0, 0.8, 1.0, 0.9, 0.9, 1.0, 1.0];

/// An e2e sample (`reference` `None`: without a reference SRS).
pub fn e2e(id: &str, reference: Option<&str>) -> Value {
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
pub fn project(dir: &Path, samples: &[Value], answers: &[(&str, Value)], judge: Option<&str>) {
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

/// `goldgate.toml` replaying `answers.jsonl`, with `judge` as its `[judge]` table's body.
pub fn configure(dir: &Path, judge: Option<&str>) {
    let mut config =
        "[pipeline]\nkind = \"replay\"\nfile = \"answers.jsonl\"\n\n[check]\nsuite = \"suite\"\n"
            .to_string();
    if let Some(body) = judge {
        config.push_str(&format!("\n[judge]\n{body}\n"));
    }
    std::fs::write(dir.join("goldgate.toml"), config).unwrap();
}

/// A `[judge]` table's body for `server`, and `more` lines.
pub fn judge_table(server: &FakeOpenAi, more: &str) -> String {
    format!(
        "model = \"judge-model\"\nbase_url = \"{}\"\n{more}",
        server.base_url()
    )
}

/// `goldgate run` of the project into `output`, retrying fast.
pub fn run(dir: &Path, output: &str) -> std::process::Output {
    goldgate(
        dir,
        &["run", "--suite", "suite", "--output", output],
        &[("GOLDGATE_TEST_BACKOFF_MS", "1")],
    )
}

/// The command succeeded.
#[track_caller]
pub fn ok(out: &std::process::Output) {
    assert_exit(out, 0, "");
}

/// The record of sample `id`.
pub fn record<'a>(records: &'a [Value], id: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r["sample_id"] == json!(id))
        .unwrap()
}

/// `goldgate score` of a run file; the score file's metrics.
pub fn scored(dir: &Path, run: &str) -> Value {
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

/// `v` is `expected`, to 1e-9.
pub fn close(v: &Value, expected: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - expected).abs() < 1e-9)
}

/// Answers DOC-A with A every time and DOC-B with B1 and B2 in turn.
pub fn ab_server() -> FakeOpenAi {
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

/// A project of three e2e samples (DOC-A, DOC-B, DOC-C; the last without a reference) and
/// an extraction one, with `judge` as the `[judge]` table's body.
pub fn ab_project(dir: &Path, judge: Option<&str>) {
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
