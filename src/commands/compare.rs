//! `goldgate compare`: a score file against a baseline under the rules, and the verdict
//! rendered in the format asked for (shared with `check`).

use crate::cli::GateFormat;
use crate::output::Reporter;
use crate::report::{html, junit, terminal};
use crate::settings::{CompareSettings, GateSettings};
use goldgate_core::error::{Exit, Result};
use goldgate_core::gate::verdict::Verdict;
use goldgate_core::score::file::{self, ScoreFile};

pub fn compare(s: CompareSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let candidate = file::read(&s.score)?;
    let named = crate::check::MissingBaseline::Refuse {
        named_by: "--baseline".into(),
        instead: "leave out --baseline to apply only the absolute rules",
    };
    let baseline = match s.baseline.as_deref() {
        Some(path) => crate::check::read_baseline(path, &named)?,
        None => None,
    };
    let verdict = goldgate_core::gate::compare::compare(
        &candidate,
        baseline.as_ref(),
        &s.gate.thresholds,
        &s.gate.compare,
    )?;
    if let Some(out) = &s.output {
        goldgate_core::gate::verdict::write(out, &verdict)?;
        reporter.note(&super::wrote(&[out]));
    }
    let mut paths = vec![("score", s.score.clone())];
    paths.extend(s.output.clone().map(|o| ("verdict-file", o)));
    let render = super::render(&s.gate);
    let comment = crate::publish::verdict::comment(&verdict, &render)?;
    let events = crate::publish::verdict::to_actions(
        &verdict,
        &render,
        &paths,
        &comment,
        &s.gate.publish,
        None,
    )?;
    super::show(&events, reporter);
    let show = Show {
        format: s.format,
        comment: &comment,
        run: None,
    };
    show_verdict(&verdict, &candidate, &s.gate, show, reporter)
}

/// Records whose trace the HTML report shows at most.
pub const MAX_TRACES: usize = 50;

/// How to show a verdict: `--format`, the rendered PR comment, and the run whose traces the
/// HTML report shows.
pub(super) struct Show<'a> {
    pub format: GateFormat,
    pub comment: &'a str,
    pub run: Option<&'a std::path::Path>,
}

/// Print the verdict as `show.format` asks and return its exit code.
pub(super) fn show_verdict(
    verdict: &Verdict,
    candidate: &ScoreFile,
    gate: &GateSettings,
    show: Show<'_>,
    reporter: &mut Reporter<'_>,
) -> Result<Exit> {
    let text = match show.format {
        GateFormat::Html => {
            let traces = match show.run {
                Some(run) => Some(goldgate_core::runfile::traces::traces(run, MAX_TRACES)?),
                None => None,
            };
            html::report_with_traces(
                verdict,
                candidate,
                gate.report.templates.as_deref(),
                traces.as_ref(),
            )?
        }
        GateFormat::Text => terminal::verdict(verdict),
        GateFormat::Brief => terminal::brief(verdict),
        GateFormat::Junit => junit::junit(verdict),
        GateFormat::Markdown => show.comment.to_string(),
        GateFormat::Json => goldgate_core::gate::verdict::to_json(verdict)?,
    };
    // An answer that echoed a token reaches the diffs: the log never shows it.
    reporter.out(&gate.publish.secrets.redact(&text));
    Ok(Exit::from(verdict.verdict))
}
