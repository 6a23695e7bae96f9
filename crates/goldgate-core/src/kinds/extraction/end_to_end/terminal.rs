//! The terminal renderer on data made through the library: the verdict and its brief form
//! say what broke and why, with one sign for a missing value; lint and thresholds read as
//! people need them.

use std::path::Path;

use goldgate::report::terminal;
use goldgate_core::error::{Location, Problem};
use goldgate_core::gate::compare::{compare, CompareOptions};
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::metrics::bootstrap::BootstrapConfig;
use serde_json::{json, Value};

use super::scoring::{extraction, req};
use crate::support::scoring::run;

/// The two gold requirements of every sample here.
pub(crate) fn gold() -> Vec<Value> {
    vec![
        req(
            "REQ-001",
            "Track orders",
            "functional",
            "customer",
            "track orders online",
            &[0],
        ),
        req(
            "REQ-002",
            "Export reports",
            "functional",
            "admin",
            "export monthly reports",
            &[1],
        ),
    ]
}

/// Four samples with two requirements each; the candidate answers `kept` of the two.
pub(crate) fn scores(name: &str, kept: usize) -> goldgate_core::score::ScoreFile {
    scores_each(name, &[kept; 4])
}

/// A sample per entry of `kept`, with two requirements each; the candidate answers
/// `kept[i]` of sample i's two.
fn scores_each(name: &str, kept: &[usize]) -> goldgate_core::score::ScoreFile {
    let samples: Vec<Value> = (0..kept.len())
        .map(|i| extraction(&format!("s{i}"), gold()))
        .collect();
    let outputs: Vec<(String, Value)> = kept
        .iter()
        .enumerate()
        .map(|(i, &kept)| {
            (
                format!("s{i}"),
                json!(gold().into_iter().take(kept).collect::<Vec<_>>()),
            )
        })
        .collect();
    let outputs: Vec<(&str, Value)> = outputs
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    run(name, &samples, &outputs)
}

pub(crate) fn rules() -> Thresholds {
    Thresholds::parse(
        "version = 1\n[metrics.\"extraction.recall\"]\nmin = 0.8\nmax_regression = 0.02\n",
        Path::new("thresholds.toml"),
    )
    .unwrap()
}

pub(crate) fn options() -> CompareOptions {
    CompareOptions {
        bootstrap: BootstrapConfig {
            resamples: 200,
            ..BootstrapConfig::default()
        },
        allow_version_change: false,
        ratchet: vec!["extraction.recall: min lowered from 0.9 to 0.8".into()],
        reference: None,
    }
}

#[test]
fn a_failing_verdict_says_what_broke_and_why() {
    let (base, cand) = (scores("term-base", 2), scores("term-cand", 1));
    let verdict = compare(&cand, Some(&base), &rules(), &options()).unwrap();
    let text = terminal::verdict(&verdict);
    assert!(
        text.starts_with("FAIL: extraction.recall\n"),
        "the headline says the outcome once:\n{text}"
    );
    assert!(!text.contains("FAIL: failed"), "{text}");
    assert!(text.contains("0.5000 is below the floor 0.8000"), "{text}");
    assert!(
        text.contains("1.0000 → 0.5000 is worse by 0.5000"),
        "{text}"
    );
    assert!(text.contains("4 broken"), "{text}");
    assert!(
        text.contains("loosened"),
        "the ratchet finding is shown:\n{text}"
    );
    let brief = terminal::brief(&verdict);
    assert!(
        brief.starts_with("goldgate: failed: extraction.recall (4 samples)\n"),
        "{brief}"
    );
    assert!(
        brief.contains("  fail       extraction.recall: 1.0000 → 0.5000 (Δ -0.5000"),
        "{brief}"
    );
    assert!(
        brief.contains("broken     4 samples: s0, s1, s2, s3"),
        "{brief}"
    );
    assert!(
        !brief.contains("extraction.precision"),
        "only what broke:\n{brief}"
    );
}

