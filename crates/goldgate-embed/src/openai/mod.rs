//! The `openai` backend: embeddings from any OpenAI-compatible `/embeddings` endpoint
//! (OpenAI itself, or a server such as Ollama, vLLM or llama.cpp). Texts go in batches,
//! several batches at once, under the request rate limit ([`goldgate_client::limits`]); 429, 5xx,
//! timeouts and dropped connections are retried with backoff that honours `Retry-After`
//! ([`goldgate_core::retry`]). The API key is read from the environment when the backend opens,
//! sent only in the `Authorization` header, kept out of the fingerprint, and masked in every
//! message built from an answer or a URL. Where the endpoint is: [`endpoint`]; what goes
//! over the wire: [`wire`].

mod wire;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::{Embedder, Identity};
use goldgate_client::endpoint::{
    address, api_key, describe, fingerprint, http_client, json_headers, parse_base, retry_after,
};
use goldgate_client::limits::Limits;
use goldgate_core::error::{Error, Result};
use goldgate_core::llm::excerpt;
use goldgate_core::retry::Backoff;
use goldgate_core::rng::{label_hash, Rng};
use goldgate_core::secrets::{url_without_password, Secrets};

/// Batches in flight at once.
const IN_FLIGHT: usize = 4;

/// The longest text sent, in characters; a longer one is cut to this. Far beyond a
/// requirement's title and action, and about 2,000 tokens of English: within every
/// embedding model's input limit (OpenAI's is 8,191 tokens).
pub const MAX_TEXT_CHARS: usize = 8_000;

/// The most characters of text in one request, whatever the batch size: OpenAI refuses a
/// request of more than 300,000 tokens.
const MAX_BATCH_CHARS: usize = 250_000;

/// An answer's size limit: this much, plus [`ANSWER_BYTES_PER_TEXT`] per text.
const ANSWER_BYTES: usize = 1 << 20;

/// Room for one vector in an answer: 3,072 dimensions written as JSON take about 70 KB.
const ANSWER_BYTES_PER_TEXT: usize = 256 << 10;

/// Characters of a text quoted in a message.
const QUOTED_CHARS: usize = 60;

/// What a call of only empty texts sends, once, to learn the dimension of the vectors.
const PROBE: &str = "dimension";

/// What to do about a base URL that does not work.
const BASE_URL_HINT: &str = "set `[matching] embedding_base_url` or `OPENAI_BASE_URL` to the API's root (the address `/embeddings` is appended to), such as https://api.openai.com/v1 (the default) or http://localhost:11434/v1 for Ollama";

/// What the base URL is called in messages.
const BASE_URL: &str =
    "the embeddings API's base URL (`[matching] embedding_base_url`, else `OPENAI_BASE_URL`)";

/// Where and how to ask for embeddings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The API root, e.g. `https://api.openai.com/v1` (`/embeddings` is appended).
    pub base_url: String,
    /// The environment variable holding the API key (never the key itself).
    pub api_key_env: String,
    /// The embedding model name sent with every request.
    pub model: String,
    /// Texts per request, at most the provider's input limit.
    pub batch_size: usize,
    /// Requests started per minute, at most.
    pub requests_per_minute: Option<u32>,
    /// One request's time limit.
    pub timeout: Duration,
    /// Retries of a request that failed for a reason worth another try.
    pub retries: u32,
    /// Waits between retries (`Backoff::default()`; tests shorten it). A server's
    /// `Retry-After` is honoured whatever the backoff.
    pub backoff: Backoff,
}

/// An OpenAI-compatible embeddings client. Opening it makes no request. [`Embedder::embed`]
/// blocks on a tokio runtime of its own, built at the first call (by
/// [`goldgate_client::runtime::build`]): it must be called, and the client dropped, outside any async
/// runtime (scoring is synchronous); a call from inside one is refused with an error.
pub struct OpenAi {
    identity: Identity,
    client: Arc<Client>,
    runtime: OnceLock<tokio::runtime::Runtime>,
    /// The dimension of the vectors, once an answer told it.
    dim: OnceLock<usize>,
}

/// What every request of one client shares.
struct Client {
    http: reqwest::Client,
    endpoint: reqwest::Url,
    /// The endpoint fit to show: a userinfo password and every secret masked.
    shown: String,
    /// `Content-Type`, and `Authorization` (marked sensitive) when there is a key.
    headers: reqwest::header::HeaderMap,
    key_env: String,
    key_sent: bool,
    model: String,
    batch_size: usize,
    /// The key and the URL's password: masked in every message.
    secrets: Secrets,
    limits: Limits,
    backoff: Backoff,
    retries: u32,
    timeout: Duration,
}

