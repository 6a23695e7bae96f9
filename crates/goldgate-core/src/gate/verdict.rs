//! The verdict: what the gate decided and everything a report needs to show why — each
//! metric's values, delta, rule and status, the per-sample analysis, provenance, group
//! breakdown and the diffs of broken samples. Plain data, written as `verdict.json`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use crate::error::Outcome;
use crate::judge::reviews::JudgeReviews;
use crate::metrics::aggregate::Spread;
use crate::metrics::registry::Direction;
use crate::runfile::failures::FailedCalls;
use crate::runfile::record::RecordError;
use crate::score::file::{Provenance, ScoringSummary};

use super::diff::SampleDiff;
use super::rule::Rule;
use super::samples::SampleAnalysis;

pub const VERDICT_SCHEMA: &str = "goldgate.verdict/1";

/// One metric's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Warn,
    Fail,
    /// A run-health rule broke: the run is incomplete.
    Incomplete,
    /// No rule applies: reported for information.
    Info,
}

impl Status {
    /// Worst first: the order rules are reported in, and how statuses combine.
    pub fn rank(self) -> u8 {
        match self {
            Status::Incomplete => 0,
            Status::Fail => 1,
            Status::Warn => 2,
            Status::Pass => 3,
            Status::Info => 4,
        }
    }
}

/// One metric compared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricResult {
    pub name: String,
    pub direction: Direction,
    pub baseline: Option<f64>,
    pub candidate: Option<f64>,
    pub delta: Option<f64>,
    /// Paired-bootstrap interval of the delta over shared samples, at the rule's confidence.
    pub delta_ci: Option<[f64; 2]>,
    pub n: usize,
    pub rule: Option<Rule>,
    pub status: Status,
    /// Why the status is what it is (empty for a plain pass).
    pub reasons: Vec<String>,
    /// The candidate's mean ± std over its repeats taken as runs (runs with repeats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_runs: Option<Spread>,
    /// The baseline's, when it has repeats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_runs: Option<Spread>,
    /// When the rule's regression check found the change not significant: the smallest
    /// change for the worse this comparison could have called significant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detectable: Option<Detectable>,
    /// With a baseline: the samples both runs scored that count towards the metric, the
    /// pairs its paired interval is drawn over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<usize>,
    /// Why the candidate has no value, when its rule needed one: the run is incomplete (a
    /// `warn` rule warns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_data: Option<String>,
    /// When a change beyond the rule's allowance was not tested: too few paired samples for
    /// the paired test to reach the rule's confidence (floors and ceilings still apply).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub too_few: Option<TooFew>,
    /// The candidate's value rests partly on goldgate's own token counts (`run.cost_usd` and
    /// `run.tokens_total` when `run.tokens_estimated_rate` is above 0): shown as `≈`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

/// Mark the candidate values that rest on goldgate's own token counts: the run's cost and
/// tokens, when any record's usage was counted by goldgate (`run.tokens_estimated_rate`).
pub fn mark_estimates(metrics: &mut [MetricResult]) {
    let counted = metrics
        .iter()
        .find(|m| m.name == "run.tokens_estimated_rate")
        .and_then(|m| m.candidate)
        .is_some_and(|rate| rate > 0.0);
    for m in metrics.iter_mut() {
        m.estimated = counted && matches!(m.name.as_str(), "run.cost_usd" | "run.tokens_total");
    }
}

/// A candidate value as shown: `≈ ` before it when it is an estimate.
pub fn about(m: &MetricResult) -> &'static str {
    match m.estimated && m.candidate.is_some() {
        true => "≈ ",
        false => "",
    }
}

/// Too few paired samples to test a change: the paired test could not reach the rule's
/// confidence with `samples` pairs, whatever they showed (docs/thresholds.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TooFew {
    /// The samples both runs scored that count towards the metric.
    pub samples: usize,
    /// The fewest with which the paired test can reach the rule's confidence.
    pub needed: usize,
}

/// The smallest change for the worse a comparison can call significant: how far the
/// delta's paired-bootstrap interval reaches from the delta towards the better side (the
/// delta must be at least that far on the worse side for the interval to exclude 0). See
/// docs/thresholds.md for the derivation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Detectable {
    /// The smallest worsening that would have been significant, in the metric's units.
    pub change: f64,
    /// The samples both runs scored that the interval was drawn over.
    pub samples: usize,
    /// The rule's confidence.
    pub confidence: f64,
}

impl Detectable {
    /// `with 7 samples this gate can only see drops larger than 0.2100 in extraction.f1 (at
    /// 95% confidence)`.
    pub fn sentence(&self, metric: &str, direction: Direction) -> String {
        let change = match direction {
            Direction::Lower => "rises",
            _ => "drops",
        };
        let samples = match self.samples {
            1 => "1 sample".to_string(),
            n => format!("{n} samples"),
        };
        format!(
            "with {samples} this gate can only see {change} larger than {} in {metric} (at {:.0}% confidence)",
            crate::number::value(self.change, 4),
            self.confidence * 100.0
        )
    }
}

