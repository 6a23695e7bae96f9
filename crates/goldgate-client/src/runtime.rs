//! The one tokio runtime: built here, once per command that needs one (running a pipeline,
//! publishing to GitHub), and passed to whatever runs on it.

use goldgate_core::error::{Error, Result};

/// A multi-threaded runtime with I/O and timers.
pub fn build() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            Error::environment(
                format!("cannot start the async runtime: {e}"),
                "the machine refused threads or file descriptors: check the process limits (ulimit -u, ulimit -n)",
            )
        })
}
