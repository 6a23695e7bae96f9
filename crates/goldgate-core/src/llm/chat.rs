//! What goes over the wire to `/chat/completions`: the request body (with provider fields
//! from `extra_body` that never replace the core ones), and a non-streamed answer read into
//! a [`Completion`]: the assistant message's text (a string, or its text parts joined),
//! why generation stopped, and the tokens used. Every way an answer can be wrong is named.

use serde_json::{json, Map, Value};

use super::{ChatRequest, Completion, TokenUsage};

/// Keys `extra_body` may not set: goldgate decides them.
const RESERVED: [&str; 4] = ["model", "messages", "stream", "stream_options"];

/// The request body as JSON bytes.
pub fn request_body(request: &ChatRequest) -> Vec<u8> {
    let mut body = Map::new();
    for (key, value) in &request.extra_body {
        if !RESERVED.contains(&key.as_str()) {
            body.insert(key.clone(), value.clone());
        }
    }
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), json!(request.messages));
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(n) = request.max_tokens {
        body.insert("max_tokens".into(), json!(n));
    }
    if let Some(seed) = request.seed {
        body.insert("seed".into(), json!(seed));
    }
    if let Some(format) = &request.response_format {
        body.insert("response_format".into(), format.clone());
    }
    if request.stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    serde_json::to_vec(&Value::Object(body)).unwrap_or_default()
}

/// The text of a message's `content`: a string, or the `text` of its parts (`[{"type":
/// "text", "text": …}, …]`) joined; `null` is no text.
pub fn content_text(content: &Value) -> Result<String, String> {
    match content {
        Value::String(s) => Ok(s.clone()),
        Value::Null => Ok(String::new()),
        Value::Array(parts) => {
            let mut text = String::new();
            for (i, part) in parts.iter().enumerate() {
                match part {
                    Value::String(s) => text.push_str(s),
                    Value::Object(p) => match p.get("text") {
                        Some(Value::String(s)) => text.push_str(s),
                        Some(other) => return Err(format!("content[{i}].text is {}", kind(other))),
                        None => {} // an image or audio part carries no text
                    },
                    other => return Err(format!("content[{i}] is {}", kind(other))),
                }
            }
            Ok(text)
        }
        other => Err(format!("content is {}", kind(other))),
    }
}

/// `usage.prompt_tokens` and `usage.completion_tokens`: `Ok(None)` when the answer lacks
/// either (no `usage`, `null` or missing counts); `Err` with why when a count is there but cannot
/// be one (negative, fractional, a string, past any call's: [`crate::quantity::tokens`]).
pub fn usage(value: &Value) -> Result<Option<TokenUsage>, String> {
    let usage = match value.get("usage") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(usage)) => usage,
        Some(other) => return Err(format!("`usage` is {}", kind(other))),
    };
    let count = |k: &str| match usage.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => crate::quantity::tokens(v)
            .map(Some)
            .map_err(|why| format!("usage.{k}: {why}")),
    };
    match (count("prompt_tokens")?, count("completion_tokens")?) {
        (Some(prompt_tokens), Some(completion_tokens)) => Ok(Some(TokenUsage {
            prompt_tokens,
            completion_tokens,
            estimated: false,
        })),
        // One count alone cannot be priced: goldgate counts the call itself (an estimate,
        // marked), rather than take the other as 0.
        _ => Ok(None),
    }
}

/// An error a server put in a success answer (`{"error": …}`), as it said it.
pub fn error_in(value: &Value) -> Option<String> {
    let error = value.get("error")?;
    Some(match error {
        Value::String(s) => s.clone(),
        Value::Object(e) => e
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| error.to_string(), str::to_string),
        other => other.to_string(),
    })
}

/// A non-streamed answer: `choices[0].message.content`, `choices[0].finish_reason` and
/// `usage`. A refusal, an answer without choices and one that is no chat completion are
/// errors saying so.
pub fn read_completion(body: &[u8]) -> Result<Completion, String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON ({e})"))?;
    if let Some(said) = error_in(&value) {
        return Err(format!("an error: {said}"));
    }
    let choice = match value.get("choices") {
        Some(Value::Array(choices)) => choices
            .first()
            .ok_or_else(|| "no choices (`choices` is empty)".to_string())?,
        Some(other) => return Err(format!("`choices` is {}", kind(other))),
        None => return Err("no `choices`: not a chat completion".into()),
    };
    let message = choice
        .get("message")
        .ok_or_else(|| "choices[0] has no `message`".to_string())?;
    let content = content_text(message.get("content").unwrap_or(&Value::Null))
        .map_err(|why| format!("choices[0].message.{why}"))?;
    if content.is_empty() {
        if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
            return Err(format!("a refusal: {refusal}"));
        }
        if message.get("tool_calls").is_some_and(|t| !t.is_null()) {
            return Err("tool calls and no text: the prompt asks for an answer in text".into());
        }
    }
    Ok(Completion {
        content,
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        usage: usage(&value).unwrap_or(None),
        usage_invalid: usage(&value).err(),
        latency_ms: 0.0,
    })
}