/// A whole verdict: everything a report needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub schema: String,
    /// The metrics version the candidate was scored with (absent in older files).
    #[serde(default)]
    pub metrics_version: Option<String>,
    pub verdict: Outcome,
    pub exit_code: i32,
    /// One line saying why.
    pub summary: String,
    pub baseline_present: bool,
    /// Where the rules came from: the rules file's path, or `built-in defaults` when none
    /// was found.
    #[serde(default)]
    pub rules_source: String,
    pub metrics: Vec<MetricResult>,
    pub samples: Option<SampleAnalysis>,
    /// Samples in the candidate but not the baseline, and the other way round.
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Suite samples the candidate run had no answer for.
    pub missing: Vec<String>,
    pub provenance: ProvenanceReport,
    /// Rules loosened relative to the base branch.
    pub ratchet: Vec<String>,
    /// Gated metrics per group (kind, difficulty, domain), for the breakdown in reports.
    pub groups: Vec<GroupRow>,
    /// Every candidate sample: its primary score, the baseline's, and whether it passes.
    pub sample_results: Vec<SampleResult>,
    /// Diffs of broken samples (filled in by `check`, which has the runs).
    #[serde(default)]
    pub diffs: Vec<SampleDiff>,
    /// The candidate's failed calls, grouped by cause.
    #[serde(default, skip_serializing_if = "FailedCalls::is_empty")]
    pub failures: FailedCalls,
    /// The candidate's answers that parsed but hold none of the keys their kind reads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keyless: Vec<crate::kinds::keys::Keyless>,
    /// The judgements the LLM judge failed and the documents suspect of steering it.
    #[serde(default, skip_serializing_if = "JudgeReviews::is_empty")]
    pub judge: JudgeReviews,
    /// How a sequential check went (`check --sequential`): the samples it answered, those
    /// not needed, and the rules' questions about the full suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequential: Option<super::sequential::report::SequentialReport>,
    /// The drift of every metric with a budget from the pinned reference (`[drift]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift: Option<DriftReport>,
    /// The last values of each failing or drifting metric in the baseline's committed
    /// versions (filled in by `check`, which has the repository).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trends: Vec<Trend>,
}

impl Verdict {
    /// Whether the built-in rules judged it (no rules file was found).
    pub fn built_in_rules(&self) -> bool {
        self.rules_source == super::thresholds::BUILT_IN_SOURCE
    }

    /// The summary without the words that name the outcome (`failed: extraction.f1` →
    /// `extraction.f1`): for a headline that names the outcome itself.
    pub fn reason(&self) -> &str {
        self.summary
            .strip_prefix(summary_prefix(self.verdict))
            .unwrap_or(&self.summary)
    }
}

/// How a verdict's summary starts for each outcome; the rest says why.
pub fn summary_prefix(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "passed: ",
        Outcome::Warn => "passed with warnings: ",
        Outcome::Fail => "failed: ",
        Outcome::Incomplete => "incomplete run: ",
    }
}

/// One candidate sample's outcome (JUnit and other per-sample reports).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleResult {
    pub id: String,
    pub kind: crate::sample::Kind,
    pub primary: f64,
    pub baseline: Option<f64>,
    pub pass: bool,
    /// How the sample's first call failed (its kind and cause) when every call failed: the
    /// sample has no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RecordError>,
}

/// One gated metric in one group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupRow {
    pub dimension: String,
    pub group: String,
    pub metric: String,
    pub baseline: Option<f64>,
    pub candidate: Option<f64>,
    pub n: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProvenanceReport {
    pub candidate: Provenance,
    pub baseline: Option<Provenance>,
    pub differences: Vec<String>,
}

