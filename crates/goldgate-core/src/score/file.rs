//! The score file (`schema: "goldgate.score/1"`): provenance, aggregate metrics with `n` and
//! CI, per-group aggregates, and per-sample values with the sums they came from; written
//! and read back (a baseline is a score file), every number checked in its range.

use std::borrow::Cow;
use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Location, Problem, Result};
use crate::metrics::bootstrap::{Aggregate, BootstrapConfig};
use crate::metrics::stats::Stats;
use crate::parse::ParseOutcome;
use crate::sample::{Difficulty, Kind};
use std::path::Path;

pub const SCHEMA: &str = "goldgate.score/1";
pub const METRICS_VERSION: &str = "1";

/// Where a score came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub suite_name: Option<String>,
    pub suite_path: String,
    pub suite_fingerprint: String,
    pub run_path: String,
    pub pipeline_fingerprint: Option<String>,
    /// What went into the pipeline fingerprint (each file's and setting's hash), as the run
    /// file recorded it, when every record came from that one pipeline: what lets a
    /// comparison name what changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<crate::runfile::record::FingerprintParts>,
    pub model: Option<String>,
    pub git_sha: Option<String>,
    pub git_ref: Option<String>,
    pub created_at: String,
    pub goldgate_version: String,
    /// Largest number of records any sample has (`--repeat N`).
    pub repeats: u32,
    pub records: usize,
    pub bootstrap: BootstrapConfig,
    pub scoring: ScoringSummary,
    /// A drift beyond its budget that `baseline refresh --accept-drift` let into this
    /// baseline: who accepted it and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_drift: Option<AcceptedDrift>,
}

/// A drift from the pinned reference someone accepted when refreshing the baseline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptedDrift {
    /// Who accepted it (`GITHUB_ACTOR`, else git's `user.name`, else `USER`).
    pub by: String,
    /// Why, as given to `--accept-drift`.
    pub reason: String,
    /// The reference it was measured against (its path and `created_at`).
    pub reference: String,
    pub reference_created_at: String,
    /// Each drift accepted: `metric: reason`.
    pub drifts: Vec<String>,
}

/// The scoring settings that shaped the numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoringSummary {
    /// `lexical`, `minilm` or `openai`.
    pub similarity: String,
    /// The embedding model (a directory, a Hugging Face id, or the endpoint's model name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// A digest of what decides the embedding vectors (the model's files; the endpoint and
    /// model name): scores made with different ones are not comparable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_fingerprint: Option<String>,
    pub requirement_threshold: f64,
    pub ac_threshold: f64,
    pub type_rule: bool,
    pub actor_rule: bool,
    pub schema: crate::metrics::SchemaMode,
    pub id_pattern: String,
    pub rd_weights: [f64; 4],
    /// The judge that reviewed the records (`judge.*`), when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeSummary>,
}

/// Which judge reviewed a run's records: its model and prompt fingerprint (both `mixed`
/// when the records were reviewed by different judges).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct JudgeSummary {
    pub model: String,
    pub prompt_fingerprint: String,
}

impl JudgeSummary {
    /// What the records were reviewed by when they came from different judges.
    pub const MIXED: &str = "mixed";

    /// The judge of one record's review.
    pub fn of(judge: &crate::judge::JudgeRecord) -> JudgeSummary {
        JudgeSummary {
            model: judge.model.clone(),
            prompt_fingerprint: judge.prompt_fingerprint.clone(),
        }
    }

    /// Whether the records were reviewed by different judges.
    pub fn is_mixed(&self) -> bool {
        self.model == Self::MIXED && self.prompt_fingerprint == Self::MIXED
    }
}

/// Metric name → aggregate.
pub type Metrics = BTreeMap<String, Aggregate>;

