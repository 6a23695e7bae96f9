//! The `openai` embeddings backend against a fake OpenAI-compatible `/embeddings` server
//! started here on 127.0.0.1: batching (results placed by `index`, not by order), retries
//! on 429 (honouring `Retry-After`), 5xx and timeouts, every kind of malformed answer
//! turned into one clear error, refused keys and wrong URLs named, empty texts never sent,
//! and the API key never in an error, a request body or a URL.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use goldgate_core::embed::Embedder;
use goldgate_core::error::{Error, Exit};
use goldgate_core::retry::Backoff;
use goldgate_embed::openai::{OpenAi, Settings};
use serde_json::{json, Value};

use crate::support::mock_http::{MockServer, Request, RequestLog, Response};

const KEY: &str = "sk-test-9c1f7e-NEVER-LOGGED";
const MODEL: &str = "text-embedding-3-small";

/// The fake model: a text's vector, three components that tell texts apart.
fn vector_of(text: &str) -> Vec<f32> {
    let sum: u32 = text.bytes().map(u32::from).sum();
    vec![
        text.chars().count() as f32,
        (sum % 997) as f32,
        f32::from(text.bytes().next().unwrap_or(0)),
    ]
}

/// The request's `input` list.
fn inputs(request: &Request) -> Vec<String> {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    body["input"]
        .as_array()
        .unwrap_or_else(|| panic!("input is not a list: {body}"))
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect()
}