/// What changed between a baseline's provenance and a candidate's (suite, pipeline, model,
/// goldgate, scoring settings), each named: the pipeline by what differs in what went into
/// its fingerprint (prompt and fingerprint files, settings, the model) when both score files
/// record it, else by its fingerprints; the scoring settings by the keys that differ. The
/// number of repeats is not among them: each sample's value is the mean over its repeats on
/// both sides, and the spread over runs shows it.
pub fn provenance_differences(b: &Provenance, c: &Provenance) -> Vec<String> {
    let mut out = Vec::new();
    let mut diff = |what: &str, x: String, y: String| {
        if x != y {
            out.push(format!("{what}: {x} → {y}"));
        }
    };
    diff(
        "suite",
        b.suite_fingerprint.clone(),
        c.suite_fingerprint.clone(),
    );
    let shown = |x: &Option<String>| x.clone().unwrap_or_else(|| "(none)".into());
    let named = match (&b.pipeline, &c.pipeline) {
        (Some(then), Some(now)) if b.pipeline_fingerprint != c.pipeline_fingerprint => {
            Some(pipeline_changes(then, now, b, c))
        }
        _ => None,
    };
    match &named {
        Some(changes) => out.push(format!("pipeline changed: {changes}")),
        None => {
            diff(
                "pipeline",
                shown(&b.pipeline_fingerprint),
                shown(&c.pipeline_fingerprint),
            );
            diff("model", shown(&b.model), shown(&c.model));
        }
    }
    let mut diff = |what: &str, x: String, y: String| {
        if x != y {
            out.push(format!("{what}: {x} → {y}"));
        }
    };
    diff(
        "goldgate",
        b.goldgate_version.clone(),
        c.goldgate_version.clone(),
    );
    let scoring = scoring_changes(&b.scoring, &c.scoring);
    if !scoring.is_empty() {
        out.push(format!("scoring settings: {}", scoring.join(", ")));
    }
    out
}

/// What differs between two pipelines, for people: [`FingerprintParts::changes_since`], with
/// the commits to diff when the repository's files changed, or both fingerprints when
/// nothing recorded names the change.
fn pipeline_changes(
    then: &crate::runfile::record::FingerprintParts,
    now: &crate::runfile::record::FingerprintParts,
    b: &Provenance,
    c: &Provenance,
) -> String {
    let short = |s: &Option<String>| s.as_deref().map(|s| s.chars().take(12).collect::<String>());
    let mut changes = now.changes_since(then);
    if let (Some(item), Some(x), Some(y)) = (
        changes
            .iter_mut()
            .find(|c| *c == "the repository's tracked files"),
        short(&b.git_sha),
        short(&c.git_sha),
    ) {
        if x != y {
            item.push_str(&format!(" (git diff {x} {y})"));
        }
    }
    match changes.is_empty() {
        false => changes.join(", "),
        true => format!(
            "its fingerprint ({} → {})",
            short(&b.pipeline_fingerprint).unwrap_or_default(),
            short(&c.pipeline_fingerprint).unwrap_or_default()
        ),
    }
}

/// Each scoring setting that differs, with both values (`requirement_threshold 0.6 → 0.7`).
fn scoring_changes(b: &ScoringSummary, c: &ScoringSummary) -> Vec<String> {
    let (Ok(serde_json::Value::Object(x)), Ok(serde_json::Value::Object(y))) =
        (serde_json::to_value(b), serde_json::to_value(c))
    else {
        return Vec::new();
    };
    let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
    let value = |v: Option<&serde_json::Value>| match v {
        None => "(none)".to_string(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    keys.into_iter()
        .filter(|k| x.get(*k) != y.get(*k))
        .map(|k| format!("{k} {} → {}", value(x.get(k)), value(y.get(k))))
        .collect()
}

/// Metric name → result, for tests and reports.
pub fn by_name(verdict: &Verdict) -> BTreeMap<&str, &MetricResult> {
    verdict
        .metrics
        .iter()
        .map(|m| (m.name.as_str(), m))
        .collect()
}

/// A verdict file's text (pretty JSON ending with a newline): what [`write`] writes and
/// `--format json` prints.
pub fn to_json(verdict: &Verdict) -> crate::error::Result<String> {
    serde_json::to_string_pretty(verdict)
        .map(|s| s + "\n")
        .map_err(|e| crate::error::Error::internal(format!("cannot render the verdict: {e}")))
}

/// Write a verdict file (`verdict.json`), for `publish` and other tools.
pub fn write(path: &std::path::Path, verdict: &Verdict) -> crate::error::Result<()> {
    let text = to_json(verdict)?;
    crate::io::write_output(path, |w| w.write_all(text.as_bytes()))
}

/// Read a verdict file written by `check` or `compare --output`.
pub fn read(path: &std::path::Path) -> crate::error::Result<Verdict> {
    use crate::error::{Error, Location, Problem};
    let text = crate::io::read(path)?;
    serde_json::from_str(&text).map_err(|e| {
        let problem = Problem::new(
            Location::new(path, e.line(), e.column()),
            None,
            crate::text::explain_serde(&e.to_string()).0,
        )
        .with_hint("publish reads the verdict.json written by goldgate check or compare --output");
        Error::invalid("verdict file", problem)
    })
}

/// Where a verdict's reference came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct About {
    /// The reference's path, as the rules name it.
    pub reference: String,
    /// When the reference's score was made (its provenance).
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_sha: Option<String>,
    /// Baseline refreshes since the reference was pinned, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refreshes: Option<usize>,
}

impl About {
    /// `2026-10-01`: the day the reference was made.
    pub fn date(&self) -> &str {
        self.created_at.get(..10).unwrap_or(&self.created_at)
    }

    /// `, 7 refreshes ago` (nothing when unknown, or when the baseline is the reference).
    pub(super) fn ago(&self) -> String {
        match self.refreshes {
            None | Some(0) => String::new(),
            Some(1) => ", 1 refresh ago".into(),
            Some(n) => format!(", {n} refreshes ago"),
        }
    }
}

/// The drift of every gated metric with a budget, as `verdict.json` records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DriftReport {
    #[serde(flatten)]
    pub about: About,
    pub metrics: Vec<Drift>,
}

