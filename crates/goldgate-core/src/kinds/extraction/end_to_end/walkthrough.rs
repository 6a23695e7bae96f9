//! The acceptance walkthrough, as a new user would go: `init` with an extraction suite and
//! a command pipeline, `check` at once, `baseline refresh`, and a worse pipeline failing
//! the gate, naming the samples it broke.

use crate::support::output::{assert_exit, text};
use crate::support::project::goldgate;
use crate::support::TempDir;

/// The acceptance walkthrough, as a new user would go: in an empty directory, `init` with
/// an extraction suite and a command pipeline; `check` passes at once (no baseline yet);
/// `baseline refresh` stores one; a pipeline that drops requirements then fails the gate,
/// naming the sample it broke.
#[test]
fn walkthrough_init_check_refresh_and_a_worse_pipeline_fails() {
    let tmp = TempDir::new("init-walkthrough");
    let dir = &tmp.0;
    let init = goldgate(
        dir,
        &["init", "--kind", "extraction", "--pipeline", "command"],
        &[],
    );
    assert_exit(&init, 0, "init");
    let said = text(&init.stdout);
    for file in [
        "goldgate.toml",
        "thresholds.toml",
        "suite/extraction/ext-001.yaml",
        "pipeline.py",
        ".github/workflows/goldgate.yml",
        ".github/workflows/goldgate-publish.yml",
        ".github/workflows/goldgate-nightly.yml",
        "GOLDGATE.md",
    ] {
        assert!(dir.join(file).is_file(), "{file} was not written");
        assert!(said.contains(file), "init does not list {file}:\n{said}");
    }
    assert!(said.contains("goldgate check"), "{said}");

    let first = goldgate(dir, &["check"], &[]);
    assert_exit(
        &first,
        0,
        "the first check, on the stub, without a baseline",
    );
    let verdict = text(&first.stdout);
    assert!(verdict.starts_with("PASS"), "{verdict}");
    assert!(verdict.contains("no baseline yet"), "{verdict}");
    assert!(verdict.contains("extraction.f1"), "{verdict}");

    let refresh = goldgate(dir, &["baseline", "refresh"], &[]);
    assert_exit(&refresh, 0, "baseline refresh");
    assert!(dir.join("baselines/main.json").is_file());
    assert!(dir.join("baselines/main.run.jsonl").is_file());

    let again = goldgate(dir, &["check"], &[]);
    assert_exit(&again, 0, "check against the new baseline");
    assert!(!text(&again.stdout).contains("no baseline"));

    // A worse pipeline: the stub's answers with every requirement after the first dropped.
    std::fs::rename(dir.join("pipeline.py"), dir.join("stub.py")).unwrap();
    std::fs::write(
        dir.join("pipeline.py"),
        "import json, subprocess, sys\n\
         answer = json.loads(subprocess.run([sys.executable, 'stub.py'], input=sys.stdin.read(),\n\
             capture_output=True, text=True, check=True).stdout)\n\
         answer['requirements'] = answer['requirements'][:1]\n\
         print(json.dumps(answer))\n",
    )
    .unwrap();
    let worse = goldgate(dir, &["check"], &[]);
    assert_exit(&worse, 1, "check on a pipeline that drops requirements");
    let verdict = text(&worse.stdout);
    assert!(verdict.starts_with("FAIL"), "{verdict}");
    assert!(verdict.contains("extraction.recall"), "{verdict}");
    let broken = verdict
        .lines()
        .find(|l| l.trim_start().starts_with("broken: "))
        .unwrap_or_else(|| panic!("no broken samples named:\n{verdict}"));
    for i in 1..=6 {
        assert!(broken.contains(&format!("ext-00{i} (1.00 → ")), "{broken}");
    }
    // A real, significant failure: the drop is tested on enough samples, not on one.
    assert!(
        !verdict.contains("too few samples"),
        "the scaffold has too few samples to test a drop:\n{verdict}"
    );
    let recall = verdict
        .lines()
        .find(|l| l.starts_with("extraction.recall"))
        .unwrap();
    assert!(recall.ends_with("FAIL"), "{recall}");
    let regression = verdict
        .lines()
        .find(|l| l.contains("is worse by") && l.contains("allowed"))
        .unwrap_or_else(|| panic!("no regression reported:\n{verdict}"));
    assert!(!regression.contains("not significant"), "{regression}");
}
