//! Pipeline processes: `sh -c COMMAND` started in a process group of its own, and the guard
//! that kills the whole group (grandchildren included) when a call ends early — a timeout,
//! an oversized answer, Ctrl-C, or a call that is abandoned.

use std::process::Stdio;

use tokio::process::Command;

use super::call::CallError;
use crate::runfile::record::ErrorKind;

/// Kills a process group when dropped, unless disarmed (the call finished normally).
pub struct GroupGuard(pub(super) Option<i32>);

impl GroupGuard {
    pub fn kill(&mut self) {
        if let Some(pgid) = self.0.take() {
            // SAFETY: killpg only sends a signal; an already-gone group is harmless (ESRCH).
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Start `sh -c command` with piped stdin and stdout in a process group of its own, and the
/// guard that kills that group.
pub fn spawn_shell(
    command: &str,
    stderr: Stdio,
) -> Result<(tokio::process::Child, GroupGuard), CallError> {
    let child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| CallError::new(ErrorKind::Spawn, format!("cannot start `{command}`: {e}")))?;
    let guard = GroupGuard(child.id().map(|pid| pid as i32));
    Ok((child, guard))
}