impl DriftReport {
    /// The metrics whose drift broke their rule (or left the run incomplete).
    pub fn broken(&self) -> impl Iterator<Item = &Drift> {
        self.metrics
            .iter()
            .filter(|d| matches!(d.status, Status::Fail | Status::Warn | Status::Incomplete))
    }
}

/// One metric's drift from the reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drift {
    pub name: String,
    pub reference: Option<f64>,
    pub candidate: Option<f64>,
    /// candidate − reference.
    pub delta: Option<f64>,
    /// The paired interval of `delta` at the rule's confidence.
    pub delta_ci: Option<[f64; 2]>,
    /// The budget as written (or derived): `0.05`, `12.5%`.
    pub budget: String,
    /// The budget in the metric's units against this reference.
    pub allowed: Option<f64>,
    /// The samples both runs scored that count towards the metric.
    pub paired: usize,
    /// `pass`, `fail` or `warn` (the rule's severity), `info` when it could not be judged.
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A failing or drifting metric's last values in the baseline's committed versions, oldest
/// first, with when each was made: read from git by the caller, shown in the reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trend {
    pub metric: String,
    pub values: Vec<f64>,
    pub created_at: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Running a sample three times instead of once changes no input of the comparison:
    /// it was listed as "repeats: 1 → 3" among the provenance changes, beside a changed
    /// suite or model.
    #[test]
    fn repeats_alone_are_no_provenance_change() {
        let base = crate::testkit::test_kind_file(&[(1.0, 0.0, 0.0, false)], "1").provenance;
        let mut cand = base.clone();
        cand.repeats = 3;
        assert_eq!(provenance_differences(&base, &cand), Vec::<String>::new());
        cand.model = Some("gpt-x".into());
        assert_eq!(
            provenance_differences(&base, &cand),
            ["model: (none) → gpt-x"]
        );
    }

    /// Two pipelines whose score files record what went into their fingerprints are told
    /// apart by what changed (the prompt file, the model), not by two hashes; so are the
    /// scoring settings, by the keys that differ.
    #[test]
    fn a_change_of_pipeline_or_scoring_is_named() {
        use crate::runfile::record::FingerprintParts;
        let base = crate::testkit::test_kind_file(&[(1.0, 0.0, 0.0, false)], "1").provenance;
        let parts = |model: &str, prompt: &str| FingerprintParts {
            adapter: "chat".into(),
            source: "prompts".into(),
            model: Some(model.into()),
            settings: [("[pipeline] model".to_string(), format!("sha256:{model}"))].into(),
            files: [("prompts/answer.j2".to_string(), prompt.to_string())].into(),
            ..FingerprintParts::default()
        };
        let (mut b, mut c) = (base.clone(), base);
        b.pipeline_fingerprint = Some("sha256:669a".into());
        b.model = Some("gpt-4o-mini".into());
        b.pipeline = Some(parts("gpt-4o-mini", "sha256:1"));
        c.pipeline_fingerprint = Some("sha256:f53b".into());
        c.model = Some("gpt-4.1-mini".into());
        c.pipeline = Some(parts("gpt-4.1-mini", "sha256:2"));
        c.scoring.requirement_threshold = 0.7;
        assert_eq!(
            provenance_differences(&b, &c),
            [
                "pipeline changed: prompts/answer.j2, [pipeline] model (gpt-4o-mini → gpt-4.1-mini)",
                "scoring settings: requirement_threshold 0.6 → 0.7",
            ]
        );
        // A side that does not record its parts (an older score file) shows the hashes.
        b.pipeline = None;
        assert_eq!(
            provenance_differences(&b, &c)[..2],
            [
                "pipeline: sha256:669a → sha256:f53b",
                "model: gpt-4o-mini → gpt-4.1-mini"
            ]
        );
    }

    #[test]
    fn the_detectable_change_reads_as_a_sentence() {
        let d = Detectable {
            change: 0.2104,
            samples: 7,
            confidence: 0.95,
        };
        let f1 = crate::testkit::test_kind().primary_metric();
        assert_eq!(
            d.sentence(f1, Direction::Higher),
            format!("with 7 samples this gate can only see drops larger than 0.2104 in {f1} (at 95% confidence)")
        );
        assert!(d
            .sentence("run.latency_p95_ms", Direction::Lower)
            .contains("only see rises larger than"));
    }
}
