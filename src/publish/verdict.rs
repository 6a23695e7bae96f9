//! Publishing the verdict a command computed (`check`, `compare`): the PR comment within
//! GitHub's limit, and, inside GitHub Actions, the job summary (naming the files the
//! command wrote), step outputs, annotations and the comment, on the command's runtime.
//! What happened comes back as [`Event`]s; nothing is printed.

use std::path::PathBuf;

use super::{Event, PublishOptions, Report};
use crate::report::markdown::{self, Limit, Render};
use goldgate_core::error::Result;
use goldgate_core::gate::verdict::Verdict;

/// The PR comment for `verdict`, within the characters GitHub takes.
pub fn comment(verdict: &Verdict, render: &Render<'_>) -> Result<String> {
    markdown::comment_within(verdict, render, Limit::Chars(markdown::GITHUB_LIMIT))
}

/// The comment rendered within the bytes a check run takes (GitHub counts some characters
/// of a comment as more than one; no count exceeds the bytes).
pub fn shorter(verdict: &Verdict, render: &Render<'_>, comment: &str) -> String {
    let limit = super::limits::CHECK_RUN_SUMMARY_BYTES;
    markdown::comment_within(verdict, render, Limit::Bytes(limit))
        .unwrap_or_else(|_| super::limits::cut_bytes(comment, limit).to_string())
}

/// Inside GitHub Actions: the job summary (with `files`, the paths the command wrote, also
/// set as step outputs), outputs, annotations and the PR `comment`, on `runtime` (one is
/// built when the command has none). Outside, nothing.
pub fn to_actions(
    verdict: &Verdict,
    render: &Render<'_>,
    files: &[(&str, PathBuf)],
    comment: &str,
    options: &PublishOptions,
    runtime: Option<&tokio::runtime::Runtime>,
) -> Result<Vec<Event>> {
    if !super::actions::in_actions() {
        return Ok(Vec::new());
    }
    let built;
    let runtime = match runtime {
        Some(r) => r,
        None => {
            built = goldgate_client::runtime::build()?;
            &built
        }
    };
    let render = Render {
        files: files
            .iter()
            .map(|(name, path)| format!("{name}: {}", path.display()))
            .collect(),
        ..render.clone()
    };
    let summary = markdown::summary(verdict, &render)?;
    let shorten = || shorter(verdict, &render, comment);
    let report = Report {
        comment,
        shorter: &shorten,
        summary: &summary,
    };
    super::to_actions(verdict, report, files, options, runtime)
}