/// One sample's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleScore {
    pub id: String,
    pub kind: Kind,
    pub domain: String,
    pub difficulty: Difficulty,
    /// The tuple task of a tuples sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The sample's tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Number of records (repeats) scored.
    pub repeats: usize,
    /// Mean primary score over repeats (0 for a failed call or unparseable answer).
    pub primary: f64,
    /// Population standard deviation of the primary score over repeats.
    pub primary_std: f64,
    /// Primary score of each repeat, in repeat order.
    pub primary_runs: Vec<f64>,
    /// Primary scores of this sample in earlier baselines of the same pipeline and suite,
    /// oldest first, as `baseline refresh` carries them over (absent in other score files):
    /// with `primary_runs`, the runs its pass rate (flakiness) is measured over.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_runs: Vec<f64>,
    /// Records whose pipeline call failed.
    pub failed: usize,
    /// Why each of them failed: its kind and cause (the first line of the message, see
    /// [`crate::runfile::failures::cause`]), in repeat order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<crate::runfile::record::RecordError>,
    /// Parse outcome of each repeat.
    pub parse: Vec<ParseOutcome>,
    /// Latency of each record that reported one, in repeat order (for run-health
    /// quantiles when scores are recomputed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latency_ms: Vec<f64>,
    /// How each repeat's requirements matched (kinds that match requirements), in repeat
    /// order: matched pairs with their similarity, unmatched gold items with their best
    /// candidate and why it did not match.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matching: Vec<crate::kinds::explain::Explanation>,
    /// The cause of the first judgement the judge failed (a failed call, or no valid
    /// judgement in its answers), like a failed call's in `errors`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_failure: Option<String>,
    /// Why the first suspect document its judge reviewed could steer the judge (the marker's
    /// form, a fence-like line, an answer-shaped object); absent when none is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judge_suspect: Vec<String>,
    /// Why the sample is not schema-compliant (kinds with a `schema_compliance` metric): the
    /// rules its first non-compliant answer breaks, each a JSON pointer and a constraint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_violations: Option<crate::kinds::compliance::SampleViolations>,
    /// Metric values over this sample's records alone.
    pub metrics: BTreeMap<Cow<'static, str>, f64>,
    /// The sufficient statistics the metrics are computed from (pooled over repeats).
    pub stats: Stats,
}

impl SampleScore {
    /// How the sample's calls failed when every one did (it has no answer): the first
    /// failure's kind and cause; `None` when at least one call answered.
    pub fn unanswered(&self) -> Option<&crate::runfile::record::RecordError> {
        (self.repeats > 0 && self.failed >= self.repeats)
            .then(|| self.errors.first())
            .flatten()
    }
}

impl ScoreFile {
    /// The file's text, exactly as [`Self::write_to`] writes it (`score --format json` and
    /// `baseline show --format json` print it).
    pub fn to_json(&self) -> crate::error::Result<String> {
        let internal =
            |e: String| crate::error::Error::internal(format!("cannot render the score file: {e}"));
        let mut bytes = Vec::new();
        self.write_to(&mut bytes)
            .map_err(|e| internal(e.to_string()))?;
        String::from_utf8(bytes).map_err(|e| internal(e.to_string()))
    }

    /// Write the file: indented JSON, except that each sample is one compact line, so the
    /// file stays small and a changed sample is one changed line in a diff.
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        /// Samples serialized per round (each round's text is in memory until written).
        const WRITE_GROUP: usize = 2048;
        let pretty = |v: &dyn erased::Json| v.pretty();
        writeln!(out, "{{")?;
        let mut head: Vec<(&str, &dyn erased::Json)> = vec![
            ("schema", &self.schema),
            ("metrics_version", &self.metrics_version),
            ("protocol_version", &self.protocol_version),
            ("provenance", &self.provenance),
            ("metrics", &self.metrics),
            ("groups", &self.groups),
            ("missing", &self.missing),
        ];
        if !self.keyless.is_empty() {
            head.push(("keyless", &self.keyless));
        }
        for (key, value) in head {
            writeln!(
                out,
                "  \"{key}\": {},",
                pretty(value)?.replace('\n', "\n  ")
            )?;
        }
        write!(out, "  \"samples\": [")?;
        // Samples are serialized on every core, a bounded slice at a time, and written in
        // order: each slice is written while the next one is serialized.
        let serialize = |g: usize, group: &[SampleScore]| {
            group
                .par_chunks(64)
                .enumerate()
                .map(|(c, chunk)| {
                    let mut buf = Vec::with_capacity(chunk.len() * 2048);
                    for (i, sample) in chunk.iter().enumerate() {
                        let first = g == 0 && c == 0 && i == 0;
                        buf.extend_from_slice(if first { b"\n    " } else { b",\n    " });
                        serde_json::to_writer(&mut buf, sample)?;
                    }
                    Ok(buf)
                })
                .collect::<std::io::Result<Vec<_>>>()
        };
        let mut groups = self.samples.chunks(WRITE_GROUP).enumerate();
        let mut pending = match groups.next() {
            Some((g, group)) => serialize(g, group)?,
            None => Vec::new(),
        };
        loop {
            let next = groups.next();
            let mut serialized = None;
            let written = rayon::in_place_scope(|scope| {
                scope.spawn(|_| serialized = next.map(|(g, group)| serialize(g, group)));
                pending.iter().try_for_each(|piece| out.write_all(piece))
            });
            written?;
            match serialized.transpose()? {
                Some(pieces) => pending = pieces,
                None => break,
            }
        }
        let close = if self.samples.is_empty() { "" } else { "\n  " };
        writeln!(out, "{close}]\n}}")
    }
}

