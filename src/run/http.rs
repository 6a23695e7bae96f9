//! The `http` adapter: POST the request JSON, any 2xx body is the answer. `${ENV}` in the URL
//! and header values is expanded from the environment when the run starts, so tokens stay
//! out of files; messages only ever show the unexpanded template. 429 and 5xx answers and
//! connection failures are retryable, with the server's `Retry-After` honoured.

use std::time::Duration;

use serde_json::Value;

use super::call::{CallError, Reply};
use super::config::PipelineConfig;
use crate::error::{Error, Result};
use crate::runfile::record::ErrorKind;

pub struct Http {
    client: reqwest::Client,
    /// The URL as configured (`${ENV}` not expanded): safe to print.
    shown: String,
    url: String,
    headers: reqwest::header::HeaderMap,
    max_output: usize,
}

/// Expand `${NAME}` from the environment. A missing variable is a usage error naming it.
pub fn expand_env(template: &str, what: &str) -> Result<String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start + 2..].find('}') else {
            return Err(Error::usage(
                format!("unclosed `${{` in {what}"),
                "write environment variables as ${NAME}",
            ));
        };
        let name = &rest[start + 2..start + 2 + len];
        let value = std::env::var(name).map_err(|_| {
            Error::usage(
                format!("{what} uses ${{{name}}}, which is not set"),
                format!("export {name}=... before running goldgate"),
            )
        })?;
        out.push_str(&value);
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    Ok(out)
}

impl Http {
    pub fn new(url: &str, headers: &[(String, String)], config: &PipelineConfig) -> Result<Http> {
        let mut map = reqwest::header::HeaderMap::new();
        map.insert(
            reqwest::header::CONTENT_TYPE,
            reqwest::header::HeaderValue::from_static("application/json"),
        );
        for (name, template) in headers {
            let value = expand_env(template, &format!("header `{name}`"))?;
            let name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                Error::usage(
                    format!("`{name}` is not a valid header name"),
                    "write headers as 'Name: value'",
                )
            })?;
            let mut value = reqwest::header::HeaderValue::from_str(&value).map_err(|_| {
                Error::usage(
                    format!("the value of header `{name}` is not valid in a header"),
                    "remove newlines and control characters",
                )
            })?;
            value.set_sensitive(true);
            map.insert(name, value);
        }
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(|e| {
                Error::usage(
                    format!("cannot set up the HTTP client: {}", e.without_url()),
                    "check the system's TLS certificates",
                )
            })?;
        Ok(Http {
            client,
            shown: url.to_string(),
            url: expand_env(url, "the pipeline URL")?,
            headers: map,
            max_output: config.max_output_bytes,
        })
    }

    pub async fn call(&self, request: &Value) -> Result<Reply, CallError> {
        let sent = self
            .client
            .post(&self.url)
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
            let mut error = CallError::new(kind, format!("POST {}: {}", self.shown, describe(e)));
            error.retryable = retryable;
            error
        })?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| {
            CallError::new(
                ErrorKind::Http,
                format!("reading the answer from {}: {}", self.shown, describe(e)),
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
        let excerpt: String = text.chars().take(300).collect();
        let mut error = CallError::new(
            ErrorKind::Http,
            format!("POST {} answered {status}: {excerpt}", self.shown),
        );
        error.retryable = status.as_u16() == 429 || status.is_server_error();
        error.retry_after = retry_after;
        Err(error)
    }
}

/// A reqwest error and its causes, without the URL (the expanded URL may hold a secret).
fn describe(e: reqwest::Error) -> String {
    use std::error::Error as _;
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}

/// The server's `Retry-After`, in seconds or as an HTTP-date.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    crate::retry::parse_retry_after(value, std::time::SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_expansion() {
        std::env::set_var("GOLDGATE_TEST_TOKEN", "s3cret");
        assert_eq!(
            expand_env("Bearer ${GOLDGATE_TEST_TOKEN}", "x").unwrap(),
            "Bearer s3cret"
        );
        assert_eq!(expand_env("no vars", "x").unwrap(), "no vars");
        let e = expand_env("${GOLDGATE_TEST_UNSET_VAR}", "header `Authorization`")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("GOLDGATE_TEST_UNSET_VAR") && e.contains("not set"),
            "{e}"
        );
        assert!(expand_env("${OPEN", "x").is_err());
    }
}
