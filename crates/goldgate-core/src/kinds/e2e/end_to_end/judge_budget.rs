//! What the judge costs: a judge whose server reports no usage is counted by goldgate, and
//! its judgements say their tokens (and so their cost) are an estimate.

use serde_json::json;

use super::judging::{e2e, judge_table, ok, project, record, run, verdict, A};
use crate::support::openai::{FakeOpenAi, Reply};
use crate::support::project::run_lines;
use crate::support::TempDir;

/// A judge whose server reports no usage is counted by goldgate, and its judgements say
/// their tokens (and so their cost) are an estimate.
#[test]
fn a_judges_uncounted_calls_are_estimated_and_marked() {
    let dir = TempDir::new("budget-judge-estimated");
    let server = FakeOpenAi::start(|_| Reply::content(verdict(A, [None, None, None])).no_usage());
    project(
        &dir.0,
        &[e2e("e-0", Some("# Reference REF-0"))],
        &[(
            "e-0",
            json!({"requirements": [], "srs_markdown": "# DOC-A"}),
        )],
        Some(&judge_table(
            &server,
            "[judge.pricing]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n",
        )),
    );
    ok(&run(&dir.0, "run.jsonl"));
    let records = run_lines(&dir.0.join("run.jsonl"));
    let judgement = &record(&records, "e-0")["judge"]["judgements"][0];
    assert_eq!(judgement["usage"]["estimated"], json!(true), "{judgement}");
    assert!(
        judgement["usage"]["prompt_tokens"].as_u64() > Some(0),
        "{judgement}"
    );
    assert!(judgement["cost_usd"].as_f64() > Some(0.0), "{judgement}");
}
