//! One agent call of the `srs-agents` pipeline: send the rendered messages, use the answer
//! (the caller reads it and applies it to the state), and try again — at most the agent's
//! number of attempts — when the API fails in a way another try can help (rate limits,
//! server errors, timeouts, cut streams) or the answer cannot be used. The waits between
//! attempts double from a base (1, 2, 4 … s with the default base of 1 s), or are longer
//! when the server asks with `Retry-After`. Every attempt waits for the run's rate limits first and counts
//! its tokens. What happened is kept as the call's trace.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::options::AgentOptions;
use super::state::{Agent, Unusable};
use crate::call::CallError;
use goldgate_client::limits::Limits;
use goldgate_client::Client;
use goldgate_core::llm::{ChatRequest, Message, TokenUsage};
use goldgate_core::retry::Backoff;
use goldgate_core::runfile::record::ErrorKind;
use goldgate_core::runfile::trace::{add, TraceAttempt, TraceCall, TraceMessage};

/// What makes the calls: the API, the run's rate limits, the model and the wait base.
pub struct Caller<'a> {
    pub client: &'a Client,
    pub limits: &'a Limits,
    pub model: &'a str,
    pub backoff: Duration,
}

/// Why an agent gave up, as the record says it.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub kind: ErrorKind,
    pub message: String,
}

/// What the caller made of an answer: its JSON (none for a document) and what it changed.
pub type Used = (Option<Value>, Value);

/// The wait after failed attempt `attempt` (0-based): `base`·2^attempt, or the
/// server's `Retry-After` when that is longer (itself at most the runner's cap on server
/// waits).
pub fn wait(base: Duration, attempt: u32, retry_after: Option<Duration>) -> Duration {
    let step = base.saturating_mul(1u32 << attempt.min(16));
    let asked = retry_after
        .unwrap_or_default()
        .min(Backoff::default().max_server_wait);
    step.max(asked)
}

impl Caller<'_> {
    /// Call `agent` (in round `iteration`) with `messages` until `use_answer` takes an
    /// answer or the attempts run out. Returns the call's trace, and why it failed if it
    /// did.
    pub async fn call(
        &self,
        agent: Agent,
        iteration: u32,
        options: &AgentOptions,
        messages: Vec<Message>,
        use_answer: &mut (dyn FnMut(&str) -> Result<Used, Unusable> + Send),
    ) -> (TraceCall, Result<(), Failure>) {
        let request = ChatRequest {
            model: self.model.to_string(),
            messages,
            temperature: Some(options.temperature),
            max_tokens: options.max_tokens,
            stream: agent == Agent::DocGenerate,
            ..ChatRequest::default()
        };
        let mut trace = TraceCall {
            agent: agent.name().to_string(),
            iteration,
            temperature: options.temperature,
            messages: request
                .messages
                .iter()
                .map(|m| TraceMessage {
                    role: m.role.clone(),
                    content: m.content.clone(),
                })
                .collect(),
            ..TraceCall::default()
        };
        let mut usages: Vec<TokenUsage> = Vec::new();
        let attempts = options.attempts.max(1);
        let mut attempt = 0;
        loop {
            self.limits.acquire().await;
            let started = Instant::now();
            let (failed, kind, retryable, retry_after) = match self.client.chat(&request).await {
                Ok(completion) => {
                    trace.latency_ms += completion.latency_ms;
                    if let Some(u) = completion.usage {
                        self.limits.used(u.total());
                        usages.push(u);
                    }
                    trace.usage = (!usages.is_empty()).then(|| add(&usages));
                    match use_answer(&completion.content) {
                        Ok((parsed, effect)) => {
                            trace.raw_output = Some(completion.content);
                            trace.parsed = parsed;
                            trace.effect = Some(effect);
                            trace.finish_reason = completion.finish_reason;
                            return (trace, Ok(()));
                        }
                        Err(Unusable(why)) => {
                            let why = match completion.finish_reason.as_deref() {
                                Some("length") => format!(
                                    "{why} (the answer was cut at the token limit: finish_reason length)"
                                ),
                                _ => why,
                            };
                            let failed = TraceAttempt {
                                error: why,
                                raw_output: Some(completion.content),
                                finish_reason: completion.finish_reason,
                                latency_ms: completion.latency_ms,
                                waited_ms: None,
                            };
                            (failed, ErrorKind::Output, true, None)
                        }
                    }
                }
                Err(e) => {
                    let (retryable, retry_after) = (e.retryable, e.retry_after);
                    let e = CallError::from(e);
                    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
                    trace.latency_ms += latency_ms;
                    let failed = TraceAttempt {
                        error: e.message,
                        latency_ms,
                        ..TraceAttempt::default()
                    };
                    (failed, e.kind, retryable, retry_after)
                }
            };
            let last = attempt + 1 == attempts || !retryable;
            let error = failed.error.clone();
            trace.retries.push(failed);
            if last {
                let tried = match attempt + 1 {
                    1 => "1 attempt".to_string(),
                    n => format!("{n} attempts"),
                };
                let round = match agent {
                    Agent::ReqExplore | Agent::ReqClarify => format!(" in round {}", iteration + 1),
                    _ => String::new(),
                };
                let message = format!("{}{round} failed after {tried}: {error}", agent.name());
                return (trace, Err(Failure { kind, message }));
            }
            let pause = wait(self.backoff, attempt, retry_after);
            if let Some(failed) = trace.retries.last_mut() {
                failed.waited_ms = Some(pause.as_secs_f64() * 1000.0);
            }
            tokio::time::sleep(pause).await;
            attempt += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_from_the_base_and_honour_a_longer_retry_after() {
        let s = Duration::from_secs;
        let waits: Vec<Duration> = (0..4).map(|k| wait(s(1), k, None)).collect();
        assert_eq!(waits, [s(1), s(2), s(4), s(8)]);
        assert_eq!(wait(s(1), 0, Some(s(3))), s(3));
        assert_eq!(wait(s(1), 2, Some(s(3))), s(4));
        assert_eq!(
            wait(Duration::from_millis(5), 1, None),
            Duration::from_millis(10)
        );
        assert_eq!(
            wait(s(1), 0, Some(s(100_000))),
            s(120),
            "a server's wait is capped"
        );
    }
}