/// One request: its body, and what an error about it names.
struct Batch {
    body: Vec<u8>,
    texts: usize,
    /// The length in characters and the start (quoted, masked) of its longest text.
    longest: (usize, String),
}

/// Why an attempt failed.
enum Failure {
    /// Worth another try: what happened, what would help if it persists, and the wait the
    /// server asked for.
    Retry {
        message: String,
        hint: &'static str,
        after: Option<Duration>,
    },
    /// Another try would fail the same way.
    Final(Error),
}

impl OpenAi {
    /// Check the settings, read the key from the environment and set up the HTTP client;
    /// no request is made. A key is required unless the endpoint is on this machine
    /// (`localhost`, a loopback address) or speaks plain `http` (a local server such as
    /// Ollama, vLLM or llama.cpp): without one, no `Authorization` header is sent.
    pub fn open(settings: &Settings) -> Result<Self> {
        let base = parse_base(&settings.base_url, BASE_URL, BASE_URL_HINT)?;
        if settings.model.trim().is_empty() {
            return Err(Error::usage(
                "no embedding model is named",
                "set `[matching] embedding_model`, e.g. text-embedding-3-small",
            ));
        }
        if settings.batch_size == 0 {
            return Err(Error::usage(
                "the embeddings batch size is 0",
                "use a batch size of at least 1 (at most the provider's input limit: 2048 for OpenAI)",
            ));
        }
        if settings.timeout.is_zero() {
            return Err(Error::usage(
                "the embeddings request timeout is 0",
                "give requests some time, such as 60 s",
            ));
        }
        let var = &settings.api_key_env;
        let mut secrets = Secrets::new();
        let key = api_key(
            var,
            &settings.base_url,
            &base,
            "the embeddings endpoint",
            &mut secrets,
        )?;
        let headers = json_headers(key.as_deref(), var)?;
        let http = http_client(settings.timeout)?;
        let endpoint = address(&base, "embeddings");
        let shown = secrets
            .redact(&url_without_password(endpoint.as_str()))
            .into_owned();
        let identity = Identity {
            backend: "openai",
            model: settings.model.clone(),
            fingerprint: fingerprint(&base, &settings.model),
        };
        Ok(OpenAi {
            identity,
            client: Arc::new(Client {
                http,
                endpoint,
                shown,
                headers,
                key_env: var.clone(),
                key_sent: key.is_some(),
                model: settings.model.clone(),
                batch_size: settings.batch_size,
                secrets,
                limits: Limits::new(settings.requests_per_minute, None),
                backoff: settings.backoff,
                retries: settings.retries,
                timeout: settings.timeout,
            }),
            runtime: OnceLock::new(),
            dim: OnceLock::new(),
        })
    }

    /// The runtime requests run on, built at the first call.
    fn runtime(&self) -> Result<&tokio::runtime::Runtime> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(Error::internal(
                "the openai embedder was called from inside an async runtime; it blocks, so it must be called from synchronous code",
            ));
        }
        if let Some(runtime) = self.runtime.get() {
            return Ok(runtime);
        }
        let built = goldgate_client::runtime::build()?;
        Ok(self.runtime.get_or_init(|| built))
    }

    /// The vectors of `texts` (distinct and not blank), in order, all of one dimension.
    fn fetch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let batches = self.client.batches(texts);
        let runtime = self.runtime()?;
        let vectors: Vec<Vec<f32>> = runtime
            .block_on(send_all(self.client.clone(), batches))?
            .into_iter()
            .flatten()
            .collect();
        let dim = vectors.first().map_or(0, Vec::len);
        let expected = *self.dim.get_or_init(|| dim);
        if let Some(v) = vectors.iter().find(|v| v.len() != expected) {
            return Err(Error::environment(
                format!(
                    "POST {} gave vectors of {} dimensions, and earlier ones of {expected}: one model's vectors all have one dimension",
                    self.client.shown,
                    v.len()
                ),
                "check that every request reaches the same model (a load balancer in front of different models?)",
            ));
        }
        Ok(vectors)
    }
}

