//! Publishing a verdict on GitHub: inside GitHub Actions, the job summary, step outputs
//! and annotations ([`actions`]); through the REST API ([`api`], to the [`target`] that
//! GitHub Actions' environment names, with GitHub's rate and size limits in [`limits`]),
//! the sticky PR comment and the check run; a command's verdict ([`verdict`]) and a saved
//! one judged again ([`saved`]) posted from plain data. Decisions
//! (whether to post, what a check run concludes) live here; what happened comes back as
//! [`Event`]s for the caller to show. Failing to publish never changes the gate's exit code.

pub mod actions;
pub mod api;
pub mod limits;
pub mod saved;
pub mod target;
pub mod verdict;

use std::path::{Path, PathBuf};

use goldgate_core::error::{Outcome, Result};
use goldgate_core::gate::verdict::Verdict;
use goldgate_core::retry::Backoff;
use goldgate_core::secrets::Secrets;

/// When to post the sticky PR comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommentOn {
    /// Always (an existing comment is always updated, so a PR that recovers shows it).
    Always,
    /// Only when the verdict is not a plain pass.
    Regression,
    Never,
}

/// How to publish.
#[derive(Clone, Debug)]
pub struct PublishOptions {
    /// The gate's name: one sticky comment (and check run) per name.
    pub gate_name: String,
    pub comment_on: CommentOn,
    /// The pull request; default: from `GITHUB_EVENT_PATH`.
    pub pr: Option<u64>,
    pub check_run: bool,
    /// Waits between retried API calls.
    pub backoff: Backoff,
    /// The longest wait for GitHub's rate limit to reset; beyond it, publishing fails with
    /// a rate-limit error.
    pub rate_limit_wait: std::time::Duration,
    /// Secret values replaced by `***` in everything published (the comment, the check run,
    /// the job summary, step outputs, annotations): a verdict may carry what a pipeline
    /// echoed, and a verdict file from elsewhere was never redacted here.
    pub secrets: Secrets,
}

/// What to publish: the PR comment, a shorter rendering for when GitHub refuses its size
/// (also a check run's summary when the comment has more bytes than a check run takes), and
/// the job summary (the full report).
#[derive(Clone, Copy)]
pub struct Report<'a> {
    pub comment: &'a str,
    /// Renders the comment within [`limits::CHECK_RUN_SUMMARY_BYTES`].
    pub shorter: &'a dyn Fn() -> String,
    pub summary: &'a str,
}

impl Report<'_> {
    fn body(&self) -> limits::Body<'_> {
        limits::Body {
            text: self.comment,
            shorter: self.shorter,
        }
    }
}

/// What publishing did, for the caller to show (stderr: the runner reads workflow
/// commands there too).
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// `::error`/`::warning` workflow commands for the verdict.
    Annotations(String),
    NoComment(String),
    CommentPosted {
        pr: u64,
        id: u64,
    },
    CommentUpdated {
        pr: u64,
        id: u64,
    },
    CommentForbidden(String),
    CommentFailed(String),
    CheckRunCreated {
        id: u64,
        conclusion: &'static str,
    },
    CheckRunForbidden(String),
    CheckRunFailed(String),
    /// A file of the runner's (`GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT`) could not be written:
    /// reported, never a change of the gate's exit code.
    ActionsFileFailed(String),
}

impl Event {
    /// The workflow commands the event makes (annotations), every value escaped by
    /// GitHub's rules; empty for most events. They go to stderr before [`Event::note`].
    pub fn commands(&self) -> String {
        use goldgate_core::escape::workflow_command;
        match self {
            Event::Annotations(text) => text.clone(),
            Event::CommentForbidden(why) => {
                workflow_command("warning", "goldgate: no PR comment", why)
            }
            Event::CommentFailed(e) => workflow_command("warning", "goldgate: no PR comment", e),
            Event::ActionsFileFailed(e) => {
                workflow_command("warning", "goldgate: job file not written", e)
            }
            _ => String::new(),
        }
    }

    /// The event as lines for people (stderr).
    pub fn note(&self) -> String {
        match self {
            Event::Annotations(_) => String::new(),
            Event::NoComment(why) => format!("note: no PR comment: {why}\n"),
            Event::CommentPosted { pr, id } => {
                format!("posted the goldgate comment on #{pr} (comment {id})\n")
            }
            Event::CommentUpdated { pr, id } => {
                format!("updated the goldgate comment on #{pr} (comment {id})\n")
            }
            Event::CommentForbidden(why) => format!("warning: {why}\n"),
            Event::CommentFailed(e) => format!("warning: could not post the PR comment: {e}\n"),
            Event::CheckRunCreated { id, conclusion } => {
                format!("created check run {id} ({conclusion})\n")
            }
            Event::CheckRunForbidden(why) => format!("warning: {why}\n"),
            Event::CheckRunFailed(e) => format!("warning: could not create the check run: {e}\n"),
            Event::ActionsFileFailed(e) => format!("warning: {e}\n"),
        }
    }
}

