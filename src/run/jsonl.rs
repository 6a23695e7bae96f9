//! The `command` adapter in `jsonl` mode: one long-lived process, one request line in, one
//! `{"id": ..., "output": ...}` line out — the fast path. Requests are pipelined (up to
//! `--jobs` in flight) and answers are routed back by sample id, first in first out for
//! repeats of one sample. If the process dies, every sample in flight gets an error record
//! and the next call starts a fresh process.

use std::collections::{HashMap, VecDeque};
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
use super::process::{spawn_shell, GroupGuard};
use crate::runfile::record::ErrorKind;

type Waiters =
    Arc<Mutex<HashMap<String, VecDeque<(u64, oneshot::Sender<Result<String, CallError>>)>>>>;

/// One running process.
struct Process {
    stdin: tokio::sync::Mutex<ChildStdin>,
    waiters: Waiters,
    alive: Arc<AtomicBool>,
    /// The last stdout line that was not an answer, for diagnostics.
    stray: Arc<Mutex<Option<String>>>,
    /// Kills the process group when the process is dropped (a restart or the end of the run).
    _group: GroupGuard,
    _child: Child,
}

pub struct Jsonl {
    command: String,
    timeout: Duration,
    current: tokio::sync::Mutex<Option<Arc<Process>>>,
    tokens: AtomicU64,
}

impl Jsonl {
    pub fn new(command: &str, config: &PipelineConfig) -> Self {
        Jsonl {
            command: command.to_string(),
            timeout: config.timeout,
            current: tokio::sync::Mutex::new(None),
            tokens: AtomicU64::new(0),
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
        let (mut child, group) = spawn_shell(&self.command, Stdio::inherit())?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                return Err(CallError::new(
                    ErrorKind::Spawn,
                    "the process has no stdin/stdout",
                ))
            }
        };
        let waiters: Waiters = Arc::default();
        let alive = Arc::new(AtomicBool::new(true));
        let stray = Arc::new(Mutex::new(None));
        tokio::spawn(route_answers(
            stdout,
            waiters.clone(),
            alive.clone(),
            stray.clone(),
        ));
        Ok(Process {
            stdin: tokio::sync::Mutex::new(stdin),
            waiters,
            alive,
            stray,
            _group: group,
            _child: child,
        })
    }

    pub async fn call(&self, sample_id: &str, request: &Value) -> Result<Reply, CallError> {
        let process = self.process().await?;
        let token = self.tokens.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&process.waiters)
            .entry(sample_id.to_string())
            .or_default()
            .push_back((token, tx));
        let mut line = serde_json::to_vec(request).unwrap_or_default();
        line.push(b'\n');
        let written = {
            let mut stdin = process.stdin.lock().await;
            match stdin.write_all(&line).await {
                Ok(()) => stdin.flush().await,
                Err(e) => Err(e),
            }
        };
        if let Err(e) = written {
            forget(&process.waiters, sample_id, token);
            return Err(CallError::new(
                ErrorKind::Exit,
                format!("the jsonl process stopped reading its input: {e}"),
            ));
        }
        match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(answer)) => answer.map(|text| Reply {
                text,
                ..Reply::default()
            }),
            Ok(Err(_)) => Err(CallError::new(
                ErrorKind::Exit,
                "the jsonl process went away",
            )),
            Err(_) => {
                forget(&process.waiters, sample_id, token);
                let mut message =
                    format!("no answer line for `{sample_id}` within {:?}", self.timeout);
                if let Some(stray) = lock(&process.stray).as_deref() {
                    message.push_str(&format!("; its last line that was not an answer: {stray}"));
                }
                Err(CallError::new(ErrorKind::Timeout, message))
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn forget(waiters: &Waiters, sample_id: &str, token: u64) {
    if let Some(queue) = lock(waiters).get_mut(sample_id) {
        queue.retain(|(t, _)| *t != token);
    }
}

/// Read answer lines and hand each to the oldest waiter for its id; when the process ends,
/// fail everyone still waiting.
async fn route_answers(
    stdout: tokio::process::ChildStdout,
    waiters: Waiters,
    alive: Arc<AtomicBool>,
    stray: Arc<Mutex<Option<String>>>,
) {
    let mut lines = BufReader::new(stdout).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let parsed: Option<(String, String)> =
            serde_json::from_str::<Value>(&line).ok().and_then(|v| {
                let id = v.get("id")?.as_str()?.to_string();
                let text = match v.get("output")? {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                Some((id, text))
            });
        match parsed {
            Some((id, text)) => {
                let waiter = lock(&waiters).get_mut(&id).and_then(VecDeque::pop_front);
                if let Some((_, tx)) = waiter {
                    let _ = tx.send(Ok(text));
                }
            }
            None => *lock(&stray) = Some(line.chars().take(200).collect()),
        }
    }
    alive.store(false, Ordering::SeqCst);
    for (id, queue) in lock(&waiters).drain() {
        for (_, tx) in queue {
            let _ = tx.send(Err(CallError::new(ErrorKind::Exit, format!("the jsonl process exited while `{id}` was in flight; it was restarted for the next samples"))));
        }
    }
}
