//! Lock files: a file beside what is being written, created exclusively (`O_EXCL`) and
//! holding the owner's process id, removed when the owner is done. A lock whose process
//! is gone (killed, crashed) is stale and taken over. The run's output lock and the suite
//! editor's lock are both made of it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A held lock file; dropping it removes the file.
#[derive(Debug)]
pub struct LockFile {
    path: PathBuf,
}

/// The outcome of one attempt to take a lock.
#[derive(Debug)]
pub enum Attempt {
    Taken(LockFile),
    /// Another live process holds it; what its file says (a process id, or nothing yet).
    Held(String),
}

/// A lock file without a readable process id younger than this may be one being written.
const BEING_WRITTEN: Duration = Duration::from_secs(10);

impl LockFile {
    /// Take the lock file `path` (its directory must exist), or say who holds it.
    pub fn try_take(path: &Path) -> std::io::Result<Attempt> {
        // Twice at most: once more after removing a stale lock.
        for _ in 0..2 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(mut file) => {
                    let lock = LockFile {
                        path: path.to_path_buf(),
                    };
                    // Not synced: the lock only has to be seen by other processes now, and
                    // after a crash of the machine an empty or dead-pid lock is stale anyway
                    // (an fsync here cost every run, a warm one included, a disk flush).
                    writeln!(file, "{}", std::process::id())?;
                    return Ok(Attempt::Taken(lock));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(path).unwrap_or_default();
                    if !is_stale(path, &holder) {
                        return Ok(Attempt::Held(holder.trim().to_string()));
                    }
                    // Remove it only if it is still the stale lock just read.
                    if std::fs::read_to_string(path).is_ok_and(|now| now == holder) {
                        let _ = std::fs::remove_file(path);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        let holder = std::fs::read_to_string(path).unwrap_or_default();
        Ok(Attempt::Held(holder.trim().to_string()))
    }

    /// [`LockFile::try_take`] again every few milliseconds for up to `wait`: for locks
    /// held only for a moment (one file being rewritten).
    pub fn take_within(path: &Path, wait: Duration) -> std::io::Result<Attempt> {
        let start = std::time::Instant::now();
        loop {
            match Self::try_take(path)? {
                Attempt::Held(_) if start.elapsed() < wait => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                attempt => return Ok(attempt),
            }
        }
    }
}

impl Drop for LockFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
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