/// Inside GitHub Actions: the job summary, step outputs (the verdict and `outputs`'
/// paths), annotations, and the PR comment as `options` say. Outside, nothing.
pub fn to_actions(
    verdict: &Verdict,
    report: Report<'_>,
    outputs: &[(&str, PathBuf)],
    options: &PublishOptions,
    runtime: &tokio::runtime::Runtime,
) -> Result<Vec<Event>> {
    if !actions::in_actions() {
        return Ok(Vec::new());
    }
    let secrets = &options.secrets;
    let mut events: Vec<Event> = write_summary(report.summary, secrets).into_iter().collect();
    if let Some(output) = std::env::var_os("GITHUB_OUTPUT").filter(|s| !s.is_empty()) {
        let word = serde_json::to_value(verdict.verdict)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        let mut values = vec![
            ("verdict", word),
            ("exit-code", verdict.exit_code.to_string()),
            ("summary", secrets.redact(&verdict.summary).into_owned()),
        ];
        values.extend(
            outputs
                .iter()
                .map(|(name, path)| (*name, path.display().to_string())),
        );
        if let Err(e) = actions::write_outputs(Path::new(&output), &values) {
            events.push(Event::ActionsFileFailed(format!(
                "step outputs (GITHUB_OUTPUT): {e}"
            )));
        }
    }
    events.push(Event::Annotations(
        secrets.redact(&actions::annotations(verdict)).into_owned(),
    ));
    events.extend(post_comment(verdict, report, options, runtime)?);
    Ok(events)
}

/// The job summary, when `GITHUB_STEP_SUMMARY` names a file; the event to report when it
/// cannot be written.
pub fn write_summary(markdown: &str, secrets: &Secrets) -> Option<Event> {
    let summary = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty())?;
    actions::write_summary(Path::new(&summary), &secrets.redact(markdown))
        .err()
        .map(|e| Event::ActionsFileFailed(format!("job summary (GITHUB_STEP_SUMMARY): {e}")))
}

/// Post or update the sticky PR comment (and create the check run), as `options` say, on
/// the command's runtime.
pub fn post_comment(
    verdict: &Verdict,
    report: Report<'_>,
    options: &PublishOptions,
    runtime: &tokio::runtime::Runtime,
) -> Result<Vec<Event>> {
    use api::{ApiError, GitHub, Published};
    use target::Target;
    if options.comment_on == CommentOn::Never {
        return Ok(Vec::new());
    }
    let target = match Target::from_env(options.pr)? {
        Ok(t) => t,
        Err(why) => return Ok(vec![Event::NoComment(why)]),
    };
    let pr = target.pr;
    let secrets = &options.secrets;
    let comment = secrets.redact(report.comment);
    let shorter = || secrets.redact(&(report.shorter)()).into_owned();
    let title = secrets.redact(&verdict.summary);
    let report = Report {
        comment: &comment,
        shorter: &shorter,
        summary: report.summary,
    };
    let create = options.comment_on == CommentOn::Always || verdict.verdict != Outcome::Pass;
    let marker = crate::report::markdown::marker(&options.gate_name);
    let conclusion = match verdict.verdict {
        Outcome::Pass => "success",
        Outcome::Warn => "neutral",
        Outcome::Fail | Outcome::Incomplete => "failure",
    };
    let (outcome, check) = runtime
        .block_on(async {
            let github = GitHub::new(target)?
                .with_backoff(options.backoff)
                .with_rate_limit_wait(options.rate_limit_wait);
            let comment = github.sticky_comment(&marker, report.body(), create).await;
            let check = match options.check_run {
                true => Some(
                    github
                        .check_run(&options.gate_name, conclusion, &title, report.body())
                        .await,
                ),
                false => None,
            };
            Ok::<_, ApiError>((comment, check))
        })
        .unwrap_or_else(|e| (Err(e), None));
    let mut events = Vec::new();
    match check {
        Some(Ok(Published::Created(id))) => events.push(Event::CheckRunCreated { id, conclusion }),
        Some(Ok(Published::Forbidden(why))) => events.push(Event::CheckRunForbidden(why)),
        Some(Err(e)) => events.push(Event::CheckRunFailed(e.to_string())),
        _ => {}
    }
    match outcome {
        Ok(Published::Created(id)) => events.push(Event::CommentPosted { pr, id }),
        Ok(Published::Updated(id)) => events.push(Event::CommentUpdated { pr, id }),
        Ok(Published::Skipped) => {}
        Ok(Published::Forbidden(why)) => events.push(Event::CommentForbidden(why)),
        Err(e) => events.push(Event::CommentFailed(e.to_string())),
    }
    Ok(events)
}
