//! A fake OpenAI-compatible `/embeddings` model for the `openai` embeddings backend: its
//! vectors, its well-formed answers (data in reverse order, placed by `index`), settings
//! pointing at it with a key of the test's own, and checks that the key shows nowhere but
//! in the `Authorization` header.

use std::time::Duration;

use goldgate_core::embed::Embedder;
use goldgate_core::error::Error;
use goldgate_core::retry::Backoff;
use goldgate_embed::openai::{OpenAi, Settings};
use serde_json::{json, Value};

use super::mock_http::{Request, RequestLog, Response};

/// The API key the fake server is called with.
pub const KEY: &str = "sk-test-9c1f7e-NEVER-LOGGED";
/// The model named in its answers.
pub const MODEL: &str = "text-embedding-3-small";

/// The fake model: a text's vector, three components that tell texts apart.
pub fn vector_of(text: &str) -> Vec<f32> {
    let sum: u32 = text.bytes().map(u32::from).sum();
    vec![
        text.chars().count() as f32,
        (sum % 997) as f32,
        f32::from(text.bytes().next().unwrap_or(0)),
    ]
}

/// The request's `input` list.
pub fn inputs(request: &Request) -> Vec<String> {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    body["input"]
        .as_array()
        .unwrap_or_else(|| panic!("input is not a list: {body}"))
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect()
}

/// A well-formed answer to `request`, its `data` in reverse order (placed by `index`).
pub fn answer(request: &Request) -> Response {
    let data: Vec<Value> = inputs(request)
        .iter()
        .enumerate()
        .rev()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector_of(t)}))
        .collect();
    Response::json(
        "200 OK",
        &json!({"object": "list", "data": data, "model": MODEL,
                "usage": {"prompt_tokens": 3, "total_tokens": 3}}),
    )
}

/// Settings for the fake server at `url`, the key in the variable `key_env` (set here:
/// every test has its own, so tests running at once never see each other's).
pub fn settings(url: &str, key_env: &str, batch_size: usize) -> Settings {
    std::env::set_var(key_env, KEY);
    Settings {
        base_url: url.to_string(),
        api_key_env: key_env.to_string(),
        model: MODEL.to_string(),
        batch_size,
        requests_per_minute: None,
        timeout: Duration::from_secs(10),
        retries: 3,
        backoff: Backoff::with_base(Duration::from_millis(1)),
    }
}

/// The backend for `settings`, which must open.
pub fn open(settings: &Settings) -> OpenAi {
    OpenAi::open(settings).unwrap_or_else(|e| panic!("{e}"))
}

/// The key appears in no request but as the bearer token of its `Authorization` header.
pub fn assert_key_only_in_authorization(log: &RequestLog) {
    let requests = log.requests();
    assert!(!requests.is_empty());
    for request in requests {
        assert_eq!(request.method, "POST");
        assert_eq!(request.target, "/v1/embeddings");
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {KEY}").as_str())
        );
        let body = String::from_utf8_lossy(&request.body);
        assert!(!body.contains(KEY), "the key is in a request body: {body}");
        for (name, value) in &request.headers {
            assert!(
                name == "authorization" || !value.contains(KEY),
                "the key is in header {name}"
            );
        }
    }
}

/// The error `embed` gives, checked to be free of the key in every form it is shown.
pub fn embed_error(embedder: &OpenAi, texts: &[&str]) -> Error {
    let error = match embedder.embed(texts) {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e,
    };
    for shown in [error.to_string(), format!("{error:?}")] {
        assert!(!shown.contains(KEY), "the key is in the error: {shown}");
        assert!(!shown.contains("NEVER-LOGGED"), "part of the key: {shown}");
    }
    error
}
