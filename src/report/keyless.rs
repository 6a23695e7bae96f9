//! Answers that parsed but hold none of the keys their kind reads, said for people: a
//! warning per kind (and tuple task) in the run summary, and a line in the PR comment —
//! how many, the keys the kind reads, what the answers held instead and a few samples.
//! A verdict may come from a fork, so the comment cuts every list to what goldgate itself
//! writes and every key to [`MAX_KEY_CHARS`] characters.

use std::fmt::Write;

use goldgate_core::escape::{markdown_code, one_line};
use goldgate_core::kinds::keys::{Keyless, EXAMPLES, MAX_FOUND};

/// Where the answer each kind reads is shown.
const ANSWERS_DOCS: &str = concat!(
    env!("CARGO_PKG_REPOSITORY"),
    "/blob/main/docs/pipelines.md#what-a-pipeline-prints"
);
/// Groups shown at most in the comment (one per kind and tuple task).
const MAX_GROUPS: usize = 20;
/// Characters of one key shown at most in the comment.
const MAX_KEY_CHARS: usize = 80;

/// The run summary's warnings, one per group; empty when there are none.
pub fn terminal(keyless: &[Keyless]) -> String {
    let mut out = String::new();
    for k in keyless {
        let more = if k.samples > k.examples.len() {
            ", …"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "warning: {} (samples {}{more})\n  hint: they score as empty answers; docs/pipelines.md shows the answer of kind {}, and schemas/answer-{}.schema.json checks one",
            one_line(&k.describe()),
            one_line(&k.examples.join(", ")),
            k.kind.as_str(),
            k.kind.as_str(),
        );
    }
    out
}

/// The PR comment's lines (Markdown), one per group, at most [`MAX_GROUPS`].
pub fn markdown(keyless: &[Keyless]) -> Vec<String> {
    let code = |keys: &[String], at_most: usize| {
        let cut = |k: &String| match k.char_indices().nth(MAX_KEY_CHARS) {
            Some((at, _)) => format!("{}…", &k[..at]),
            None => k.clone(),
        };
        let list: Vec<String> = keys
            .iter()
            .take(at_most)
            .map(|k| markdown_code(&cut(k)))
            .collect();
        list.join(", ")
    };
    keyless
        .iter()
        .take(MAX_GROUPS)
        .map(|k| {
            let mut ids = code(&k.examples, EXAMPLES);
            if k.samples > k.examples.len().min(EXAMPLES) {
                ids.push_str(", …");
            }
            let found = match k.found.as_slice() {
                [] => "nothing".to_string(),
                keys => code(keys, MAX_FOUND),
            };
            let task = k
                .task
                .as_ref()
                .map(|t| format!(" (task {})", code(std::slice::from_ref(t), 1)))
                .unwrap_or_default();
            let answers = match k.answers {
                1 => "1 answer holds".to_string(),
                n => format!("{n} answers hold"),
            };
            format!(
                "**{answers} none of the keys {}{task} reads** ({}); found: {found} (samples {ids}). They score as empty answers: see [what a pipeline prints]({ANSWERS_DOCS}).",
                k.kind.as_str(),
                code(&k.expected, MAX_FOUND),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_comment_says_them_within_bounds_whatever_the_verdict_claims() {
        let long = "k".repeat(500);
        // Any kind: the text is the same for each.
        let kind = goldgate_core::kinds::all().next().unwrap();
        let key = goldgate_core::kinds::of(kind).answer_keys()[0];
        let claimed: Vec<Keyless> = (0..30)
            .map(|i| Keyless {
                kind,
                task: Some(format!("t{i}")),
                answers: 3,
                samples: 40,
                expected: vec![key.into()],
                found: vec![long.clone(); 50],
                examples: (0..50).map(|e| format!("s-{e}")).collect(),
            })
            .collect();
        let lines = markdown(&claimed);
        assert_eq!(lines.len(), MAX_GROUPS);
        assert!(
            lines[0].starts_with(&format!(
                "**3 answers hold none of the keys {kind} (task `t0`) reads** (`{key}`); found: "
            )),
            "{}",
            lines[0]
        );
        assert_eq!(lines[0].matches("s-").count(), EXAMPLES, "{}", lines[0]);
        let cut = format!("`{}…`", "k".repeat(MAX_KEY_CHARS));
        assert_eq!(lines[0].matches(&cut).count(), MAX_FOUND, "{}", lines[0]);
    }

    #[test]
    fn the_run_summary_names_the_keys_what_was_found_and_where_to_look() {
        // A kind whose answer has two keys (the text lists both).
        let kind = goldgate_core::kinds::all()
            .find(|k| goldgate_core::kinds::of(*k).answer_keys().len() == 2)
            .unwrap();
        let keys = goldgate_core::kinds::of(kind).answer_keys();
        let one = Keyless {
            kind,
            task: None,
            answers: 2,
            samples: 2,
            expected: keys.iter().map(|k| k.to_string()).collect(),
            found: vec!["problems".into()],
            examples: vec!["s-1".into(), "s-2".into()],
        };
        assert_eq!(
            terminal(&[one]),
            format!(
                "warning: 2 answers hold none of the keys {kind} reads ({}, {}); found: problems (samples s-1, s-2)\n  hint: they score as empty answers; docs/pipelines.md shows the answer of kind {kind}, and schemas/answer-{kind}.schema.json checks one\n",
                keys[0], keys[1]
            )
        );
        assert_eq!(terminal(&[]), "");
    }
}
