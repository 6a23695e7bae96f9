//! The LLM judge's trouble, said in every report whether or not a rule gates `judge.*`:
//! the judgements it failed (how many of how many, and the first one's cause) and the
//! samples whose documents are suspect of steering it, each with why — in the terminal,
//! the PR comment and the HTML report. Text from the verdict is escaped where it is shown
//! and cut by [`JudgeReviews`] (a verdict may come from a fork).

use std::fmt::Write;

use goldgate_core::escape::{markdown_code, markdown_inline, one_line};
use goldgate_core::judge::reviews::JudgeReviews;

/// What the judge's failures leave out of the numbers.
const FAILED_NOTE: &str =
    "the judge.* metrics have no value from those judgements (judge.invalid_rate counts them)";
/// What a suspect document means for its scores.
const SUSPECT_NOTE: &str = "the judge.* scores of such a sample may be what its text asked for, not the judge's review (judge.suspect_rate; docs/judge.md says what is suspect)";

/// `the judge failed 20 of 20 judgements; the first (sample e-1): CAUSE`, as plain text.
fn failed_text(r: &JudgeReviews) -> Option<String> {
    let headline = r.failed_headline()?;
    Some(match r.first_failure() {
        Some((sample, cause)) => format!("{headline}; the first (sample {sample}): {cause}"),
        None => headline,
    })
}

/// The lines of the terminal (the gate table, `--format brief`); empty when there is nothing
/// to say.
pub fn terminal(r: &JudgeReviews) -> String {
    let mut out = String::new();
    if let Some(failed) = failed_text(r) {
        let _ = writeln!(out, "warning: {}\n  {FAILED_NOTE}", one_line(&failed));
    }
    if let Some(suspect) = r.suspect_headline() {
        let _ = writeln!(out, "warning: {suspect}: {SUSPECT_NOTE}");
        for (id, reasons) in r.suspect_items() {
            let _ = writeln!(out, "  {}: {}", one_line(&id), one_line(&reasons));
        }
        if r.suspect_unlisted() > 0 {
            let _ = writeln!(out, "  and {} more", r.suspect_unlisted());
        }
    }
    out
}

/// The PR comment's paragraphs (Markdown, every value escaped).
pub fn markdown(r: &JudgeReviews) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(headline) = r.failed_headline() {
        let first = r
            .first_failure()
            .map_or_else(String::new, |(sample, cause)| {
                format!(
                    "; the first (sample {}): {}",
                    markdown_code(&sample),
                    markdown_inline(&cause)
                )
            });
        out.push(format!(
            "**{}**{first}. {}.",
            capitalised(&headline),
            markdown_inline(&capitalised(FAILED_NOTE))
        ));
    }
    if let Some(headline) = r.suspect_headline() {
        let mut lines = vec![format!(
            "**{}**: {}.",
            capitalised(&headline),
            markdown_inline(SUSPECT_NOTE)
        )];
        for (id, reasons) in r.suspect_items() {
            lines.push(format!(
                "- {}: {}",
                markdown_code(&id),
                markdown_inline(&reasons)
            ));
        }
        if r.suspect_unlisted() > 0 {
            lines.push(format!("- and {} more", r.suspect_unlisted()));
        }
        out.push(lines.join("\n"));
    }
    out
}

/// The HTML report's notices: (headline, what follows, items), as plain text the template
/// escapes.
pub fn html(r: &JudgeReviews) -> Vec<(String, String, Vec<String>)> {
    let mut out = Vec::new();
    if let Some(failed) = failed_text(r) {
        out.push((capitalised(&failed), FAILED_NOTE.to_string(), Vec::new()));
    }
    if let Some(suspect) = r.suspect_headline() {
        let mut items: Vec<String> = r
            .suspect_items()
            .into_iter()
            .map(|(id, reasons)| format!("{id}: {reasons}"))
            .collect();
        if r.suspect_unlisted() > 0 {
            items.push(format!("and {} more", r.suspect_unlisted()));
        }
        out.push((capitalised(&suspect), SUSPECT_NOTE.to_string(), items));
    }
    out
}

/// `text` with its first letter upper case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use goldgate_core::judge::reviews::{JudgeFailure, SuspectSample};

    fn reviews() -> JudgeReviews {
        JudgeReviews {
            judgements: 20,
            failed: 20,
            first_failure: Some(JudgeFailure {
                sample: "e-1".into(),
                cause: "POST http://127.0.0.1:9/v1/chat/completions: 401 Unauthorized: bad key"
                    .into(),
            }),
            suspect_samples: 12,
            suspect: (0..10)
                .map(|i| SuspectSample {
                    id: format!("s-{i}"),
                    reasons: vec!["line 3 is fence-like (it starts with `>>>`)".into()],
                })
                .collect(),
        }
    }

    #[test]
    fn the_terminal_says_how_many_failed_the_first_cause_and_each_suspect_sample() {
        let text = terminal(&reviews());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "warning: the judge failed 20 of 20 judgements; the first (sample e-1): POST http://127.0.0.1:9/v1/chat/completions: 401 Unauthorized: bad key"
        );
        assert_eq!(lines[1], format!("  {FAILED_NOTE}"));
        assert_eq!(
            lines[2],
            format!("warning: 12 samples hold text that could steer their judge: {SUSPECT_NOTE}")
        );
        assert_eq!(
            lines[3],
            "  s-0: line 3 is fence-like (it starts with `>>>`)"
        );
        // The ten listed, the rest counted.
        assert_eq!(lines.len(), 3 + 10 + 1);
        assert_eq!(lines[13], "  and 2 more");
        assert_eq!(terminal(&JudgeReviews::default()), "");
        assert!(markdown(&JudgeReviews::default()).is_empty());
    }

    #[test]
    fn a_forged_verdict_is_escaped_and_cut() {
        let mut r = reviews();
        r.first_failure = Some(JudgeFailure {
            sample: "@octocat".into(),
            cause: format!("<script>x</script>\n| {}", "y".repeat(5000)),
        });
        r.suspect = vec![
            SuspectSample {
                id: "`x".into(),
                reasons: vec!["[x](javascript:alert(1))".into(); 50],
            };
            500
        ];
        let md = markdown(&r).join("\n");
        assert!(!md.contains("@octocat") && !md.contains("<script>"), "{md}");
        assert!(!md.contains("[x](javascript"), "{md}");
        assert!(md.len() < 6000, "{}", md.len());
        assert_eq!(md.matches("\n- ").count(), 10 + 1, "{md}");
        let text = terminal(&r);
        assert!(text.lines().next().unwrap().chars().count() < 500);
    }
}
