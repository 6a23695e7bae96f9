//! `goldgate publish`, and what `check` and `compare` do inside GitHub Actions: the job
//! summary, step outputs, annotations, the sticky PR comment and the check run.

use std::path::Path;

use crate::cli::CommentOn;
use crate::error::{Exit, Result};
use crate::gate::verdict::{Outcome, Verdict};
use crate::output::Reporter;
use crate::settings::{GateSettings, PublishSettings};

/// Inside GitHub Actions: the comment as the job summary, step outputs, and annotations
/// (on stderr, which the runner reads too, so `--format json` output stays clean).
/// `markdown` is the rendered comment when the caller has it already.
pub(super) fn to_actions(
    verdict: &Verdict,
    gate: &GateSettings,
    paths: &[(&str, std::path::PathBuf)],
    markdown: &str,
    reporter: &mut Reporter<'_>,
) -> Result<()> {
    use crate::publish::actions;
    if !actions::in_actions() {
        return Ok(());
    }
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
        actions::write_summary(Path::new(&summary), markdown)?;
    }
    if let Some(output) = std::env::var_os("GITHUB_OUTPUT").filter(|s| !s.is_empty()) {
        let word = serde_json::to_value(verdict.verdict)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        let mut outputs = vec![
            ("verdict", word),
            ("exit-code", verdict.exit_code.to_string()),
            ("summary", verdict.summary.clone()),
        ];
        outputs.extend(
            paths
                .iter()
                .map(|(name, path)| (*name, path.display().to_string())),
        );
        actions::write_outputs(Path::new(&output), &outputs)?;
    }
    reporter.note(&actions::annotations(verdict));
    post_comment(verdict, gate, markdown, reporter)
}

/// The PR comment for `verdict`.
pub(super) fn comment(verdict: &Verdict, gate: &GateSettings) -> Result<String> {
    crate::report::markdown::comment(
        verdict,
        &gate.report.gate_name,
        gate.report.templates.as_deref(),
    )
}

/// Post or update the sticky PR comment, as `--comment-on` says. Failing to post warns; it
/// never changes the gate's exit code.
fn post_comment(
    verdict: &Verdict,
    gate: &GateSettings,
    body: &str,
    reporter: &mut Reporter<'_>,
) -> Result<()> {
    use crate::publish::api::{GitHub, Published, Target};
    if gate.comment_on == CommentOn::Never {
        return Ok(());
    }
    let target = match Target::from_env(gate.pr) {
        Ok(t) => t,
        Err(why) => {
            reporter.note(&format!("note: no PR comment: {why}\n"));
            return Ok(());
        }
    };
    let pr = target.pr;
    let create = gate.comment_on == CommentOn::Always || verdict.verdict != Outcome::Pass;
    let marker = crate::report::markdown::marker(&gate.report.gate_name);
    let conclusion = match verdict.verdict {
        Outcome::Pass => "success",
        Outcome::Warn => "neutral",
        Outcome::Fail | Outcome::Incomplete => "failure",
    };
    let (outcome, check) = crate::runtime::build()?
        .block_on(async {
            let github = GitHub::new(target)?.with_backoff(backoff_for_tests());
            let comment = github.sticky_comment(&marker, body, create).await;
            let check = match gate.check_run {
                true => Some(
                    github
                        .check_run(&gate.report.gate_name, conclusion, &verdict.summary, body)
                        .await,
                ),
                false => None,
            };
            Ok::<_, crate::publish::api::ApiError>((comment, check))
        })
        .unwrap_or_else(|e| (Err(e), None));
    match check {
        Some(Ok(Published::Created(id))) => {
            reporter.note(&format!("created check run {id} ({conclusion})\n"))
        }
        Some(Ok(Published::Forbidden(why))) => reporter.note(&format!("warning: {why}\n")),
        Some(Err(e)) => reporter.note(&format!("warning: could not create the check run: {e}\n")),
        _ => {}
    }
    match outcome {
        Ok(Published::Created(id)) => reporter.note(&format!("posted the goldgate comment on #{pr} (comment {id})\n")),
        Ok(Published::Updated(id)) => reporter.note(&format!("updated the goldgate comment on #{pr} (comment {id})\n")),
        Ok(Published::Skipped) => {}
        Ok(Published::Forbidden(why)) => reporter.note(&format!("::warning title=goldgate%3A no PR comment::{}\nwarning: {why}\n", why.replace('%', "%25"))),
        Err(e) => reporter.note(&format!("::warning title=goldgate%3A no PR comment::{e}\nwarning: could not post the PR comment: {e}\n")),
    }
    Ok(())
}

/// Retry waits for GitHub calls (`GOLDGATE_TEST_BACKOFF_MS` shortens them in tests).
fn backoff_for_tests() -> crate::retry::Backoff {
    std::env::var("GOLDGATE_TEST_BACKOFF_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or_else(crate::retry::Backoff::default, |ms| {
            crate::retry::Backoff::with_base(std::time::Duration::from_millis(ms))
        })
}

/// `goldgate publish`: post a saved verdict (the `workflow_run` half for fork PRs).
pub fn publish(s: PublishSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let verdict = crate::gate::verdict::read(&s.verdict)?;
    let markdown = comment(&verdict, &s.gate)?;
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
        crate::publish::actions::write_summary(Path::new(&summary), &markdown)?;
    }
    post_comment(&verdict, &s.gate, &markdown, reporter)?;
    Ok(Exit::Ok)
}
