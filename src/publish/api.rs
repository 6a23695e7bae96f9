//! GitHub's REST API through octocrab, as far as goldgate needs it: one sticky comment per
//! gate on a pull request, and a check run. The comment is found by its hidden marker among
//! all comments (every page), updated in place or created. Reads and updates are retried on
//! 5xx answers and lost connections with `retry.rs`; a create that may have been applied (a
//! 5xx, a timeout) lists the comments again before it is repeated, so a comment is never
//! posted twice. Rate limits (see [`super::limits`]) are waited out within a bound and
//! reported as rate limits; a 403 "Resource not accessible by integration" (fork PRs,
//! read-only tokens) is reported, not fatal; a 422 for a too-long text is tried once more
//! with a shorter rendering. `GITHUB_API_URL` (GitHub Enterprise, tests) is the base URI.
//! The token is sent in the Authorization header only and is removed from every message.

use std::time::Duration;

use http::StatusCode;
use octocrab::Octocrab;
use serde_json::{json, Value};

use super::limits::{cut_bytes, too_long, Body, RateLimit, CHECK_RUN_SUMMARY_BYTES};
use super::target::Target;
use goldgate_core::retry::{parse_retry_after, until_reset, Backoff};
use goldgate_core::rng::{label_hash, Rng};

/// The HTTP methods goldgate uses.
#[derive(Clone, Copy, Debug)]
enum Method {
    Get,
    Post,
    Patch,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Patch => "PATCH",
        })
    }
}

/// What publishing did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Published {
    Created(u64),
    Updated(u64),
    /// Nothing to do (`--comment-on regression` on a passing PR without a comment).
    Skipped,
    /// The token may not write comments: the reason and what to do about it.
    Forbidden(String),
}

/// A failed API call (no token in it).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ApiError(pub String);

const ATTEMPTS: u32 = 4;
/// Slack added to a rate limit's reset time (clocks differ by a little).
const RESET_SLACK: Duration = Duration::from_millis(250);

/// One answer from GitHub.
struct Reply {
    status: StatusCode,
    /// The `Link` header.
    link: Option<String>,
    body: Value,
}

/// A write that failed in a way that may or may not have applied it (a 5xx answer, a
/// timeout, a dropped connection): what happened, for the message.
struct Unsure(String);

pub struct GitHub {
    client: Octocrab,
    target: Target,
    backoff: Backoff,
    /// The longest wait for a primary rate limit to reset.
    rate_limit_wait: Duration,
}

impl GitHub {
    /// A client for `target`'s API, authenticated with its token.
    pub fn new(target: Target) -> Result<GitHub, ApiError> {
        let setup = |e: octocrab::Error| {
            ApiError(format!(
                "cannot set up the GitHub client: {}",
                redact(&e.to_string(), &target.token)
            ))
        };
        let client = Octocrab::builder()
            .base_uri(target.api.trim_end_matches('/'))
            .map_err(setup)?
            .personal_token(target.token.clone())
            .add_header(http::header::ACCEPT, "application/vnd.github+json".into())
            .add_header(
                http::header::HeaderName::from_static("x-github-api-version"),
                "2022-11-28".into(),
            )
            .add_header(
                http::header::USER_AGENT,
                concat!("goldgate/", env!("CARGO_PKG_VERSION")).into(),
            )
            .set_connect_timeout(Some(Duration::from_secs(30)))
            .set_read_timeout(Some(Duration::from_secs(30)))
            .build()
            .map_err(setup)?;
        Ok(GitHub {
            client,
            target,
            backoff: Backoff::default(),
            rate_limit_wait: Duration::ZERO,
        })
    }

