//! Budgets are enforced or refused, never skipped, and numbers from a pipeline are checked:
//! a chat server that reports no `usage` (llama.cpp's streaming server), negative counts or
//! strings is counted by goldgate itself and the budget stops the run on that estimate; a
//! pipeline reporting a cost of 1e308 or -100 USD, or 2^64 - 1 tokens, has those numbers
//! dropped and said, never summed; a budget on calls whose cost nobody knows stops the run.

use std::path::Path;

use serde_json::json;

use crate::support::openai::{FakeOpenAi, Reply};
use crate::support::output::stderr;
use crate::support::project::{goldgate, run_chat, run_lines, test_suite};
use crate::support::{test_kind, TempDir};

/// The model's answer to every sample: the test kind's mark `Track orders`.
fn answer() -> String {
    test_kind::answer(&["Track orders"]).to_string()
}

/// `goldgate run --chat` against `server`, $1 a token in and out, one call at a time.
fn chat(dir: &Path, server: &FakeOpenAi, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "--model",
        "gpt-4o-mini",
        "--jobs",
        "1",
        "--input-per-mtok",
        "1000000",
        "--output-per-mtok",
        "1000000",
    ];
    args.extend_from_slice(extra);
    let key = [("OPENAI_API_KEY", "sk-test")];
    run_chat(dir, &server.base_url(), &args, &key)
}

/// A completion body with `usage` as given.
fn with_usage(usage: serde_json::Value) -> Reply {
    Reply::raw(
        json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": answer()},
               "finish_reason": "stop"}], "usage": usage})
        .to_string(),
    )
}

#[test]
fn a_budget_is_kept_on_goldgates_count_when_the_server_reports_no_usable_usage() {
    for (name, server, stream) in [
        (
            "none",
            FakeOpenAi::start(|_| Reply::content(answer()).no_usage()),
            false,
        ),
        (
            "stream",
            FakeOpenAi::start(|_| Reply::content(answer()).no_usage()),
            true,
        ),
        (
            "negative",
            FakeOpenAi::start(|_| {
                with_usage(json!({"prompt_tokens": -5, "completion_tokens": -1}))
            }),
            false,
        ),
        (
            "strings",
            FakeOpenAi::start(|_| {
                with_usage(json!({"prompt_tokens": "120", "completion_tokens": "40"}))
            }),
            false,
        ),
    ] {
        let dir = TempDir::new(&format!("budget-{name}"));
        test_suite(&dir.0, 4);
        let mut extra = vec!["--max-cost", "5"];
        if stream {
            extra.push("--stream");
        }
        let out = chat(&dir.0, &server, &extra);
        let err = stderr(&out);
        // Every call is dozens of tokens at $1 each: the first spends the budget.
        assert_eq!(out.status.code(), Some(3), "{name}: {err}");
        assert!(
            err.contains("(estimated) of the $5.00 budget (--max-cost)"),
            "{name}: {err}"
        );
        assert_eq!(
            server.calls().len(),
            1,
            "{name}: the run went on past the budget"
        );
        let partial = std::fs::read_dir(&dir.0)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().contains("run.jsonl"))
            .unwrap();
        let record = &run_lines(&partial)[0];
        let usage = &record["usage"];
        assert_eq!(usage["estimated"], json!(true), "{name}: {record}");
        let prompt = usage["prompt_tokens"].as_u64().unwrap();
        assert!(prompt > 20, "{name}: the request was counted: {usage}");
        assert_eq!(
            usage["completion_tokens"],
            json!(7),
            "{name}: the answer was counted (o200k_base: `{{\"`, `marks`, `\":`, ` [\"`, `Track`, ` orders`, `\"]}}`)"
        );
        assert!(usage["cost_usd"].as_f64().unwrap() > 5.0, "{name}: {usage}");
        let invalid = usage.get("invalid").and_then(|v| v.as_str());
        assert_eq!(
            invalid.is_some(),
            name == "negative" || name == "strings",
            "{name}: {usage}"
        );
    }
}

