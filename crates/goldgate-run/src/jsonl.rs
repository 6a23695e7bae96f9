//! The `command` adapter in `jsonl` mode: one long-lived process, one request line in, one
//! response line out — the fast path. A request is the sample's JSON with its `repeat`
//! index added; a response is `{"id": ..., "repeat": ..., "output": ...}`. Requests are
//! pipelined (up to `--jobs` in flight) and responses routed back by id and repeat; a
//! response without `repeat` goes to the oldest request in flight for its id (the repeats
//! of a sample are the same request, so which one takes it does not matter; the lines and
//! their routing are [`super::jsonl_protocol`]).
//!
//! A response line of the wrong shape (not JSON, no string `id`, no `output`, a `repeat`
//! that is not a whole number, an id no request is waiting for) fails a request at once
//! instead of leaving it to wait out its timeout: the request it names, or, when the line
//! names none that is waiting, the one request in flight (a sequential pipeline answers
//! what it was asked). With several in flight such a line fails nobody: blaming one would
//! fail a request whose answer is still coming and hand that answer to the next. A late
//! answer to a request that already gave up or was failed is dropped.
//!
//! If the process dies, the requests in flight are sent again once, one at a time, to a
//! restarted process: a crash caused by one sample costs the others nothing, and the sample
//! that crashes the process twice gets the error record.

use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::oneshot;

use super::call::{CallError, Reply};
use super::config::PipelineConfig;
use super::jsonl_protocol::{named, request_line, route, Outcome, Pending, Waiting};
use super::process::{GroupGuard, Launch};
use goldgate_core::runfile::record::ErrorKind;
use goldgate_core::secrets::Secrets;

type Shared = Arc<Mutex<Pending>>;

/// One running process.
struct Process {
    stdin: tokio::sync::Mutex<ChildStdin>,
    pending: Shared,
    alive: Arc<AtomicBool>,
    /// Kills the process group when the process is dropped (a restart or the end of the run).
    _group: GroupGuard,
}

pub struct Jsonl {
    launch: Launch,
    /// Redacted from stray lines before they are quoted.
    secrets: Arc<Secrets>,
    timeout: Duration,
    current: tokio::sync::Mutex<Option<Arc<Process>>>,
    tokens: AtomicU64,
    /// Held by a request sent again after a crash, so such requests go one at a time.
    retrying: tokio::sync::Mutex<()>,
}

/// Why an attempt failed.
enum Failure {
    /// The process died with the request in flight (how it ended: "exited with code 1"):
    /// worth one more attempt.
    Crashed(String),
    Other(CallError),
}

/// Removes a request from the pending set if its call ends without an answer (a timeout,
/// or the call abandoned), remembering it so a late answer is dropped.
struct Registration<'a> {
    pending: &'a Shared,
    id: &'a str,
    repeat: u32,
    token: u64,
    answered: bool,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        if !self.answered {
            lock(self.pending).forget(self.id, self.repeat, self.token);
        }
    }
}

impl Jsonl {
    pub fn new(command: &str, config: &PipelineConfig, secrets: Arc<Secrets>) -> Self {
        Jsonl {
            launch: Launch::new(command, config),
            secrets,
            timeout: config.timeout,
            current: tokio::sync::Mutex::new(None),
            tokens: AtomicU64::new(0),
            retrying: tokio::sync::Mutex::new(()),
        }
    }

    /// The running process, started (again) if there is none or it died.
    async fn process(&self) -> Result<Arc<Process>, CallError> {
        let mut current = self.current.lock().await;
        if let Some(p) = current.as_ref().filter(|p| p.alive.load(Ordering::SeqCst)) {
            return Ok(p.clone());
        }
        let process = Arc::new(self.start()?);
        *current = Some(process.clone());
        Ok(process)
    }

