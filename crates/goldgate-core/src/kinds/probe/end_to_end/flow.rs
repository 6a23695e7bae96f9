//! A kind is its folder plus one registration line: `probe`, a kind that only test builds
//! register (`crates/goldgate-core/src/kinds/probe/`), flows through everything a kind
//! flows through — `init` writes its samples, rules and stub, `suite lint` checks its
//! labels, `check` runs, scores and gates it, the comment and the verdict name its metrics
//! and broken samples — while nothing outside its folder names it. Where goldgate lists
//! kinds (init's choices, the published schemas) it is not listed. `annotate` queues, saves
//! and promotes its labels in `annotate::kind_tests` (a unit test of the annotate module).

use crate::support::output::{assert_exit, text};
use crate::support::project::goldgate;
use crate::support::TempDir;

const KIND: &str = "probe";

#[test]
fn the_test_only_kind_flows_through_init_lint_check_the_gate_and_the_comment() {
    let tmp = TempDir::new("probe-kind");
    let dir = &tmp.0;
    let init = goldgate(dir, &["init", "--kind", KIND, "--pipeline", "command"], &[]);
    assert_exit(&init, 0, "init --kind probe");
    let samples: Vec<_> = std::fs::read_dir(dir.join("suite").join(KIND))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(samples.len(), 6, "its example samples: {samples:?}");
    let rules = std::fs::read_to_string(dir.join("thresholds.toml")).unwrap();
    assert!(rules.contains("[metrics.\"probe.f1\"]"), "{rules}");

    // Lint: its labels are read and checked by its own shape.
    assert_exit(
        &goldgate(dir, &["suite", "lint", "."], &[]),
        0,
        "suite lint",
    );
    let bad = dir.join("suite").join(KIND).join("bad.yaml");
    std::fs::write(
        &bad,
        "id: probe-bad\nkind: probe\nconversation:\n  - role: user\n    content: x\nlabels:\n  marks: [\"  \", 3]\n",
    )
    .unwrap();
    let lint = goldgate(dir, &["suite", "lint", "."], &[]);
    assert_exit(&lint, 2, "suite lint with a mark that is not a string");
    let said = text(&lint.stdout) + &text(&lint.stderr);
    assert!(
        said.contains("bad.yaml") && said.contains("labels.marks[1]"),
        "{said}"
    );
    std::fs::write(
        &bad,
        "id: probe-bad\nkind: probe\nconversation:\n  - role: user\n    content: x\nlabels:\n  marks: [\"  \"]\n",
    )
    .unwrap();
    let lint = goldgate(dir, &["suite", "lint", "."], &[]);
    assert_exit(&lint, 2, "suite lint with an empty mark");
    let said = text(&lint.stdout) + &text(&lint.stderr);
    assert!(said.contains("empty mark"), "its own rule: {said}");
    std::fs::remove_file(&bad).unwrap();

    // Check: run, score and gate it.
    let first = goldgate(dir, &["check"], &[]);
    assert_exit(&first, 0, "the first check, on the stub");
    let verdict = text(&first.stdout);
    assert!(
        verdict.starts_with("PASS") && verdict.contains("probe.f1"),
        "{verdict}"
    );
    assert_exit(
        &goldgate(dir, &["baseline", "refresh"], &[]),
        0,
        "baseline refresh",
    );

    // A worse pipeline: every answer keeps its first mark only.
    std::fs::rename(dir.join("pipeline.py"), dir.join("stub.py")).unwrap();
    std::fs::write(
        dir.join("pipeline.py"),
        "import json, subprocess, sys\n\
         answer = json.loads(subprocess.run([sys.executable, 'stub.py'], input=sys.stdin.read(),\n\
             capture_output=True, text=True, check=True).stdout)\n\
         answer['marks'] = answer['marks'][:1]\n\
         print(json.dumps(answer))\n",
    )
    .unwrap();
    let worse = goldgate(dir, &["check", "--out-dir", "out"], &[]);
    assert_exit(&worse, 1, "check on a pipeline that drops marks");
    let verdict = text(&worse.stdout);
    assert!(verdict.starts_with("FAIL"), "{verdict}");
    let f1 = verdict
        .lines()
        .find(|l| l.starts_with("probe.f1"))
        .unwrap_or_else(|| panic!("no probe.f1 row:\n{verdict}"));
    assert!(f1.ends_with("FAIL"), "{f1}");
    let broken = verdict
        .lines()
        .find(|l| l.trim_start().starts_with("broken: "))
        .unwrap_or_else(|| panic!("no broken samples named:\n{verdict}"));
    for id in ["probe-001", "probe-003", "probe-005"] {
        assert!(broken.contains(id), "{id} (two marks, one kept): {broken}");
    }

    // The comment and the verdict file name its metric and its broken samples, with the
    // diff of the marks its `aligned` lines up.
    let comment = std::fs::read_to_string(dir.join("out/report.md")).unwrap();
    assert!(comment.contains("probe.f1"), "{comment}");
    assert!(
        comment.contains("probe-001") && comment.contains("beta"),
        "{comment}"
    );
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/verdict.json")).unwrap())
            .unwrap();
    let failed: Vec<&str> = file["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == "fail")
        .filter_map(|m| m["name"].as_str())
        .collect();
    assert!(failed.contains(&"probe.f1"), "{failed:?}");
}

#[test]
fn the_test_only_kind_is_accepted_but_not_offered() {
    let tmp = TempDir::new("probe-kind-help");
    let help = goldgate(&tmp.0, &["init", "--help"], &[]);
    assert_exit(&help, 0, "init --help");
    assert!(!text(&help.stdout).contains(KIND), "{}", text(&help.stdout));
    let wrong = goldgate(&tmp.0, &["init", "--kind", "nope"], &[]);
    assert_exit(&wrong, 2, "an unknown kind");
    assert!(
        !text(&wrong.stderr).contains(KIND),
        "{}",
        text(&wrong.stderr)
    );
}
