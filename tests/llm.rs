//! The chat-completions client against a scripted OpenAI-compatible server: plain and
//! streamed answers, what every failure says and whether it may be retried, and that the
//! API key goes only into the `Authorization` header.

use std::time::Duration;

use goldgate_client::Client;
use goldgate_core::llm::{ChatRequest, EndpointSettings, FailureKind, Message};
use goldgate_core::secrets::Secrets;
use serde_json::json;

use crate::support::openai::{FakeOpenAi, Reply};

fn settings(base_url: &str, key_env: &str) -> EndpointSettings {
    EndpointSettings {
        base_url: base_url.to_string(),
        api_key_env: key_env.to_string(),
        headers: Vec::new(),
        timeout: Duration::from_secs(5),
        max_answer_bytes: 1 << 20,
        what: "the chat API".into(),
        base_url_setting: "`[pipeline] base_url` or `OPENAI_BASE_URL`".into(),
    }
}

fn request(stream: bool) -> ChatRequest {
    ChatRequest {
        model: "scripted".into(),
        messages: vec![
            Message::new("system", "be brief"),
            Message::new("user", "hi"),
        ],
        temperature: Some(0.2),
        stream,
        ..ChatRequest::default()
    }
}

fn ask(
    client: &Client,
    request: &ChatRequest,
) -> Result<goldgate_core::llm::Completion, goldgate_core::llm::LlmError> {
    goldgate_client::runtime::build()
        .unwrap()
        .block_on(client.chat(request))
}

#[test]
fn plain_and_streamed_answers_give_the_same_completion() {
    std::env::set_var("GOLDGATE_LLM_TEST_KEY_1", "sk-test-key-0123456789");
    let server = FakeOpenAi::start(|_| Reply::content("{\"requirements\": []} é").usage(21, 8));
    let mut secrets = Secrets::new();
    let client = Client::new(
        &settings(&server.base_url(), "GOLDGATE_LLM_TEST_KEY_1"),
        &mut secrets,
    )
    .unwrap();
    for stream in [false, true] {
        let c = ask(&client, &request(stream)).unwrap();
        assert_eq!(c.content, "{\"requirements\": []} é", "stream {stream}");
        assert_eq!(c.finish_reason.as_deref(), Some("stop"));
        assert_eq!(
            (
                c.usage.unwrap().prompt_tokens,
                c.usage.unwrap().completion_tokens
            ),
            (21, 8)
        );
    }
    let calls = server.calls();
    assert_eq!(
        calls[0].body["messages"][1],
        json!({"role": "user", "content": "hi"})
    );
    assert_eq!(calls[0].body["temperature"], json!(0.2));
    assert!(calls[0].body.get("stream").is_none());
    assert_eq!(
        calls[1].body["stream_options"],
        json!({"include_usage": true})
    );
    assert_eq!(
        calls[1].header("authorization"),
        Some("Bearer sk-test-key-0123456789")
    );
    assert!(secrets.redact("sk-test-key-0123456789").contains("***"));
}

#[test]
fn a_stream_without_usage_is_whole_and_a_cut_one_is_a_retryable_error() {
    let server = FakeOpenAi::scripted(vec![
        Reply::content("abc").no_usage().finish(Some("length")),
        Reply::content("a long answer that will be cut").cut_after(2),
    ]);
    let client = Client::new(
        &settings(&server.base_url(), "GOLDGATE_LLM_TEST_UNSET"),
        &mut Secrets::new(),
    )
    .unwrap();
    let c = ask(&client, &request(true)).unwrap();
    assert_eq!(
        (c.content.as_str(), c.finish_reason.as_deref()),
        ("abc", Some("length"))
    );
    // The server sent no usage: goldgate counts the tokens itself and says so.
    let usage = c.usage.expect("a stream without usage is counted");
    assert!(usage.estimated, "{usage:?}");
    assert!(
        usage.prompt_tokens > 0 && usage.completion_tokens == 1,
        "{usage:?}"
    );
    let e = ask(&client, &request(true)).unwrap_err();
    assert!(e.retryable, "{e:?}");
    assert!(e.message.contains("cut"), "{}", e.message);
}

#[test]
fn failures_say_what_happened_and_whether_to_retry() {
    std::env::set_var("GOLDGATE_LLM_TEST_KEY_2", "sk-refused-key-987654");
    let server = FakeOpenAi::scripted(vec![
        Reply::status(429, "slow down").retry_after("2"),
        Reply::status(503, "overloaded"),
        Reply::status(401, "Incorrect API key provided: sk-refused-key-987654"),
        Reply::status(404, "The model `x` does not exist"),
        Reply::status(400, "maximum context length is 8192 tokens"),
        Reply::raw("<html>proxy error</html>"),
        Reply::content("late").delay(Duration::from_millis(1500)),
    ]);
    let mut s = settings(&server.base_url(), "GOLDGATE_LLM_TEST_KEY_2");
    s.timeout = Duration::from_millis(700);
    let client = Client::new(&s, &mut Secrets::new()).unwrap();
    let r = request(false);
    let e = ask(&client, &r).unwrap_err();
    assert!(
        e.retryable && e.retry_after == Some(Duration::from_secs(2)),
        "{e:?}"
    );
    assert!(
        e.message.contains("429") && e.message.contains("slow down"),
        "{}",
        e.message
    );
    assert!(ask(&client, &r).unwrap_err().retryable);
    let e = ask(&client, &r).unwrap_err();
    assert!(
        !e.retryable
            && e.message
                .contains("refused the API key in `GOLDGATE_LLM_TEST_KEY_2`"),
        "{}",
        e.message
    );
    assert!(!e.message.contains("sk-refused"), "{}", e.message);
    let e = ask(&client, &r).unwrap_err();
    assert!(
        !e.retryable && e.message.contains("check the base URL"),
        "{}",
        e.message
    );
    let e = ask(&client, &r).unwrap_err();
    assert!(
        !e.retryable && e.message.contains("maximum context length"),
        "{}",
        e.message
    );
    let e = ask(&client, &r).unwrap_err();
    assert!(
        e.kind == FailureKind::Answer && e.message.contains("not a chat completion"),
        "{}",
        e.message
    );
    let e = ask(&client, &r).unwrap_err();
    assert!(e.kind == FailureKind::Timeout && e.retryable, "{e:?}");
}

#[test]
fn a_remote_endpoint_needs_a_key_and_a_bad_base_url_is_named() {
    let e = Client::new(
        &settings("https://api.example.invalid/v1", "GOLDGATE_LLM_TEST_UNSET"),
        &mut Secrets::new(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("`GOLDGATE_LLM_TEST_UNSET` is not set"), "{e}");
    let e = Client::new(&settings("localhost:8000", "X"), &mut Secrets::new())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("the chat API's base URL (`[pipeline] base_url` or `OPENAI_BASE_URL`)"),
        "{e}"
    );
}
