//! Helpers shared by the integration tests.

pub mod answers;
pub mod corpus;
pub mod embeddings;
pub mod imports;
pub mod mock_http;
pub mod openai;
pub mod output;
pub mod pipelines;
pub mod project;
#[cfg(feature = "semantic")]
pub mod reference_bert;
pub mod schema;
pub mod scoring;
pub mod test_kind;
#[cfg(feature = "semantic")]
pub mod tiny_bert;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory for one test (`goldgate-NAME-…` in the temporary directory), removed
/// when dropped.
pub struct TempDir(pub PathBuf, #[allow(dead_code)] tempfile::TempDir);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = tempfile::Builder::new()
            .prefix(&format!("goldgate-{name}-"))
            .tempdir()
            .unwrap();
        TempDir(dir.path().to_path_buf(), dir)
    }
}

/// Every file below `dir`, in name order.
pub fn files_below(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        match path.is_dir() {
            true => out.extend(files_below(&path)),
            false => out.push(path),
        }
    }
    out.sort();
    out
}

/// `path` in the example project (`examples/requirements/PATH`), as a string for arguments.
pub fn example(path: &str) -> String {
    format!(
        "{}/examples/requirements/{path}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `goldgate check` on the example project (its suite, its main answers replayed) under
/// `thresholds`, inside GitHub Actions (`GITHUB_ACTIONS=true`), run in `dir`; callers add
/// the rest of the environment and arguments.
pub fn check_example_in_actions(dir: &Path, thresholds: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    command
        .args([
            "check",
            "--suite",
            &example("suite"),
            "--replay",
            &example("answers/main.jsonl"),
            "--thresholds",
            thresholds,
        ])
        .env("GITHUB_ACTIONS", "true")
        .current_dir(dir);
    command
}

/// Score the suite in `suite` against the run (or outputs) file `run` through the library,
/// lexically, with `resamples` bootstrap resamples.
pub fn score_files(suite: &Path, run: &Path, resamples: usize) -> goldgate_core::score::ScoreFile {
    use goldgate_core::metrics::bootstrap::BootstrapConfig;
    let suite =
        goldgate_core::suite::Suite::open(suite, goldgate::settings::defaults::MAX_SAMPLE_BYTES)
            .unwrap();
    goldgate_core::score::score(&goldgate_core::score::ScoreRequest {
        suite: &suite,
        run,
        scoring: &goldgate_core::metrics::ScoringConfig::default(),
        bootstrap: BootstrapConfig {
            resamples,
            ..BootstrapConfig::default()
        },
        facts: &goldgate_core::score::Facts::default(),
        keep_view: None,
        embedding: None,
    })
    .unwrap()
    .file
}

/// What `check --print-fingerprint` printed (it must have exited 0), as `name=value` pairs.
pub fn printed_fingerprint(
    out: &std::process::Output,
) -> std::collections::HashMap<String, String> {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap_or_else(|| panic!("{l:?}"));
            (k.to_string(), v.to_string())
        })
        .collect()
}
