//! What makes two score files comparable, as `compare` refuses or warns: metrics
//! versions, suites, scoring settings and models.

use super::{compare, CompareOptions};
use crate::testkit::{metric, options, rules, test_kind_file};

#[test]
fn a_metrics_version_change_is_refused_unless_allowed() {
    let base = test_kind_file(&[(5.0, 0.0, 0.0, false)], "0");
    let cand = test_kind_file(&[(5.0, 0.0, 0.0, false)], "1");
    let e = compare(&cand, Some(&base), &rules(""), &options())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("metrics_version") && e.contains("--allow-version-change"),
        "{e}"
    );
    let allowed = CompareOptions {
        allow_version_change: true,
        ..options()
    };
    let v = compare(&cand, Some(&base), &rules(""), &allowed).unwrap();
    assert!(v
        .provenance
        .differences
        .iter()
        .any(|d| d.starts_with("metrics_version")));
}

#[test]
fn a_change_of_judge_is_refused_unless_allowed() {
    use crate::score::file::JudgeSummary;
    let judge = |model: &str, prompt: &str| {
        Some(JudgeSummary {
            model: model.into(),
            prompt_fingerprint: prompt.into(),
        })
    };
    let mut base = test_kind_file(&[(5.0, 0.0, 0.0, false)], "1");
    base.provenance.scoring.judge = judge("gpt-4o-mini", "sha256:aaaa1111bbbb2222");
    let mut other_model = base.clone();
    other_model.provenance.scoring.judge = judge("gpt-4o", "sha256:aaaa1111bbbb2222");
    let e = compare(&other_model, Some(&base), &rules(""), &options())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("judged by different judges (gpt-4o-mini → gpt-4o)")
            && e.contains("--allow-version-change"),
        "{e}"
    );
    let mut other_prompt = base.clone();
    other_prompt.provenance.scoring.judge = judge("gpt-4o-mini", "sha256:cccc3333dddd4444");
    let e = compare(&other_prompt, Some(&base), &rules(""), &options())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("prompt sha256:aaaa1111 → sha256:cccc3333"),
        "{e}"
    );
    // Records reviewed by several judges are comparable with none.
    let mut mixed = base.clone();
    mixed.provenance.scoring.judge = judge(JudgeSummary::MIXED, JudgeSummary::MIXED);
    assert!(compare(&mixed, Some(&mixed), &rules(""), &options()).is_err());
    let allowed = CompareOptions {
        allow_version_change: true,
        ..options()
    };
    assert!(compare(&other_prompt, Some(&base), &rules(""), &allowed).is_ok());
    assert!(compare(&base, Some(&base), &rules(""), &options()).is_ok());
    // A run without a judge has no judge metrics to compare: not refused.
    let mut unjudged = base.clone();
    unjudged.provenance.scoring.judge = None;
    assert!(compare(&unjudged, Some(&base), &rules(""), &options()).is_ok());
    assert!(compare(&base, Some(&unjudged), &rules(""), &options()).is_ok());
}

#[test]
fn a_judge_rule_on_a_run_no_judge_reviewed_is_an_error() {
    let cand = test_kind_file(&[(5.0, 0.0, 0.0, false)], "1");
    let gated = rules(&format!(
        "[metrics.\"{}\"]\nmin = 0.5\n[metrics.\"judge.comprehensive_weighted\"]\nmin = 0.6\n",
        metric("f1")
    ));
    for baseline in [None, Some(&cand)] {
        let e = compare(&cand, baseline, &gated, &options())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("t.toml:4: error: a rule gates judge.comprehensive_weighted, but no record of the candidate was reviewed by a judge")
                && e.contains("[judge]"),
            "{e}"
        );
    }
    let mut judged = cand.clone();
    judged.provenance.scoring.judge = Some(crate::score::file::JudgeSummary {
        model: "m".into(),
        prompt_fingerprint: "sha256:p".into(),
    });
    assert!(compare(&judged, None, &gated, &options()).is_ok());
    assert!(compare(&cand, None, &rules(""), &options()).is_ok());
}

#[test]
fn a_similarity_or_model_change_is_refused_unless_allowed() {
    let base = test_kind_file(&[(5.0, 0.0, 0.0, false)], "1");
    let mut cand = base.clone();
    cand.provenance.scoring.similarity = "minilm".into();
    cand.provenance.scoring.model = Some("all-MiniLM-L6-v2".into());
    cand.provenance.scoring.model_fingerprint = Some("ab12".into());
    let e = compare(&cand, Some(&base), &rules(""), &options())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("lexical → minilm all-MiniLM-L6-v2") && e.contains("--allow-version-change"),
        "{e}"
    );
    // The same model name with other files under it is another model.
    let mut retrained = cand.clone();
    retrained.provenance.scoring.model_fingerprint = Some("cd34".into());
    let e = compare(&retrained, Some(&cand), &rules(""), &options())
        .unwrap_err()
        .to_string();
    assert!(e.contains("fingerprint ab12 → cd34"), "{e}");
    let allowed = CompareOptions {
        allow_version_change: true,
        ..options()
    };
    assert!(compare(&retrained, Some(&cand), &rules(""), &allowed).is_ok());
    assert!(compare(&cand, Some(&cand), &rules(""), &options()).is_ok());
    // The same files found at another path are the same model.
    let mut moved = cand.clone();
    moved.provenance.scoring.model = Some("/elsewhere/all-MiniLM-L6-v2".into());
    assert!(compare(&moved, Some(&cand), &rules(""), &options()).is_ok());
}
