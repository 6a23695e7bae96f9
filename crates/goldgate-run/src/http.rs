//! The `http` adapter: POST the request JSON, any 2xx body is the answer. `${ENV}` in the URL
//! and header values is expanded from the environment when the run starts, so tokens stay
//! out of files; messages only ever show the unexpanded template, with a userinfo password
//! masked. An unusable URL is a configuration error before the first call. 429 and 5xx
//! answers and connection failures are retryable, with the server's `Retry-After` honoured.
//! Redirects are followed within the URL's origin only, and no `Referer` is sent, so
//! credentials (headers, userinfo) and query tokens never reach another origin.

use std::sync::Arc;

use serde_json::Value;

use super::call::{CallError, Reply};
use super::config::PipelineConfig;
use goldgate_client::endpoint::{describe, retry_after};
use goldgate_core::env::expand_url;
use goldgate_core::error::{Error, Result};
use goldgate_core::runfile::record::ErrorKind;
use goldgate_core::secrets::{url_without_password, Secrets};

/// Most redirects followed within the URL's origin.
const MAX_REDIRECTS: usize = 10;

pub struct Http {
    client: reqwest::Client,
    /// The URL as configured (`${ENV}` not expanded, a userinfo password masked): safe to
    /// print.
    shown: String,
    url: reqwest::Url,
    headers: reqwest::header::HeaderMap,
    max_output: usize,
    /// Redacted from an answer before an excerpt of it goes into a message.
    secrets: Arc<Secrets>,
}

impl Http {
    pub fn new(
        url: &str,
        headers: &[(String, String)],
        config: &PipelineConfig,
        secrets: Arc<Secrets>,
    ) -> Result<Http> {
        let mut map = reqwest::header::HeaderMap::new();
        map.insert(
            reqwest::header::CONTENT_TYPE,
            reqwest::header::HeaderValue::from_static("application/json"),
        );
        map.extend(goldgate_client::endpoint::header_map(headers)?);
        let shown = url_without_password(url).into_owned();
        let parsed = parse_url(url, &shown, config)?;
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .redirect(same_origin_redirects())
            .referer(false)
            .build()
            .map_err(|e| {
                Error::usage(
                    format!("cannot set up the HTTP client: {}", e.without_url()),
                    "check the system's TLS certificates",
                )
            })?;
        Ok(Http {
            client,
            shown,
            url: parsed,
            headers: map,
            max_output: config.max_output_bytes,
            secrets,
        })
    }

    pub async fn call(&self, request: &Value) -> Result<Reply, CallError> {
        let sent = self
            .client
            .post(self.url.clone())
            .headers(self.headers.clone())
            .body(serde_json::to_vec(request).unwrap_or_default())
            .send()
            .await;
        let mut response = sent.map_err(|e| {
            let kind = if e.is_timeout() {
                ErrorKind::Timeout
            } else {
                ErrorKind::Http
            };
            let retryable = e.is_connect() || e.is_request();
            let mut error = CallError::new(
                kind,
                format!("POST {}: {}", self.shown, describe(e, &self.secrets)),
            );
            error.retryable = retryable;
            error
        })?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let response_location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| {
            CallError::new(
                ErrorKind::Http,
                format!(
                    "reading the answer from {}: {}",
                    self.shown,
                    describe(e, &self.secrets)
                ),
            )
        })? {
            body.extend_from_slice(&chunk);
            if body.len() > self.max_output {
                let message = format!(
                    "answer larger than the {} byte limit (max_output_bytes)",
                    self.max_output
                );
                return Err(CallError::new(ErrorKind::Output, message));
            }
        }
        let text = String::from_utf8_lossy(&body).into_owned();
        if status.is_success() {
            return Ok(Reply {
                text,
                ..Reply::default()
            });
        }
        if status.is_redirection() {
            return Err(CallError::new(
                ErrorKind::Http,
                self.cross_origin(status, &response_location),
            ));
        }
        let excerpt: String = self.secrets.redact(&text).chars().take(300).collect();
        let mut error = CallError::new(
            ErrorKind::Http,
            format!("POST {} answered {status}: {excerpt}", self.shown),
        );
        error.retryable = status.as_u16() == 429 || status.is_server_error();
        error.retry_after = retry_after;
        Err(error)
    }
}

impl Http {
    /// Why a redirect was not followed: it leads to another origin (only a redirect that
    /// leaves the origin reaches here). Only the other origin is named: the rest of the
    /// location may carry the request's own query.
    fn cross_origin(&self, status: reqwest::StatusCode, location: &Option<String>) -> String {
        let target = location
            .as_deref()
            .and_then(|l| self.url.join(l).ok())
            .map_or_else(
                || "another origin".to_string(),
                |u| u.origin().ascii_serialization(),
            );
        format!(
            "POST {} answered {status}, a redirect to {target}, which goldgate does not follow: \
             credentials and query tokens are only ever sent to the configured origin; \
             point the URL at the service itself",
            self.shown
        )
    }
}

/// Follow redirects that stay within the URL's origin (scheme, host and port); stop at one
/// that leaves it, so its response is the answer the call reports.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let leaves = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() != attempt.url().origin());
        if leaves {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    })
}

/// The pipeline URL with `${ENV}` expanded, checked: it must parse, be http or https, and
/// name a host. Anything else is a configuration error naming the setting.
fn parse_url(template: &str, shown: &str, config: &PipelineConfig) -> Result<reqwest::Url> {
    let expanded = expand_url(template)?;
    let bad = |why: &str| {
        config.origin.error(
            "--http",
            "url",
            &format!("`{shown}` {why}"),
            "write the pipeline's address as http://host:port/path or https://host/path",
        )
    };
    let url = reqwest::Url::parse(&expanded).map_err(|e| bad(&format!("is not a URL ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad(&format!(
            "is not an http(s) URL (its scheme is `{}`)",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("names no host"));
    }
    Ok(url)
}
