//! A streamed chat completion read as it arrives: Server-Sent Events (`data: {chunk}` lines,
//! events separated by a blank line, `:` comments and other fields ignored, LF or CRLF),
//! each chunk's `choices[0].delta.content` appended, the last `finish_reason` kept, usage
//! taken from the chunk that carries it (the final one, with
//! `stream_options.include_usage`; a server that sends none, or counts that cannot be ones,
//! leaves it to the client to count), until
//! `data: [DONE]`. A stream that ends before `[DONE]` and before any `finish_reason` was
//! cut short: an error, never a silently shorter answer.

use serde_json::Value;

use super::chat::{content_text, error_in, usage};
use super::{Completion, TokenUsage};

/// A stream being read.
#[derive(Debug, Default)]
pub struct Stream {
    /// Bytes of the line not yet complete.
    pending: Vec<u8>,
    /// The `data:` lines of the event being read.
    data: Vec<String>,
    content: String,
    finish_reason: Option<String>,
    usage: Option<TokenUsage>,
    usage_invalid: Option<String>,
    done: bool,
    events: usize,
}

impl Stream {
    pub fn new() -> Stream {
        Stream::default()
    }

    /// Read the next bytes. `Err` when an event is not a chunk or is an error.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), String> {
        if self.done {
            return Ok(()); // what follows [DONE] does not count
        }
        self.pending.extend_from_slice(bytes);
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line[..end]);
            let line = line.strip_suffix('\r').unwrap_or(&line).to_string();
            self.line(&line)?;
            if self.done {
                break;
            }
        }
        Ok(())
    }

    /// The stream ended: the answer, or why it is not whole.
    pub fn finish(mut self) -> Result<Completion, String> {
        if !self.done && !self.pending.is_empty() {
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned();
            self.line(line.trim_end_matches('\r'))?;
        }
        if !self.done && !self.data.is_empty() {
            self.dispatch()?;
        }
        if !self.done && self.finish_reason.is_none() {
            return Err(match self.events {
                0 => "the stream ended before any event".to_string(),
                n => format!(
                    "the stream was cut after {n} events, before `data: [DONE]` and before any `finish_reason` ({} characters of the answer received)",
                    self.content.chars().count()
                ),
            });
        }
        Ok(Completion {
            content: self.content,
            finish_reason: self.finish_reason,
            usage: self.usage,
            usage_invalid: self.usage_invalid,
            latency_ms: 0.0,
        })
    }

    fn line(&mut self, line: &str) -> Result<(), String> {
        if line.is_empty() {
            return self.dispatch();
        }
        if let Some(data) = line.strip_prefix("data:") {
            self.data
                .push(data.strip_prefix(' ').unwrap_or(data).to_string());
        }
        Ok(()) // comments (`:`), `event:`, `id:` and `retry:` carry nothing for us
    }

    /// One whole event: its data lines joined.
    fn dispatch(&mut self) -> Result<(), String> {
        if self.data.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.data).join("\n");
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        self.events += 1;
        let chunk: Value = serde_json::from_str(&data)
            .map_err(|e| format!("event {} is not JSON ({e})", self.events))?;
        if let Some(said) = error_in(&chunk) {
            return Err(format!("an error in the stream: {said}"));
        }
        match usage(&chunk) {
            Ok(Some(u)) => self.usage = Some(u),
            Ok(None) => {}
            Err(why) => self.usage_invalid = Some(why),
        }
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return Ok(()); // the usage chunk has no choices
        };
        if let Some(content) = choice.get("delta").and_then(|d| d.get("content")) {
            let text = content_text(content)
                .map_err(|why| format!("event {}: delta.{why}", self.events))?;
            self.content.push_str(&text);
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_string());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(chunks: &[&str]) -> Result<Completion, String> {
        let mut stream = Stream::new();
        for c in chunks {
            stream.feed(c.as_bytes())?;
        }
        stream.finish()
    }

    #[test]
    fn deltas_are_joined_across_arbitrary_chunk_boundaries() {
        let text = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\r\n\r\n: keep-alive\n\nevent: message\ndata: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata:{\"choices\":[{\"delta\":{\"content\":\"lo é\"},\"finish_reason\":null}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n";
        for size in [1, 2, 3, 7, 64, text.len()] {
            let bytes = text.as_bytes();
            let mut stream = Stream::new();
            for piece in bytes.chunks(size) {
                stream.feed(piece).unwrap();
            }
            let c = stream.finish().unwrap();
            assert_eq!(c.content, "Hello é", "chunks of {size}");
            assert_eq!(c.finish_reason.as_deref(), Some("stop"));
            assert_eq!(
                c.usage,
                Some(TokenUsage {
                    prompt_tokens: 9,
                    completion_tokens: 3,
                    estimated: false,
                })
            );
        }
    }

    #[test]
    fn a_stream_without_usage_or_done_but_finished_is_whole() {
        let c = read(&["data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"length\"}]}\n\n"]).unwrap();
        assert_eq!(
            (c.content.as_str(), c.finish_reason.as_deref(), c.usage),
            ("x", Some("length"), None)
        );
    }

    #[test]
    fn a_cut_stream_is_an_error_not_a_shorter_answer() {
        let e = read(&["data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\ndata: {\"choi"])
            .unwrap_err();
        assert!(e.contains("event 2 is not JSON"), "{e}");
        let e = read(&["data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\n"]).unwrap_err();
        assert!(
            e.contains("cut after 1 events") && e.contains("3 characters"),
            "{e}"
        );
        assert!(read(&[]).unwrap_err().contains("before any event"));
        let e = read(&["data: {\"error\":{\"message\":\"overloaded\"}}\n\n"]).unwrap_err();
        assert!(e.contains("an error in the stream: overloaded"), "{e}");
    }
}
