//! The GitHub workflows of a new project, from `templates/init/workflows/`. The templates
//! are plain workflows, so actionlint reads them as they are: a line that belongs to some
//! pipeline kinds only (the secrets an `http` or `chat` pipeline needs) ends with
//! `# goldgate-init: KIND…` and is kept, without that marker, for those kinds alone.
//! `.ci/actionlint/lint.mjs` renders every template for every kind by the same rule and
//! lints what `goldgate init` writes.

use super::Pipeline;

/// What ends a line that only some pipeline kinds keep.
pub const MARKER: &str = " # goldgate-init:";

/// `template` as written for `pipeline`.
pub fn render(template: &str, pipeline: Pipeline) -> String {
    let mut out = String::with_capacity(template.len());
    for line in template.split_inclusive('\n') {
        match line.find(MARKER) {
            None => out.push_str(line),
            Some(at) => {
                let kinds = &line[at + MARKER.len()..];
                if kinds.split_whitespace().any(|k| k == pipeline.as_str()) {
                    out.push_str(line[..at].trim_end());
                    out.push('\n');
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marked_lines_are_kept_for_their_kinds_only() {
        let template = "env: # goldgate-init: http chat\n  URL: x # goldgate-init: http\n  KEY: y # a comment # goldgate-init: chat\nrun: z\n";
        assert_eq!(render(template, Pipeline::Command), "run: z\n");
        assert_eq!(render(template, Pipeline::Http), "env:\n  URL: x\nrun: z\n");
        assert_eq!(
            render(template, Pipeline::Chat),
            "env:\n  KEY: y # a comment\nrun: z\n"
        );
    }

    /// Every marker in the shipped templates names pipeline kinds that exist.
    #[test]
    fn the_templates_mark_known_kinds() {
        let names: Vec<&str> = Pipeline::ALL.iter().map(|p| p.as_str()).collect();
        for (name, text) in [
            include_str!("../../templates/init/workflows/goldgate.yml"),
            include_str!("../../templates/init/workflows/goldgate-publish.yml"),
            include_str!("../../templates/init/workflows/goldgate-nightly.yml"),
        ]
        .into_iter()
        .enumerate()
        {
            for line in text.lines().filter(|l| l.contains(MARKER)) {
                let kinds = &line[line.find(MARKER).unwrap() + MARKER.len()..];
                assert!(
                    !kinds.trim().is_empty()
                        && kinds.split_whitespace().all(|k| names.contains(&k)),
                    "template {name}: {line}"
                );
            }
        }
    }
}