impl Embedder for OpenAi {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Identical texts are sent once. Empty and whitespace-only texts are not sent (the
    /// endpoints refuse them) and get the zero vector, which is similar to nothing; a call of
    /// only such texts, before any answer told the dimension, sends one short text to learn it.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut unique: Vec<&str> = Vec::new();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut slots = Vec::with_capacity(texts.len());
        for text in texts {
            if text.trim().is_empty() {
                slots.push(None);
                continue;
            }
            let slot = *seen.entry(text).or_insert_with(|| {
                unique.push(text);
                unique.len() - 1
            });
            slots.push(Some(slot));
        }
        if unique.is_empty() {
            if texts.is_empty() {
                return Ok(Vec::new());
            }
            let dim = match self.dim.get() {
                Some(dim) => *dim,
                None => self.fetch(&[PROBE])?[0].len(),
            };
            return Ok(vec![vec![0.0; dim]; texts.len()]);
        }
        let vectors = self.fetch(&unique)?;
        let dim = vectors[0].len();
        Ok(slots
            .into_iter()
            .map(|slot| slot.map_or_else(|| vec![0.0; dim], |i| vectors[i].clone()))
            .collect())
    }
}

/// Send every batch, [`IN_FLIGHT`] at a time; their vectors in batch order. The first error
/// ends the call (the batches still in flight are dropped).
async fn send_all(client: Arc<Client>, batches: Vec<Batch>) -> Result<Vec<Vec<Vec<f32>>>> {
    let mut results: Vec<Option<Vec<Vec<f32>>>> = Vec::new();
    results.resize_with(batches.len(), || None);
    let mut pending = batches.into_iter().enumerate();
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        while tasks.len() < IN_FLIGHT {
            let Some((number, batch)) = pending.next() else {
                break;
            };
            let client = client.clone();
            tasks.spawn(async move { (number, client.send(&batch, number).await) });
        }
        let Some(joined) = tasks.join_next().await else {
            break;
        };
        let (number, vectors) =
            joined.map_err(|e| Error::internal(format!("an embeddings request stopped: {e}")))?;
        results[number] = Some(vectors?);
    }
    Ok(results.into_iter().flatten().collect())
}

impl Client {
    /// `texts` in requests of at most `batch_size` texts and [`MAX_BATCH_CHARS`] characters,
    /// each text cut to [`MAX_TEXT_CHARS`].
    fn batches(&self, texts: &[&str]) -> Vec<Batch> {
        let mut batches = Vec::new();
        let mut current: Vec<&str> = Vec::new();
        let mut chars = 0;
        for text in texts {
            let text = cut(text);
            let n = text.chars().count();
            if !current.is_empty()
                && (current.len() >= self.batch_size || chars + n > MAX_BATCH_CHARS)
            {
                batches.push(self.batch(&current));
                current.clear();
                chars = 0;
            }
            current.push(text);
            chars += n;
        }
        if !current.is_empty() {
            batches.push(self.batch(&current));
        }
        batches
    }

    fn batch(&self, texts: &[&str]) -> Batch {
        let longest = texts
            .iter()
            .map(|t| (t.chars().count(), *t))
            .max_by_key(|(n, _)| *n)
            .map(|(n, t)| (n, excerpt::start_of(t, QUOTED_CHARS, &self.secrets)))
            .unwrap_or_default();
        Batch {
            body: wire::request_body(&self.model, texts),
            texts: texts.len(),
            longest,
        }
    }

    /// One batch, retried while it fails for a reason worth another try.
    async fn send(&self, batch: &Batch, number: usize) -> Result<Vec<Vec<f32>>> {
        let mut rng = Rng::new(
            label_hash(&self.shown) ^ (number as u64) ^ u64::from(std::process::id()) << 32,
        );
        let mut attempts = 1;
        loop {
            self.limits.acquire().await;
            match self.attempt(batch).await {
                Ok(vectors) => return Ok(vectors),
                Err(Failure::Final(error)) => return Err(error),
                Err(Failure::Retry { after, .. }) if attempts <= self.retries => {
                    tokio::time::sleep(self.backoff.wait(attempts, after, &mut rng)).await;
                    attempts += 1;
                }
                Err(Failure::Retry { message, hint, .. }) => {
                    let tries = if attempts == 1 { "attempt" } else { "attempts" };
                    return Err(Error::environment(
                        format!("{message} (gave up after {attempts} {tries})"),
                        hint,
                    ));
                }
            }
        }
    }

