//! Where and as whom to publish: the API, the repository, the pull request, the token and
//! the head commit, read from GitHub Actions' environment (`GITHUB_TOKEN`,
//! `GITHUB_REPOSITORY`, `GITHUB_API_URL`, the event at `GITHUB_EVENT_PATH`, `GITHUB_SHA`).
//! A malformed value is an error naming the variable, never "nothing to post".

use std::path::Path;

use serde_json::Value;

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
    pub fn from_env(pr: Option<u64>) -> goldgate_core::error::Result<Result<Target, String>> {
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
fn check_repository(value: &str) -> goldgate_core::error::Result<()> {
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
    Err(goldgate_core::error::Error::Usage {
        message: format!("GITHUB_REPOSITORY `{}` is not `owner/name`", value.escape_debug()),
        hint: "GitHub Actions sets it; when set by hand it names one repository, like `octo-org/octo-repo`".into(),
    })
}

/// `GITHUB_API_URL` is an http(s) URL with a host.
fn check_api_url(value: &str) -> goldgate_core::error::Result<()> {
    let ok = value.parse::<http::Uri>().is_ok_and(|uri| {
        matches!(uri.scheme_str(), Some("http" | "https")) && uri.authority().is_some()
    });
    if ok {
        return Ok(());
    }
    Err(goldgate_core::error::Error::Usage {
        message: format!("GITHUB_API_URL `{}` is not an http(s) URL", value.escape_debug()),
        hint: "GitHub Actions sets it (`https://api.github.com`, or your GitHub Enterprise server's `https://HOST/api/v3`)".into(),
    })
}

/// The webhook event GitHub Actions saved at `GITHUB_EVENT_PATH`.
fn read_event(path: &Path) -> goldgate_core::error::Result<Value> {
    let bytes = std::fs::read(path).map_err(|source| goldgate_core::error::Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| goldgate_core::error::Error::Usage {
        message: format!("GITHUB_EVENT_PATH {} is not a JSON event: {e}", path.display()),
        hint: "GitHub Actions writes the event there; unset GITHUB_EVENT_PATH and pass --pr N to post outside a workflow".into(),
    })
}