    fn start(&self) -> Result<Process, CallError> {
        let (mut child, group) = self.launch.spawn(Stdio::inherit())?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                return Err(CallError::new(
                    ErrorKind::Spawn,
                    "the process has no stdin/stdout",
                ))
            }
        };
        let pending: Shared = Arc::default();
        let alive = Arc::new(AtomicBool::new(true));
        tokio::spawn(route_answers(
            stdout,
            child,
            pending.clone(),
            alive.clone(),
            self.secrets.clone(),
        ));
        Ok(Process {
            stdin: tokio::sync::Mutex::new(stdin),
            pending,
            alive,
            _group: group,
        })
    }

    pub async fn call(
        &self,
        sample_id: &str,
        repeat: u32,
        request: &Value,
    ) -> Result<Reply, CallError> {
        let line = request_line(request, repeat);
        let first = match self.attempt(sample_id, repeat, &line).await {
            Ok(reply) => return Ok(reply),
            Err(Failure::Other(e)) => return Err(e),
            Err(Failure::Crashed(how)) => how,
        };
        let _alone = self.retrying.lock().await;
        let again = match self.attempt(sample_id, repeat, &line).await {
            Ok(reply) => return Ok(reply),
            Err(Failure::Other(e)) => return Err(e),
            Err(Failure::Crashed(how)) => how,
        };
        let who = named(sample_id, Some(repeat));
        Err(CallError::new(
            ErrorKind::Exit,
            format!(
                "the jsonl process {first} while {who} was in flight; sent again to a restarted process, it was in flight when that one {again} too; the process is restarted for the next samples"
            ),
        ))
    }

    /// Send one request to the current process and wait for its outcome.
    async fn attempt(&self, sample_id: &str, repeat: u32, line: &[u8]) -> Result<Reply, Failure> {
        let process = self.process().await.map_err(Failure::Other)?;
        let token = self.tokens.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&process.pending).wait(sample_id, Waiting { token, repeat, tx });
        let mut registration = Registration {
            pending: &process.pending,
            id: sample_id,
            repeat,
            token,
            answered: false,
        };
        // One deadline for writing the request and for its answer: a process that stops
        // reading its input fills the pipe, and the write must not wait forever either.
        let written = AtomicBool::new(false);
        let exchange = async {
            {
                let mut stdin = process.stdin.lock().await;
                stdin.write_all(line).await?;
                stdin.flush().await?;
            }
            written.store(true, Ordering::Relaxed);
            Ok::<_, std::io::Error>(rx.await)
        };
        let deadline = tokio::time::Instant::now() + self.timeout;
        let outcome = match tokio::time::timeout_at(deadline, exchange).await {
            Ok(Err(e)) => {
                process.alive.store(false, Ordering::SeqCst);
                return Err(Failure::Crashed(format!("stopped reading its input ({e})")));
            }
            Ok(Ok(received)) => Ok(received),
            Err(elapsed) => Err(elapsed),
        };
        if outcome.is_err() && !written.load(Ordering::Relaxed) {
            let message = format!(
                "the jsonl process did not take the request for `{sample_id}` within {:?} (it is not reading its input)",
                self.timeout
            );
            return Err(Failure::Other(CallError::new(ErrorKind::Timeout, message)));
        }
        registration.answered = matches!(outcome, Ok(Ok(_)));
        match outcome {
            Ok(Ok(Outcome::Answer(text))) => Ok(Reply {
                text,
                ..Reply::default()
            }),
            Ok(Ok(Outcome::Bad(why))) => {
                Err(Failure::Other(CallError::new(ErrorKind::Output, why)))
            }
            Ok(Ok(Outcome::Crashed(how))) => Err(Failure::Crashed(how)),
            Ok(Err(_)) => Err(Failure::Crashed("went away".into())),
            Err(_) => {
                drop(registration);
                let mut message =
                    format!("no answer line for `{sample_id}` within {:?}", self.timeout);
                if let Some(stray) = lock(&process.pending).stray.as_deref() {
                    message.push_str(&format!("; its last line that was not an answer: {stray}"));
                }
                Err(Failure::Other(CallError::new(ErrorKind::Timeout, message)))
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Read response lines and route each; when the process ends, fail everyone still waiting.
async fn route_answers(
    stdout: tokio::process::ChildStdout,
    mut child: Child,
    pending: Shared,
    alive: Arc<AtomicBool>,
    secrets: Arc<Secrets>,
) {
    let mut lines = BufReader::new(stdout).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        route(&line, &mut lock(&pending), &secrets);
    }
    alive.store(false, Ordering::SeqCst);
    let how = match tokio::time::timeout(Duration::from_millis(500), child.wait()).await {
        Ok(Ok(status)) => match status.code() {
            Some(code) => format!("exited with code {code}"),
            None => "was killed by a signal".to_string(),
        },
        _ => "closed its output".to_string(),
    };
    let waiting = lock(&pending).drain();
    for (_, w) in waiting {
        let _ = w.tx.send(Outcome::Crashed(how.clone()));
    }
}
