//! Helpers shared by the integration tests.

pub mod mock_http;
pub mod openai;
pub mod project;
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

/// `goldgate check` on the example project (its suite, its main answers replayed) under
/// `thresholds`, inside GitHub Actions (`GITHUB_ACTIONS=true`), run in `dir`; callers add
/// the rest of the environment and arguments.
pub fn check_example_in_actions(dir: &Path, thresholds: &str) -> Command {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut command = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    command
        .args([
            "check",
            "--suite",
            &format!("{root}/examples/requirements/suite"),
            "--replay",
            &format!("{root}/examples/requirements/answers/main.jsonl"),
            "--thresholds",
            thresholds,
        ])
        .env("GITHUB_ACTIONS", "true")
        .current_dir(dir);
    command
}
