//! The output lock: one run at a time writes a run file (and, for `check`, the directory
//! around it). `OUTPUT.lock` is created exclusively (`O_EXCL`) and holds the owner's process
//! id; it is removed when the run ends. A second run finds it and stops at once (exit 2)
//! instead of failing at the end; a lock whose process is gone (killed, crashed) is stale and
//! taken over.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::error::{Error, Result};

/// Held while a run writes its output; removes the lock file when dropped.
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
}

/// A lock file without a readable process id younger than this may be one being written.
const BEING_WRITTEN: Duration = Duration::from_secs(10);

impl OutputLock {
    /// The lock file of a run file.
    pub fn path_of(output: &Path) -> PathBuf {
        crate::io::with_suffix(output, ".lock")
    }

    /// Take the lock of `output`, or say which process holds it.
    pub fn acquire(output: &Path) -> Result<OutputLock> {
        let path = Self::path_of(output);
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| Error::Write {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        // Twice at most: once more after removing a stale lock.
        for _ in 0..2 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut file) => {
                    let lock = OutputLock { path };
                    // Not synced: the lock only has to be seen by other processes now, and
                    // after a crash of the machine an empty or dead-pid lock is stale anyway
                    // (an fsync here cost every run, a warm one included, a disk flush).
                    writeln!(file, "{}", std::process::id()).map_err(|source| Error::Write {
                        path: lock.path.clone(),
                        source,
                    })?;
                    return Ok(lock);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(&path).unwrap_or_default();
                    if !is_stale(&path, &holder) {
                        return Err(held(output, &path, holder.trim()));
                    }
                    // Remove it only if it is still the stale lock just read.
                    if std::fs::read_to_string(&path).is_ok_and(|now| now == holder) {
                        let _ = std::fs::remove_file(&path);
                    }
                }
                Err(source) => return Err(Error::Write { path, source }),
            }
        }
        let holder = std::fs::read_to_string(&path).unwrap_or_default();
        Err(held(output, &path, holder.trim()))
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
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

/// Whether a lock's owner is gone: its process id names no process (or this one, a reused
/// id), or the file has held no process id for a while.
fn is_stale(path: &Path, holder: &str) -> bool {
    match holder.trim().parse::<u32>() {
        Ok(pid) => pid == std::process::id() || !alive(pid),
        Err(_) => std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age > BEING_WRITTEN),
    }
}

#[cfg(unix)]
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks whether the process exists; nothing is sent.
    let found = unsafe { libc::kill(pid, 0) } == 0;
    found || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(not(unix))]
fn alive(_pid: u32) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

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
