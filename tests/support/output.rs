//! What a command run by a test said: its output as text, and its exit code checked with
//! everything it said in the failure message.

use std::process::Output;

/// Bytes a command wrote, as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What a command wrote on stderr.
pub fn stderr(out: &Output) -> String {
    text(&out.stderr)
}

/// Everything a command said: stdout, then stderr.
pub fn said(out: &Output) -> String {
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

/// The command exited with `code`; else fail showing `what`, its stdout and its stderr.
#[track_caller]
pub fn assert_exit(out: &Output, code: i32, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}\nstdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}
