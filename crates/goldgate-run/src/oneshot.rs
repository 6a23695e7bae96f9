//! The `command` adapter in `oneshot` mode: one process per sample, the request JSON on
//! stdin, the answer on stdout, stderr kept (truncated). The process runs in its own process
//! group, and the whole group is killed on timeout, on an oversized answer, or when the call
//! is abandoned (Ctrl-C), so no grandchild outlives its sample.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use super::call::{truncate_text, CallError, Reply};
use super::config::PipelineConfig;
use super::process::Launch;
use goldgate_core::runfile::record::ErrorKind;
use goldgate_core::secrets::Secrets;

/// How much of a pipeline's stderr a record keeps.
pub const STDERR_KEPT: usize = 4096;

pub struct Oneshot {
    launch: Launch,
    /// Redacted from the kept stderr before it is cut.
    secrets: Arc<Secrets>,
    timeout: Duration,
    max_output: usize,
}

/// Read a stream fully, keeping at most `keep` bytes; returns (kept, total seen, overflowed).
async fn read_capped(
    mut stream: impl AsyncRead + Unpin,
    keep: usize,
    stop_on_overflow: bool,
) -> (Vec<u8>, usize, bool) {
    let (mut kept, mut total, mut buf) = (Vec::new(), 0usize, vec![0u8; 64 * 1024]);
    loop {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return (kept, total, false),
            Ok(n) => {
                total += n;
                let room = keep.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
                if total > keep && stop_on_overflow {
                    return (kept, total, true);
                }
            }
        }
    }
}

impl Oneshot {
    pub fn new(command: &str, config: &PipelineConfig, secrets: Arc<Secrets>) -> Self {
        Oneshot {
            launch: Launch::new(command, config),
            secrets,
            timeout: config.timeout,
            max_output: config.max_output_bytes,
        }
    }

    pub async fn call(&self, request: &Value) -> Result<Reply, CallError> {
        let (mut child, mut guard) = self.launch.spawn(Stdio::piped())?;
        let (stdin, stdout, stderr) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let mut body = serde_json::to_vec(request).unwrap_or_default();
        body.push(b'\n');
        let io = async {
            let write = async {
                if let Some(mut stdin) = stdin {
                    // A pipeline that does not read its input is not an error here.
                    let _ = stdin.write_all(&body).await;
                }
            };
            let out = async {
                match stdout {
                    Some(s) => read_capped(s, self.max_output, true).await,
                    None => (Vec::new(), 0, false),
                }
            };
            let err = async {
                match stderr {
                    Some(s) => read_capped(s, STDERR_KEPT, false).await,
                    None => (Vec::new(), 0, false),
                }
            };
            let ((), out, err) = tokio::join!(write, out, err);
            (out, err)
        };
        let ((out, out_total, overflow), (err, err_total, _)) =
            match tokio::time::timeout(self.timeout, io).await {
                Ok(captured) => captured,
                Err(_) => {
                    guard.kill();
                    let message = format!(
                        "no answer within {:?}; the process group was killed",
                        self.timeout
                    );
                    return Err(CallError::new(ErrorKind::Timeout, message));
                }
            };
        let stderr_text =
            (err_total > 0).then(|| truncate_text(&err, STDERR_KEPT, err_total, &self.secrets));
        if overflow {
            guard.kill();
            let message = format!(
                "answer larger than the {} byte limit (max_output_bytes); the process was stopped",
                self.max_output
            );
            return Err(CallError {
                stderr: stderr_text,
                ..CallError::new(ErrorKind::Output, message)
            });
        }
        let status = match tokio::time::timeout(self.timeout, child.wait()).await {
            Ok(Ok(status)) => status,
            Ok(Err(e)) => {
                return Err(CallError::new(
                    ErrorKind::Exit,
                    format!("cannot wait for the process: {e}"),
                ))
            }
            Err(_) => {
                guard.kill();
                return Err(CallError::new(
                    ErrorKind::Timeout,
                    "the process closed its output but did not exit; killed",
                ));
            }
        };
        guard.0 = None; // exited normally: nothing left to kill in the group we know of
        if !status.success() {
            let how = match status.code() {
                Some(code) => format!("exited with code {code}"),
                None => "was killed by a signal".to_string(),
            };
            return Err(CallError {
                stderr: stderr_text,
                ..CallError::new(ErrorKind::Exit, format!("the pipeline {how}"))
            });
        }
        let _ = out_total;
        Ok(Reply {
            text: String::from_utf8_lossy(&out).into_owned(),
            stderr: stderr_text,
            ..Reply::default()
        })
    }
}
