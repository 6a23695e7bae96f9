//! Helpers shared by the integration tests.

pub mod mock_http;

use std::path::PathBuf;

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