    /// One request of one batch.
    async fn attempt(&self, batch: &Batch) -> std::result::Result<Vec<Vec<f32>>, Failure> {
        let shown = &self.shown;
        let sent = self
            .http
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .body(batch.body.clone())
            .send()
            .await;
        let mut response = sent.map_err(|e| self.transport(e))?;
        let status = response.status();
        let after = retry_after(response.headers());
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|l| self.endpoint.join(l).ok())
            .map(|u| u.origin().ascii_serialization());
        let limit = ANSWER_BYTES + batch.texts * ANSWER_BYTES_PER_TEXT;
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| self.transport(e))? {
            body.extend_from_slice(&chunk);
            if body.len() > limit {
                return Err(Failure::Final(Error::environment(
                    format!("POST {shown} answered with more than {limit} bytes for {}, far more than their vectors take", goldgate_core::text::plural(batch.texts, "text")),
                    BASE_URL_HINT,
                )));
            }
        }
        if status.is_success() {
            return wire::read_vectors(&body, batch.texts).map_err(|why| {
                Failure::Final(Error::environment(
                    format!(
                        "POST {shown} answered {status} but not an embeddings response: {why}; the answer begins: {}",
                        excerpt::excerpt(&body, &self.secrets)
                    ),
                    BASE_URL_HINT,
                ))
            });
        }
        let said = excerpt::error_message(&body, &self.secrets);
        let var = &self.key_env;
        let model = &self.model;
        Err(match status.as_u16() {
            401 | 403 if self.key_sent => Failure::Final(Error::environment(
                format!("POST {shown} refused the API key in `{var}` ({status}): {said}"),
                format!("set `{var}` to a key this endpoint accepts, with access to the model `{model}`"),
            )),
            401 | 403 => Failure::Final(Error::environment(
                format!("POST {shown} wants an API key ({status}: {said}), and `{var}` is not set"),
                format!("set `{var}` to the endpoint's API key"),
            )),
            404 => Failure::Final(Error::usage(
                format!("POST {shown} answered {status}: {said}"),
                format!("the endpoint knows no such address or model: check the base URL (`[matching] embedding_base_url` or `OPENAI_BASE_URL`, the API's root, ending in /v1 for most servers) and the model (`[matching] embedding_model` = \"{model}\")"),
            )),
            408 | 429 | 500..=599 => Failure::Retry {
                message: format!("POST {shown} answered {status}: {said}"),
                hint: if status.as_u16() == 429 {
                    "the endpoint's rate limit: lower the requests per minute or the batch size in `[matching]`, or try again later"
                } else {
                    "the embeddings service is failing: try again later"
                },
                after,
            },
            300..=399 => Failure::Final(Error::usage(
                format!(
                    "POST {shown} answered {status}, a redirect to {}, which goldgate does not follow (the API key is only ever sent to the configured address)",
                    location.as_deref().unwrap_or("another address")
                ),
                BASE_URL_HINT,
            )),
            _ => Failure::Final(Error::usage(
                format!(
                    "POST {shown} refused a batch of {} ({status}): {said}; its longest text ({} characters) begins \"{}\"",
                    goldgate_core::text::plural(batch.texts, "text"), batch.longest.0, batch.longest.1
                ),
                format!("a text longer than the model's input limit is refused: shorten that requirement's title or action (goldgate sends at most {MAX_TEXT_CHARS} characters of a text); otherwise check that the endpoint serves the embedding model `{model}`"),
            )),
        })
    }

    /// A request that got no answer: timed out, or the connection failed. Both are retried.
    fn transport(&self, e: reqwest::Error) -> Failure {
        if e.is_timeout() {
            return Failure::Retry {
                message: format!(
                    "POST {} timed out after {} s",
                    self.shown,
                    goldgate_core::number::value(self.timeout.as_secs_f64(), 1)
                ),
                hint: "the endpoint is slow or overloaded: raise the embeddings timeout or lower the batch size in `[matching]`",
                after: None,
            };
        }
        Failure::Retry {
            message: format!("POST {}: {}", self.shown, describe(e, &self.secrets)),
            hint: "is the embeddings server running and reachable? check `[matching] embedding_base_url` or `OPENAI_BASE_URL`",
            after: None,
        }
    }
}

/// `text` cut to [`MAX_TEXT_CHARS`] characters.
fn cut(text: &str) -> &str {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_at_a_character_boundary() {
        let text = "é".repeat(MAX_TEXT_CHARS + 5);
        assert_eq!(cut(&text).chars().count(), MAX_TEXT_CHARS);
        assert_eq!(cut("short"), "short");
    }
}
