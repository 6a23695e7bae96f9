//! Untrusted text in every rendered artefact. A verdict file can come from a fork's artifact
//! and a score file from anyone's run: a verdict whose metric name, group name, sample ids,
//! reasons, rule and diffs carry newlines, a mention, HTML, fence lines, workflow commands
//! and control characters renders harmless in the PR comment, the HTML report, JUnit, the
//! annotations and the terminal.

use goldgate::report::{html, junit, markdown, terminal};
use goldgate_core::gate::compare::compare;
use goldgate_core::gate::diff::SampleDiff;
use goldgate_core::gate::verdict::Verdict;

use super::terminal::{options, rules, scores};

/// Everything a hostile field can try at once, bidirectional overrides, isolates and marks
/// (the "Trojan Source" reordering) included.
const HOSTILE: &str =
    "x\n@octocat <img src=x> ~~~\n::error::pwned\u{1b}[31mred\u{7}\0\u{9b}2J ##[warning]old\r::notice::cr \u{202e}evil\u{202c} \u{2067}iso\u{2069} \u{200f}\u{61c}";

/// The bidirectional controls: embeddings and overrides (U+202A–U+202E), isolates
/// (U+2066–U+2069) and the marks (U+200E, U+200F, U+061C).
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

fn hostile_verdict() -> Verdict {
    let (base, cand) = (scores("esc-base", 2), scores("esc-cand", 1));
    let mut v = compare(&cand, Some(&base), &rules(), &options()).unwrap();
    v.summary = format!("failed: {HOSTILE}");
    for m in v.metrics.iter_mut().filter(|m| m.rule.is_some()) {
        m.name = format!("{}{HOSTILE}", m.name);
        m.reasons.push(HOSTILE.into());
        if let Some(rule) = m.rule.as_mut() {
            rule.max_regression = Some(HOSTILE.into());
        }
    }
    assert!(!v.groups.is_empty(), "the test needs group rows");
    for g in &mut v.groups {
        g.dimension = HOSTILE.into();
        g.group = HOSTILE.into();
        g.metric = HOSTILE.into();
    }
    let analysis = v.samples.as_mut().unwrap();
    analysis.broken[0].id = HOSTILE.into();
    v.sample_results[0].id = HOSTILE.into();
    v.missing.push(HOSTILE.into());
    v.added.push(HOSTILE.into());
    v.ratchet.push(HOSTILE.into());
    v.provenance
        .differences
        .push(format!("model: a → {HOSTILE}"));
    let lines = format!("--- gold\n+++ candidate\n@@ -1 +1 @@\n-{HOSTILE}\n+```\n+~~~~\n+````` </details> <script>\n");
    v.diffs.push(SampleDiff {
        id: HOSTILE.into(),
        gold_vs_candidate: lines.clone(),
        baseline_vs_candidate: Some(lines.clone()),
        matching: lines
            .lines()
            .map(|l| format!("matched    REQ-001 ↔ {l}"))
            .collect(),
        schema: lines
            .lines()
            .map(|l| format!("/requirements/0/id: `{l}` does not match the id pattern"))
            .collect(),
    });
    v
}

/// No control character but a newline or a tab, no bidirectional control, no workflow
/// command at a line start (after the blanks the runner skips) or legacy `##[` command
/// anywhere.
fn assert_plain(what: &str, text: &str) {
    for c in text.chars() {
        assert!(
            !c.is_control() || c == '\n' || c == '\t',
            "{what}: a raw control character U+{:04X} in:\n{text}",
            c as u32
        );
        assert!(
            !is_bidi(c),
            "{what}: a raw bidirectional control U+{:04X} in:\n{text}",
            c as u32
        );
    }
    for line in text.lines() {
        assert!(
            !line.trim_start().starts_with("::"),
            "{what}: a line starts a workflow command: {line:?}"
        );
    }
    assert!(!text.contains("##["), "{what}: a legacy workflow command");
}

/// [`assert_plain`], and no raw `<img` (for the formats a browser renders: Markdown, HTML,
/// and XML that reporters show; in a terminal `<` is just a character).
fn assert_inert(what: &str, text: &str) {
    assert_plain(what, text);
    assert!(
        !text.to_lowercase().contains("<img"),
        "{what}: raw HTML from a field:\n{text}"
    );
}

