//! The trace of a pipeline that makes several model calls per sample (`srs-agents`): every
//! call in order — which agent, in which round, the messages it sent, the answer it used,
//! what that answer was read as and what it changed, tokens, latency and each failed
//! attempt — and the pipeline's state when it ended. Kept on the run record, so a user can
//! see why a sample came out as it did.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::llm::TokenUsage;

/// Every call of one sample, and the state the pipeline ended in.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    pub calls: Vec<TraceCall>,
    /// The pipeline's own summary of where it ended (for `srs-agents`: the final list, the
    /// scores, the frozen and removed ids and the rounds done).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Value>,
}

/// One message sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceMessage {
    pub role: String,
    pub content: String,
}

/// One agent call, with its attempts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceCall {
    pub agent: String,
    /// Rounds done when the call was made (0 for the first round and for ReqParse).
    pub iteration: u32,
    pub temperature: f64,
    pub messages: Vec<TraceMessage>,
    /// The answer used (absent when every attempt failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<String>,
    /// What the used answer was read as (its JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parsed: Option<Value>,
    /// What the used answer changed in the pipeline's state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Value>,
    /// `stop`, `length`, … of the used answer, as the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Tokens over every attempt, when the server reported them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// Time spent waiting for answers over every attempt (not the waits between them).
    pub latency_ms: f64,
    /// Attempts that failed before the used answer (or all of them, when none was used).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retries: Vec<TraceAttempt>,
}

/// A failed attempt.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceAttempt {
    /// What went wrong.
    pub error: String,
    /// The answer, when there was one that could not be used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    pub latency_ms: f64,
    /// The wait before the next attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_ms: Option<f64>,
}

impl Trace {
    /// Tokens over every call, when any call reported them.
    pub fn usage(&self) -> Option<TokenUsage> {
        let used: Vec<&TokenUsage> = self.calls.iter().filter_map(|c| c.usage.as_ref()).collect();
        (!used.is_empty()).then(|| add(used))
    }

    /// Every text in the trace passed through `f` (to mask secrets).
    pub fn map_text(&mut self, f: &dyn Fn(String) -> String) {
        let text = |s: &mut String| *s = f(std::mem::take(s));
        for call in &mut self.calls {
            call.messages.iter_mut().for_each(|m| text(&mut m.content));
            call.raw_output.iter_mut().for_each(text);
            call.parsed.iter_mut().for_each(|v| map_value(v, f));
            call.effect.iter_mut().for_each(|v| map_value(v, f));
            for retry in &mut call.retries {
                text(&mut retry.error);
                retry.raw_output.iter_mut().for_each(text);
            }
        }
        self.state.iter_mut().for_each(|v| map_value(v, f));
    }
}

/// The sum of several usages (an estimate when any of them is). Each count is at most
/// [`crate::quantity::MAX_TOKENS`], so sums over a sample's calls never overflow; they
/// saturate if they ever would, never wrap.
pub fn add<'a>(usages: impl IntoIterator<Item = &'a TokenUsage>) -> TokenUsage {
    usages
        .into_iter()
        .fold(TokenUsage::default(), |sum, u| TokenUsage {
            prompt_tokens: sum.prompt_tokens.saturating_add(u.prompt_tokens),
            completion_tokens: sum.completion_tokens.saturating_add(u.completion_tokens),
            estimated: sum.estimated || u.estimated,
        })
}

fn map_value(value: &mut Value, f: &dyn Fn(String) -> String) {
    match value {
        Value::String(s) => *s = f(std::mem::take(s)),
        Value::Array(items) => items.iter_mut().for_each(|v| map_value(v, f)),
        Value::Object(map) => map.values_mut().for_each(|v| map_value(v, f)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn usage(p: u64, c: u64) -> TokenUsage {
        TokenUsage {
            prompt_tokens: p,
            completion_tokens: c,
            estimated: false,
        }
    }

    #[test]
    fn usage_is_summed_over_the_calls_that_report_it() {
        let mut trace = Trace::default();
        assert_eq!(trace.usage(), None);
        for u in [Some(usage(10, 5)), None, Some(usage(7, 1))] {
            trace.calls.push(TraceCall {
                usage: u,
                ..TraceCall::default()
            });
        }
        assert_eq!(trace.usage(), Some(usage(17, 6)));
    }

    #[test]
    fn every_text_is_masked() {
        let mut trace = Trace {
            calls: vec![TraceCall {
                messages: vec![TraceMessage {
                    role: "user".into(),
                    content: "key s3cret".into(),
                }],
                raw_output: Some("s3cret".into()),
                parsed: Some(json!([{"content": "s3cret"}])),
                retries: vec![TraceAttempt {
                    error: "401 s3cret".into(),
                    raw_output: Some("s3cret!".into()),
                    ..TraceAttempt::default()
                }],
                ..TraceCall::default()
            }],
            state: Some(json!({"a": ["s3cret"]})),
        };
        trace.map_text(&|s| s.replace("s3cret", "***"));
        let text = serde_json::to_string(&trace).unwrap();
        assert!(
            !text.contains("s3cret") && text.matches("***").count() == 6,
            "{text}"
        );
    }
}