    /// Other waits between retries (tests shorten them).
    pub fn with_backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// The longest wait for a rate limit to reset (none unless set); beyond it, publishing
    /// fails with a rate-limit error.
    pub fn with_rate_limit_wait(mut self, wait: Duration) -> Self {
        self.rate_limit_wait = wait;
        self
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.target.api.trim_end_matches('/'))
    }

    /// One call, retried on 5xx answers, lost connections and rate limits (safe for reads
    /// and updates, which can be repeated).
    async fn call(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
    ) -> Result<Reply, ApiError> {
        self.request(method, url, body, true)
            .await?
            .map_err(|Unsure(why)| ApiError(why))
    }

    /// One call. Rate limits are waited out (they apply nothing): a primary one (no rate
    /// left, `x-ratelimit-reset`) until its reset when that is within the bound, else an
    /// error saying so; a secondary one (429, or 403 with `Retry-After`) with backoff. With
    /// `retry_unsure`, 5xx answers and lost connections are tried again; without, they come
    /// back as [`Unsure`] for the caller to find out whether the write was applied.
    async fn request(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
        retry_unsure: bool,
    ) -> Result<Result<Reply, Unsure>, ApiError> {
        let mut attempt = 0;
        let mut rng = Rng::new(label_hash(url) ^ u64::from(std::process::id()));
        loop {
            attempt += 1;
            let sent = match method {
                Method::Get => self.client._get(url).await,
                Method::Post => self.client._post(url, body).await,
                Method::Patch => self.client._patch(url, body).await,
            };
            let response = match sent {
                Ok(r) => r,
                Err(e) => {
                    let why = redact(&e.to_string(), &self.target.token);
                    let why = format!("{method} {}: {why}", path_of(url));
                    if retry_unsure && attempt < ATTEMPTS {
                        tokio::time::sleep(self.backoff.wait(attempt, None, &mut rng)).await;
                        continue;
                    }
                    return Ok(Err(Unsure(why)));
                }
            };
            let status = response.status();
            let headers = response.headers().clone();
            let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
            match RateLimit::of(
                status,
                header("x-ratelimit-remaining"),
                header("retry-after"),
            ) {
                Some(RateLimit::Primary) => {
                    let now = std::time::SystemTime::now();
                    let reset = header("x-ratelimit-reset").and_then(|v| until_reset(v, now));
                    let wait = reset.unwrap_or_else(|| self.backoff.wait(attempt, None, &mut rng));
                    if wait > self.rate_limit_wait || attempt >= ATTEMPTS {
                        return Err(ApiError(format!(
                            "{method} {}: GitHub's API rate limit for this token is used up{}; goldgate waits at most {} s for it (--github-max-wait). This is a rate limit, not a permission problem: retry the job later, or spread the workflows that share the token",
                            path_of(url),
                            reset.map_or(String::new(), |r| format!(" for another {} s", r.as_secs())),
                            self.rate_limit_wait.as_secs()
                        )));
                    }
                    tokio::time::sleep(wait + RESET_SLACK).await;
                    continue;
                }
                Some(RateLimit::Secondary) if attempt < ATTEMPTS => {
                    let asked = header("retry-after")
                        .and_then(|v| parse_retry_after(v, std::time::SystemTime::now()));
                    tokio::time::sleep(self.backoff.wait(attempt, asked, &mut rng)).await;
                    continue;
                }
                Some(RateLimit::Secondary) => {
                    return Err(ApiError(format!(
                        "{method} {}: GitHub kept answering {status} (a secondary rate limit) after {ATTEMPTS} attempts; retry the job later",
                        path_of(url)
                    )));
                }
                None => {}
            }
            if status.is_server_error() && attempt < ATTEMPTS && retry_unsure {
                tokio::time::sleep(self.backoff.wait(attempt, None, &mut rng)).await;
                continue;
            }
            if status.is_server_error() && !retry_unsure {
                return Ok(Err(Unsure(format!("{method} {}: {status}", path_of(url)))));
            }
            let link = header("link").map(String::from);
            let text = self
                .client
                .body_to_string(response)
                .await
                .unwrap_or_default();
            let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
            return Ok(Ok(Reply { status, link, body }));
        }
    }

    fn issue_comments(&self) -> String {
        self.url(&format!(
            "/repos/{}/issues/{}/comments?per_page=100",
            self.target.repository, self.target.pr
        ))
    }

    /// Every comment on the pull request, following `Link: rel="next"` across pages.
    async fn all_comments(&self) -> Result<Result<Vec<Value>, Published>, ApiError> {
        let (mut comments, mut next) = (Vec::new(), Some(self.issue_comments()));
        while let Some(url) = next.take() {
            let reply = self.call(Method::Get, &url, None).await?;
            if let Some(forbidden) = forbidden(reply.status, &reply.body) {
                return Ok(Err(forbidden));
            }
            if !reply.status.is_success() {
                return Err(ApiError(format!(
                    "listing comments on #{}: {} {}",
                    self.target.pr,
                    reply.status,
                    message(&reply.body)
                )));
            }
            comments.extend(reply.body.as_array().cloned().unwrap_or_default());
            next = reply.link.as_deref().and_then(next_page);
        }
        Ok(Ok(comments))
    }

    /// The login the token acts as, when GitHub says (installation tokens may not).
    async fn login(&self) -> Option<String> {
        let reply = self
            .call(Method::Get, &self.url("/user"), None)
            .await
            .ok()?;
        reply
            .status
            .is_success()
            .then(|| reply.body["login"].as_str().map(String::from))
            .flatten()
    }

    /// This gate's sticky comment among `comments`: ours (by `me`, or a bot when the login
    /// is unknown) and starting with `marker`.
    fn ours(comments: &[Value], me: Option<&str>, marker: &str) -> Option<u64> {
        comments
            .iter()
            .find(|c| {
                let mine = match me {
                    Some(login) => c["user"]["login"].as_str() == Some(login),
                    None => c["user"]["type"].as_str() == Some("Bot"),
                };
                mine && c["body"].as_str().is_some_and(|b| b.starts_with(marker))
            })
            .and_then(|c| c["id"].as_u64())
    }

    /// Create or update this gate's sticky comment. `create` says whether a missing comment
    /// should be created (an existing one is always updated, so a recovering PR shows it).
    pub async fn sticky_comment(
        &self,
        marker: &str,
        body: Body<'_>,
        create: bool,
    ) -> Result<Published, ApiError> {
        let comments = match self.all_comments().await? {
            Ok(c) => c,
            Err(forbidden) => return Ok(forbidden),
        };
        let me = self.login().await;
        match Self::ours(&comments, me.as_deref(), marker) {
            Some(id) => self.update_comment(id, body).await,
            None if create => self.create_comment(marker, me.as_deref(), body).await,
            None => Ok(Published::Skipped),
        }
    }

    async fn update_comment(&self, id: u64, body: Body<'_>) -> Result<Published, ApiError> {
        let url = self.url(&format!(
            "/repos/{}/issues/comments/{id}",
            self.target.repository
        ));
        let mut reply = self
            .call(Method::Patch, &url, Some(&json!({ "body": body.text })))
            .await?;
        if too_long(reply.status, &reply.body) {
            let shorter = (body.shorter)();
            reply = self
                .call(Method::Patch, &url, Some(&json!({ "body": shorter })))
                .await?;
        }
        self.written(reply, Published::Updated)
    }

    /// Create the comment. A create GitHub may have applied (a 5xx answer, a timeout) is not
    /// repeated blindly: the comments are listed again first, and a comment of ours found
    /// there is the one that was created.
    async fn create_comment(
        &self,
        marker: &str,
        me: Option<&str>,
        body: Body<'_>,
    ) -> Result<Published, ApiError> {
        let url = self.issue_comments().replace("?per_page=100", "");
        let mut rng = Rng::new(label_hash(&url) ^ u64::from(std::process::id()));
        let (mut text, mut shortened) = (body.text.to_string(), false);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let payload = json!({ "body": text });
            match self
                .request(Method::Post, &url, Some(&payload), false)
                .await?
            {
                Ok(reply) if too_long(reply.status, &reply.body) && !shortened => {
                    (text, shortened) = ((body.shorter)(), true);
                }
                Ok(reply) => return self.written(reply, Published::Created),
                Err(Unsure(why)) if attempt >= ATTEMPTS => {
                    return Err(ApiError(format!(
                        "writing the comment on #{}: {why} ({ATTEMPTS} attempts)",
                        self.target.pr
                    )));
                }
                Err(Unsure(_)) => {
                    tokio::time::sleep(self.backoff.wait(attempt, None, &mut rng)).await;
                    let comments = match self.all_comments().await? {
                        Ok(c) => c,
                        Err(forbidden) => return Ok(forbidden),
                    };
                    if let Some(id) = Self::ours(&comments, me, marker) {
                        return Ok(Published::Created(id));
                    }
                }
            }
        }
    }

    /// The outcome of a comment write.
    fn written(&self, reply: Reply, done: fn(u64) -> Published) -> Result<Published, ApiError> {
        if let Some(forbidden) = forbidden(reply.status, &reply.body) {
            return Ok(forbidden);
        }
        if !reply.status.is_success() {
            return Err(ApiError(format!(
                "writing the comment on #{}: {} {}",
                self.target.pr,
                reply.status,
                message(&reply.body)
            )));
        }
        Ok(done(reply.body["id"].as_u64().unwrap_or(0)))
    }
}

