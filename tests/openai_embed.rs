//! The `openai` embeddings backend against a fake OpenAI-compatible `/embeddings` server
//! started here on 127.0.0.1 (`support::embeddings`): batching (results placed by `index`,
//! not by order, several batches in flight), empty and repeated texts never sent, the rate
//! limit, what `open` checks, a call from inside an async runtime, the fingerprint, and the
//! API key never in a request body or a URL. What goes wrong is in `openai_embed_errors`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use goldgate_core::embed::Embedder;
use goldgate_core::error::Exit;
use goldgate_embed::openai::{OpenAi, Settings};
use serde_json::Value;

use crate::support::embeddings::{
    answer, assert_key_only_in_authorization, inputs, open, settings, vector_of, KEY, MODEL,
};
use crate::support::mock_http::MockServer;

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
