//! One OpenAI-compatible chat-completions client: the endpoint checked and the key read
//! when it is made (no request), then one attempt per [`Client::chat`] call, streamed or
//! not. Every failure says what happened at which address (credentials masked), whether
//! another try could help (429, 408, 5xx, timeouts, dropped connections and cut streams
//! can), and the wait the server asked for. The key goes only into the `Authorization`
//! header of requests to the configured address (redirects are never followed) and is
//! masked in every message. When the server reports no usable token counts, the call's
//! tokens are goldgate's own count of the messages and the answer, marked as estimated.

use std::time::Instant;

use crate::endpoint::{
    address, api_key, describe, fingerprint, header_map, http_client, json_headers, normalised,
    parse_base, retry_after,
};
use goldgate_core::error::{Error, Result};
use goldgate_core::llm::excerpt::{error_message, excerpt};
use goldgate_core::llm::sse::Stream;
use goldgate_core::llm::{chat, ChatRequest, Completion, EndpointSettings, FailureKind, LlmError};
use goldgate_core::secrets::{url_without_password, Secrets};

pub struct Client {
    http: reqwest::Client,
    address: reqwest::Url,
    base: reqwest::Url,
    /// The address fit to show: a userinfo password and every secret masked.
    shown: String,
    headers: reqwest::header::HeaderMap,
    key_env: String,
    key_sent: bool,
    base_url_setting: String,
    max_answer: usize,
    timeout_secs: f64,
    /// The key, header values and the URL's password: masked in every message.
    secrets: Secrets,
}

impl Client {
    /// Check the settings, read the key (a key is required unless the endpoint is local)
    /// and set up the HTTP client; no request is made. The key, the header values and the
    /// base URL's password are added to `secrets`.
    pub fn new(settings: &EndpointSettings, secrets: &mut Secrets) -> Result<Client> {
        let hint = format!(
            "set {} to the API's root (the address `/chat/completions` is appended to), such as {} (the default) or http://localhost:11434/v1 for Ollama",
            settings.base_url_setting,
            crate::endpoint::OPENAI_API
        );
        let what = format!(
            "{}'s base URL ({})",
            settings.what, settings.base_url_setting
        );
        let base = parse_base(&settings.base_url, &what, &hint)?;
        if settings.timeout.is_zero() {
            return Err(Error::usage(
                format!("{}'s request timeout is 0", settings.what),
                "give requests some time, such as 120 s",
            ));
        }
        let mut own = Secrets::new();
        let var = &settings.api_key_env;
        let key = api_key(var, &settings.base_url, &base, &settings.what, &mut own)?;
        let mut headers = json_headers(key.as_deref(), var)?;
        for (_, template) in &settings.headers {
            for value in goldgate_core::env::values_in(template) {
                own.add(&value);
            }
        }
        headers.extend(header_map(&settings.headers)?);
        let address = address(&base, "chat/completions");
        let shown = own
            .redact(&url_without_password(address.as_str()))
            .into_owned();
        secrets.extend(&own);
        Ok(Client {
            http: http_client(settings.timeout)?,
            address,
            base,
            shown,
            headers,
            key_env: var.clone(),
            key_sent: key.is_some(),
            base_url_setting: settings.base_url_setting.clone(),
            max_answer: settings.max_answer_bytes.max(1),
            timeout_secs: settings.timeout.as_secs_f64(),
            secrets: own,
        })
    }

    /// The address requests go to, fit to show.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// sha256 of the normalised base URL (no credentials) and the model: what the answers
    /// depend on besides the request.
    pub fn endpoint_fingerprint(&self, model: &str) -> String {
        fingerprint(&self.base, model)
    }

    /// The base URL as fingerprints and provenance show it (no credentials).
    pub fn base_url(&self) -> String {
        normalised(&self.base)
    }

