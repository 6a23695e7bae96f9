//! The `openai` embeddings backend when the server misbehaves (`support::embeddings`):
//! retries on 429 (honouring `Retry-After`), 5xx and timeouts, every kind of malformed
//! answer turned into one clear error, refused keys, wrong URLs and refused texts named,
//! and the API key never in an error.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use goldgate_core::embed::Embedder;
use goldgate_core::error::Exit;
use serde_json::{json, Value};

use crate::support::embeddings::{
    answer, assert_key_only_in_authorization, embed_error, inputs, open, settings, vector_of, KEY,
    MODEL,
};
use crate::support::mock_http::{MockServer, Response};

#[test]
fn a_429_is_retried_after_the_time_retry_after_asks_for() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let (server, log) = MockServer::recording(move |request| {
        if counted.fetch_add(1, Ordering::SeqCst) == 0 {
            Response::json(
                "429 Too Many Requests",
                &json!({"error": {"message": "Rate limit reached", "type": "requests"}}),
            )
            .with_header("Retry-After", "1")
        } else {
            answer(request)
        }
    });
    let embedder = open(&settings(
        &server.url("/v1"),
        "GOLDGATE_TEST_OPENAI_KEY_429",
        16,
    ));
    let started = Instant::now();
    let vectors = embedder
        .embed(&["lock the account after five failed logins"])
        .unwrap_or_else(|e| panic!("{e}"));
    let waited = started.elapsed();
    assert_eq!(
        vectors,
        vec![vector_of("lock the account after five failed logins")]
    );
    assert_eq!(log.requests().len(), 2);
    assert!(
        waited >= Duration::from_secs(1),
        "Retry-After: 1 honoured (backoff alone is 1 ms): waited {waited:?}"
    );
    assert_key_only_in_authorization(&log);
}

#[test]
fn a_server_error_is_retried_and_one_that_persists_is_a_clear_error() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let (server, log) = MockServer::recording(move |request| {
        if counted.fetch_add(1, Ordering::SeqCst) == 0
            || request.body.windows(4).any(|w| w == b"down")
        {
            Response::new(
                "500 Internal Server Error",
                format!("upstream exploded for {KEY}"),
            )
        } else {
            answer(request)
        }
    });
    let settings = settings(&server.url("/v1"), "GOLDGATE_TEST_OPENAI_KEY_500", 16);
    let embedder = open(&settings);
    let vectors = embedder
        .embed(&["a", "b"])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(vectors, vec![vector_of("a"), vector_of("b")]);
    assert_eq!(log.requests().len(), 2);

    let error = embed_error(&embedder, &["down"]);
    let message = error.to_string();
    assert_eq!(log.requests().len(), 2 + 1 + settings.retries as usize);
    assert!(message.contains("500"), "{message}");
    assert!(message.contains("upstream exploded for ***"), "{message}");
    assert!(message.contains("after 4 attempts"), "{message}");
    assert_eq!(error.exit(), Exit::Incomplete, "{message}");
    assert_key_only_in_authorization(&log);
}

#[test]
fn a_malformed_answer_is_a_clear_error_quoting_it() {
    let cases: Vec<(&str, Value, &str)> = vec![
        ("no data", json!({"object": "list"}), "data"),
        (
            "wrong count",
            json!({"data": [{"index": 0, "embedding": [1.0, 2.0]}]}),
            "1 vector for 2 texts",
        ),
        (
            "non-numeric",
            json!({"data": [{"index": 0, "embedding": [1.0, "x"]}, {"index": 1, "embedding": [1.0, 2.0]}]}),
            "data[0].embedding[1]",
        ),
        (
            "mixed dimensions",
            json!({"data": [{"index": 0, "embedding": [1.0, 2.0]}, {"index": 1, "embedding": [1.0, 2.0, 3.0]}]}),
            "dimension",
        ),
        (
            "index twice",
            json!({"data": [{"index": 1, "embedding": [1.0, 2.0]}, {"index": 1, "embedding": [1.0, 2.0]}]}),
            "index 1",
        ),
        (
            "index out of range",
            json!({"data": [{"index": 0, "embedding": [1.0, 2.0]}, {"index": 7, "embedding": [1.0, 2.0]}]}),
            "index 7",
        ),
        (
            "empty vector",
            json!({"data": [{"index": 0, "embedding": []}, {"index": 1, "embedding": []}]}),
            "empty",
        ),
        (
            "base64",
            json!({"data": [{"index": 0, "embedding": "AAAA"}, {"index": 1, "embedding": "AAAA"}]}),
            "data[0].embedding",
        ),
    ];
    for (what, body, says) in cases {
        let (server, log) = MockServer::recording(move |_| Response::json("200 OK", &body));
        let embedder = open(&settings(
            &server.url("/v1"),
            "GOLDGATE_TEST_OPENAI_KEY_MALFORMED",
            16,
        ));
        let error = embed_error(&embedder, &["first text", "second text"]);
        let message = error.to_string();
        assert!(message.contains(says), "{what}: {message}");
        assert!(
            message.contains("not an embeddings response") && message.contains("/v1/embeddings"),
            "{what}: {message}"
        );
        assert_eq!(error.exit(), Exit::Incomplete, "{what}: {message}");
        assert_eq!(
            log.requests().len(),
            1,
            "{what}: a malformed answer is not retried"
        );
    }

    let server = MockServer::start(|_| {
        Response::new(
            "200 OK",
            "<html><body>Welcome to the router admin page</body></html>",
        )
    });
    let embedder = open(&settings(
        &server.url("/v1"),
        "GOLDGATE_TEST_OPENAI_KEY_MALFORMED",
        16,
    ));
    let message = embed_error(&embedder, &["text"]).to_string();
    assert!(
        message.contains("not an embeddings response")
            && message.contains("<html><body>Welcome to the router")
            && message.contains("OPENAI_BASE_URL"),
        "{message}"
    );
}