/// Pretty JSON of differently typed fields through one object-safe trait.
mod erased {
    pub trait Json {
        fn pretty(&self) -> std::io::Result<String>;
    }

    impl<T: serde::Serialize> Json for T {
        fn pretty(&self) -> std::io::Result<String> {
            serde_json::to_string_pretty(self).map_err(std::io::Error::other)
        }
    }
}

/// A whole score file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreFile {
    pub schema: String,
    pub metrics_version: String,
    pub protocol_version: String,
    pub provenance: Provenance,
    pub metrics: Metrics,
    /// Dimension (`kind`, `difficulty`, `domain`) → group value → metrics with data.
    pub groups: BTreeMap<String, BTreeMap<String, Metrics>>,
    pub samples: Vec<SampleScore>,
    /// Suite samples that had no answer in the run (excluded from every metric).
    pub missing: Vec<String>,
    /// Answers that parsed but hold none of the keys their kind reads (scored as empty
    /// answers), per kind and task; absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keyless: Vec<crate::kinds::keys::Keyless>,
}

/// Read a score (or baseline) file, with the location of any problem.
pub fn read(path: &Path) -> Result<ScoreFile> {
    parse(&crate::io::read_capped(path, MAX_BYTES)?, path)
}

/// The most a score file may hold: 512 MiB, some 200,000 samples (10,000 take 23 MB). A
/// baseline committed as a link to a device, or a version far larger, is refused before
/// it is read.
pub const MAX_BYTES: u64 = 512 << 20;

/// A score file's text, checked as [`read`] checks a file (`path` names it in messages: a
/// file, or `REV:path` for a version read from git).
pub fn parse(text: &str, path: &Path) -> Result<ScoreFile> {
    let file: ScoreFile = serde_json::from_str(text).map_err(|e| {
        let (message, hint) = crate::text::explain_serde(&e.to_string());
        let mut problem = Problem::new(Location::new(path, e.line(), e.column()), None, message);
        problem.hint = hint.or_else(|| {
            Some("score files are written by goldgate score, check or baseline refresh".into())
        });
        Error::invalid("score file", problem)
    })?;
    if file.schema != SCHEMA {
        let problem = Problem::new(
            Location::file(path),
            Some("schema".into()),
            format!("unknown schema `{}`", file.schema),
        )
        .with_hint(format!("this goldgate reads `{}`", SCHEMA));
        return Err(Error::invalid("score file", problem));
    }
    if let Some((pointer, why)) = numbers::check(&file) {
        let at = crate::document::json_positions(text).nearest(&pointer);
        let problem = Problem::new(
            Location::new(path, at.line, at.column),
            crate::document::field_of(&pointer),
            why,
        )
        .with_hint("a score file's values are what goldgate score writes: each metric within its range, finite; write the file again with goldgate score, check or baseline refresh");
        return Err(Error::invalid("score file", problem));
    }
    Ok(file)
}

mod numbers {
    //! The numbers of a score file read back (a baseline, a score given to `compare`), each in
    //! its range: every aggregate's value, interval and spread within its metric's values (the
    //! registry's ranges, as `publish` checks a verdict's), every sample's primary scores in
    //! [0, 1], its latencies those of a call ([`crate::quantity::latency`]), its metric values in
    //! their metrics' ranges and its sums finite. The first impossible number is named by its
    //! JSON pointer, with why: a baseline claiming `extraction.f1` 1e308 or -1.0 is refused,
    //! never compared with.

