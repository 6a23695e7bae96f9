//! Snapshots (insta) of every artefact an extraction gate renders, made from one gate
//! through the library: the PR comment (which is also the job summary and `report.md`),
//! the HTML report, JUnit XML, and the terminal tables. The snapshots are in
//! `tests/snapshots/`.

use std::path::Path;

use goldgate::report::{html, junit, markdown, terminal};
use goldgate_core::gate::compare::compare;
use goldgate_core::gate::verdict::Verdict;
use goldgate_core::score::ScoreFile;

use super::terminal::{options, rules, scores};
use crate::snapshots::settings;

/// A failing gate (recall halves on every sample) and the candidate's score file.
fn gate() -> (Verdict, ScoreFile) {
    let (base, cand) = (scores("snap-base", 2), scores("snap-cand", 1));
    let verdict = compare(&cand, Some(&base), &rules(), &options()).unwrap();
    (verdict, cand)
}

#[test]
fn the_pr_comment() {
    let (verdict, _) = gate();
    let body = markdown::comment(&verdict, "goldgate", None).unwrap();
    settings().bind(|| insta::assert_snapshot!("comment", body));
}

#[test]
fn the_html_report() {
    let (verdict, cand) = gate();
    let page = html::report(&verdict, &cand, None).unwrap();
    settings().bind(|| insta::assert_snapshot!("report_html", page));
}

#[test]
fn junit_xml() {
    let (verdict, _) = gate();
    settings().bind(|| insta::assert_snapshot!("junit", junit::junit(&verdict)));
}

#[test]
fn the_terminal_verdict_brief_and_score_summary() {
    let (verdict, cand) = gate();
    settings().bind(|| {
        insta::assert_snapshot!("verdict_text", terminal::verdict(&verdict));
        insta::assert_snapshot!("verdict_brief", terminal::brief(&verdict));
        insta::assert_snapshot!(
            "score_summary",
            terminal::score_summary(&cand, Path::new("score.json"))
        );
        insta::assert_snapshot!(
            "thresholds",
            terminal::thresholds(&rules(), Path::new("thresholds.toml"))
        );
    });
}
