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

/// The row of metric `name` in a verdict's JSON (`metrics[]`), which must be there.
pub fn metric_row<'a>(verdict: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    verdict["metrics"]
        .as_array()
        .expect("a verdict's metrics")
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no metric {name} in the verdict"))
}
