//! `goldgate compare`: a score file against a baseline under the rules, and the verdict
//! rendered in the format asked for (shared with `check`).

use crate::cli::GateFormat;
use crate::error::{Exit, Result};
use crate::gate::verdict::Verdict;
use crate::output::Reporter;
use crate::report::{html, junit, terminal};
use crate::score::file::{self, ScoreFile};
use crate::settings::{CompareSettings, GateSettings};

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
    let verdict = crate::gate::compare::compare(
        &candidate,
        baseline.as_ref(),
        &s.gate.thresholds,
        &s.gate.compare,
    )?;
    if let Some(out) = &s.output {
        crate::gate::verdict::write(out, &verdict)?;
        reporter.note(&super::wrote(&[out]));
    }
    let mut paths = vec![("score", s.score.clone())];
    paths.extend(s.output.clone().map(|o| ("verdict-file", o)));
    let comment = super::publish::comment(&verdict, &s.gate)?;
    super::publish::to_actions(&verdict, &s.gate, &paths, &comment, None, reporter)?;
    show_verdict(&verdict, &candidate, &s.gate, &comment, None, reporter)
}

/// Records whose trace the HTML report shows at most.
pub const MAX_TRACES: usize = 50;

/// Print the verdict as `--format` asks (`comment` is the rendered PR comment; the HTML
/// report shows the traces `run` holds) and return its exit code.
pub(super) fn show_verdict(
    verdict: &Verdict,
    candidate: &ScoreFile,
    gate: &GateSettings,
    comment: &str,
    run: Option<&std::path::Path>,
    reporter: &mut Reporter<'_>,
) -> Result<Exit> {
    match gate.format {
        GateFormat::Html => {
            let traces = match run {
                Some(run) => Some(crate::runfile::reader::traces(run, MAX_TRACES)?),
                None => None,
            };
            reporter.out(&html::report_with_traces(
                verdict,
                candidate,
                gate.report.templates.as_deref(),
                traces.as_ref(),
            )?)
        }
        GateFormat::Text => reporter.out(&terminal::verdict(verdict)),
        GateFormat::Brief => reporter.out(&terminal::brief(verdict)),
        GateFormat::Junit => reporter.out(&junit::junit(verdict)),
        GateFormat::Markdown => reporter.out(comment),
        GateFormat::Json => reporter.out(&super::json(verdict)?),
    }
    Ok(Exit::from(verdict.verdict))
}