/// A command pipeline whose answers report `usage` as given.
fn pipeline(dir: &Path, usage: &str) {
    let answer = format!(r#"{{"marks": [], "usage": {usage}}}"#);
    std::fs::write(
        dir.join("pipeline.sh"),
        format!("#!/bin/sh\ncat > /dev/null\necho '{answer}'\n"),
    )
    .unwrap();
}

#[test]
fn a_pipelines_impossible_usage_is_dropped_and_said_never_summed() {
    for usage in [
        r#"{"cost_usd": 1e308}"#,
        r#"{"cost_usd": -100}"#,
        r#"{"prompt_tokens": 18446744073709551615, "completion_tokens": 1}"#,
    ] {
        let dir = TempDir::new("usage-impossible");
        test_suite(&dir.0, 3);
        pipeline(&dir.0, usage);
        let out = goldgate(
            &dir.0,
            &[
                "run",
                "--suite",
                "suite",
                "--command",
                "sh pipeline.sh",
                "--no-cache",
            ],
            &[],
        );
        let err = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert!(
            out.status.success(),
            "{usage}: a pipeline's garbage never aborts the run: {err}"
        );
        assert!(!err.contains("inf"), "{usage}: {err}");
        assert!(
            err.contains("warning: 3 answers reported usage no call can have"),
            "{usage}: {err}"
        );
        for record in run_lines(&dir.0.join("run.jsonl")) {
            let u = &record["usage"];
            assert!(
                u["invalid"].as_str().unwrap().contains("usage."),
                "{usage}: {record}"
            );
            assert!(u.get("cost_usd").is_none(), "{usage}: {record}");
            assert!(u.get("prompt_tokens").is_none(), "{usage}: {record}");
        }
        // The run file scores: nothing impossible was kept.
        let out = goldgate(
            &dir.0,
            &["score", "--suite", "suite", "--run", "run.jsonl"],
            &[],
        );
        assert!(out.status.success(), "{usage}: {}", stderr(&out));
    }
}

/// A budget on calls whose cost nobody knows (no cost reported, no prices to count one
/// from) cannot be kept: the run stops at the first such call, saying why.
#[test]
fn a_budget_that_cannot_be_kept_stops_the_run() {
    let dir = TempDir::new("budget-unknown");
    test_suite(&dir.0, 4);
    pipeline(&dir.0, r#"{"cost_usd": 1e308}"#);
    let out = goldgate(
        &dir.0,
        &[
            "run",
            "--suite",
            "suite",
            "--command",
            "sh pipeline.sh",
            "--no-cache",
            "--jobs",
            "1",
            "--max-cost",
            "5",
        ],
        &[],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("the $5.00 budget (--max-cost) cannot be kept"),
        "{err}"
    );
    assert!(err.contains("(1 call made,"), "{err}");
}

/// The judge's calls count against the budget: a judge without prices could spend it
/// unseen, so a budget with such a judge is refused before any call.
#[test]
fn a_budget_with_a_judge_that_has_no_prices_is_refused() {
    let dir = TempDir::new("budget-judge");
    test_suite(&dir.0, 2);
    pipeline(&dir.0, r#"{"cost_usd": 0.001}"#);
    std::fs::write(
        dir.0.join("goldgate.toml"),
        "[judge]\nmodel = \"judge-model\"\nbase_url = \"http://127.0.0.1:9\"\n",
    )
    .unwrap();
    let args = [
        "run",
        "--suite",
        "suite",
        "--command",
        "sh pipeline.sh",
        "--no-cache",
        "--max-cost",
        "5",
    ];
    let out = goldgate(&dir.0, &args, &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("[judge.pricing]"), "{err}");
    assert!(!dir.0.join("run.jsonl").exists(), "no call was made");
    std::fs::write(
        dir.0.join("goldgate.toml"),
        "[judge]\nmodel = \"judge-model\"\nbase_url = \"http://127.0.0.1:9\"\n[judge.pricing]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n",
    )
    .unwrap();
    let priced = goldgate(&dir.0, &args, &[]);
    assert!(
        !stderr(&priced).contains("[judge.pricing]"),
        "{}",
        stderr(&priced)
    );
}