/// Each cell of a table line with where it starts and ends (in characters): cells are
/// separated by two spaces or more.
fn cells(line: &str) -> Vec<(usize, usize, String)> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == ' ' {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && !(chars[i] == ' ' && chars.get(i + 1) == Some(&' ')) {
            i += 1;
        }
        out.push((
            start,
            i,
            chars[start..i].iter().collect::<String>().trim_end().into(),
        ));
    }
    out
}

/// Latency and token rows, whose values run to hundreds and thousands, line up with the
/// other rows: names, rules and statuses start where their headers do, values and deltas
/// end where theirs do. (The columns had fixed widths, which such numbers overflowed, and
/// their deltas were written with four decimals.)
#[test]
fn latency_and_token_rows_line_up_with_the_others() {
    let (base, cand) = (scores("term-align-base", 2), scores("term-align-cand", 1));
    let mut verdict = compare(&cand, Some(&base), &rules(), &options()).unwrap();
    let mut like = |name: &str, values: (f64, f64), ci: [f64; 2]| {
        let m = verdict.metrics.iter_mut().find(|m| m.name == name).unwrap();
        (m.baseline, m.candidate) = (Some(values.0), Some(values.1));
        m.delta = Some(values.1 - values.0);
        m.delta_ci = Some(ci);
    };
    like("run.latency_p50_ms", (207.5, 236.48), [0.487, 137.767]);
    like("run.tokens_total", (32161.0, 31651.0), [-594.0, -438.0]);
    let text = terminal::verdict(&verdict);
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("metric "))
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with("    "))
        .collect();
    let header = cells(table[0]);
    assert_eq!(header.len(), 5, "{text}");
    let latency = table
        .iter()
        .find(|l| l.starts_with("run.latency_p50_ms"))
        .unwrap();
    assert!(
        latency.contains("207.5 → 236.5") && latency.contains("+29.0 [+0.5, +137.8]"),
        "written like the values: {latency}"
    );
    assert!(
        table.iter().any(|l| l.contains("-510.0 [-594.0, -438.0]")),
        "{text}"
    );
    for row in &table[1..] {
        let c = cells(row);
        assert!(c.len() >= 4, "{row}");
        assert_eq!(c[0].0, header[0].0, "name: {row}\n{text}");
        assert_eq!(
            c[1].1, header[1].1,
            "values end where their header does: {row}\n{text}"
        );
        assert_eq!(c[2].1, header[2].1, "deltas too: {row}\n{text}");
        assert_eq!(
            c[3].0, header[3].0,
            "rules start where theirs does: {row}\n{text}"
        );
        if let Some(status) = c.get(4) {
            assert_eq!(status.0, header[4].0, "{row}\n{text}");
        }
    }
}

/// A suite of 7 samples whose recall drops by more than the rule allows, but not
/// significantly: the terminal, the PR comment and the verdict's JSON say how large a drop
/// this suite can see at all.
#[test]
fn a_small_suite_says_the_smallest_drop_it_can_see() {
    let base = scores_each("term-mdc-base", &[2, 2, 2, 2, 2, 1, 2]);
    let cand = scores_each("term-mdc-cand", &[2, 1, 2, 2, 2, 2, 1]);
    let verdict = compare(&cand, Some(&base), &rules(), &options()).unwrap();
    let m = verdict
        .metrics
        .iter()
        .find(|m| m.name == "extraction.recall")
        .unwrap();
    assert!(m.reasons[0].contains("not significant"), "{:?}", m.reasons);
    let d = m.detectable.expect("stated");
    let sentence = format!(
        "with 7 samples this gate can only see drops larger than {:.4} in extraction.recall (at 95% confidence)",
        d.change
    );
    let text = terminal::verdict(&verdict);
    assert!(text.contains(&format!("\n    {sentence}\n")), "{text}");
    let comment = goldgate::report::markdown::comment(&verdict, "goldgate", None).unwrap();
    assert!(
        comment.contains("- `extraction.recall`: ") && comment.contains(&sentence),
        "{comment}"
    );
    let json: Value = serde_json::to_value(&verdict).unwrap();
    let row = crate::support::output::metric_row(&json, "extraction.recall");
    assert_eq!(row["detectable"]["samples"], 7, "{row}");
    assert_eq!(row["detectable"]["confidence"], 0.95);
    assert!(row["detectable"]["change"].as_f64().unwrap() > 0.0);
}

