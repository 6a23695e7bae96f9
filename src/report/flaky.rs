//! How every report tells the flips of flaky samples: a sample that flipped between the
//! baseline and the candidate within its observed spread (it passed and failed under an
//! unchanged pipeline) is listed apart, with its pass rate on each side, and counted as
//! neither fixed nor broken. Plain sentences; each report escapes them its way.

use goldgate_core::gate::flaky::FlakyFlip;
use goldgate_core::gate::verdict::Verdict;

/// At most this many flips are listed in the comment and the terminal (all are in
/// verdict.json).
pub const SHOWN: usize = 20;

/// What the baseline is called: its branch (`main`), else "the baseline".
pub fn baseline_name(v: &Verdict) -> String {
    v.provenance
        .baseline
        .as_ref()
        .and_then(|p| p.git_ref.as_deref())
        .map(|r| r.trim_start_matches("refs/heads/"))
        .filter(|r| !r.is_empty() && *r != "HEAD")
        .map_or_else(|| "the baseline".to_string(), str::to_string)
}

/// The flips of flaky samples, worst first: (id, what happened).
pub fn flips(v: &Verdict) -> Vec<(String, String)> {
    let Some(s) = &v.samples else {
        return Vec::new();
    };
    let name = baseline_name(v);
    let mut flips: Vec<&FlakyFlip> = s.flaky.iter().collect();
    flips.sort_by(|a, b| b.broke.cmp(&a.broke).then(a.id.cmp(&b.id)));
    flips
        .into_iter()
        .map(|f| (f.id.clone(), f.describe(&name)))
        .collect()
}

/// `suite stats --flaky`: the flaky samples of a baseline, flakiest first, then the count
/// of stable ones.
pub fn table(
    report: &goldgate_core::gate::flaky::FlakyReport,
    baseline: &std::path::Path,
) -> String {
    use std::fmt::Write;
    let mut out = format!(
        "flaky samples in {} (pass = primary ≥ {}; a sample's runs are its repeats and the earlier runs baseline refresh kept):\n",
        baseline.display(),
        report.sample_pass
    );
    if report.flaky.is_empty() {
        out.push_str("  none\n");
    } else {
        let width = report
            .flaky
            .iter()
            .map(|r| r.id.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let _ = writeln!(
            out,
            "  {:width$}  {:<10}  {:>6}  {:>4}  {:>5}",
            "sample", "kind", "passed", "runs", "rate"
        );
        for r in &report.flaky {
            let _ = writeln!(
                out,
                "  {:width$}  {:<10}  {:>6}  {:>4}  {:>5.2}",
                goldgate_core::escape::one_line(&r.id),
                r.kind.as_str(),
                r.passed,
                r.runs,
                r.rate
            );
        }
    }
    let _ = writeln!(
        out,
        "{} flaky; stable: {} passed every run, {} failed every run; {} with a single run (run with --repeat N, or refresh again, to see their spread)",
        report.flaky.len(),
        report.stable_passing,
        report.stable_failing,
        report.single_run
    );
    out
}
