//! Every command finds the suite and the pipeline in `goldgate.toml` as `check` does: in a
//! project `goldgate init` wrote, the sharded workflow's commands (`run --shard`, `merge`,
//! `check --replay`) and `score`, `suite lint | stats` need no `--suite`; where nothing names
//! a suite, each says so in one usage error (exit 2) with a hint, never clap's "required
//! arguments were not provided".

use crate::support::output::{assert_exit, text};
use crate::support::project::goldgate;
use crate::support::TempDir;

#[test]
fn the_sharded_workflow_runs_from_goldgate_toml_without_a_suite_flag() {
    let work = TempDir::new("config-suite");
    // Every listed kind, as `--kind` takes them.
    let listed: Vec<&str> = goldgate_core::kinds::listed().map(|k| k.as_str()).collect();
    let listed = listed.join(",");
    let init = goldgate(
        &work.0,
        &[
            "init",
            "project",
            "--pipeline",
            "command",
            "--kind",
            &listed,
        ],
        &[],
    );
    assert_exit(&init, 0, "init");
    let project = work.0.join("project");
    for shard in ["1", "2"] {
        let out = goldgate(
            &project,
            &[
                "run",
                "--shard",
                &format!("{shard}/2"),
                "--output",
                &format!("run-{shard}.jsonl"),
            ],
            &[],
        );
        assert_exit(&out, 0, &format!("run --shard {shard}/2"));
    }
    let merged = goldgate(
        &project,
        &[
            "merge",
            "run-1.jsonl",
            "run-2.jsonl",
            "--output",
            "merged.jsonl",
        ],
        &[],
    );
    assert_exit(&merged, 0, "merge");
    assert!(
        text(&merged.stdout).contains("merged 30 records from 2 files"),
        "{}",
        text(&merged.stdout)
    );

    let check = goldgate(&project, &["check", "--replay", "merged.jsonl"], &[]);
    assert_exit(&check, 0, "check --replay merged.jsonl");
    assert!(
        text(&check.stdout).contains("PASS"),
        "{}",
        text(&check.stdout)
    );

    let score = goldgate(
        &project,
        &["score", "--run", "merged.jsonl", "--output", "score.json"],
        &[],
    );
    assert_exit(&score, 0, "score without --suite");
    assert!(text(&score.stdout).contains("30 samples"));

    for args in [["suite", "lint"], ["suite", "stats"]] {
        let out = goldgate(&project, &args, &[]);
        assert_exit(&out, 0, &args.join(" "));
        assert!(
            text(&out.stderr).contains("goldgate.toml)"),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn with_no_suite_named_anywhere_each_command_gives_one_usage_error() {
    let work = TempDir::new("config-suite-none");
    std::fs::write(work.0.join("run.jsonl"), "").unwrap();
    for args in [
        &["run", "--command", "cat", "--output", "out.jsonl"][..],
        &["run", "--shard", "1/4", "--command", "cat"],
        &["score", "--run", "run.jsonl"],
        &["suite", "lint"],
        &["suite", "stats"],
        &["suite", "agreement"],
    ] {
        let out = goldgate(&work.0, args, &[]);
        let stderr = text(&out.stderr);
        assert_exit(&out, 2, &args.join(" "));
        assert!(
            !stderr.contains("required arguments"),
            "{}: {stderr}",
            args.join(" ")
        );
        assert!(
            stderr.contains("goldgate.toml") && stderr.contains("hint:"),
            "{}: {stderr}",
            args.join(" ")
        );
        assert_eq!(
            stderr.matches("error:").count(),
            1,
            "{}: {stderr}",
            args.join(" ")
        );
    }
    // A goldgate.toml without `[check] suite` is named as the place that lacks it.
    std::fs::write(
        work.0.join("goldgate.toml"),
        "[pipeline]\nkind = \"command\"\ncommand = \"cat\"\n",
    )
    .unwrap();
    let out = goldgate(&work.0, &["run", "--output", "out.jsonl"], &[]);
    assert_exit(&out, 2, "run with a goldgate.toml naming no suite");
    assert!(
        text(&out.stderr).contains("has no [check] suite"),
        "{}",
        text(&out.stderr)
    );
}

/// docs/github-action.md shows the sharded workflow users copy exactly as
/// examples/workflows/goldgate-sharded.yml has it (which CI lints with actionlint), and it
/// uses the published action, never this checkout's `./`.
#[test]
fn the_documented_sharded_workflow_is_the_linted_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let file =
        std::fs::read_to_string(root.join("examples/workflows/goldgate-sharded.yml")).unwrap();
    let workflow = &file[file.find("name: goldgate-sharded").unwrap()..];
    let docs = std::fs::read_to_string(root.join("docs/github-action.md")).unwrap();
    assert!(
        docs.contains(&format!("```yaml\n{workflow}```")),
        "docs/github-action.md does not show examples/workflows/goldgate-sharded.yml as it is"
    );
    assert!(workflow.contains("uses: goldgate/goldgate@v1"));
    assert!(!workflow.contains("uses: ./"));
    assert!(workflow.contains("goldgate run --shard") && !workflow.contains("--suite"));
}
