//! Prompt templates: minijinja text rendered with a context (a sample's request, an agent's
//! state, the texts a judge compares). Printing a variable that does not exist is an error
//! naming the template and line (a typo never sends an empty prompt), while
//! `{% if name %}` on a missing one is simply false. A template comes from a user's file or
//! is built in (under `templates/prompts/`); its fingerprint is the hash of its source, so
//! editing a prompt changes whatever fingerprint it is part of.

use std::path::{Path, PathBuf};

use minijinja::{Environment, UndefinedBehavior};

use crate::error::{Error, Location, Problem, Result};

/// A parsed template.
pub struct Template {
    /// The file, or `built-in NAME`.
    name: String,
    path: Option<PathBuf>,
    env: Environment<'static>,
    fingerprint: String,
}

impl std::fmt::Debug for Template {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Template")
            .field("name", &self.name)
            .field("fingerprint", &self.fingerprint)
            .finish()
    }
}

impl Template {
    /// A template file; one that does not parse is an input error at its line.
    pub fn file(path: &Path) -> Result<Template> {
        let source = crate::io::read(path)?;
        Template::parse(path.display().to_string(), Some(path.to_path_buf()), source)
    }

    /// A built-in template (`source` is `include_str!` of a file under
    /// `templates/prompts/`). One that does not parse is goldgate's bug.
    pub fn builtin(name: &str, source: &'static str) -> Template {
        Template::parse(format!("built-in {name}"), None, source.to_string())
            .unwrap_or_else(|e| panic!("the built-in prompt {name} does not parse: {e}"))
    }

    fn parse(name: String, path: Option<PathBuf>, source: String) -> Result<Template> {
        let fingerprint = crate::text::sha256(source.as_bytes());
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
        env.set_keep_trailing_newline(true);
        let parsed = env.add_template_owned("prompt", source);
        let template = Template {
            name,
            path,
            env,
            fingerprint,
        };
        match parsed {
            Ok(()) => Ok(template),
            Err(e) => Err(template.error(&e, "does not parse")),
        }
    }

    /// Render with `context`. A variable printed but not in the context, or a failing
    /// filter, is an error naming the template and line.
    pub fn render(&self, context: &impl serde::Serialize) -> Result<String> {
        let template = self
            .env
            .get_template("prompt")
            .map_err(|e| self.error(&e, "cannot be used"))?;
        template
            .render(minijinja::Value::from_serialize(context))
            .map_err(|e| self.error(&e, "cannot be rendered"))
    }

    /// `sha256:` of the source.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The file, or `built-in NAME`.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn error(&self, e: &minijinja::Error, what: &str) -> Error {
        let detail = e
            .detail()
            .map_or_else(|| e.kind().to_string(), str::to_string);
        let hint = "a prompt can use the variables listed in docs/pipelines.md; test a variable that may be missing with {% if name %}";
        match &self.path {
            Some(path) => Error::invalid(
                "prompt template",
                Problem::new(
                    Location::new(path, e.line().unwrap_or(0), 0),
                    None,
                    format!("the template {what}: {detail}"),
                )
                .with_hint(hint),
            ),
            None => Error::internal(format!(
                "the {} prompt {what} at line {}: {detail}",
                self.name,
                e.line().unwrap_or(0)
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_missing_variable_is_an_error_at_its_line_but_false_in_a_test() {
        let t = Template::builtin("t", "Hello {{ name }}!\n{% if missing %}never{% endif %}\n");
        assert_eq!(t.render(&json!({"name": "Ana"})).unwrap(), "Hello Ana!\n\n");
        let dir = std::env::temp_dir().join(format!("goldgate-prompt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.j2");
        std::fs::write(&path, "line one\n{{ sample.conversaton }}\n").unwrap();
        let t = Template::file(&path).unwrap();
        let e = t
            .render(&json!({"sample": {"conversation": []}}))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("p.j2:2") && e.contains("cannot be rendered"),
            "{e}"
        );
        std::fs::write(&path, "{% if x %}\nunclosed\n").unwrap();
        let e = Template::file(&path).unwrap_err().to_string();
        assert!(e.contains("does not parse"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_fingerprint_follows_the_source() {
        let a = Template::builtin("a", "x {{ y }}");
        assert_eq!(
            a.fingerprint(),
            Template::builtin("b", "x {{ y }}").fingerprint()
        );
        assert_ne!(
            a.fingerprint(),
            Template::builtin("a", "x {{ y }} ").fingerprint()
        );
        assert!(a.fingerprint().starts_with("sha256:"));
    }
}
