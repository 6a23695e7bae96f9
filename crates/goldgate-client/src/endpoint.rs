//! Where an OpenAI-compatible API is and how to reach it, for every client of one (chat
//! completions, embeddings): the base URL checked (`OPENAI_BASE_URL` or a setting), an
//! address made from it (`/chat/completions`, `/embeddings`), whether it is a local server
//! (which may need no key), the API key read from the environment into a sensitive
//! `Authorization` header, the HTTP client (redirects never followed, so the key only
//! ever goes to the configured address), the wait a server asks for, and the fingerprint
//! of what answers depend on: the normalised base URL and the model name, never the key or
//! a URL's credentials.

use std::net::IpAddr;
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use goldgate_core::error::{Error, Result};
use goldgate_core::retry::parse_retry_after;
use goldgate_core::secrets::{url_without_password, Secrets};

/// The OpenAI API's root: the base URL when neither a setting nor `OPENAI_BASE_URL` names one.
pub const OPENAI_API: &str = "https://api.openai.com/v1";

/// The base URL, checked: it must parse, be http or https, and name a host. `what` names
/// the setting in messages (``the embeddings API's base URL (`[matching] embedding_base_url`,
/// else `OPENAI_BASE_URL`)``); `hint` says how to fix it.
pub fn parse_base(raw: &str, what: &str, hint: &str) -> Result<reqwest::Url> {
    let raw = raw.trim();
    let shown = url_without_password(raw);
    let bad = |why: String| Error::usage(format!("{what} `{shown}` {why}"), hint);
    if raw.is_empty() {
        return Err(Error::usage(format!("{what} is empty"), hint));
    }
    let url = reqwest::Url::parse(raw).map_err(|e| bad(format!("is not a URL ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad(format!(
            "is not an http(s) URL (its scheme is `{}`)",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("names no host".to_string()));
    }
    Ok(url)
}

/// Whether the endpoint is on this machine or speaks plain http: a local server, which may
/// need no key.
pub fn is_local(url: &reqwest::Url) -> bool {
    let host = url
        .host_str()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    url.scheme() == "http"
        || host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// `{base}/{path}` (`chat/completions`, `embeddings`), the base's query kept.
pub fn address(base: &reqwest::Url, path: &str) -> reqwest::Url {
    let mut address = base.clone();
    address.set_fragment(None);
    address.set_path(&format!("{}/{path}", base.path().trim_end_matches('/')));
    address
}

/// The base URL as a fingerprint sees it: without credentials, fragment or trailing `/`
/// (the URL parser has already lower-cased the host and dropped a default port).
pub fn normalised(base: &reqwest::Url) -> String {
    let mut url = base.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_fragment(None);
    url.set_path(base.path().trim_end_matches('/'));
    url.to_string()
}

/// sha256 of the normalised base URL and the model name: what decides the answers (never
/// the key: another key gives the same answers).
pub fn fingerprint(base: &reqwest::Url, model: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(normalised(base).as_bytes());
    hash.update([0]);
    hash.update(model.as_bytes());
    goldgate_core::text::hex(&hash.finalize())
}

/// The API key in the environment variable `var` (trimmed; `None` when unset or blank). A
/// key is required unless the endpoint is local (`what` names the endpoint in the error).
/// The key and the base URL's password are added to `secrets`.
pub fn api_key(
    var: &str,
    base_url: &str,
    base: &reqwest::Url,
    what: &str,
    secrets: &mut Secrets,
) -> Result<Option<String>> {
    let key = std::env::var(var)
        .ok()
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty());
    if key.is_none() && !is_local(base) {
        return Err(Error::usage(
            format!(
                "no API key for {what} {}: `{var}` is not set",
                url_without_password(base_url)
            ),
            format!("set `{var}` to the provider's API key (goldgate reads it from the environment only, and never writes it anywhere)"),
        ));
    }
    secrets.add_url_password(base_url.trim());
    if let Some(key) = &key {
        secrets.add(key);
    }
    Ok(key)
}

/// `Content-Type: application/json`, and `Authorization: Bearer KEY` (marked sensitive, so
/// it is never printed) when there is a key.
pub fn json_headers(key: Option<&str>, var: &str) -> Result<reqwest::header::HeaderMap> {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::CONTENT_TYPE,
        reqwest::header::HeaderValue::from_static("application/json"),
    );
    if let Some(key) = key {
        let mut value =
            reqwest::header::HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
                Error::usage(
                    format!("the value of `{var}` cannot be sent in a header"),
                    format!("remove newlines and control characters from `{var}`"),
                )
            })?;
        value.set_sensitive(true);
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    Ok(headers)
}

/// Headers from `Name: value` settings, `${NAME}` in a value expanded from the environment;
/// every value is marked sensitive (never printed). A bad name or value is a usage error.
pub fn header_map(headers: &[(String, String)]) -> Result<reqwest::header::HeaderMap> {
    let mut map = reqwest::header::HeaderMap::new();
    for (name, template) in headers {
        let value = goldgate_core::env::expand_env(template, &format!("header `{name}`"))?;
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
    Ok(map)
}

/// An HTTP client for an API: this per-request time limit, redirects never followed.
pub fn http_client(timeout: Duration) -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| {
            Error::environment(
                format!("cannot set up the HTTP client: {}", e.without_url()),
                "check the system's TLS certificates",
            )
        })
}

/// The wait the server asked for: `retry-after-ms` (OpenAI's, in milliseconds), else
/// `Retry-After` (seconds or an HTTP-date).
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = header("retry-after-ms")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    parse_retry_after(header("retry-after")?, SystemTime::now())
}

/// A reqwest error and its causes, without the URL, secrets masked.
pub fn describe(e: reqwest::Error, secrets: &Secrets) -> String {
    use std::error::Error as _;
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    secrets.redact_string(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> reqwest::Url {
        parse_base(s, "the base URL", "fix it").unwrap()
    }

    #[test]
    fn addresses_and_what_the_fingerprint_sees() {
        assert_eq!(
            address(&url("https://api.openai.com/v1/"), "embeddings").as_str(),
            "https://api.openai.com/v1/embeddings"
        );
        assert_eq!(
            address(&url("http://h:8080/?api-version=2#x"), "chat/completions").as_str(),
            "http://h:8080/chat/completions?api-version=2"
        );
        assert_eq!(
            normalised(&url("HTTPS://u:p4ss@API.openai.com:443/v1//#frag")),
            "https://api.openai.com/v1"
        );
    }

    #[test]
    fn bad_base_urls_are_named_with_the_setting() {
        let e = parse_base("ftp://u:pw@h/v1", "the chat API's base URL", "fix it")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the chat API's base URL `ftp://u:***@h/v1` is not an http(s) URL"),
            "{e}"
        );
        assert!(parse_base(" ", "x", "y")
            .unwrap_err()
            .to_string()
            .contains("x is empty"));
        assert!(parse_base("not a url", "x", "y").is_err());
    }

    #[test]
    fn local_servers_are_told_from_remote_ones() {
        for local in [
            "http://localhost:11434/v1",
            "https://localhost/v1",
            "https://127.0.0.2/v1",
            "https://[::1]:8000/v1",
            "https://gpu.localhost/v1",
            "http://10.0.0.5:8000/v1",
        ] {
            assert!(is_local(&url(local)), "{local}");
        }
        for remote in ["https://api.openai.com/v1", "https://10.0.0.5/v1"] {
            assert!(!is_local(&url(remote)), "{remote}");
        }
    }

    #[test]
    fn retry_after_in_milliseconds_wins() {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", "150".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(150)));
    }
}