    /// One attempt.
    pub async fn chat(&self, request: &ChatRequest) -> std::result::Result<Completion, LlmError> {
        let started = Instant::now();
        let sent = self
            .http
            .post(self.address.clone())
            .headers(self.headers.clone())
            .body(chat::request_body(request))
            .send()
            .await;
        let mut response = sent.map_err(|e| self.transport(e, "no answer"))?;
        let status = response.status();
        let after = retry_after(response.headers());
        let streamed = request.stream
            && response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|t| t.starts_with("text/event-stream"));
        let mut completion = if status.is_success() && streamed {
            self.read_stream(&mut response).await?
        } else {
            let body = self.read_body(&mut response).await?;
            if !status.is_success() {
                return Err(self.refused(status, &body, &request.model, after, &response));
            }
            chat::read_completion(&body).map_err(|why| {
                LlmError::new(
                    FailureKind::Answer,
                    format!(
                        "POST {} answered {status} but not a chat completion: {why}; the answer begins: {}",
                        self.shown,
                        excerpt(&body, &self.secrets)
                    ),
                    false,
                )
            })?
        };
        completion.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
        completion.content = self.secrets.redact_string(completion.content);
        if completion.usage.is_none() {
            // No usable count from the server: goldgate's own, so a price and a budget are
            // applied to an estimate rather than skipped.
            let estimate = goldgate_core::llm::tokens::estimate_chat(
                &request.model,
                &request.messages,
                &completion.content,
            );
            completion.usage = Some(estimate);
        }
        Ok(completion)
    }

    async fn read_body(
        &self,
        response: &mut reqwest::Response,
    ) -> std::result::Result<Vec<u8>, LlmError> {
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.transport(e, "the answer was cut"))?
        {
            body.extend_from_slice(&chunk);
            if body.len() > self.max_answer {
                return Err(self.too_large());
            }
        }
        Ok(body)
    }

    async fn read_stream(
        &self,
        response: &mut reqwest::Response,
    ) -> std::result::Result<Completion, LlmError> {
        let mut stream = Stream::new();
        let mut read = 0;
        let cut = |why: String| {
            LlmError::new(
                FailureKind::Answer,
                format!("POST {}: {}", self.shown, self.secrets.redact_string(why)),
                true,
            )
        };
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.transport(e, "the stream was cut"))?
        {
            read += chunk.len();
            if read > self.max_answer {
                return Err(self.too_large());
            }
            stream.feed(&chunk).map_err(cut)?;
        }
        stream.finish().map_err(cut)
    }

    fn too_large(&self) -> LlmError {
        LlmError::new(
            FailureKind::Answer,
            format!(
                "POST {} answered with more than {} bytes (raise max_output_bytes if answers are really this long)",
                self.shown, self.max_answer
            ),
            false,
        )
    }

    /// A request that got no (whole) answer: timed out, or the connection failed.
    fn transport(&self, e: reqwest::Error, what: &str) -> LlmError {
        if e.is_timeout() {
            return LlmError::new(
                FailureKind::Timeout,
                format!(
                    "POST {} timed out after {} s",
                    self.shown,
                    goldgate_core::number::value(self.timeout_secs, 1)
                ),
                true,
            );
        }
        LlmError::new(
            FailureKind::Http,
            format!(
                "POST {}: {what}: {}",
                self.shown,
                describe(e, &self.secrets)
            ),
            true,
        )
    }

    /// An error status, said as the server said it, with what would help.
    fn refused(
        &self,
        status: reqwest::StatusCode,
        body: &[u8],
        model: &str,
        after: Option<std::time::Duration>,
        response: &reqwest::Response,
    ) -> LlmError {
        let said = error_message(body, &self.secrets);
        let shown = &self.shown;
        let var = &self.key_env;
        let (message, retryable) = match status.as_u16() {
            401 | 403 if self.key_sent => (
                format!("POST {shown} refused the API key in `{var}` ({status}): {said}; set `{var}` to a key this endpoint accepts, with access to the model `{model}`"),
                false,
            ),
            401 | 403 => (
                format!("POST {shown} wants an API key ({status}: {said}), and `{var}` is not set"),
                false,
            ),
            404 => (
                format!("POST {shown} answered {status}: {said}; check the base URL ({}, the API's root, ending in /v1 for most servers) and the model `{model}`", self.base_url_setting),
                false,
            ),
            408 | 409 | 429 | 500..=599 => (format!("POST {shown} answered {status}: {said}"), true),
            300..=399 => {
                let location = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|l| self.address.join(l).ok())
                    .map(|u| u.origin().ascii_serialization());
                (
                    format!(
                        "POST {shown} answered {status}, a redirect to {}, which goldgate does not follow (the API key is only ever sent to the configured address)",
                        location.as_deref().unwrap_or("another address")
                    ),
                    false,
                )
            }
            _ => (format!("POST {shown} refused the request ({status}): {said}"), false),
        };
        LlmError {
            kind: FailureKind::Http,
            message,
            retryable,
            retry_after: after,
        }
    }
}
