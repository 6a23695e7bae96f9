//! The output lock: one run at a time writes a run file (and, for `check`, the directory
//! around it). `OUTPUT.lock` is a [`LockFile`] (created exclusively, holding the owner's
//! process id); it is removed when the run ends. A second run finds it and stops at once (exit 2)
//! instead of failing at the end; a lock whose process is gone (killed, crashed) is stale and
//! taken over.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::lockfile::{Attempt, LockFile};

/// Held while a run writes its output; removes the lock file when dropped.
#[derive(Debug)]
pub struct OutputLock {
    _lock: LockFile,
}

impl OutputLock {
    /// The lock file of a run file.
    pub fn path_of(output: &Path) -> PathBuf {
        crate::io::with_suffix(output, ".lock")
    }

    /// Take the lock of `output`, or say which process holds it.
    pub fn acquire(output: &Path) -> Result<OutputLock> {
        let path = Self::path_of(output);
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            crate::io::create_dir_all(parent)?;
        }
        match LockFile::try_take(&path) {
            Ok(Attempt::Taken(lock)) => Ok(OutputLock { _lock: lock }),
            Ok(Attempt::Held(holder)) => Err(held(output, &path, &holder)),
            Err(source) => Err(Error::Write { path, source }),
        }
    }
}

fn held(output: &Path, lock: &Path, holder: &str) -> Error {
    let who = match holder.parse::<u32>() {
        Ok(pid) => format!("another goldgate (pid {pid})"),
        Err(_) => "another goldgate".to_string(),
    };
    Error::usage(
        format!(
            "{who} is writing {}: two runs cannot write one output",
            output.display()
        ),
        format!(
            "wait for it to finish, or write elsewhere (--out-dir for check, --output for run); if no goldgate is running, delete {}",
            lock.display()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn one_holder_at_a_time_and_stale_locks_are_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out/run.jsonl");
        let lock = OutputLock::acquire(&output).unwrap();
        let path = OutputLock::path_of(&output);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap().trim(),
            std::process::id().to_string()
        );
        drop(lock);
        assert!(!path.exists(), "dropping the lock removes its file");

        // A process that exists (pid 1) holds it.
        std::fs::write(&path, "1\n").unwrap();
        let e = OutputLock::acquire(&output).unwrap_err().to_string();
        assert!(
            e.contains("another goldgate (pid 1)") && e.contains("hint:"),
            "{e}"
        );
        assert!(path.exists());

        // A dead process, this very process id (reused) and an old unreadable file do not.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        child.wait().unwrap();
        for holder in [
            format!("{}\n", child.id()),
            format!("{}\n", std::process::id()),
        ] {
            std::fs::write(&path, holder).unwrap();
            drop(OutputLock::acquire(&output).unwrap());
        }
        std::fs::write(&path, "").unwrap();
        assert!(
            OutputLock::acquire(&output).is_err(),
            "a lock being written"
        );
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
        drop(OutputLock::acquire(&output).unwrap());
    }
}
