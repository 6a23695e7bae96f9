//! Where the embeddings endpoint is: the base URL checked (`[matching] embedding_base_url`, else `OPENAI_BASE_URL`), the
//! `/embeddings` address made from it, whether it is a local server (which may need no
//! key), and the fingerprint of the vectors it gives: the normalised base URL and the model
//! name, never the key or a URL's credentials.

use std::net::IpAddr;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::secrets::url_without_password;

/// What to do about a base URL that does not work.
pub const BASE_URL_HINT: &str = "set `[matching] embedding_base_url` or `OPENAI_BASE_URL` to the API's root (the address `/embeddings` is appended to), such as https://api.openai.com/v1 (the default) or http://localhost:11434/v1 for Ollama";

/// The base URL, checked: it must parse, be http or https, and name a host.
pub fn parse_base(raw: &str) -> Result<reqwest::Url> {
    let raw = raw.trim();
    let shown = url_without_password(raw);
    let bad = |why: String| {
        Error::usage(
            format!("the embeddings API's base URL `{shown}` (`[matching] embedding_base_url`, else `OPENAI_BASE_URL`) {why}"),
            BASE_URL_HINT,
        )
    };
    if raw.is_empty() {
        return Err(Error::usage(
            "the embeddings API's base URL (`[matching] embedding_base_url`, else `OPENAI_BASE_URL`) is empty",
            BASE_URL_HINT,
        ));
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

/// `{base}/embeddings`, the base's query kept.
pub fn endpoint(base: &reqwest::Url) -> reqwest::Url {
    let mut endpoint = base.clone();
    endpoint.set_fragment(None);
    endpoint.set_path(&format!("{}/embeddings", base.path().trim_end_matches('/')));
    endpoint
}

/// The base URL as the fingerprint sees it: without credentials, fragment or trailing `/`
/// (the URL parser has already lower-cased the host and dropped a default port).
fn normalised(base: &reqwest::Url) -> String {
    let mut url = base.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_fragment(None);
    url.set_path(base.path().trim_end_matches('/'));
    url.to_string()
}

/// sha256 of the normalised base URL and the model name: what decides the vectors (never
/// the key: another key gives the same vectors).
pub fn fingerprint(base: &reqwest::Url, model: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(normalised(base).as_bytes());
    hash.update([0]);
    hash.update(model.as_bytes());
    crate::text::hex(&hash.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_and_what_the_fingerprint_sees() {
        let url = |s: &str| parse_base(s).unwrap();
        assert_eq!(
            endpoint(&url("https://api.openai.com/v1/")).as_str(),
            "https://api.openai.com/v1/embeddings"
        );
        assert_eq!(
            endpoint(&url("http://h:8080/?api-version=2#x")).as_str(),
            "http://h:8080/embeddings?api-version=2"
        );
        assert_eq!(
            normalised(&url("HTTPS://u:p4ss@API.openai.com:443/v1//#frag")),
            "https://api.openai.com/v1"
        );
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
            assert!(is_local(&parse_base(local).unwrap()), "{local}");
        }
        for remote in ["https://api.openai.com/v1", "https://10.0.0.5/v1"] {
            assert!(!is_local(&parse_base(remote).unwrap()), "{remote}");
        }
    }
}
