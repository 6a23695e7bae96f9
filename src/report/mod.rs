//! Renderers: turning results into text for people and tools — the terminal tables
//! ([`terminal`]), the PR comment and job summary ([`markdown`], fitted to GitHub's size
//! limits by [`fit`]), the HTML report ([`html`]), JUnit XML ([`junit`]) and run progress
//! ([`progress`]) — and the template loader they share.

pub mod fit;
pub mod html;
pub mod junit;
pub mod markdown;
pub mod progress;
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