/// Markdown outside code spans and fenced blocks (where mentions and HTML are inert); fails
/// when a fence is left open.
fn outside_code(markdown: &str) -> String {
    let mut prose = String::new();
    let mut fence: Option<(char, usize)> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        let run = |c: char| trimmed.chars().take_while(|&x| x == c).count();
        match fence {
            Some((c, n)) => {
                if run(c) >= n && trimmed.trim_end().chars().all(|x| x == c) {
                    fence = None;
                }
            }
            None => {
                if let Some(c) = ['`', '~'].into_iter().find(|&c| run(c) >= 3) {
                    fence = Some((c, run(c)));
                } else {
                    prose.push_str(&without_code_spans(line));
                    prose.push('\n');
                }
            }
        }
    }
    assert!(fence.is_none(), "a fence is never closed:\n{markdown}");
    prose
}

/// A line without its code spans (a run of n backticks up to the next run of exactly n).
fn without_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = chars[i..].iter().take_while(|&&c| c == '`').count();
        let mut j = i + n;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let m = chars[j..].iter().take_while(|&&c| c == '`').count();
                if m == n {
                    close = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => i = end,
            None => {
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}

#[test]
fn a_hostile_verdict_renders_an_inert_pr_comment() {
    let v = hostile_verdict();
    let body = markdown::comment(&v, "goldgate", None).unwrap();
    assert_plain("comment", &body);
    let prose = outside_code(&body);
    // Inside code (the answers' diffs) HTML is text; outside it nothing is raw.
    assert_inert("comment outside code", &prose);
    assert!(
        !prose.contains("@octocat"),
        "a mention outside code:\n{body}"
    );
    for line in prose.lines() {
        assert!(
            !line.starts_with("~~~") && !line.starts_with("```"),
            "a fence line from a field: {line:?}\n{body}"
        );
    }
    assert!(
        prose.contains("<sub>goldgate"),
        "the footer is outside every fence:\n{body}"
    );
    assert_eq!(
        prose.matches("<details>").count(),
        prose.matches("</details>").count(),
        "details stay balanced:\n{body}"
    );
    assert!(!prose.contains("<script"), "{body}");
    // The text is escaped, not dropped: the control characters show as visible escapes.
    assert!(
        body.contains('␛') && body.contains('␇') && body.contains('␀'),
        "{body}"
    );
    let summary = markdown::summary(
        &v,
        &markdown::Render {
            gate_name: "goldgate",
            files: vec!["out/x\n::error::f".into()],
            ..Default::default()
        },
    )
    .unwrap();
    assert_plain("job summary", &summary);
    assert_inert("job summary outside code", &outside_code(&summary));
    assert!(!outside_code(&summary).contains("@octocat"), "{summary}");
}

#[test]
fn a_hostile_verdict_renders_inert_html_and_junit() {
    let v = hostile_verdict();
    let cand = scores("esc-html", 1);
    let page = html::report(&v, &cand, None).unwrap();
    assert_inert("html", &page);
    // One script, the report's own (the page's Content-Security-Policy runs nothing else).
    assert_eq!(page.matches("<script").count(), 1, "{page}");
    assert!(page.contains(&format!("<script>{}</script>", html::REPORT_SCRIPT)));
    let xml = junit::junit(&v);
    assert_inert("junit", &xml);
    assert!(xml.contains('␛'), "escaped, not dropped:\n{xml}");
}

#[test]
fn a_hostile_verdict_prints_inert_terminal_text_and_annotations() {
    let v = hostile_verdict();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    {
        let mut reporter = goldgate::Reporter::new(&mut out, &mut err);
        reporter.out(&terminal::verdict(&v));
        reporter.out(&terminal::brief(&v));
        reporter.note(&format!("note: {HOSTILE}\n"));
    }
    for (what, bytes) in [("stdout", out), ("stderr", err)] {
        let text = String::from_utf8(bytes).unwrap();
        assert_plain(what, &text);
        assert!(text.contains('␛'), "{what}: escaped, not dropped:\n{text}");
    }
    // goldgate's own annotations are the only workflow commands, one per line, with every
    // field escaped by GitHub's rules (data: % CR LF; properties also : and ,).
    let annotations = goldgate::publish::actions::annotations(&v);
    assert!(!annotations.is_empty());
    for line in annotations.lines() {
        let rest = line
            .strip_prefix("::error title=")
            .or_else(|| line.strip_prefix("::warning title="))
            .unwrap_or_else(|| panic!("not one of goldgate's annotations: {line:?}"));
        let (title, data) = rest
            .split_once("::")
            .unwrap_or_else(|| panic!("no data separator: {line:?}"));
        assert!(
            !title.contains([',', ':']),
            "a property separator in the title: {line:?}"
        );
        assert!(!data.contains("##["), "{line:?}");
        assert!(
            !line.chars().any(|c| c.is_control() || is_bidi(c)),
            "a control character in an annotation: {line:?}"
        );
    }
}