impl GitHub {
    /// A completed check run on the head commit, with the report as its summary (the
    /// shorter rendering when the report has more bytes than GitHub takes).
    pub async fn check_run(
        &self,
        name: &str,
        conclusion: &str,
        title: &str,
        summary: Body<'_>,
    ) -> Result<Published, ApiError> {
        let Some(sha) = self.target.head_sha.clone() else {
            return Err(ApiError("no head commit (GITHUB_SHA or the event's pull_request.head.sha) for the check run".into()));
        };
        let (mut text, mut shortened) = match summary.text.len() <= CHECK_RUN_SUMMARY_BYTES {
            true => (summary.text.to_string(), false),
            false => ((summary.shorter)(), true),
        };
        let url = self.url(&format!("/repos/{}/check-runs", self.target.repository));
        let answer = loop {
            let cut = cut_bytes(&text, CHECK_RUN_SUMMARY_BYTES);
            let payload = json!({ "name": name, "head_sha": sha, "status": "completed", "conclusion": conclusion, "output": { "title": title, "summary": cut } });
            let reply = self.call(Method::Post, &url, Some(&payload)).await?;
            if too_long(reply.status, &reply.body) && !shortened {
                (text, shortened) = ((summary.shorter)(), true);
                continue;
            }
            break reply;
        };
        let (status, answer) = (answer.status, answer.body);
        if status == StatusCode::FORBIDDEN {
            return Ok(Published::Forbidden(format!("GitHub refused the check run ({status}: {}): give the workflow `permissions: checks: write`.", message(&answer))));
        }
        if !status.is_success() {
            return Err(ApiError(format!(
                "creating the check run: {status} {}",
                message(&answer)
            )));
        }
        Ok(Published::Created(answer["id"].as_u64().unwrap_or(0)))
    }
}

