//! `goldgate publish` with verdict files that cannot be trusted (a fork's artifact), posted
//! to the fake GitHub of `github.rs`: the verdict is judged again under the trusted rules
//! and baseline, the comment says where it was computed, and reports in full-width text fit
//! GitHub's byte limits. And the reports that keep what matters: a comment trimmed to fit
//! keeps the worst broken samples, and the job summary is the full report.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

use crate::github::{start, FakeGitHub, MARKER, TOKEN};
use crate::support::{example, test_kind, TempDir};

/// The verdict of the example project's candidate answers (it fails: its requirement
/// extraction dropped below its floors and regressed against the baseline).
fn failing_verdict(dir: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(["check", "--config", &example("goldgate.toml")])
        .args(["--replay", &example("answers/candidate.jsonl")])
        .args([
            "--out-dir",
            "out",
            "--comment-on",
            "never",
            "--format",
            "brief",
        ])
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(dir.join("out/verdict.json")).unwrap()).unwrap()
}

/// The rules a verdict fails, by metric name (the example's are its requirement kind's
/// recall and F1).
fn failed(v: &Value) -> Vec<String> {
    let failed: Vec<String> = v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == "fail")
        .map(|m| m["name"].as_str().unwrap().to_string())
        .collect();
    assert!(!failed.is_empty(), "the example fails a rule");
    failed
}

/// The verdict as a forger would write it: pass, every rule holding.
fn forged_pass(mut v: Value) -> Value {
    v["verdict"] = json!("pass");
    v["exit_code"] = json!(0);
    v["summary"] = json!("passed: 11 rules hold");
    for m in v["metrics"].as_array_mut().unwrap() {
        m["status"] = json!("pass");
        m["reasons"] = json!([]);
    }
    v
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(v).unwrap()).unwrap();
    path
}

/// `goldgate publish` in a `workflow_run` job: the fake GitHub, pull request 7.
fn publish(dir: &Path, server: &FakeGitHub, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .arg("publish")
        .args(args)
        .args(["--pr", "7"])
        .current_dir(dir)
        .env("GITHUB_ACTIONS", "true")
        .env(
            "GITHUB_API_URL",
            format!("http://127.0.0.1:{}", server.port),
        )
        .env("GITHUB_REPOSITORY", "o/r")
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_SHA", "0123456789abcdef0123")
        .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .env("GOLDGATE_TEST_BACKOFF_MS", "10")
        .env_remove("GITHUB_EVENT_PATH")
        .output()
        .unwrap()
}

/// `publish` of `dir/verdict.json` under the example's rules, with a check run.
fn publish_with_check_run(dir: &Path, server: &FakeGitHub) -> Output {
    publish(
        dir,
        server,
        &[
            "--verdict",
            "verdict.json",
            "--thresholds",
            &example("thresholds.toml"),
            "--check-run",
        ],
    )
}

fn posted(server: &FakeGitHub) -> String {
    let s = server.state.lock().unwrap();
    assert_eq!(s.comments.len(), 1, "one comment");
    s.comments[0]["body"].as_str().unwrap().to_string()
}

/// A forged verdict that says pass while its values break the trusted rules is posted (and
/// exits) as the failure it is, with a warning that the file's claim was overridden and the
/// place the verdict was computed; the check run concludes failure.
#[test]
fn a_forged_pass_is_published_as_the_failure_its_values_give() {
    let dir = TempDir::new("publish-forged");
    let verdict = failing_verdict(&dir.0);
    let failed = failed(&verdict);
    let forged = forged_pass(verdict);
    write(&dir.0, "verdict.json", &forged);
    let server = start(vec![]);
    let out = publish_with_check_run(&dir.0, &server);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("::warning title=goldgate%3A verdict overridden::")
            && stderr.contains("claimed pass")
            && failed
                .iter()
                .all(|m| stderr.contains(&format!("{m} (claimed pass, is fail)"))),
        "{stderr}"
    );
    let body = posted(&server);
    assert!(
        body.starts_with(MARKER) && body.contains("**fail**"),
        "{body}"
    );
    assert!(
        body.contains("[!WARNING]") && body.contains("claimed pass"),
        "{body}"
    );
    assert!(
        body.contains("Verdict computed by goldgate publish from verdict.json under ")
            && body.contains("thresholds.toml at 0123456789ab"),
        "{body}"
    );
    assert!(body.contains("is below the floor"), "{body}");
    let s = server.state.lock().unwrap();
    assert_eq!(s.check_runs[0]["conclusion"], "failure");
}

