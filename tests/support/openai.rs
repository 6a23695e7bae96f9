//! A scripted OpenAI-compatible server on 127.0.0.1 for the tests of the `chat` and
//! `srs-agents` pipelines and the judge: `POST /v1/chat/completions` answered by the test's
//! handler (a completion, streamed as Server-Sent Events when the request asks for it, an
//! error status with `Retry-After`, a delay, a stream cut mid-way), and `GET /v1/models`.
//! Every chat request is kept, parsed, in the order it arrived.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use super::mock_http::{MockServer, Request, Response};

/// One chat request as the server read it.
#[derive(Clone, Debug)]
pub struct ChatCall {
    pub body: Value,
    /// The request as the server read it (headers, target).
    pub request: Request,
}

impl ChatCall {
    /// Whether the request asked for a stream.
    pub fn stream(&self) -> bool {
        self.body["stream"] == json!(true)
    }

    /// The content of the first message with this role ("" when there is none).
    pub fn message(&self, role: &str) -> String {
        self.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|m| m["role"] == role)
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string()
    }

    /// Every message's content joined: to route on what a prompt says.
    pub fn text(&self) -> String {
        self.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The first header of that (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.request.header(name)
    }
}

/// What the server answers one chat request with.
#[derive(Clone, Debug)]
pub struct Reply {
    content: String,
    finish_reason: Option<String>,
    usage: Option<(u64, u64)>,
    status: Option<(u16, String)>,
    retry_after: Option<String>,
    delay: Duration,
    /// Streams only: cut after this many events.
    cut_after_events: Option<usize>,
    /// A body sent as it is (status 200).
    raw: Option<String>,
}

impl Reply {
    /// A completion with this content, `finish_reason: stop`, usage 10 prompt and
    /// 5 completion tokens.
    pub fn content(text: impl Into<String>) -> Reply {
        Reply {
            content: text.into(),
            finish_reason: Some("stop".into()),
            usage: Some((10, 5)),
            status: None,
            retry_after: None,
            delay: Duration::ZERO,
            cut_after_events: None,
            raw: None,
        }
    }

    /// An error status with an OpenAI-style error body.
    pub fn status(code: u16, message: &str) -> Reply {
        Reply {
            status: Some((code, message.to_string())),
            ..Reply::content("")
        }
    }

    /// A 200 whose body is exactly `body`.
    pub fn raw(body: impl Into<String>) -> Reply {
        Reply {
            raw: Some(body.into()),
            ..Reply::content("")
        }
    }

    pub fn finish(mut self, reason: Option<&str>) -> Reply {
        self.finish_reason = reason.map(str::to_string);
        self
    }

    pub fn usage(mut self, prompt: u64, completion: u64) -> Reply {
        self.usage = Some((prompt, completion));
        self
    }

    pub fn no_usage(mut self) -> Reply {
        self.usage = None;
        self
    }

    pub fn retry_after(mut self, value: &str) -> Reply {
        self.retry_after = Some(value.to_string());
        self
    }

    pub fn delay(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    /// When streamed, stop after `events` events without `[DONE]` and close the connection.
    pub fn cut_after(mut self, events: usize) -> Reply {
        self.cut_after_events = Some(events);
        self
    }

    fn response(&self, streamed: bool, include_usage: bool) -> Response {
        if let Some((code, message)) = &self.status {
            let mut r = Response::json(
                &format!("{code} Scripted"),
                &json!({"error": {"message": message, "type": "scripted"}}),
            );
            if let Some(after) = &self.retry_after {
                r = r.with_header("Retry-After", after);
            }
            return r;
        }
        if let Some(body) = &self.raw {
            return Response::new("200 OK", body.clone())
                .with_header("Content-Type", "application/json");
        }
        let usage = self.usage.map(
            |(p, c)| json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}),
        );
        if !streamed {
            let mut body = json!({
                "id": "chatcmpl-test", "object": "chat.completion", "model": "scripted",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": self.content},
                             "finish_reason": self.finish_reason}],
            });
            if let Some(u) = usage {
                body["usage"] = u;
            }
            return Response::json("200 OK", &body);
        }
        let mut events =
            vec![json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})];
        let chars: Vec<char> = self.content.chars().collect();
        for piece in chars.chunks(7) {
            events.push(json!({"choices": [{"index": 0, "delta": {"content": piece.iter().collect::<String>()}, "finish_reason": null}]}));
        }
        events.push(
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": self.finish_reason}]}),
        );
        if let (Some(u), true) = (usage, include_usage) {
            events.push(json!({"choices": [], "usage": u}));
        }
        let mut body = String::new();
        let mut cut = None;
        for (i, event) in events.iter().enumerate() {
            if self.cut_after_events == Some(i) {
                cut = Some(body.len());
            }
            body.push_str(&format!("data: {event}\n\n"));
        }
        body.push_str("data: [DONE]\n\n");
        let mut r = Response::new("200 OK", body).with_header("Content-Type", "text/event-stream");
        r.cut_after = cut;
        r
    }
}

/// A running server; it stops when dropped.
pub struct FakeOpenAi {
    pub server: MockServer,
    calls: Arc<Mutex<Vec<ChatCall>>>,
}

impl FakeOpenAi {
    /// Answer every chat request with `handler`.
    pub fn start(handler: impl Fn(&ChatCall) -> Reply + Send + Sync + 'static) -> FakeOpenAi {
        let calls: Arc<Mutex<Vec<ChatCall>>> = Arc::default();
        let kept = calls.clone();
        let server = MockServer::start(move |request| {
            if request.method == "GET" && request.target.ends_with("/models") {
                return Response::json(
                    "200 OK",
                    &json!({"object": "list", "data": [{"id": "scripted", "object": "model"}]}),
                );
            }
            if request.method != "POST" || !request.target.starts_with("/v1/chat/completions") {
                return Response::json(
                    "404 Not Found",
                    &json!({"error": {"message": "no such route"}}),
                );
            }
            let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
                return Response::json(
                    "400 Bad Request",
                    &json!({"error": {"message": "body is not JSON"}}),
                );
            };
            let call = ChatCall {
                body,
                request: request.clone(),
            };
            kept.lock().unwrap().push(call.clone());
            let reply = handler(&call);
            std::thread::sleep(reply.delay);
            let include_usage = call.body["stream_options"]["include_usage"] == json!(true);
            reply.response(call.stream(), include_usage)
        });
        FakeOpenAi { server, calls }
    }

    /// Answer the n-th request (0-based) with `script[n]`, the last one ever after.
    pub fn scripted(script: Vec<Reply>) -> FakeOpenAi {
        let next = Mutex::new(0usize);
        FakeOpenAi::start(move |_| {
            let mut n = next.lock().unwrap();
            let reply = script[(*n).min(script.len() - 1)].clone();
            *n += 1;
            reply
        })
    }

    /// `http://127.0.0.1:PORT/v1`: the base URL.
    pub fn base_url(&self) -> String {
        self.server.url("/v1")
    }

    /// The chat requests so far, in order.
    pub fn calls(&self) -> Vec<ChatCall> {
        self.calls.lock().unwrap().clone()
    }
}