/// `text` with every occurrence of the token replaced (errors of the HTTP stack can quote
/// a request).
fn redact(text: &str, token: &str) -> String {
    if token.is_empty() {
        text.to_string()
    } else {
        text.replace(token, "***")
    }
}

fn path_of(url: &str) -> &str {
    url.find("/repos/").map_or(url, |i| &url[i..])
}

fn message(body: &Value) -> String {
    body["message"]
        .as_str()
        .unwrap_or("")
        .chars()
        .take(200)
        .collect()
}

/// A 403 that is about permissions, not rate limits.
fn forbidden(status: StatusCode, body: &Value) -> Option<Published> {
    (status == StatusCode::FORBIDDEN).then(|| {
        Published::Forbidden(format!(
            "GitHub refused the comment ({status}: {}). The token cannot write pull-request comments: give the workflow `permissions: pull-requests: write`. \
             On pull requests from forks GitHub never grants that: run the gate with `pull_request` (no secrets), upload verdict.json as an artifact, \
             and post it from a `workflow_run` workflow with `goldgate publish --verdict verdict.json --pr N`. The report is in the job summary.",
            message(body)
        ))
    })
}

/// The `rel="next"` URL of a `Link` header.
pub fn next_page(link: &str) -> Option<String> {
    link.split(',')
        .find(|part| part.contains("rel=\"next\""))
        .and_then(|part| {
            let start = part.find('<')? + 1;
            let end = part.find('>')?;
            Some(part[start..end].to_string())
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn link_headers() {
        let link = "<https://api.github.com/repositories/1/issues/7/comments?page=2>; rel=\"next\", <https://api.github.com/repositories/1/issues/7/comments?page=5>; rel=\"last\"";
        assert_eq!(
            super::next_page(link).as_deref(),
            Some("https://api.github.com/repositories/1/issues/7/comments?page=2")
        );
        assert_eq!(super::next_page("<x>; rel=\"prev\""), None);
    }
}
