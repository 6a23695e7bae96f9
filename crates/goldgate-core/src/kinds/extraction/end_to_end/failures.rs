//! Failed calls are visible: a run whose calls failed (a crash with its cause on stderr, a
//! timeout) is scored and judged through the library, and the PR comment, the job summary
//! and the terminal verdict list the causes grouped (kind and first line of the message,
//! count, example samples) and name a crashed or timed-out sample as such.

use std::path::Path;

use goldgate::report::{markdown, terminal};
use goldgate_core::gate::compare::compare;
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::gate::verdict::Verdict;
use goldgate_core::score::ScoreFile;
use serde_json::json;

use super::scoring::extraction;
use super::terminal::{gold, options};
use crate::support::TempDir;

pub(crate) const UNAUTHORIZED: &str =
    "the pipeline exited with code 1: Error: the model API answered 401 Unauthorized";
pub(crate) const TIMED_OUT: &str = "no answer within 30s; the process group was killed";

/// Six samples `s0`…`s5` scored from run records: `outcome(i)` is `Ok(kept)` (the answer
/// keeps that many of the two gold requirements) or `Err((kind, message))` (a failed call).
pub(crate) fn scored(
    name: &str,
    outcome: impl Fn(usize) -> Result<usize, (&'static str, &'static str)>,
) -> ScoreFile {
    let dir = TempDir::new(name);
    std::fs::create_dir_all(dir.0.join("suite")).unwrap();
    let samples: String = (0..6)
        .map(|i| extraction(&format!("s{i}"), gold()).to_string() + "\n")
        .collect();
    std::fs::write(dir.0.join("suite/samples.jsonl"), samples).unwrap();
    let records: String = (0..6)
        .map(|i| {
            let id = format!("s{i}");
            let record = match outcome(i) {
                Ok(kept) => {
                    let answer = json!(gold().into_iter().take(kept).collect::<Vec<_>>());
                    json!({"sample_id": id, "repeat": 0, "raw_output": answer.to_string(), "latency_ms": 5.0})
                }
                Err((kind, message)) => json!({"sample_id": id, "repeat": 0, "raw_output": "",
                    "error": {"kind": kind, "message": message}, "latency_ms": 5.0}),
            };
            record.to_string() + "\n"
        })
        .collect();
    std::fs::write(dir.0.join("run.jsonl"), records).unwrap();
    crate::support::score_files(&dir.0.join("suite"), &dir.0.join("run.jsonl"), 100)
}

/// The baseline passes every sample but `s3`; the candidate's `s1` and `s2` crash with a
/// 401, `s3` (failing before) and `s4` time out, `s5` loses a requirement.
pub(crate) fn failing_calls(name: &str, thresholds: &str) -> Verdict {
    let base = scored(&format!("{name}-base"), |i| Ok(if i == 3 { 0 } else { 2 }));
    let cand = scored(&format!("{name}-cand"), |i| match i {
        1 | 2 => Err(("exit", UNAUTHORIZED)),
        3 | 4 => Err(("timeout", TIMED_OUT)),
        5 => Ok(1),
        _ => Ok(2),
    });
    let rules = Thresholds::parse(thresholds, Path::new("thresholds.toml")).unwrap();
    compare(&cand, Some(&base), &rules, &options()).unwrap()
}

const LENIENT: &str = "version = 1\n[metrics.\"run.error_rate\"]\nmax = 0.9\nmax_regression = 1\n";

#[test]
fn the_comment_groups_failed_calls_by_cause_with_examples() {
    let v = failing_calls("fail-comment", LENIENT);
    let body = markdown::comment(&v, "goldgate", None).unwrap();
    assert!(body.contains("**4 calls failed**"), "{body}");
    assert!(
        body.contains(&format!(
            "`exit` {} (2): `s1`, `s2`",
            UNAUTHORIZED.replace('_', "\\_")
        )),
        "the crash cause with its samples:\n{body}"
    );
    assert!(
        body.contains(&format!("`timeout` {TIMED_OUT} (2): `s3`, `s4`")),
        "the timeout cause with its samples:\n{body}"
    );
    let summary = markdown::summary(
        &v,
        &markdown::Render {
            gate_name: "goldgate",
            ..Default::default()
        },
    )
    .unwrap();
    assert!(summary.contains("**4 calls failed**"), "{summary}");
}

#[test]
fn the_sample_analysis_names_crashed_and_timed_out_samples() {
    let v = failing_calls("fail-names", LENIENT);
    let text = terminal::verdict(&v);
    assert!(
        text.contains("4 calls failed:"),
        "the causes are listed:\n{text}"
    );
    assert!(
        text.contains(&format!("  exit: {UNAUTHORIZED} (2): s1, s2")),
        "{text}"
    );
    let samples = text
        .lines()
        .find(|l| l.starts_with("samples ("))
        .unwrap_or_else(|| panic!("no sample analysis:\n{text}"));
    // s3 failed before and timed out now; s1, s2 crashed and s4 timed out where they had
    // passed: each is named by what happened, none is a broken or still failing answer.
    assert!(
        samples.contains("1 broken, 1 kept, 0 still failing, 2 timed out, 2 crashed"),
        "{samples}"
    );
    assert!(
        text.contains(&format!("s1 (crashed: {UNAUTHORIZED})"))
            && text.contains(&format!("s4 (timed out: {TIMED_OUT})")),
        "samples without an answer say why:\n{text}"
    );
    assert!(
        text.contains("broken: s5 (1.00 → 0.67)\n"),
        "the one real break stays broken:\n{text}"
    );
    let body = markdown::comment(&v, "goldgate", None).unwrap();
    assert!(
        body.contains("**1 broken** · 1 kept · 0 still failing · 2 timed out · 2 crashed"),
        "the comment names them too:\n{body}"
    );
    assert!(
        body.contains(&format!(
            "| `s1` | 1.000 | crashed | {} |",
            UNAUTHORIZED.replace('_', "\\_")
        )),
        "the table of samples without an answer says why:\n{body}"
    );
    let brief = terminal::brief(&v);
    assert!(brief.contains("4 calls failed"), "{brief}");
}
