//! `goldgate run` and `check` around real pipelines: the pipeline chosen by `goldgate.toml`
//! (flags override it; a command runs in the file's directory, or its `workdir`), a baseline
//! refreshed, shown and checked against, and the gate inside GitHub Actions (summary,
//! outputs, annotations; job files it cannot write only warned about), with a hostile answer
//! rendered harmless in the comment and the HTML report.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::pipelines::{python, records, script, suite};
use crate::support::project::{git_repo, goldgate};
use crate::support::{check_example_in_actions, test_kind, TempDir};

#[test]
fn goldgate_toml_chooses_the_pipeline_and_flags_override_it() {
    let dir = TempDir::new("run-config");
    suite(&dir.0, 3);
    std::fs::create_dir_all(dir.0.join("prompts")).unwrap();
    std::fs::write(dir.0.join("prompts/system.txt"), "be precise").unwrap();
    let toml = format!(
        "[pipeline]\nkind = \"command\"\ncommand = \"{}\"\nmode = \"jsonl\"\nfingerprint_files = [\"prompts\"]\n\n[run]\njobs = 2\n",
        python("jsonl_echo.py", "")
    );
    std::fs::write(dir.0.join("goldgate.toml"), toml).unwrap();
    let out = goldgate(
        &dir.0,
        &["run", "--suite", "suite", "--output", "run.jsonl"],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&dir.0.join("run.jsonl"));
    assert!(
        recs.values().all(|r| r["prediction"]["keys"].is_array()),
        "the jsonl pipeline from the file answered"
    );

    let echo = script("echo.sh");
    let out = goldgate(
        &dir.0,
        &[
            "run",
            "--suite",
            "suite",
            "--output",
            "flag.jsonl",
            "--command",
            &echo,
            "--mode",
            "oneshot",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    let recs = records(&dir.0.join("flag.jsonl"));
    assert!(
        recs.values()
            .all(|r| r["prediction"]["conversation"].is_array()),
        "the flag's pipeline answered"
    );

    std::fs::write(
        dir.0.join("goldgate.toml"),
        "[pipeline]\nkind = \"command\"\ncomand = \"x\"\n",
    )
    .unwrap();
    let out = goldgate(&dir.0, &["run", "--suite", "suite"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("goldgate.toml:3") && stderr.contains("did you mean `command`?"),
        "{stderr}"
    );
}

#[test]
fn baseline_refresh_then_show_then_check_against_it() {
    let dir = TempDir::new("run-baseline");
    suite(&dir.0, 6);
    git_repo(&dir.0); // answers are keyed on the repository's content
    let count = script("count.sh");
    let out = goldgate(
        &dir.0,
        &[
            "baseline",
            "refresh",
            "--suite",
            "suite",
            "--command",
            &count,
            "--model",
            "m-1",
            "--repeat",
            "2",
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("baseline written to baselines/main.json (6 samples, 12 records; its run to baselines/main.run.jsonl)"));
    let out = goldgate(&dir.0, &["baseline", "show"], &[]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("model             m-1")
            && shown.contains("repeats           2")
            && shown.contains(&test_kind::metric("f1")),
        "{shown}"
    );
    let out = goldgate(
        &dir.0,
        &[
            "check",
            "--suite",
            "suite",
            "--command",
            &count,
            "--model",
            "m-1",
            "--repeat",
            "2",
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("PASS") && !stdout.contains("provenance changed"),
        "{stdout}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("100% hit rate"),
        "the check reuses the refresh's cache"
    );
    let verdict: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.0.join(".goldgate/out/verdict.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(verdict["verdict"], "pass");
    assert_eq!(verdict["samples"]["shared"], 6);
}

/// Two primary metrics of the example project's kinds, each below 0.99 on its baseline.
fn example_primaries() -> [&'static str; 2] {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/requirements/baselines/main.json"
    );
    let baseline: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let below: Vec<&'static str> = goldgate_core::kinds::listed()
        .map(|k| goldgate_core::kinds::of(k).primary_metric())
        .filter(|m| {
            baseline["metrics"][m]["value"]
                .as_f64()
                .is_some_and(|v| v < 0.99)
        })
        .collect();
    [below[0], below[1]]
}

#[test]
fn inside_github_actions_check_writes_the_summary_outputs_and_annotations() {
    let dir = TempDir::new("run-actions");
    let [failing, warned] = example_primaries();
    std::fs::write(dir.0.join("t.toml"), format!("version = 1\n[metrics.\"{failing}\"]\nmin = 0.99\n[metrics.\"{warned}\"]\nmin = 0.99\nseverity = \"warn\"\n")).unwrap();
    let (summary, output) = (dir.0.join("summary.md"), dir.0.join("output.txt"));
    let out = check_example_in_actions(&dir.0, "t.toml")
        .args(["--format", "json"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &output)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let verdict: Value = serde_json::from_slice(&out.stdout).expect("stdout stays pure JSON");
    assert_eq!(verdict["verdict"], "fail");
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(
        summary.starts_with("<!-- goldgate:goldgate -->") && summary.contains("**fail**"),
        "{summary}"
    );
    let output = std::fs::read_to_string(&output).unwrap();
    assert!(
        output.contains("verdict<<")
            && output.contains("\nfail\n")
            && output.contains("exit-code<<"),
        "{output}"
    );
    assert!(output.contains(".goldgate/out/verdict.json"), "{output}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("::error title=goldgate%3A {failing}::")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("::warning title=goldgate%3A {warned}::")),
        "{stderr}"
    );
}

#[test]
fn a_hostile_answer_renders_harmless_in_the_comment_and_the_html() {
    let dir = TempDir::new("run-hostile");
    suite(&dir.0, 4);
    let good = test_kind::answer(&["SECRET-GOLD-TITLE"]);
    let hostile = "@octocat </details><script>alert(1)</script> ```";
    let bad = test_kind::answer(&[hostile]);
    let lines = |first: &Value| -> String {
        (0..4).map(|i| json!({"id": format!("s-{i}"), "output": if i == 0 { first.clone() } else { good.clone() }}).to_string() + "\n").collect()
    };
    std::fs::write(dir.0.join("base.jsonl"), lines(&good)).unwrap();
    std::fs::write(dir.0.join("cand.jsonl"), lines(&bad)).unwrap();
    let out = goldgate(
        &dir.0,
        &[
            "baseline",
            "refresh",
            "--suite",
            "suite",
            "--replay",
            "base.jsonl",
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        dir.0.join("baselines/main.run.jsonl").is_file(),
        "the baseline's run is kept beside it"
    );
    let out = goldgate(
        &dir.0,
        &[
            "check",
            "--suite",
            "suite",
            "--replay",
            "cand.jsonl",
            "--format",
            "markdown",
        ],
        &[],
    );
    let body = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        body.contains("what changed") && body.contains("octocat"),
        "the broken sample's diff is shown\n{body}"
    );
    // Outside code blocks nothing is live: no mention, no tag from the answer.
    let prose = outside_fences(&body);
    assert!(
        !prose.contains("octocat") && !prose.contains("<script") && !prose.contains("```"),
        "{prose}"
    );
    assert_eq!(
        prose.matches("<details>").count(),
        prose.matches("</details>").count(),
        "details stay balanced"
    );
    // Inside, the answer's ``` cannot close the diffs' longer fences.
    assert!(
        body.lines()
            .filter(|l| l.starts_with("```") && l.ends_with("diff"))
            .all(|l| l.starts_with("````")),
        "{body}"
    );
    let out = goldgate(
        &dir.0,
        &[
            "check",
            "--suite",
            "suite",
            "--replay",
            "cand.jsonl",
            "--format",
            "html",
        ],
        &[],
    );
    let html = String::from_utf8_lossy(&out.stdout);
    assert!(
        html.contains("what changed") && html.contains("&lt;script&gt;alert(1)"),
        "shown, escaped"
    );
    // The report's own script only, and every fold closed where the report closes it.
    assert_eq!(html.matches("<script").count(), 1, "{html}");
    assert!(html.contains(&format!(
        "<script>{}</script>",
        goldgate::report::html::REPORT_SCRIPT
    )));
    assert_eq!(
        html.matches("<details").count(),
        html.matches("</details>").count(),
        "no early close:\n{html}"
    );
    for (i, _) in html.match_indices("</details><") {
        assert!(
            html[i..].starts_with("</details></li>"),
            "only a trace's call ends its list item: {}",
            &html[i..html.len().min(i + 60)]
        );
    }
}

/// Markdown with its fenced code blocks removed (a fence closes on a line that starts with
/// at least as many backticks as opened it).
fn outside_fences(markdown: &str) -> String {
    let mut out = String::new();
    let mut open: Option<usize> = None;
    for line in markdown.lines() {
        let ticks = line.trim_start().chars().take_while(|c| *c == '`').count();
        match open {
            None if ticks >= 3 => open = Some(ticks),
            None => {
                out.push_str(line);
                out.push('\n');
            }
            Some(n) if ticks >= n && line.trim().chars().all(|c| c == '`') => open = None,
            Some(_) => {}
        }
    }
    out
}

/// Job files the runner cannot take (here: directories) are reported as warnings and never
/// change the gate's exit code, whichever way the gate went.
#[test]
fn unwritable_job_files_are_reported_and_keep_the_gates_exit_code() {
    let dir = TempDir::new("run-actions-unwritable");
    let [primary, _] = example_primaries();
    std::fs::write(
        dir.0.join("pass.toml"),
        format!("version = 1\n[metrics.\"{primary}\"]\nmin = 0.1\n"),
    )
    .unwrap();
    std::fs::write(
        dir.0.join("fail.toml"),
        format!("version = 1\n[metrics.\"{primary}\"]\nmin = 0.99\n"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.0.join("a-directory")).unwrap();
    for (rules, code) in [("pass.toml", 0), ("fail.toml", 1)] {
        let out = check_example_in_actions(&dir.0, rules)
            .env("GITHUB_STEP_SUMMARY", dir.0.join("a-directory"))
            .env("GITHUB_OUTPUT", dir.0.join("a-directory"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{rules}: {stderr}");
        assert!(
            stderr.contains("warning: job summary (GITHUB_STEP_SUMMARY):"),
            "{stderr}"
        );
        assert!(
            stderr.contains("warning: step outputs (GITHUB_OUTPUT):"),
            "{stderr}"
        );
        assert!(
            stderr.contains("::warning title=goldgate%3A job file not written::"),
            "{stderr}"
        );
    }
}

/// A command from `--config some/dir/goldgate.toml` runs in that file's directory, so a
/// relative `python3 pipeline.py` works from anywhere (`check` too); `workdir` moves it.
#[test]
fn a_command_from_goldgate_toml_runs_in_the_files_directory() {
    let dir = TempDir::new("run-config-dir");
    suite(&dir.0, 3);
    let project = dir.0.join("project/ci");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("pipeline.py"),
        "import json, os, sys\nrequest = json.load(sys.stdin)\nprint(json.dumps({\"marks\": [], \"cwd\": os.getcwd()}))\n",
    )
    .unwrap();
    std::fs::write(
        project.join("goldgate.toml"),
        "[pipeline]\nkind = \"command\"\ncommand = \"python3 pipeline.py\"\n\n[check]\nsuite = \"../../suite\"\n",
    )
    .unwrap();
    let elsewhere = dir.0.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let out = goldgate(
        &elsewhere,
        &[
            "run",
            "--config",
            "../project/ci/goldgate.toml",
            "--suite",
            "../suite",
            "--output",
            "run.jsonl",
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&elsewhere.join("run.jsonl"));
    let ci = project.canonicalize().unwrap();
    for r in recs.values() {
        assert!(r["error"].is_null(), "{r}");
        assert_eq!(Path::new(r["prediction"]["cwd"].as_str().unwrap()), ci);
    }
    let out = goldgate(
        &elsewhere,
        &[
            "check",
            "--config",
            "../project/ci/goldgate.toml",
            "--out-dir",
            "out",
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `workdir` (relative to the file) moves the command. (Editing goldgate.toml is a
    // change of the pipeline the cache cannot see by itself: --no-cache.)
    std::fs::rename(
        project.join("pipeline.py"),
        dir.0.join("project/pipeline.py"),
    )
    .unwrap();
    let toml = std::fs::read_to_string(project.join("goldgate.toml")).unwrap();
    std::fs::write(
        project.join("goldgate.toml"),
        toml.replace("[check]", "workdir = \"..\"\n\n[check]"),
    )
    .unwrap();
    let out = goldgate(
        &elsewhere,
        &[
            "run",
            "--config",
            "../project/ci/goldgate.toml",
            "--suite",
            "../suite",
            "--output",
            "up.jsonl",
            "--no-cache",
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let up = dir.0.join("project").canonicalize().unwrap();
    for r in records(&elsewhere.join("up.jsonl")).values() {
        assert_eq!(
            Path::new(r["prediction"]["cwd"].as_str().unwrap()),
            up,
            "{r}"
        );
    }
}