    use crate::metrics::aggregate::Aggregate;
    use crate::quantity::{latency, within, MAX_SUM};

    use super::ScoreFile;

    /// An impossible number: where it is in the file (a JSON pointer) and why.
    pub type Impossible = (String, String);

    /// The first impossible number of a score file.
    pub fn check(file: &ScoreFile) -> Option<Impossible> {
        for (name, aggregate) in &file.metrics {
            if let Some(p) =
                aggregate_problem(name, aggregate, &format!("/metrics/{}", escape(name)))
            {
                return Some(p);
            }
        }
        for (dimension, groups) in &file.groups {
            for (group, metrics) in groups {
                for (name, aggregate) in metrics {
                    let at = format!(
                        "/groups/{}/{}/{}",
                        escape(dimension),
                        escape(group),
                        escape(name)
                    );
                    if let Some(p) = aggregate_problem(name, aggregate, &at) {
                        return Some(p);
                    }
                }
            }
        }
        for (i, sample) in file.samples.iter().enumerate() {
            let here = format!("/samples/{i}");
            let share = |x: f64| within(x, 0.0, 1.0);
            if !share(sample.primary) {
                return Some((format!("{here}/primary"), not_a_score(sample.primary)));
            }
            if !share(sample.primary_std) {
                let why = format!(
                    "{} is not a spread of scores from 0 to 1",
                    sample.primary_std
                );
                return Some((format!("{here}/primary_std"), why));
            }
            if let Some((j, x)) = sample
                .primary_runs
                .iter()
                .enumerate()
                .find(|(_, x)| !share(**x))
            {
                return Some((format!("{here}/primary_runs/{j}"), not_a_score(*x)));
            }
            if let Some((j, x)) = sample
                .earlier_runs
                .iter()
                .enumerate()
                .find(|(_, x)| !share(**x))
            {
                return Some((format!("{here}/earlier_runs/{j}"), not_a_score(*x)));
            }
            let mut latencies = sample.latency_ms.iter().enumerate();
            if let Some((j, why)) = latencies.find_map(|(j, x)| Some((j, latency(*x).err()?))) {
                return Some((format!("{here}/latency_ms/{j}"), why));
            }
            for (name, x) in &sample.metrics {
                if let Some(why) = value_problem(name, *x) {
                    return Some((format!("{here}/metrics/{}", escape(name)), why));
                }
            }
            if let Some((key, x)) = sample.stats.iter().find(|(_, x)| !within(*x, 0.0, MAX_SUM)) {
                let why = format!("{} is not a sum of one sample's statistics (counts and sums: finite, from 0 to {MAX_SUM:e})", crate::quantity::number(x));
                return Some((format!("{here}/stats/{}", escape(key)), why));
            }
        }
        None
    }

    fn not_a_score(x: f64) -> String {
        format!(
            "{} is not a sample's primary score (a number from 0 to 1)",
            crate::quantity::number(x)
        )
    }

    /// Why `x` cannot be a value of the metric `name` (a metric goldgate does not know is
    /// held to finiteness only).
    fn value_problem(name: &str, x: f64) -> Option<String> {
        let (lo, hi) = crate::kinds::find(name).map_or((f64::MIN, f64::MAX), |m| m.bounds());
        (!within(x, lo, hi)).then(|| match crate::kinds::find(name) {
            Some(m) => format!(
                "{} is not a value of `{name}` ({})",
                crate::quantity::number(x),
                m.range.describe()
            ),
            None => format!("{} is not a finite number", crate::quantity::number(x)),
        })
    }

    fn aggregate_problem(name: &str, a: &Aggregate, at: &str) -> Option<Impossible> {
        if let Some(why) = a.value.and_then(|x| value_problem(name, x)) {
            return Some((format!("{at}/value"), why));
        }
        let ci = a.ci.into_iter().flatten().enumerate();
        if let Some((j, why)) = ci
            .clone()
            .find_map(|(j, x)| Some((j, value_problem(name, x)?)))
        {
            return Some((format!("{at}/ci/{j}"), why));
        }
        if let Some(why) = a
            .spread
            .and_then(|s| s.mean)
            .and_then(|x| value_problem(name, x))
        {
            return Some((format!("{at}/mean"), why));
        }
        let span = crate::kinds::find(name).map_or(f64::MAX, |m| {
            let (lo, hi) = m.bounds();
            hi - lo
        });
        let std = a.spread.and_then(|s| s.std);
        if let Some(x) = std.filter(|x| !within(*x, 0.0, span)) {
            return Some((
                format!("{at}/std"),
                format!("{} is not a spread of `{name}`", crate::quantity::number(x)),
            ));
        }
        None
    }

