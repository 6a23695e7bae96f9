//! Publishing a saved verdict (`goldgate publish`, the `workflow_run` half for fork PRs)
//! once it has been judged again under the trusted rules: what the comment says of where
//! the verdict was computed and of a claim the file's values do not bear out, the command
//! that gives it again, and the job summary and PR comment posted. What happened comes
//! back as [`Event`]s; nothing is printed.

use std::path::Path;

use super::{Event, PublishOptions, Report};
use crate::report::markdown::Render;
use goldgate_core::error::Result;
use goldgate_core::gate::rederive::Rederived;
use goldgate_core::gate::verdict::{Outcome, Status, Verdict};
use goldgate_core::text::shell_quote;

/// Where a saved verdict is judged again.
#[derive(Clone, Copy, Debug)]
pub struct Saved<'a> {
    /// The verdict file (untrusted).
    pub file: &'a Path,
    /// The trusted baseline; `None`: the file's own baseline values.
    pub baseline: Option<&'a Path>,
    /// The trusted rules' file; `None`: the built-in rules.
    pub thresholds: Option<&'a Path>,
    /// The commit of the trusted checkout.
    pub git_sha: Option<&'a str>,
}

impl Saved<'_> {
    /// Where the published verdict was computed, for the comment.
    pub fn origin(&self) -> String {
        let rules = match self.thresholds {
            Some(path) => path.display().to_string(),
            None => "the built-in rules (no thresholds.toml)".into(),
        };
        let at = match self.git_sha {
            Some(sha) => format!(" at {}", sha.chars().take(12).collect::<String>()),
            None => String::new(),
        };
        let against = match self.baseline {
            Some(b) => format!("against the baseline {}", b.display()),
            None => "against the baseline values in the file (no trusted baseline)".into(),
        };
        format!(
            "Verdict computed by goldgate publish from {} under {rules}{at}, {against}; the file's own verdict and statuses were not used.",
            self.file.display()
        )
    }

    /// The command that gives the verdict again, without posting.
    pub fn reproduce(&self) -> String {
        let mut words = vec![
            "goldgate publish --verdict".to_string(),
            shell_quote(&self.file.display().to_string()),
        ];
        if let Some(b) = self.baseline {
            words.extend(["--baseline".into(), shell_quote(&b.display().to_string())]);
        }
        if let Some(t) = self.thresholds {
            words.extend(["--thresholds".into(), shell_quote(&t.display().to_string())]);
        }
        words.push("--comment-on never".into());
        words.join(" ")
    }
}

/// An outcome in words (`pass with warnings`).
pub fn word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "pass",
        Outcome::Warn => "pass with warnings",
        Outcome::Fail => "fail",
        Outcome::Incomplete => "incomplete",
    }
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Pass => "pass",
        Status::Warn => "warn",
        Status::Fail => "fail",
        Status::Incomplete => "incomplete",
        Status::Info => "not gated",
    }
}

/// What to say when the file claimed another verdict than its values give.
pub fn overridden(derived: &Rederived) -> Option<String> {
    if !derived.verdict_overridden() {
        return None;
    }
    let metrics: Vec<String> = derived
        .overridden
        .iter()
        .map(|(name, claimed, is)| {
            format!(
                "{name} (claimed {}, is {})",
                status_word(*claimed),
                status_word(*is)
            )
        })
        .collect();
    let which = match metrics.is_empty() {
        true => String::new(),
        false => format!(" Statuses overridden: {}.", metrics.join(", ")),
    };
    Some(format!(
        "The verdict file claimed {}; its values under the trusted rules give {}, which is what is published.{which}",
        word(derived.claimed),
        word(derived.verdict.verdict)
    ))
}

/// A re-derived verdict as posted: the comment and what posting it did.
pub struct Posted {
    /// The PR comment (also `--format markdown`).
    pub comment: String,
    pub events: Vec<Event>,
}

/// Post `verdict`, judged again from `saved`: the job summary (when the runner names one)
/// and the PR comment, as `options` say. `render` names the gate and its templates; the
/// origin, the `warning` (see [`overridden`]) and the command that gives the verdict again
/// are added here.
pub fn post(
    verdict: &Verdict,
    saved: &Saved<'_>,
    render: Render<'_>,
    warning: Option<String>,
    options: &PublishOptions,
) -> Result<Posted> {
    let mut render = Render {
        origin: Some(saved.origin()),
        warnings: warning.into_iter().collect(),
        reproduce: vec![saved.reproduce()],
        ..render
    };
    let comment = super::verdict::comment(verdict, &render)?;
    render.files = vec![format!("verdict file: {}", saved.file.display())];
    let summary = crate::report::markdown::summary(verdict, &render)?;
    let mut events: Vec<Event> = super::write_summary(&summary, &options.secrets)
        .into_iter()
        .collect();
    let runtime = goldgate_client::runtime::build()?;
    let shorten = || super::verdict::shorter(verdict, &render, &comment);
    let report = Report {
        comment: &comment,
        shorter: &shorten,
        summary: &summary,
    };
    events.extend(super::post_comment(verdict, report, options, &runtime)?);
    Ok(Posted { comment, events })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved<'a>(
        file: &'a str,
        baseline: Option<&'a str>,
        thresholds: Option<&'a str>,
    ) -> Saved<'a> {
        Saved {
            file: Path::new(file),
            baseline: baseline.map(Path::new),
            thresholds: thresholds.map(Path::new),
            git_sha: Some("0123456789abcdef0123"),
        }
    }

    #[test]
    fn the_command_given_again_quotes_its_paths_and_never_posts() {
        let s = saved("out dir/verdict.json", Some("baselines/main.json"), None);
        assert_eq!(
            s.reproduce(),
            "goldgate publish --verdict 'out dir/verdict.json' --baseline baselines/main.json --comment-on never"
        );
        let s = saved("verdict.json", None, Some("thresholds.toml"));
        assert_eq!(
            s.reproduce(),
            "goldgate publish --verdict verdict.json --thresholds thresholds.toml --comment-on never"
        );
    }

    #[test]
    fn the_origin_names_the_rules_the_commit_and_the_baseline() {
        let s = saved("verdict.json", None, None);
        assert_eq!(
            s.origin(),
            "Verdict computed by goldgate publish from verdict.json under the built-in rules (no thresholds.toml) at 0123456789ab, against the baseline values in the file (no trusted baseline); the file's own verdict and statuses were not used."
        );
        let s = saved(
            "v.json",
            Some("baselines/main.json"),
            Some("ci/thresholds.toml"),
        );
        assert!(
            s.origin().contains("under ci/thresholds.toml at 0123456789ab, against the baseline baselines/main.json;"),
            "{}",
            s.origin()
        );
    }
}