#[test]
fn without_a_baseline_missing_values_show_one_sign_and_a_pass_is_one_line() {
    let cand = scores("term-first", 2);
    let verdict = compare(&cand, None, &rules(), &options()).unwrap();
    let text = terminal::verdict(&verdict);
    assert!(
        text.contains("(no baseline yet: absolute rules only)"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.starts_with("extraction.recall"))
        .unwrap();
    assert!(row.contains("– → 1.0000"), "{row}");
    assert!(
        !text.contains(" - "),
        "no second sign for missing values:\n{text}"
    );
    let mut clean = options();
    clean.ratchet.clear();
    let verdict = compare(&cand, Some(&cand), &rules(), &clean).unwrap();
    assert_eq!(terminal::brief(&verdict).lines().count(), 1);
}

#[test]
fn lint_lists_every_problem_with_its_place_and_hint() {
    let problem = Problem::new(
        Location::new(Path::new("suite/a.yaml"), 3, 5),
        Some("labels.requirements[0].type".into()),
        "unknown type `functonal`",
    )
    .with_hint("did you mean `functional`?");
    let warning = Problem::new(
        Location::new(Path::new("suite/b.yaml"), 9, 0),
        None,
        "one acceptance criterion",
    )
    .warning();
    let text = terminal::lint_report(&[problem, warning], 2, 2);
    assert!(
        text.contains("suite/a.yaml:3:5: error: `labels.requirements[0].type`: unknown type `functonal`\n  hint: did you mean `functional`?"),
        "{text}"
    );
    assert!(
        text.contains("suite/b.yaml:9: warning: one acceptance criterion"),
        "{text}"
    );
    assert!(terminal::lint_report(&[], 40, 40).contains("40 samples in 40 files, no problems"));
}

#[test]
fn thresholds_read_as_rules() {
    let text = terminal::thresholds(&rules(), Path::new("thresholds.toml"));
    assert!(text.contains("extraction.recall"), "{text}");
    assert!(
        text.contains("≥ 0.8") && text.contains("Δ ≤ 0.02"),
        "{text}"
    );
}

/// The one line saying which cache entries were ignored and why: the count, each reason with
/// its count (git's own reason when it could not say), the first three paths (escaped: a
/// planted file's name is untrusted) and how many more.
#[test]
fn ignored_cache_entries_are_one_line_with_reasons_and_a_few_paths() {
    use goldgate_core::cachedir::{Ignored, Refused};
    assert_eq!(terminal::ignored_cache_entries(&Ignored::default()), "");
    let ignored = Ignored {
        entries: 5,
        reasons: [
            (Refused::Tracked, 2),
            (Refused::Symlink, 1),
            (Refused::TooLarge, 1),
            (Refused::Unverified, 1),
        ]
        .into(),
        examples: vec![
            ".goldgate/cache/ab/ab01.json".into(),
            ".goldgate/cache/judge/cd/cd02.json".into(),
            ".goldgate/cache/embeddings/f00d/\u{1b}[31mred.vec".into(),
        ],
        git_error: Some("git ls-files failed: fatal: detected dubious ownership".into()),
    };
    let one = Ignored {
        entries: 1,
        reasons: [(Refused::NotRegular, 1)].into(),
        examples: vec![".goldgate/cache/ab/ab01.json".into()],
        git_error: None,
    };
    let text = terminal::ignored_cache_entries(&ignored) + &terminal::ignored_cache_entries(&one);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(!text.contains('\u{1b}'), "{text}");
    crate::snapshots::settings()
        .bind(|| insta::assert_snapshot!("terminal_ignored_cache_entries", text));
}