    /// A key as one segment of a JSON pointer.
    fn escape(key: &str) -> String {
        key.replace('~', "~0").replace('/', "~1")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    /// A baseline whose numbers no run can have is refused at its line and field, never
    /// compared with: an F1 of 1e308 or -1.0, a latency of 1e308 or -5 ms, a primary
    /// score of 2, a negative count.
    #[test]
    fn impossible_numbers_are_refused_at_their_line_and_field() {
        let fixture =
            crate::testkit::repository().join("tests/cases/gate-fail-floor/baseline.json");
        let good: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        std::fs::write(&path, serde_json::to_string_pretty(&good).unwrap()).unwrap();
        super::read(&path).unwrap();
        // A score of the fixture's kind: its first F1.
        let f1 = good["metrics"]
            .as_object()
            .unwrap()
            .keys()
            .find(|k| k.ends_with(".f1"))
            .unwrap()
            .clone();
        // (where, the impossible value, the field named, what the named line holds)
        let cases: Vec<(String, Value, String, String)> = vec![
            (
                format!("/metrics/{f1}/value"),
                json!(1e308),
                format!("metrics.{f1}.value"),
                "\"value\"".to_string(),
            ),
            (
                format!("/metrics/{f1}/value"),
                json!(-1.0),
                format!("metrics.{f1}.value"),
                "\"value\"".to_string(),
            ),
            (
                format!("/metrics/{f1}/ci"),
                json!([-1.0, 0.5]),
                format!("metrics.{f1}.ci[0]"),
                "-1.0".to_string(),
            ),
            (
                "/metrics/run.latency_p95_ms/value".to_string(),
                json!(-5.0),
                "metrics.run.latency_p95_ms.value".to_string(),
                "\"value\"".to_string(),
            ),
            (
                "/samples/0/latency_ms".to_string(),
                json!([1e308]),
                "samples[0].latency_ms[0]".to_string(),
                "1e+308".to_string(),
            ),
            (
                "/samples/0/latency_ms".to_string(),
                json!([-5.0]),
                "samples[0].latency_ms[0]".to_string(),
                "-5.0".to_string(),
            ),
            (
                "/samples/0/primary".to_string(),
                json!(2.0),
                "samples[0].primary".to_string(),
                "\"primary\"".to_string(),
            ),
            (
                format!("/samples/0/metrics/{f1}"),
                json!(-1.0),
                format!("samples[0].metrics.{f1}"),
                format!("\"{f1}\""),
            ),
            // A negative count makes the paired bootstrap's interval vanish, and a
            // collapse pass as noise.
            (
                "/samples/0/stats/ext.records".to_string(),
                json!(-1.0),
                "samples[0].stats.ext.records".to_string(),
                "\"ext.records\"".to_string(),
            ),
        ];
        for (pointer, value, field, holds) in cases {
            let mut bad = good.clone();
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            let object = bad.pointer_mut(parent).unwrap().as_object_mut().unwrap();
            object.insert(key.to_string(), value.clone());
            let text = serde_json::to_string_pretty(&bad).unwrap();
            std::fs::write(&path, &text).unwrap();
            let crate::error::Error::Invalid { problems, .. } = super::read(&path).unwrap_err()
            else {
                panic!("{pointer} = {value}: not an invalid-file error");
            };
            let p = &problems[0];
            assert_eq!(
                p.field.as_deref(),
                Some(field.as_str()),
                "{pointer} = {value}: {p:?}"
            );
            let line = p.location.line;
            assert!(line > 1, "{pointer}: {p:?}");
            let at = text.lines().nth(line - 1).unwrap();
            assert!(at.contains(&holds), "{pointer}: line {line} is {at}");
        }
    }
}
