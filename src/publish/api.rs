//! GitHub's REST API through octocrab, as far as goldgate needs it: one sticky comment per
//! gate on a pull request, and a check run. The comment is found by its hidden marker among
//! all comments (every page), updated in place or created. 5xx answers and rate limits
//! (429, and 403 with no rate left) are retried with `retry.rs`, honouring `Retry-After`; a
//! 403 "Resource not accessible by integration" (fork PRs, read-only tokens) is reported,
//! not fatal. `GITHUB_API_URL` (GitHub Enterprise, tests) is the base URI. The token is
//! sent in the Authorization header only and is removed from every message.

use std::path::Path;
use std::time::Duration;

use http::StatusCode;
use octocrab::Octocrab;
use serde_json::{json, Value};

use crate::retry::{parse_retry_after, Backoff};
use crate::rng::{label_hash, Rng};

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

/// Where and as whom to publish.
#[derive(Clone, Debug)]
pub struct Target {
    /// `GITHUB_API_URL` (GitHub Enterprise, tests), default `https://api.github.com`.
    pub api: String,
    /// `owner/name`.
    pub repository: String,
    pub pr: u64,
    pub token: String,
    /// The pull request's head commit (for a check run).
    pub head_sha: Option<String>,
}

impl Target {
    /// From GitHub Actions' environment. `Ok(Err(why))` when there is no pull request or no
    /// token to post with; an error when a variable is malformed (`GITHUB_REPOSITORY` not
    /// `owner/name`, `GITHUB_API_URL` not http(s), `GITHUB_EVENT_PATH` unreadable or not
    /// JSON): those are never taken for "nothing to post".
    pub fn from_env(pr: Option<u64>) -> crate::error::Result<Result<Target, String>> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let Some(token) = var("GITHUB_TOKEN") else {
            return Ok(Err(
                "no GITHUB_TOKEN: pass `github-token` (or env GITHUB_TOKEN) to post the PR comment"
                    .into(),
            ));
        };
        let Some(repository) = var("GITHUB_REPOSITORY") else {
            return Ok(Err("no GITHUB_REPOSITORY".into()));
        };
        check_repository(&repository)?;
        let api = var("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".into());
        check_api_url(&api)?;
        let event = match var("GITHUB_EVENT_PATH") {
            Some(path) => read_event(Path::new(&path))?,
            None => Value::Null,
        };
        let pr = match pr {
            Some(n) => n,
            None => match event["pull_request"]["number"]
                .as_u64()
                .or(event["number"].as_u64())
            {
                Some(n) => n,
                None => {
                    return Ok(Err(
                        "this event is not a pull request (and no --pr): no comment to post".into(),
                    ))
                }
            },
        };
        let head_sha = event["pull_request"]["head"]["sha"]
            .as_str()
            .map(String::from)
            .or_else(|| var("GITHUB_SHA"));
        Ok(Ok(Target {
            api,
            repository,
            pr,
            token,
            head_sha,
        }))
    }
}

/// `GITHUB_REPOSITORY` is `owner/name`: two names of letters, digits, `-`, `_` and `.`
/// (not `.` or `..`), so it cannot steer a request to another API path.
fn check_repository(value: &str) -> crate::error::Result<()> {
    let name = |s: &str| {
        !s.is_empty()
            && s != "."
            && s != ".."
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    };
    if value
        .split_once('/')
        .is_some_and(|(owner, repo)| name(owner) && name(repo))
    {
        return Ok(());
    }
    Err(crate::error::Error::Usage {
        message: format!("GITHUB_REPOSITORY `{}` is not `owner/name`", value.escape_debug()),
        hint: "GitHub Actions sets it; when set by hand it names one repository, like `octo-org/octo-repo`".into(),
    })
}

/// `GITHUB_API_URL` is an http(s) URL with a host.
fn check_api_url(value: &str) -> crate::error::Result<()> {
    let ok = value.parse::<http::Uri>().is_ok_and(|uri| {
        matches!(uri.scheme_str(), Some("http" | "https")) && uri.authority().is_some()
    });
    if ok {
        return Ok(());
    }
    Err(crate::error::Error::Usage {
        message: format!("GITHUB_API_URL `{}` is not an http(s) URL", value.escape_debug()),
        hint: "GitHub Actions sets it (`https://api.github.com`, or your GitHub Enterprise server's `https://HOST/api/v3`)".into(),
    })
}

