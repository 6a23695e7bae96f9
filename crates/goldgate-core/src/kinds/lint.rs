//! Sample rules several kinds share: a kind whose pipeline reads a conversation needs one.

use crate::sample::findings::Findings;
use crate::sample::RawSample;

/// A sample of kind `name` needs a non-empty `conversation`.
pub fn needs_conversation(name: &str, raw: &RawSample, findings: &mut Findings) {
    if raw.conversation.as_ref().is_none_or(Vec::is_empty) {
        findings.error(
            "/conversation",
            format!("a {name} sample needs a non-empty `conversation`"),
            Some("add the messages the pipeline reads".to_string()),
        );
    }
}
