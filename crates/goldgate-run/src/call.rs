//! What one pipeline call returns, shared by every adapter: the answer ([`Reply`]) or a
//! typed failure ([`CallError`]) with what was captured on the way.

use goldgate_core::runfile::record::{ErrorKind, RecordError, Usage};
use goldgate_core::runfile::trace::Trace;
use goldgate_core::secrets::Secrets;

/// What a pipeline answered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    pub text: String,
    /// Captured standard error (truncated), for command pipelines.
    pub stderr: Option<String>,
    pub usage: Option<Usage>,
    /// A replayed record keeps its original latency.
    pub latency_ms: Option<f64>,
    /// Why a model stopped writing (`stop`, `length`, …), when the API said.
    pub finish_reason: Option<String>,
    /// Every model call of a multi-step pipeline (`srs-agents`).
    pub trace: Option<Trace>,
}

/// Why a call failed, with what was captured on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct CallError {
    pub kind: ErrorKind,
    pub message: String,
    pub stderr: Option<String>,
    /// Worth trying again (rate limited, server error, connection failure).
    pub retryable: bool,
    /// How long the server asked us to wait.
    pub retry_after: Option<std::time::Duration>,
    /// The model calls a multi-step pipeline made before it failed (boxed: failures stay
    /// small).
    pub trace: Option<Box<Trace>>,
}

impl CallError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        CallError {
            kind,
            message: message.into(),
            stderr: None,
            retryable: false,
            retry_after: None,
            trace: None,
        }
    }

    pub fn record(&self) -> RecordError {
        RecordError {
            kind: self.kind,
            message: self.message.clone(),
        }
    }
}

impl From<goldgate_core::llm::LlmError> for CallError {
    /// A failed call to a chat API: timeouts are timeouts, everything else (an error
    /// status, no connection, an answer that is no chat completion, a cut stream) a failed
    /// HTTP call.
    fn from(e: goldgate_core::llm::LlmError) -> Self {
        CallError {
            kind: match e.kind {
                goldgate_core::llm::FailureKind::Timeout => ErrorKind::Timeout,
                _ => ErrorKind::Http,
            },
            message: e.message,
            stderr: None,
            retryable: e.retryable,
            retry_after: e.retry_after,
            trace: None,
        }
    }
}

/// Keep at most `limit` bytes of captured text, cut on a character boundary, saying so;
/// every secret is redacted, one the cut split included.
pub fn truncate_text(bytes: &[u8], limit: usize, total: usize, secrets: &Secrets) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(limit)]);
    let text = match total > limit {
        true => secrets.redact_cut(&text).into_owned(),
        false => secrets.redact(&text).into_owned(),
    };
    if total > limit {
        format!("{text}… [{} more bytes not kept]", total - limit)
    } else {
        text
    }
}
