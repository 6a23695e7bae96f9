//! The terminal renderer on data made through the library: the verdict and its brief form
//! say what broke and why, with one sign for a missing value; lint and thresholds read as
//! people need them.

use std::path::Path;

use goldgate::error::{Location, Problem};
use goldgate::gate::compare::{compare, CompareOptions};
use goldgate::gate::thresholds::Thresholds;
use goldgate::metrics::bootstrap::BootstrapConfig;
use goldgate::report::terminal;
use serde_json::{json, Value};

use crate::scoring::{extraction, req, run};

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
pub(crate) fn scores(name: &str, kept: usize) -> goldgate::score::ScoreFile {
    let samples: Vec<Value> = (0..4)
        .map(|i| extraction(&format!("s{i}"), gold()))
        .collect();
    let outputs: Vec<(String, Value)> = (0..4)
        .map(|i| {
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
    }
}

#[test]
fn a_failing_verdict_says_what_broke_and_why() {
    let (base, cand) = (scores("term-base", 2), scores("term-cand", 1));
    let verdict = compare(&cand, Some(&base), &rules(), &options()).unwrap();
    let text = terminal::verdict(&verdict);
    assert!(
        text.starts_with("FAIL: failed: extraction.recall"),
        "{text}"
    );
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
        brief.contains("broken     4 sample(s): s0, s1, s2, s3"),
        "{brief}"
    );
    assert!(
        !brief.contains("extraction.precision"),
        "only what broke:\n{brief}"
    );
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
