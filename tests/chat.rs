//! `goldgate run --chat` (and `[pipeline] kind = "chat"`) against a scripted
//! OpenAI-compatible server: the prompt a sample is rendered into, answers plain and
//! streamed, tokens and cost on every record, a truncated answer marked, the cache keyed on
//! the prompt templates, the runner's retries, the budget, and the key written nowhere.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use crate::support::openai::{FakeOpenAi, Reply};
use crate::support::output::stderr;
use crate::support::project::{goldgate, run_chat, run_lines, test_suite};
use crate::support::{test_kind, TempDir};

const KEY: &str = "sk-chat-test-SECRET-4242";

/// The model's answer to every sample: the test kind's mark `Track orders`.
fn answer() -> String {
    test_kind::answer(&["Track orders"]).to_string()
}

/// `goldgate run --chat` against `server` with the test key, retrying fast.
fn chat(dir: &Path, server: &FakeOpenAi, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["--model", "test-model", "--retries", "2"];
    args.extend_from_slice(extra);
    let env = [("OPENAI_API_KEY", KEY), ("GOLDGATE_TEST_BACKOFF_MS", "1")];
    run_chat(dir, &server.base_url(), &args, &env)
}

#[test]
fn each_sample_is_prompted_and_its_answer_tokens_and_cost_are_recorded() {
    let dir = TempDir::new("chat-basic");
    test_suite(&dir.0, 3);
    let server = FakeOpenAi::start(|_| Reply::content(answer()).usage(1_000, 200));
    let out = chat(
        &dir.0,
        &server,
        &[
            "--input-per-mtok",
            "0.15",
            "--output-per-mtok",
            "0.60",
            "--temperature",
            "0.2",
            "--chat-seed",
            "7",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("3,600 tokens, $0.0008"), "{stdout}");
    let calls = server.calls();
    assert_eq!(calls.len(), 3);
    let call = &calls[0];
    assert_eq!(call.body["model"], json!("test-model"));
    assert_eq!(
        (call.body["temperature"].clone(), call.body["seed"].clone()),
        (json!(0.2), json!(7))
    );
    assert!(call.message("system").contains("requirements engineer"));
    let user = call.message("user");
    assert!(
        user.contains("[0] user: Customers track orders.")
            && user.contains(&format!("\"{}\"", test_kind::key())),
        "{user}"
    );
    assert!(
        !call.text().contains("Track orders"),
        "the gold labels were sent"
    );
    assert_eq!(
        call.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let records = run_lines(&dir.0.join("run.jsonl"));
    for r in &records {
        assert_eq!(r["prediction"][test_kind::key()][0], json!("Track orders"));
        assert_eq!(r["usage"]["prompt_tokens"], json!(1000));
        assert_eq!(r["usage"]["completion_tokens"], json!(200));
        let cost = r["usage"]["cost_usd"].as_f64().unwrap();
        assert!((cost - 0.00027).abs() < 1e-12, "{cost}");
        assert_eq!(r["finish_reason"], json!("stop"));
        assert_eq!(r["model"], json!("test-model"));
    }
    assert_eq!(
        records[0]["provenance"]["fingerprint"]["adapter"],
        json!("chat")
    );
}

#[test]
fn streamed_answers_are_the_same_and_a_cut_stream_is_retried() {
    let dir = TempDir::new("chat-stream");
    test_suite(&dir.0, 2);
    let server = FakeOpenAi::scripted(vec![
        Reply::content(answer()).cut_after(3),
        Reply::content(answer()).no_usage(),
    ]);
    let out = chat(&dir.0, &server, &["--stream", "--jobs", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let calls = server.calls();
    assert_eq!(calls.len(), 3, "the cut stream is retried once");
    assert!(calls.iter().all(|c| c.stream()));
    let records = run_lines(&dir.0.join("run.jsonl"));
    for r in &records {
        assert_eq!(r["prediction"][test_kind::key()][0], json!("Track orders"));
        assert!(r["error"].is_null());
        assert!(
            r["usage"]["prompt_tokens"].as_u64() > Some(0),
            "every answer has a token count: {r}"
        );
    }
    // A stream without usage is counted by goldgate, and marked as an estimate.
    assert!(
        records
            .iter()
            .any(|r| r["usage"]["estimated"] == json!(true)),
        "{records:?}"
    );
}

#[test]
fn a_truncated_answer_is_marked_and_failures_are_retried_or_recorded() {
    let dir = TempDir::new("chat-faults");
    test_suite(&dir.0, 1);
    let server = FakeOpenAi::scripted(vec![
        Reply::status(429, "rate limited").retry_after("1"),
        Reply::status(500, "boom"),
        Reply::content("{\"marks\": [\"Track ord").finish(Some("length")),
    ]);
    let out = chat(&dir.0, &server, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("warning: 1 answer was cut at the model's token limit"),
        "{stdout}"
    );
    let calls = server.calls();
    assert_eq!(calls.len(), 3);
    let r = &run_lines(&dir.0.join("run.jsonl"))[0];
    assert_eq!(r["finish_reason"], json!("length"));
    // A 401 is recorded on the sample, with the variable named and the key nowhere.
    let dir = TempDir::new("chat-401");
    test_suite(&dir.0, 1);
    let server =
        FakeOpenAi::start(|_| Reply::status(401, &format!("Incorrect API key provided: {KEY}")));
    let out = chat(&dir.0, &server, &[]);
    let text = std::fs::read_to_string(dir.0.join("run.jsonl")).unwrap();
    assert!(
        text.contains("refused the API key in `OPENAI_API_KEY`"),
        "{text}"
    );
    assert!(
        !text.contains(KEY)
            && !stderr(&out).contains(KEY)
            && !String::from_utf8_lossy(&out.stdout).contains(KEY)
    );
    assert_eq!(server.calls().len(), 1, "a refused key is not retried");
}

#[test]
fn the_cache_is_keyed_on_the_prompt_templates() {
    let dir = TempDir::new("chat-cache");
    test_suite(&dir.0, 2);
    std::fs::write(
        dir.0.join("prompt.j2"),
        "Extract requirements:\n{{ transcript }}\n",
    )
    .unwrap();
    std::fs::write(
        dir.0.join("goldgate.toml"),
        "[pipeline]\nkind = \"chat\"\nprompt = \"prompt.j2\"\nmax_tokens = 500\n",
    )
    .unwrap();
    let server = FakeOpenAi::start(|_| Reply::content(answer()));
    for _ in 0..2 {
        let out = chat(&dir.0, &server, &[]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    assert_eq!(
        server.calls().len(),
        2,
        "the second run is answered from the cache"
    );
    assert_eq!(
        server.calls()[0].message("user"),
        "Extract requirements:\n[0] user: Customers track orders.\n"
    );
    assert_eq!(server.calls()[0].body["max_tokens"], json!(500));
    let records = run_lines(&dir.0.join("run.jsonl"));
    assert!(records.iter().all(|r| r["cached"] == json!(true)));
    let files = &records[0]["provenance"]["fingerprint"]["files"];
    assert!(
        files
            .as_object()
            .unwrap()
            .keys()
            .any(|k| k.ends_with("prompt.j2")),
        "{files}"
    );
    std::fs::write(
        dir.0.join("prompt.j2"),
        "Extract the requirements:\n{{ transcript }}\n",
    )
    .unwrap();
    let out = chat(&dir.0, &server, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        server.calls().len(),
        4,
        "an edited prompt is a new pipeline"
    );
    let cache = walk(&dir.0.join(".goldgate/cache"));
    assert!(!cache.contains(KEY));
}

#[test]
fn a_prompt_naming_a_missing_variable_fails_at_its_line() {
    let dir = TempDir::new("chat-template");
    test_suite(&dir.0, 1);
    std::fs::write(dir.0.join("p.j2"), "Hi\n{{ transcrpt }}\n").unwrap();
    let server = FakeOpenAi::start(|_| Reply::content(answer()));
    let out = chat(&dir.0, &server, &["--prompt", "p.j2"]);
    let record = &run_lines(&dir.0.join("run.jsonl"))[0];
    let message = record["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("p.j2:2") && message.contains("undefined"),
        "{message}"
    );
    assert!(server.calls().is_empty());
    // Every call failed: the run's error rate makes it incomplete.
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
}

#[test]
fn the_budget_stops_the_run_and_resume_goes_on() {
    let dir = TempDir::new("chat-budget");
    test_suite(&dir.0, 6);
    // Each call costs $0.50 (1M input tokens at $0.50).
    let server = FakeOpenAi::start(|_| {
        Reply::content(answer())
            .usage(1_000_000, 0)
            .delay(Duration::from_millis(20))
    });
    let prices = [
        "--input-per-mtok",
        "0.5",
        "--output-per-mtok",
        "1",
        "--jobs",
        "1",
    ];
    let mut args = prices.to_vec();
    args.extend(["--max-cost", "1.2"]);
    let out = chat(&dir.0, &server, &args);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("stopped after spending $1.50 of the $1.20 budget (--max-cost)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.calls().len(), 3);
    let mut resume = prices.to_vec();
    resume.push("--resume");
    let out = chat(&dir.0, &server, &resume);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(server.calls().len(), 6);
    assert_eq!(run_lines(&dir.0.join("run.jsonl")).len(), 6);
    // A budget without prices cannot be kept.
    let out = chat(&dir.0, &server, &["--max-cost", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--max-cost needs the token prices"),
        "{}",
        stderr(&out)
    );
}

fn walk(dir: &Path) -> String {
    let mut all = String::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            all.push_str(&walk(&path));
        } else {
            all.push_str(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
        }
    }
    all
}

#[test]
fn the_comment_says_what_the_answers_cost_beside_the_baseline() {
    let dir = TempDir::new("chat-comment");
    test_suite(&dir.0, 2);
    let server = FakeOpenAi::start(|call| {
        // The edited prompt makes longer answers.
        let completion = if call.message("user").contains("carefully") {
            400
        } else {
            200
        };
        Reply::content(answer()).usage(1_000, completion)
    });
    let prices = ["--input-per-mtok", "1", "--output-per-mtok", "10"];
    let mut refresh = vec!["--baseline", "base.json"];
    refresh.extend(prices);
    let base = server.base_url();
    let common = [
        "--suite",
        "suite",
        "--chat",
        "--base-url",
        &base,
        "--model",
        "m",
    ];
    let args: Vec<&str> = ["baseline", "refresh"]
        .iter()
        .chain(&common)
        .chain(&refresh)
        .copied()
        .collect();
    let out = goldgate(&dir.0, &args, &[("OPENAI_API_KEY", KEY)]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(dir.0.join("p.j2"), "Read carefully:\n{{ transcript }}\n").unwrap();
    let args: Vec<&str> = ["check", "--format", "markdown", "--prompt", "p.j2"]
        .iter()
        .chain(&common)
        .chain(&refresh)
        .copied()
        .collect();
    let out = goldgate(&dir.0, &args, &[("OPENAI_API_KEY", KEY)]);
    let comment = String::from_utf8_lossy(&out.stdout);
    assert!(
        // `$` escaped: two of them on a line would be typeset as math on GitHub.
        comment.contains(
            r"**Tokens and cost:** 2,800 tokens · \$0.0100 (baseline: 2,400 tokens · \$0.0060)"
        ),
        "{comment}\n{}",
        stderr(&out)
    );
}

#[test]
fn the_cost_of_the_answers_is_gated_like_any_metric() {
    let dir = TempDir::new("chat-cost-gate");
    test_suite(&dir.0, 2);
    std::fs::write(
        dir.0.join("thresholds.toml"),
        "version = 1\n[metrics.\"run.cost_usd\"]\nmax = 0.005\n",
    )
    .unwrap();
    // Each answer costs 1,000 × $1 + 500 × $10 per million tokens = $0.006.
    let server = FakeOpenAi::start(|_| Reply::content(answer()).usage(1_000, 500));
    let base = server.base_url();
    let args = [
        "check",
        "--suite",
        "suite",
        "--chat",
        "--base-url",
        &base,
        "--model",
        "m",
        "--input-per-mtok",
        "1",
        "--output-per-mtok",
        "10",
        "--allow-missing-baseline",
        "--baseline",
        "none.json",
        "--format",
        "markdown",
    ];
    let out = goldgate(&dir.0, &args, &[("OPENAI_API_KEY", KEY)]);
    let comment = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{comment}\n{}", stderr(&out));
    assert!(
        comment.contains("| `run.cost_usd` | – → 0.012 |"),
        "{comment}"
    );
}
