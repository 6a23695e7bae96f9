//! Renderers: turning results into text for people and tools — the terminal tables
//! ([`terminal`]), the PR comment and job summary ([`markdown`], fitted to GitHub's size
//! limits by [`fit`]), the HTML report ([`html`]), JUnit XML ([`junit`]) and run progress
//! ([`progress`]) — and the template loader they share.

pub mod fit;
pub mod html;
pub mod junit;
pub mod layout;
pub mod markdown;
pub mod progress;
pub mod spend;
pub mod terminal;

/// Add a template: `name` from `--templates DIR` when that directory has it, else the
/// built-in `builtin`.
pub fn add_template(
    env: &mut minijinja::Environment<'static>,
    templates: Option<&std::path::Path>,
    name: &'static str,
    builtin: &'static str,
) -> crate::error::Result<()> {
    let source = match templates.map(|d| d.join(name)).filter(|p| p.is_file()) {
        Some(path) => crate::io::read(&path)?,
        None => builtin.to_string(),
    };
    env.add_template_owned(name, source).map_err(|e| {
        crate::error::Error::usage(
            format!("the template {name} does not parse: {e}"),
            format!("fix {name} in --templates, or remove it to use the built-in one"),
        )
    })
}

/// One cause of failed calls as plain text: `http: POST … answered 401 (7): ext-001, …`.
pub fn cause_text(c: &crate::runfile::failures::FailureCause) -> String {
    use crate::escape::one_line;
    let mut ids: Vec<_> = c.examples.iter().map(|i| one_line(i)).collect();
    if c.samples > c.examples.len() {
        ids.push("…".into());
    }
    format!(
        "{}: {} ({}): {}",
        c.kind.as_str(),
        one_line(&c.message),
        c.calls,
        ids.join(", ")
    )
}

/// The samples failing in both runs, those whose call failed named by what happened to them
/// rather than counted as still failing (`1 still failing · 2 crashed · 1 timed out`).
pub fn still_failing(s: &crate::gate::samples::SampleAnalysis, separator: &str) -> String {
    let mut named: Vec<(&'static str, usize)> = Vec::new();
    for kind in s.still_failing.iter().filter_map(|c| c.failure) {
        match named.iter_mut().find(|(what, _)| *what == kind.outcome()) {
            Some((_, n)) => *n += 1,
            None => named.push((kind.outcome(), 1)),
        }
    }
    named.sort();
    let failed: usize = named.iter().map(|(_, n)| n).sum();
    let mut parts = vec![format!("{} still failing", s.still.saturating_sub(failed))];
    parts.extend(named.iter().map(|(what, n)| format!("{n} {what}")));
    parts.join(separator)
}
