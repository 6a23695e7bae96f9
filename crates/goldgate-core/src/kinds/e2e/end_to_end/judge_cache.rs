//! The judge's cache cannot be planted: reviews committed to git, a symbolic link and an
//! oversized forged review are never used, and the judge rule still fails.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::cache_trust::ignored_line;
use crate::support::openai::{FakeOpenAi, Reply};
use crate::support::output::stderr;
use crate::support::project::{commit_all, git, git_repo, goldgate_capped, run_lines};
use crate::support::TempDir;

/// A judge that scores every document 0.4 under a rule that needs 0.9.
fn judged_project(dir: &Path, server: &FakeOpenAi) {
    std::fs::create_dir_all(dir.join("suite")).unwrap();
    let sample = json!({"id": "e-0", "kind": "e2e", "user_input": "A thermostat app.",
        "reference_srs": "# Reference",
        "labels": {"requirements": [{"id": "FR-01", "title": "Set schedules", "type": "functional",
            "actor": "user", "action": "set heating schedules"}]}});
    std::fs::write(dir.join("suite/samples.jsonl"), format!("{sample}\n")).unwrap();
    let answer = json!({"id": "e-0", "output": {"requirements": [], "srs_markdown": "# DOC"}});
    std::fs::write(dir.join("answers.jsonl"), format!("{answer}\n")).unwrap();
    std::fs::write(
        dir.join("goldgate.toml"),
        format!(
            "[pipeline]\nkind = \"replay\"\nfile = \"answers.jsonl\"\n\n[check]\nsuite = \"suite\"\n\n[judge]\nmodel = \"judge-model\"\nbase_url = \"{}\"\n",
            server.base_url()
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("thresholds.toml"),
        "version = 1\n[metrics.\"judge.comprehensive_weighted\"]\nmin = 0.9\n",
    )
    .unwrap();
    std::fs::write(dir.join(".gitignore"), ".goldgate/\n").unwrap();
    git_repo(dir);
}

fn low_judge() -> FakeOpenAi {
    FakeOpenAi::start(|_| {
        let v = 0.4;
        Reply::content(
            json!({"metrics": {"coverage": v, "completeness": v, "consistency": v, "testability": v,
                "clarity": v, "traceability": v, "scope_discipline": v,
                "by_category": {"functional": v, "non_functional": null, "constraints": null}}})
            .to_string(),
        )
    })
}

fn judge_entries(cache: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for shard in std::fs::read_dir(cache.join("judge")).unwrap() {
        for entry in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            out.push(entry.unwrap().path());
        }
    }
    assert!(!out.is_empty());
    out
}

/// A stored review with every score 1.0.
fn forged_review(entry: &Path) -> Value {
    let mut value: Value = serde_json::from_slice(&std::fs::read(entry).unwrap()).unwrap();
    let metrics = &mut value["judgement"]["metrics"];
    for name in [
        "coverage",
        "completeness",
        "consistency",
        "testability",
        "clarity",
        "traceability",
        "scope_discipline",
    ] {
        metrics[name] = json!(1.0);
    }
    value
}

#[test]
fn planted_judge_reviews_are_never_used_and_the_judge_rule_fails() {
    let dir = TempDir::new("trust-judge");
    let d = &dir.0;
    let server = low_judge();
    judged_project(d, &server);
    let env = [("GOLDGATE_TEST_BACKOFF_MS", "1")];
    let first = goldgate_capped(d, &["check"], &env);
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    assert_eq!(server.calls().len(), 1);

    // Committed reviews scoring everything 1.0.
    let entries = judge_entries(&d.join(".goldgate/cache"));
    for entry in &entries {
        std::fs::write(entry, forged_review(entry).to_string()).unwrap();
    }
    git(d, &["add", "-f", ".goldgate/cache"]);
    commit_all(d, "keep the judge cache");
    let out = goldgate_capped(d, &["check"], &env);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(server.calls().len(), 2, "the judge was asked again");
    let line = ignored_line(&out);
    assert!(
        line.contains("1 cache entry") && line.contains("tracked by git"),
        "{line}"
    );
    let records = run_lines(&d.join(".goldgate/out/run.jsonl"));
    assert!(records[0]["judge"]["judgements"][0].get("cached").is_none());

    // Untracked again, but a symbolic link to /dev/zero, then an oversized forged review.
    git(d, &["rm", "-r", "-q", "--cached", ".goldgate/cache"]);
    commit_all(d, "drop the judge cache");
    let entry = &entries[0];
    std::fs::remove_file(entry).unwrap();
    std::os::unix::fs::symlink("/dev/zero", entry).unwrap();
    let started = Instant::now();
    let out = goldgate_capped(d, &["check"], &env);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(server.calls().len(), 3);
    assert!(ignored_line(&out).contains("symbolic link"));
    std::fs::remove_file(entry).unwrap();
    let out = goldgate_capped(d, &["check"], &env);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(server.calls().len(), 4, "written afresh");
    let mut big = forged_review(entry);
    big["padding"] = json!("x".repeat(2 << 20));
    std::fs::write(entry, big.to_string()).unwrap();
    let out = goldgate_capped(d, &["check"], &env);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(server.calls().len(), 5);
    assert!(ignored_line(&out).contains("too large"));
}
