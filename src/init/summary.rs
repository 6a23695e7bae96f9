//! What `goldgate init` says when it is done: the files it wrote (and which it overwrote or
//! only added to), where GitHub reads workflows when the project is below a repository's
//! root, and the command to run next.

use super::{Pipeline, Plan, Written};
use goldgate_core::sample::Kind;

/// Where the project is, for what to run next.
#[derive(Clone, Copy, Debug, Default)]
pub struct Place {
    /// The project is the current directory: the next command needs no `cd`.
    pub here: bool,
    /// The project is below its git repository's root.
    pub below_git_root: bool,
}

/// The kinds' names, comma-separated (as `--kind` takes them).
pub fn names(kinds: &[Kind]) -> String {
    kinds
        .iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// What was written, and the command to run next; below a git repository's root, that GitHub
/// reads workflows only there.
pub fn summary(plan: &Plan, written: &[Written], place: Place) -> String {
    let mut out = format!(
        "goldgate init wrote {} files{} (task kinds: {}; pipeline: {}):\n",
        written.len(),
        if place.here {
            String::new()
        } else {
            format!(" in {}", plan.dir.display())
        },
        names(&plan.kinds).replace(',', ", "),
        plan.pipeline.as_str(),
    );
    for w in written {
        let note = match (w.overwrote, w.note) {
            (true, _) => "  (overwrote)".to_string(),
            (false, Some(note)) => format!("  ({note})"),
            (false, None) => String::new(),
        };
        out.push_str(&format!("  {}{note}\n", w.path.display()));
    }
    if place.below_git_root {
        out.push_str(
            "\nGitHub reads workflows only from .github/workflows at the repository's root: move them there (GOLDGATE.md says how)\n",
        );
    }
    let cd = if place.here {
        String::new()
    } else {
        format!("cd {} && ", shell_word(&plan.dir.display().to_string()))
    };
    let env = match plan.pipeline {
        Pipeline::Command => "",
        Pipeline::Http => "export PIPELINE_URL=<your service's URL> && ",
        Pipeline::Chat => "export OPENAI_API_KEY=<your key> && ",
    };
    out.push_str(&format!(
        "\nnext: {cd}{env}goldgate check\nthen GOLDGATE.md: wire in your pipeline, grow the suite, store a baseline, gate pull requests\n"
    ));
    out
}

/// `word` as one shell word: as it is when it is plain, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/+:@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_with_spaces_is_quoted_in_the_next_command() {
        assert_eq!(shell_word("gate/project"), "gate/project");
        assert_eq!(shell_word("my gate"), "'my gate'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}