/// A well-formed answer to `request`, its `data` in reverse order (placed by `index`).
fn answer(request: &Request) -> Response {
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
fn settings(url: &str, key_env: &str, batch_size: usize) -> Settings {
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

fn open(settings: &Settings) -> OpenAi {
    OpenAi::open(settings).unwrap_or_else(|e| panic!("{e}"))
}

/// The key appears in no request but as the bearer token of its `Authorization` header.
fn assert_key_only_in_authorization(log: &RequestLog) {
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
fn embed_error(embedder: &OpenAi, texts: &[&str]) -> Error {
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

#[test]
fn batches_of_at_most_batch_size_results_in_input_order_whatever_order_data_comes_in() {
    let (server, log) = MockServer::recording(answer);
    let embedder = open(&settings(
        &server.url("/v1"),
        "GOLDGATE_TEST_OPENAI_KEY_BATCH",
        3,
    ));
    let texts: Vec<String> = (0..10)
        .map(|i| format!("requirement {i}: the user can do thing {i}"))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = embedder.embed(&refs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(vectors.len(), 10);
    for (text, vector) in refs.iter().zip(&vectors) {
        assert_eq!(vector, &vector_of(text), "{text}");
    }
    let requests = log.requests();
    assert_eq!(requests.len(), 4, "ceil(10 / 3) requests");
    let mut sent: Vec<String> = Vec::new();
    for request in &requests {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        assert_eq!(body["model"], MODEL);
        assert_eq!(body["encoding_format"], "float");
        let batch = inputs(request);
        assert!(!batch.is_empty() && batch.len() <= 3, "{batch:?}");
        sent.extend(batch);
    }
    sent.sort();
    let mut expected = texts.clone();
    expected.sort();
    assert_eq!(sent, expected, "every text sent exactly once");
    assert_key_only_in_authorization(&log);
    let identity = embedder.identity();
    assert_eq!(
        (identity.backend, identity.model.as_str()),
        ("openai", MODEL)
    );
}

#[test]
fn several_batches_are_in_flight_at_once_but_boundedly_many() {
    let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (in_flight, peak) = (now.clone(), most.clone());
    let server = MockServer::start(move |request| {
        let n = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        peak.fetch_max(n, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(150));
        in_flight.fetch_sub(1, Ordering::SeqCst);
        answer(request)
    });
    let embedder = open(&settings(
        &server.url("/v1"),
        "GOLDGATE_TEST_OPENAI_KEY_INFLIGHT",
        1,
    ));
    let texts: Vec<String> = (0..12).map(|i| format!("text number {i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = embedder.embed(&refs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(vectors[11], vector_of("text number 11"));
    let peak = most.load(Ordering::SeqCst);
    assert!((2..=4).contains(&peak), "{peak} requests in flight at most");
}

#[test]
fn identical_and_empty_texts_are_not_sent_and_empty_ones_get_the_zero_vector() {
    let (server, log) = MockServer::recording(answer);
    let embedder = open(&settings(
        &server.url("/v1/"),
        "GOLDGATE_TEST_OPENAI_KEY_EMPTY",
        8,
    ));
    let vectors = embedder
        .embed(&["same text", "", "same text", " \n\t", "other"])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        vectors,
        vec![
            vector_of("same text"),
            vec![0.0; 3],
            vector_of("same text"),
            vec![0.0; 3],
            vector_of("other"),
        ]
    );
    let requests = log.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(inputs(&requests[0]), ["same text", "other"]);
    assert_key_only_in_authorization(&log);

    // Only empty texts, before any vector was seen: one small request learns the dimension.
    let fresh = open(&settings(
        &server.url("/v1"),
        "GOLDGATE_TEST_OPENAI_KEY_EMPTY",
        8,
    ));
    let vectors = fresh.embed(&["", "  "]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(vectors, vec![vec![0.0; 3], vec![0.0; 3]]);
    assert_eq!(log.requests().len(), 2);
    assert_eq!(fresh.embed(&[]).unwrap(), Vec::<Vec<f32>>::new());
    assert_eq!(log.requests().len(), 2, "nothing to embed, no request");
}

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

#[test]
fn requests_are_spaced_by_the_rate_limit() {
    let (server, log) = MockServer::recording(answer);
    let mut settings = settings(&server.url("/v1"), "GOLDGATE_TEST_OPENAI_KEY_RPM", 1);
    settings.requests_per_minute = Some(600); // one every 100 ms
    let embedder = open(&settings);
    let started = Instant::now();
    embedder
        .embed(&["a", "b", "c", "d"])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(log.requests().len(), 4);
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn open_checks_the_url_and_the_key_without_a_request() {
    let server = MockServer::start(answer);
    let base = settings(&server.url("/v1"), "GOLDGATE_TEST_OPENAI_KEY_OPEN", 16);
    for bad in ["not a url", "ftp://example.com/v1", "http://", ""] {
        let error = OpenAi::open(&Settings {
            base_url: bad.to_string(),
            ..base.clone()
        })
        .err()
        .unwrap_or_else(|| panic!("{bad:?} was accepted"));
        let message = error.to_string();
        assert!(message.contains("OPENAI_BASE_URL"), "{bad}: {message}");
        assert_eq!(error.exit(), Exit::Input, "{bad}: {message}");
    }
    let zero = OpenAi::open(&Settings {
        batch_size: 0,
        ..base.clone()
    });
    assert!(zero.is_err(), "a batch size of 0");

    // A remote https endpoint needs the key: its variable is named.
    std::env::remove_var("GOLDGATE_TEST_OPENAI_KEY_UNSET");
    let remote = Settings {
        base_url: "https://api.openai.com/v1".to_string(),
        api_key_env: "GOLDGATE_TEST_OPENAI_KEY_UNSET".to_string(),
        ..base.clone()
    };
    let message = OpenAi::open(&remote).err().expect("no key").to_string();
    assert!(
        message.contains("GOLDGATE_TEST_OPENAI_KEY_UNSET"),
        "{message}"
    );

    // A local server may do without one: no Authorization header is sent.
    let (local, log) = MockServer::recording(answer);
    let keyless = OpenAi::open(&Settings {
        base_url: local.url("/v1"),
        api_key_env: "GOLDGATE_TEST_OPENAI_KEY_UNSET".to_string(),
        ..base.clone()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    keyless.embed(&["text"]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(log.requests()[0].header("authorization"), None);
    // Without a key, a user and password in the URL go as Basic authentication.
    let with_userinfo = OpenAi::open(&Settings {
        base_url: format!("http://bot:pa55word@127.0.0.1:{}/v1", local.port),
        api_key_env: "GOLDGATE_TEST_OPENAI_KEY_UNSET".to_string(),
        ..base.clone()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    with_userinfo
        .embed(&["text"])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        log.requests()[1].header("authorization"),
        Some("Basic Ym90OnBhNTV3b3Jk")
    );
}

#[test]
fn a_call_from_inside_an_async_runtime_is_an_error_not_a_panic() {
    let (server, log) = MockServer::recording(answer);
    let embedder = open(&settings(
        &server.url("/v1"),
        "GOLDGATE_TEST_OPENAI_KEY_ASYNC",
        16,
    ));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let error = runtime
        .block_on(async { embedder.embed(&["text"]) })
        .unwrap_err();
    assert_eq!(error.exit(), Exit::Internal, "{error}");
    assert!(error.to_string().contains("async runtime"), "{error}");
    assert!(log.requests().is_empty());
    // Outside it, the same embedder works.
    embedder.embed(&["text"]).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_fingerprint_is_the_endpoint_and_model_never_the_key_or_credentials() {
    let base = settings(
        "https://api.openai.com/v1",
        "GOLDGATE_TEST_OPENAI_KEY_FINGERPRINT",
        16,
    );
    let fingerprint = |url: &str, model: &str| {
        let embedder = OpenAi::open(&Settings {
            base_url: url.to_string(),
            model: model.to_string(),
            ..base.clone()
        })
        .unwrap_or_else(|e| panic!("{e}"));
        embedder.identity().fingerprint.clone()
    };
    let plain = fingerprint("https://api.openai.com/v1", MODEL);
    assert_eq!(plain.len(), 64);
    assert!(plain.bytes().all(|b| b.is_ascii_hexdigit()));
    assert!(!plain.contains(KEY));
    assert_eq!(plain, fingerprint("https://API.openai.com:443/v1/", MODEL));
    assert_eq!(
        plain,
        fingerprint("https://u:pw12345@api.openai.com/v1", MODEL)
    );
    assert_ne!(
        plain,
        fingerprint("https://api.openai.com/v1", "text-embedding-3-large")
    );
    assert_ne!(plain, fingerprint("https://example.com/v1", MODEL));
    // Another key, the same vectors.
    std::env::set_var(
        "GOLDGATE_TEST_OPENAI_KEY_FINGERPRINT2",
        "sk-another-key-entirely",
    );
    let other = OpenAi::open(&Settings {
        api_key_env: "GOLDGATE_TEST_OPENAI_KEY_FINGERPRINT2".to_string(),
        ..base.clone()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plain, other.identity().fingerprint);
}