/// `a string`, `a number`, … for messages.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Message;

    #[test]
    fn the_body_has_what_was_set_and_extra_fields_never_replace_core_ones() {
        let mut extra = Map::new();
        extra.insert("top_k".into(), json!(40));
        extra.insert("model".into(), json!("other"));
        extra.insert("stream".into(), json!(false));
        let request = ChatRequest {
            model: "m".into(),
            messages: vec![Message::new("user", "hi")],
            temperature: Some(0.2),
            seed: Some(7),
            stream: true,
            extra_body: extra,
            ..ChatRequest::default()
        };
        let body: Value = serde_json::from_slice(&request_body(&request)).unwrap();
        assert_eq!(
            body,
            json!({"top_k": 40, "model": "m", "messages": [{"role": "user", "content": "hi"}],
                   "temperature": 0.2, "seed": 7, "stream": true,
                   "stream_options": {"include_usage": true}})
        );
        let plain = ChatRequest {
            model: "m".into(),
            ..ChatRequest::default()
        };
        let body: Value = serde_json::from_slice(&request_body(&plain)).unwrap();
        assert_eq!(body, json!({"model": "m", "messages": []}));
    }

    /// One count alone is no usage goldgate can price: it counts the call itself instead
    /// (the client's estimate), never taking the other count as 0.
    #[test]
    fn a_half_reported_usage_is_no_usage() {
        assert_eq!(usage(&json!({"usage": {"prompt_tokens": 900}})), Ok(None));
        assert_eq!(
            usage(&json!({"usage": {"completion_tokens": 9, "prompt_tokens": null}})),
            Ok(None)
        );
        assert_eq!(
            usage(&json!({"usage": {"prompt_tokens": 9, "completion_tokens": 1}})),
            Ok(Some(TokenUsage {
                prompt_tokens: 9,
                completion_tokens: 1,
                estimated: false
            }))
        );
    }

    #[test]
    fn an_answer_is_its_content_finish_reason_and_usage() {
        let body = br#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"a\": 1}"}, "finish_reason": "length"}], "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}}"#;
        let c = read_completion(body).unwrap();
        assert_eq!(c.content, "{\"a\": 1}");
        assert_eq!(c.finish_reason.as_deref(), Some("length"));
        assert_eq!(
            c.usage,
            Some(TokenUsage {
                prompt_tokens: 12,
                completion_tokens: 5,
                estimated: false,
            })
        );
        let parts = br#"{"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {}}, {"type": "text", "text": "b"}]}}]}"#;
        let c = read_completion(parts).unwrap();
        assert_eq!(
            (c.content.as_str(), c.finish_reason, c.usage),
            ("ab", None, None)
        );
    }

    #[test]
    fn every_way_an_answer_is_wrong_is_named() {
        let cases: &[(&str, &str)] = &[
            ("<html>", "not JSON"),
            (r#"{"choices": []}"#, "no choices"),
            (r#"{"object": "list"}"#, "no `choices`"),
            (r#"{"choices": {}}"#, "`choices` is an object"),
            (r#"{"choices": [{}]}"#, "choices[0] has no `message`"),
            (
                r#"{"choices": [{"message": {"content": 3}}]}"#,
                "choices[0].message.content is a number",
            ),
            (
                r#"{"choices": [{"message": {"content": null, "refusal": "I can't"}}]}"#,
                "a refusal: I can't",
            ),
            (
                r#"{"choices": [{"message": {"content": null, "tool_calls": [{}]}}]}"#,
                "tool calls and no text",
            ),
            (
                r#"{"error": {"message": "model overloaded"}}"#,
                "an error: model overloaded",
            ),
        ];
        for (body, says) in cases {
            let e = read_completion(body.as_bytes()).unwrap_err();
            assert!(e.contains(says), "{body}: {e}");
        }
    }
}