/// The webhook event GitHub Actions saved at `GITHUB_EVENT_PATH`.
fn read_event(path: &Path) -> crate::error::Result<Value> {
    let bytes = std::fs::read(path).map_err(|source| crate::error::Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| crate::error::Error::Usage {
        message: format!("GITHUB_EVENT_PATH {} is not a JSON event: {e}", path.display()),
        hint: "GitHub Actions writes the event there; unset GITHUB_EVENT_PATH and pass --pr N to post outside a workflow".into(),
    })
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

pub struct GitHub {
    client: Octocrab,
    target: Target,
    backoff: Backoff,
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
        })
    }

    /// Other waits between retries (tests shorten them).
    pub fn with_backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.target.api.trim_end_matches('/'))
    }

    /// One call with retries on 5xx, 429 and rate-limited 403s. Returns status, the `Link`
    /// header and the JSON body.
    async fn call(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Option<String>, Value), ApiError> {
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
                Err(_) if attempt < ATTEMPTS => {
                    tokio::time::sleep(self.backoff.wait(attempt, None, &mut rng)).await;
                    continue;
                }
                Err(e) => {
                    let why = redact(&e.to_string(), &self.target.token);
                    return Err(ApiError(format!("{method} {}: {why}", path_of(url))));
                }
            };
            let status = response.status();
            let headers = response.headers().clone();
            let rate_limited = status == StatusCode::TOO_MANY_REQUESTS
                || (status == StatusCode::FORBIDDEN
                    && headers
                        .get("x-ratelimit-remaining")
                        .is_some_and(|v| v == "0"));
            if (status.is_server_error() || rate_limited) && attempt < ATTEMPTS {
                let asked = headers
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| parse_retry_after(v, std::time::SystemTime::now()));
                tokio::time::sleep(self.backoff.wait(attempt, asked, &mut rng)).await;
                continue;
            }
            let link = headers
                .get("link")
                .and_then(|v| v.to_str().ok())
                .map(String::from);
            let text = self
                .client
                .body_to_string(response)
                .await
                .unwrap_or_default();
            let json = serde_json::from_str(&text).unwrap_or(Value::String(text));
            return Ok((status, link, json));
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
            let (status, link, body) = self.call(Method::Get, &url, None).await?;
            if let Some(forbidden) = forbidden(status, &body) {
                return Ok(Err(forbidden));
            }
            if !status.is_success() {
                return Err(ApiError(format!(
                    "listing comments on #{}: {status} {}",
                    self.target.pr,
                    message(&body)
                )));
            }
            comments.extend(body.as_array().cloned().unwrap_or_default());
            next = link.as_deref().and_then(next_page);
        }
        Ok(Ok(comments))
    }

    /// The login the token acts as, when GitHub says (installation tokens may not).
    async fn login(&self) -> Option<String> {
        let (status, _, body) = self
            .call(Method::Get, &self.url("/user"), None)
            .await
            .ok()?;
        status
            .is_success()
            .then(|| body["login"].as_str().map(String::from))
            .flatten()
    }

    /// Create or update this gate's sticky comment. `create` says whether a missing comment
    /// should be created (an existing one is always updated, so a recovering PR shows it).
    pub async fn sticky_comment(
        &self,
        marker: &str,
        body: &str,
        create: bool,
    ) -> Result<Published, ApiError> {
        let comments = match self.all_comments().await? {
            Ok(c) => c,
            Err(forbidden) => return Ok(forbidden),
        };
        let me = self.login().await;
        let ours = comments.iter().find(|c| {
            let mine = match &me {
                Some(login) => c["user"]["login"].as_str() == Some(login),
                None => c["user"]["type"].as_str() == Some("Bot"),
            };
            mine && c["body"].as_str().is_some_and(|b| b.starts_with(marker))
        });
        let payload = json!({ "body": body });
        let (method, url, created) = match ours.and_then(|c| c["id"].as_u64()) {
            Some(id) => (
                Method::Patch,
                self.url(&format!(
                    "/repos/{}/issues/comments/{id}",
                    self.target.repository
                )),
                false,
            ),
            None if create => (
                Method::Post,
                self.issue_comments().replace("?per_page=100", ""),
                true,
            ),
            None => return Ok(Published::Skipped),
        };
        let (status, _, answer) = self.call(method, &url, Some(&payload)).await?;
        if let Some(forbidden) = forbidden(status, &answer) {
            return Ok(forbidden);
        }
        if !status.is_success() {
            return Err(ApiError(format!(
                "writing the comment on #{}: {status} {}",
                self.target.pr,
                message(&answer)
            )));
        }
        let id = answer["id"].as_u64().unwrap_or(0);
        Ok(if created {
            Published::Created(id)
        } else {
            Published::Updated(id)
        })
    }
}

impl GitHub {
    /// A completed check run on the head commit, with the report as its summary.
    pub async fn check_run(
        &self,
        name: &str,
        conclusion: &str,
        title: &str,
        summary: &str,
    ) -> Result<Published, ApiError> {
        let Some(sha) = self.target.head_sha.clone() else {
            return Err(ApiError("no head commit (GITHUB_SHA or the event's pull_request.head.sha) for the check run".into()));
        };
        let cut: String = summary.chars().take(65_535).collect();
        let payload = json!({ "name": name, "head_sha": sha, "status": "completed", "conclusion": conclusion, "output": { "title": title, "summary": cut } });
        let url = self.url(&format!("/repos/{}/check-runs", self.target.repository));
        let (status, _, answer) = self.call(Method::Post, &url, Some(&payload)).await?;
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