#[test]
fn a_refused_key_names_its_variable_and_never_shows_the_key() {
    let (server, log) = MockServer::recording(|request| {
        // OpenAI quotes the key it was given in its message.
        let given = request
            .header("authorization")
            .unwrap_or_default()
            .replace("Bearer ", "");
        Response::json(
            "401 Unauthorized",
            &json!({"error": {"message": format!("Incorrect API key provided: {given}."),
                              "code": "invalid_api_key"}}),
        )
    });
    let embedder = open(&settings(
        &server.url("/v1"),
        "GOLDGATE_TEST_OPENAI_KEY_401",
        16,
    ));
    let error = embed_error(&embedder, &["text"]);
    let message = error.to_string();
    assert!(
        message.contains("GOLDGATE_TEST_OPENAI_KEY_401"),
        "{message}"
    );
    assert!(message.contains("401"), "{message}");
    assert!(
        message.contains("Incorrect API key provided: ***"),
        "{message}"
    );
    assert_eq!(error.exit(), Exit::Incomplete);
    assert_eq!(log.requests().len(), 1, "a refused key is not retried");
    assert_key_only_in_authorization(&log);
}

#[test]
fn a_wrong_url_or_model_is_a_usage_error_naming_both() {
    let (server, log) = MockServer::recording(|_| {
        Response::json(
            "404 Not Found",
            &json!({"error": {"message": "model not found"}}),
        )
    });
    let url = format!("http://bot:hunter2hunter2@127.0.0.1:{}/v1", server.port);
    let embedder = open(&settings(&url, "GOLDGATE_TEST_OPENAI_KEY_404", 16));
    let error = embed_error(&embedder, &["text"]);
    let message = error.to_string();
    assert!(
        message.contains(&format!(
            "http://bot:***@127.0.0.1:{}/v1/embeddings",
            server.port
        )),
        "{message}"
    );
    assert!(!message.contains("hunter2hunter2"), "{message}");
    assert!(
        message.contains(MODEL) && message.contains("OPENAI_BASE_URL"),
        "{message}"
    );
    assert_eq!(error.exit(), Exit::Input);
    // The key wins over the URL's credentials, which are never sent alongside it.
    assert_eq!(
        log.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );

    // A redirect is not followed: the key only ever goes to the configured address.
    let (elsewhere, seen_elsewhere) = MockServer::recording(answer);
    let target = elsewhere.url("/v1/embeddings?steal=1");
    let (server, log) = MockServer::recording(move |_| {
        Response::new("307 Temporary Redirect", "").with_header("Location", &target)
    });
    let embedder = open(&settings(
        &server.url("/v1"),
        "GOLDGATE_TEST_OPENAI_KEY_404",
        16,
    ));
    let error = embed_error(&embedder, &["text"]);
    let message = error.to_string();
    assert!(
        message.contains(&format!(
            "a redirect to http://127.0.0.1:{}",
            elsewhere.port
        )) && !message.contains("steal"),
        "{message}"
    );
    assert_eq!(error.exit(), Exit::Input);
    assert_eq!(log.requests().len(), 1);
    assert!(seen_elsewhere.requests().is_empty());
}

#[test]
fn a_text_the_endpoint_refuses_is_named_in_the_error() {
    let server = MockServer::start(|request| {
        if inputs(request).iter().any(|t| t.len() > 100) {
            Response::json(
                "400 Bad Request",
                &json!({"error": {"message": "This model's maximum context length is 8192 tokens"}}),
            )
        } else {
            answer(request)
        }
    });
    let embedder = open(&settings(
        &server.url("/v1"),
        "GOLDGATE_TEST_OPENAI_KEY_400",
        16,
    ));
    let long = format!("The system shall {}", "keep logging everything ".repeat(20));
    let error = embed_error(&embedder, &["short", &long]);
    let message = error.to_string();
    assert!(message.contains("maximum context length"), "{message}");
    assert!(
        message.contains("The system shall keep logging"),
        "{message}"
    );
    assert!(
        !message.contains(&long[..200]),
        "only the text's start: {message}"
    );
    assert_eq!(error.exit(), Exit::Input);
}

#[test]
fn a_server_that_does_not_answer_in_time_is_retried_then_a_clear_error() {
    let (server, log) = MockServer::recording(|request| {
        std::thread::sleep(Duration::from_millis(800));
        answer(request)
    });
    let mut settings = settings(&server.url("/v1"), "GOLDGATE_TEST_OPENAI_KEY_TIMEOUT", 16);
    settings.timeout = Duration::from_millis(100);
    settings.retries = 1;
    let embedder = open(&settings);
    let message = embed_error(&embedder, &["text"]).to_string();
    assert!(
        message.contains("timed out") || message.contains("timeout"),
        "{message}"
    );
    assert!(message.contains("after 2 attempts"), "{message}");
    assert_eq!(log.requests().len(), 2);
}