/// With a trusted baseline, the file's baseline values are not used: a forger who copied
/// the candidate's values into the baseline to hide a regression is found out. The file's
/// interval was drawn against another baseline, so it cannot excuse the drop as noise.
#[test]
fn a_trusted_baseline_replaces_the_baseline_values_in_the_file() {
    let dir = TempDir::new("publish-baseline");
    let verdict = failing_verdict(&dir.0);
    let recall = failed(&verdict)
        .into_iter()
        .find(|m| m.ends_with(".recall"))
        .expect("the example's recall fails");
    let mut forged = forged_pass(verdict);
    for m in forged["metrics"].as_array_mut().unwrap() {
        m["baseline"] = m["candidate"].clone();
        m["delta"] = m["candidate"].as_f64().map_or(Value::Null, |_| json!(0.0));
    }
    write(&dir.0, "verdict.json", &forged);
    std::fs::write(
        dir.0.join("rules.toml"),
        format!("version = 1\n[metrics.\"{recall}\"]\nmax_regression = 0.03\nrequire_significance = true\n"),
    )
    .unwrap();
    let rules = [
        "--verdict",
        "verdict.json",
        "--thresholds",
        "rules.toml",
        "--comment-on",
        "never",
    ];
    let server = start(vec![]);
    let out = publish(&dir.0, &server, &rules);
    assert_eq!(
        out.status.code(),
        Some(0),
        "without a baseline, the file's values are all there is"
    );
    let baseline = example("baselines/main.json");
    let out = publish(
        &dir.0,
        &server,
        &[&rules[..], &["--baseline", baseline.as_str()]].concat(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("goldgate publish: fail — {recall} (computed from")),
        "{stderr}"
    );
    let summary = std::fs::read_to_string(dir.0.join("summary.md")).unwrap();
    assert!(
        summary.contains("0.889 → 0.603")
            && summary.contains("counted as significant")
            && summary.contains("against the baseline"),
        "{summary}"
    );
}

/// A report in full-width text is within GitHub's limits in bytes: the comment GitHub
/// refuses as too long is sent again shorter, and the check run's summary has at most
/// 65,535 bytes (it used to be cut to 65,535 characters, three times too many bytes).
#[test]
fn full_width_reports_fit_githubs_limits_in_bytes() {
    let dir = TempDir::new("publish-wide");
    let mut v = failing_verdict(&dir.0);
    for d in v["diffs"].as_array_mut().unwrap() {
        d["gold_vs_candidate"] = json!(format!(
            "-{}\n+{}\n",
            "要件".repeat(700),
            "検証".repeat(700)
        ));
    }
    write(&dir.0, "verdict.json", &v);
    let server = start(vec![]);
    server.state.lock().unwrap().max_body_bytes = Some(65_536);
    let out = publish_with_check_run(&dir.0, &server);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("posted the goldgate comment on #7"),
        "{stderr}"
    );
    assert!(
        stderr.contains("created check run 99 (failure)"),
        "{stderr}"
    );
    let body = posted(&server);
    assert!(body.len() <= 65_536, "{} bytes", body.len());
    let full = std::fs::read_to_string(dir.0.join("summary.md")).unwrap();
    assert!(
        full.len() > 65_536 && full.chars().count() < 65_536,
        "the test needs a report over the limit in bytes only"
    );
    assert!(body.contains("ext-005"), "the worst broken sample stays");
    let s = server.state.lock().unwrap();
    let summary = s.check_runs[0]["output"]["summary"].as_str().unwrap();
    assert!(
        summary.len() <= 65_535 && summary.starts_with(MARKER),
        "{}",
        summary.len()
    );
}

/// `n` samples `s-00` … of the test kind whose gold holds 20 long marks each.
fn long_suite(dir: &Path, n: usize) {
    let root = dir.join("suite");
    std::fs::create_dir_all(&root).unwrap();
    let samples: Vec<Value> = (0..n)
        .map(|i| {
            let marks: Vec<String> = (0..20)
                .map(|r| {
                    format!(
                        "mark {r} of sample {i}: {}",
                        "the system shall keep an audit trail of every order change ".repeat(3)
                    )
                })
                .collect();
            let marks: Vec<&str> = marks.iter().map(String::as_str).collect();
            test_kind::sample(&format!("s-{i:02}"), "Customers track orders.", &marks)
        })
        .collect();
    std::fs::write(root.join("samples.jsonl"), test_kind::lines(&samples)).unwrap();
}

/// Answers to `long_suite`: the gold itself, or 20 unrelated long marks.
fn answers(dir: &Path, name: &str, n: usize, good: bool) {
    let suite = std::fs::read_to_string(dir.join("suite/samples.jsonl")).unwrap();
    let unrelated: Vec<String> = (0..20)
        .map(|r| {
            format!(
                "unrelated {r}: {}",
                "a payment gateway retries declined cards nightly ".repeat(3)
            )
        })
        .collect();
    let unrelated: Vec<&str> = unrelated.iter().map(String::as_str).collect();
    let lines: String = suite
        .lines()
        .take(n)
        .enumerate()
        .map(|(i, line)| {
            let sample: Value = serde_json::from_str(line).unwrap();
            let output = match good {
                true => sample["labels"].clone(),
                false => test_kind::answer(&unrelated),
            };
            json!({"id": format!("s-{i:02}"), "output": output}).to_string() + "\n"
        })
        .collect();
    std::fs::write(dir.join(name), lines).unwrap();
}

/// 25 broken samples with long diffs: the PR comment stays under 65,536 characters and
/// still names every broken sample (the worst first, with as many diffs as fit, saying how
/// many were left out); the job summary is the full report, every broken sample with its
/// diff, the files written and the command that reproduces the verdict, under 1 MiB. (The
/// comment used to drop the whole section, and the summary was that comment.)
#[test]
fn a_trimmed_comment_keeps_the_worst_samples_and_the_summary_has_them_all() {
    let dir = TempDir::new("publish-trimmed");
    long_suite(&dir.0, 25);
    answers(&dir.0, "good.jsonl", 25, true);
    answers(&dir.0, "bad.jsonl", 25, false);
    std::fs::write(
        dir.0.join("thresholds.toml"),
        format!(
            "version = 1\n[metrics.\"{}\"]\nmin = 0.5\n",
            test_kind::metric("f1")
        ),
    )
    .unwrap();
    let goldgate = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_goldgate"))
            .args(args)
            .current_dir(&dir.0)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", dir.0.join("summary.md"))
            .env_remove("GITHUB_TOKEN")
            .output()
            .unwrap()
    };
    let out = goldgate(&[
        "baseline",
        "refresh",
        "--suite",
        "suite",
        "--replay",
        "good.jsonl",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = goldgate(&[
        "check",
        "--suite",
        "suite",
        "--replay",
        "bad.jsonl",
        "--format",
        "brief",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ids: Vec<String> = (0..25).map(|i| format!("s-{i:02}")).collect();
    let comment = std::fs::read_to_string(dir.0.join(".goldgate/out/report.md")).unwrap();
    assert!(
        comment.chars().count() <= 65_536,
        "{} characters",
        comment.chars().count()
    );
    assert!(comment.contains("Broken samples (25"), "{comment}");
    let named = ids
        .iter()
        .filter(|id| comment.contains(&format!("`{id}`")))
        .count();
    let hidden = 25 - named;
    assert!(
        named >= 1 && comment.contains("what changed"),
        "the worst keep their diffs"
    );
    if hidden > 0 {
        assert!(
            comment.contains(&format!("…and {hidden} more broken samples not shown")),
            "{comment}"
        );
    }
    assert!(
        comment.contains("not shown"),
        "the comment says what it left out"
    );
    let summary = std::fs::read_to_string(dir.0.join("summary.md")).unwrap();
    assert!(summary.len() <= 1 << 20, "{} bytes", summary.len());
    for id in &ids {
        assert!(
            summary.contains(&format!("<code>{id}</code>: what changed")),
            "{id}'s diff"
        );
    }
    assert_eq!(summary.matches("Gold vs candidate").count(), 25);
    assert!(
        !summary.contains("not shown"),
        "nothing left out of the summary"
    );
    assert!(
        summary.contains("**Files written:**")
            && summary.contains("verdict-file: .goldgate/out/verdict.json")
            && summary.contains(
                "goldgate compare --score .goldgate/out/score.json --baseline baselines/main.json"
            ),
        "{summary}"
    );
}

/// A verdict file that carries the workflow's token (an answer that echoed it, in a diff
/// and in a failure message) is posted with the token replaced by `***`: in the comment,
/// the check run and the job summary.
#[test]
fn a_token_inside_a_verdict_file_is_never_posted() {
    let dir = TempDir::new("publish-token");
    let mut v = failing_verdict(&dir.0);
    let diffs = v["diffs"].as_array_mut().unwrap();
    assert!(!diffs.is_empty(), "the example breaks samples");
    for d in diffs {
        let text = d["gold_vs_candidate"].as_str().unwrap().to_string();
        d["gold_vs_candidate"] = json!(format!("{text}+ leaked {TOKEN}\n"));
    }
    write(&dir.0, "verdict.json", &v);
    let server = start(vec![]);
    let out = publish_with_check_run(&dir.0, &server);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let body = posted(&server);
    assert!(body.contains("+ leaked ***"), "{body}");
    assert!(!body.contains(TOKEN), "the comment carries the token");
    let s = server.state.lock().unwrap();
    let check_run = s.check_runs[0].to_string();
    assert!(
        !check_run.contains(TOKEN),
        "the check run carries the token"
    );
    let summary = std::fs::read_to_string(dir.0.join("summary.md")).unwrap();
    assert!(summary.contains("+ leaked ***"), "{summary}");
    assert!(
        !summary.contains(TOKEN),
        "the job summary carries the token"
    );
    assert!(!stderr.contains(TOKEN) && !String::from_utf8_lossy(&out.stdout).contains(TOKEN));
}
