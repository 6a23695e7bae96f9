//! `goldgate score`: join a suite with a run file, score every record, and aggregate per
//! sample, per group and overall with bootstrap confidence intervals. The suite and the run
//! file are read a round of samples at a time.

mod aggregate;
mod batch;
pub mod file;
mod provenance;
mod runs;
mod texts;
mod unknown;
mod view;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use crate::error::{Error, Location, Problem, Result};
use rayon::prelude::*;

use crate::kinds;
use crate::metrics::bootstrap::BootstrapConfig;
use crate::metrics::stats::Stats;
use crate::metrics::ScoringConfig;
use crate::parse::json::Json;
use crate::parse::{parse_answer_as, ParseOutcome};
use crate::runfile::reader::{AnswerReader, RunIndex};
use crate::runfile::record::Answer;
use crate::sample::Sample;
use crate::suite::{Loaded, RawDocument, Suite, UniqueIds};

pub use batch::score_batch;
pub use file::{SampleScore, ScoreFile};
pub use provenance::{rfc3339, Facts};
pub use texts::Embedding;
pub use view::SampleView;

/// Asked per sample (its id and primary score): keep a [`SampleView`] of it?
pub type KeepView<'a> = dyn Fn(&str, f64) -> bool + Sync + 'a;

/// What to score and how.
pub struct ScoreRequest<'a> {
    pub suite: &'a Suite,
    pub run: &'a Path,
    pub scoring: &'a ScoringConfig,
    pub bootstrap: BootstrapConfig,
    /// Where and when the score is made (git sha and ref, time), gathered by the caller.
    pub facts: &'a Facts,
    /// Which samples to keep a [`SampleView`] of, given a sample's id and primary score
    /// (the gate diffs the samples a change broke); `None` keeps none.
    pub keep_view: Option<&'a KeepView<'a>>,
    /// The embedding backend `scoring`'s similarity asks for (`None`: lexical).
    pub embedding: Option<Embedding<'a>>,
}

/// A finished score: the file, plus what the caller should tell the user.
pub struct Scored {
    pub file: ScoreFile,
    /// Labelling warnings met while reading the suite.
    pub warnings: Vec<Problem>,
    /// A warning for each answer scored as unreadable because it holds a list longer than
    /// `[matching] max_items` (at its line of the run file).
    pub unreadable: Vec<Problem>,
    /// Views of the samples `keep_view` asked for, in suite order.
    pub views: Vec<SampleView>,
    /// What the embedding cache did (with an embedding backend).
    pub embedded: Option<crate::embed::cache::Stats>,
}

/// What one record contributes.
struct RecordScore {
    stats: Stats,
    primary: f64,
    outcome: ParseOutcome,
    matching: Option<kinds::explain::Explanation>,
    pairs: Vec<kinds::aligned::Paired>,
    /// What the answer held instead, when it parsed but holds none of the kind's keys.
    keyless: Option<Vec<String>>,
    /// The answer's longest list, when it is over `[matching] max_items`.
    over_cap: Option<usize>,
    /// Why the document its judge reviewed is suspect of steering the judge.
    suspect: Vec<String>,
    /// Why the answer is not schema-compliant.
    violations: kinds::compliance::Violations,
}

/// What reading the suite and the run file turned up, taken in suite order.
#[derive(Default)]
struct Reading {
    errors: Vec<Problem>,
    warnings: Vec<Problem>,
    unreadable: Vec<Problem>,
    run_problems: Vec<Problem>,
    missing: Vec<String>,
    unique: UniqueIds,
    fingerprints: HashSet<Option<String>>,
    parts: Vec<(Option<String>, crate::runfile::record::FingerprintParts)>,
    models: HashSet<Option<String>>,
    judges: HashSet<file::JudgeSummary>,
    keyless: kinds::keys::Tally,
    samples: Vec<Sampled>,
    views: Vec<SampleView>,
}

/// One suite document, loaded and (when it is a sample) scored, reduced to what the pass in
/// suite order needs: the sample itself is dropped on the thread that loaded it.
struct Done {
    problems: Vec<Problem>,
    /// The sample's id and where it is defined.
    sample: Option<(String, Location)>,
    answered: Option<Answered>,
}

/// A sample's answers, read and scored.
struct Answered {
    problems: Vec<Problem>,
    /// Answers over `[matching] max_items`, scored as unreadable.
    unreadable: Vec<Problem>,
    fingerprints: Vec<Option<String>>,
    parts: Vec<(Option<String>, crate::runfile::record::FingerprintParts)>,
    models: Vec<Option<String>>,
    judges: Vec<file::JudgeSummary>,
    /// The keys the sample's kind reads, and what each of its keyless answers held.
    keyless: Option<(Vec<String>, Vec<Vec<String>>)>,
    score: SampleScore,
    runs: runs::SampleRuns,
    view: Option<SampleView>,
}

/// Documents read per round. While one round is loaded and scored on every core, the round
/// before it is taken in suite order and the next one is read from disk. Only the rounds in
/// flight are in memory, however large the suite.
const ROUND: usize = 512;

/// Score a suite against a run file. Reading the files is sequential; loading each document,
/// reading its answers and scoring them run on every core (rayon), in rounds of documents
/// that keep the suite order, so problems and results come out in the order they are in.
pub fn score(req: &ScoreRequest<'_>) -> Result<Scored> {
    let index = RunIndex::build(req.run)?;
    let answers = index.reader()?;
    let (similarity, embedded) = texts::similarity(req, &index, &answers)?;
    let scoring = ScoringConfig {
        similarity,
        ..req.scoring.clone()
    };
    let req = &ScoreRequest {
        scoring: &scoring,
        ..*req
    };
    let mut reading = Reading::default();
    let mut documents = req.suite.documents();
    let mut round: Vec<RawDocument> = documents.by_ref().take(ROUND).collect();
    let mut finished: Vec<Done> = Vec::new();
    while !round.is_empty() || !finished.is_empty() {
        let scoring = std::mem::take(&mut round);
        let (done, next) = rayon::join(
            || {
                scoring
                    .into_par_iter()
                    .map(|document| load_and_score(document, &index, &answers, req))
                    .collect::<Vec<_>>()
            },
            || {
                for done in finished.drain(..) {
                    reading.record(done, &index);
                }
                documents.by_ref().take(ROUND).collect()
            },
        );
        finished = done;
        round = next;
    }
    if !reading.errors.is_empty() {
        return Err(Error::Invalid {
            what: "suite",
            problems: reading.errors,
        });
    }
    reading
        .run_problems
        .extend(unknown::unknown_samples(&index, &reading.unique));
    if !reading.run_problems.is_empty() {
        return Err(Error::Invalid {
            what: "run file",
            problems: reading.run_problems,
        });
    }
    let (mut samples, records): (Vec<_>, Vec<_>) = reading.samples.into_iter().unzip();
    let (metrics, groups) = aggregate::aggregates(&mut samples, records, &req.bootstrap);
    let provenance = provenance::collect(
        req,
        &documents.fingerprint(),
        &samples,
        reading.fingerprints,
        reading.parts,
        reading.models,
        reading.judges,
    );
    let file = ScoreFile {
        schema: file::SCHEMA.to_string(),
        metrics_version: file::METRICS_VERSION.to_string(),
        protocol_version: req.suite.config.protocol_version.clone(),
        provenance,
        metrics,
        groups,
        samples,
        missing: reading.missing,
        keyless: reading.keyless.finish(),
    };
    Ok(Scored {
        file,
        warnings: reading.warnings,
        unreadable: reading.unreadable,
        views: reading.views,
        embedded,
    })
}

/// Load one document and, when it is a sample, read and score its answers (on any thread).
fn load_and_score(
    document: RawDocument,
    index: &RunIndex,
    answers: &AnswerReader,
    req: &ScoreRequest<'_>,
) -> Done {
    let Loaded { sample, problems } = document.load();
    let max_items = req.scoring.max_items;
    let (problems, gold_fits) = kinds::bounds::gold_fits(sample.as_ref(), problems, max_items);
    let answered = sample.as_ref().filter(|_| gold_fits).and_then(|sample| {
        let entries = index.entries(&sample.id)?;
        let (mut records, mut problems) = (Vec::with_capacity(entries.len()), Vec::new());
        for entry in entries {
            match answers.read(entry) {
                Ok(answer) => records.push(answer),
                Err(p) => problems.push(p),
            }
        }
        let (mut keyless, mut long) = (Vec::new(), Vec::new());
        let (score, runs, first_pairs) =
            score_sample(sample, &records, req.scoring, &mut keyless, &mut long);
        let lines: Vec<usize> = entries.iter().map(|e| e.line).collect();
        let at = |i: usize| Location::new(index.path(), lines.get(i).copied().unwrap_or(0), 1);
        let unreadable = long
            .into_iter()
            .map(|(i, len)| kinds::bounds::answer_over_cap(at(i), &sample.id, len, max_items));
        let view = req
            .keep_view
            .filter(|keep| keep(&score.id, score.primary))
            .map(|_| SampleView::new(sample, &records, &score, &first_pairs, req.scoring));
        Some(Answered {
            problems,
            unreadable: unreadable.collect(),
            fingerprints: records
                .iter()
                .map(|a| a.pipeline_fingerprint.clone())
                .collect(),
            parts: records
                .iter()
                .filter_map(|a| Some((a.pipeline_fingerprint.clone(), a.pipeline.clone()?)))
                .collect(),
            models: records.iter().map(|a| a.model.clone()).collect(),
            judges: records
                .iter()
                .flat_map(|a| &a.judge)
                .map(file::JudgeSummary::of)
                .collect(),
            keyless: (!keyless.is_empty()).then(|| {
                let expected = kinds::keys::expected(sample.kind, sample.task.as_deref());
                (expected, keyless)
            }),
            score,
            runs,
            view,
        })
    });
    Done {
        problems,
        sample: sample.map(|s| (s.id, s.origin)),
        answered,
    }
}

impl Reading {
    /// Take one loaded document in suite order: record its problems, check its id is new,
    /// and keep its score.
    fn record(&mut self, done: Done, index: &RunIndex) {
        for p in done.problems {
            if p.is_error() {
                self.errors.push(p);
            } else {
                self.warnings.push(p);
            }
        }
        let Some((id, origin)) = done.sample else {
            return;
        };
        if let Some(duplicate) = self.unique.first_use(&id, &origin) {
            self.errors.push(duplicate);
            return;
        }
        if !self.errors.is_empty() {
            return; // the suite will be refused: keep reading only to report every problem
        }
        if index.entries(&id).is_none() {
            self.missing.push(id);
            return;
        }
        let Some(answered) = done.answered else {
            return;
        };
        self.run_problems.extend(answered.problems);
        self.unreadable.extend(answered.unreadable);
        self.fingerprints.extend(answered.fingerprints);
        self.parts.extend(answered.parts);
        self.models.extend(answered.models);
        self.judges.extend(answered.judges);
        if let Some((expected, found)) = &answered.keyless {
            let (kind, task) = (answered.score.kind, answered.score.task.as_deref());
            for held in found {
                self.keyless.add(&id, kind, task, expected, held);
            }
        }
        self.samples.push((answered.score, answered.runs));
        self.views.extend(answered.view);
    }
}

/// A sample's score, and its records kept apart for the runs of the aggregates.
type Sampled = (SampleScore, runs::SampleRuns);

/// A sample scored, and the items its first record paired (for the diff of a broken
/// sample); `keyless` gets what each answer that holds none of the kind's keys held instead,
/// `long` each answer over `[matching] max_items` (its index, its longest list).
fn score_sample(
    sample: &Sample,
    answers: &[Answer],
    cfg: &ScoringConfig,
    keyless: &mut Vec<Vec<String>>,
    long: &mut Vec<(usize, usize)>,
) -> (SampleScore, runs::SampleRuns, Vec<kinds::aligned::Paired>) {
    let kind = kinds::of(sample.kind);
    let gold = kind.prepare(sample, cfg);
    let mut records = runs::Records::new(answers.len());
    let mut latencies = Vec::new();
    let (mut runs, mut parse, mut matching) = (Vec::new(), Vec::new(), Vec::new());
    let (mut first_pairs, mut judge_suspect, mut schema_violations) = (None, Vec::new(), None);
    for (i, answer) in answers.iter().enumerate() {
        let record = score_record(kind, sample, &gold, answer, cfg);
        long.extend(record.over_cap.map(|len| (i, len)));
        if judge_suspect.is_empty() {
            judge_suspect = record.suspect;
        }
        first_pairs.get_or_insert(record.pairs);
        // A failed call is told by its error, not as an answer that breaks the schema.
        if !answer.failed() {
            schema_violations = schema_violations.or(record.violations.of(answer.repeat));
        }
        records.add(answer, record.stats);
        runs.push(record.primary);
        parse.push(record.outcome);
        matching.extend(record.matching);
        keyless.extend(record.keyless);
        latencies.extend(answer.latency_ms.filter(|l| l.is_finite()));
    }
    // The sample's sums are its records' (merged in order); each one's are kept apart too.
    let (stats, records) = records.pool();
    let n = runs.len().max(1) as f64;
    let primary = runs.iter().sum::<f64>() / n;
    let std = (runs.iter().map(|r| (r - primary).powi(2)).sum::<f64>() / n).sqrt();
    // The metric values are filled in with the aggregates ([`sample_metrics`]), from the
    // sums every sample's keys are interned into there.
    let metrics = BTreeMap::new();
    let score = SampleScore {
        id: sample.id.clone(),
        kind: sample.kind,
        domain: sample.domain.clone(),
        difficulty: sample.difficulty,
        task: sample.task.as_ref().map(|t| t.name.clone()),
        tags: sample.tags.clone(),
        repeats: answers.len(),
        primary,
        primary_std: std,
        primary_runs: runs,
        earlier_runs: Vec::new(),
        failed: answers.iter().filter(|a| a.failed()).count(),
        errors: answers
            .iter()
            .filter_map(|a| a.error.as_ref())
            .map(|e| crate::runfile::failures::reduced(&sample.id, e))
            .collect(),
        parse,
        latency_ms: latencies,
        matching,
        judge_failure: answers
            .iter()
            .flat_map(|a| a.judge.iter().flat_map(|j| &j.judgements))
            .find(|j| j.failed())
            .map(|j| {
                crate::runfile::failures::cause(&sample.id, j.invalid.as_deref().unwrap_or(""))
            }),
        judge_suspect,
        schema_violations,
        metrics,
        stats,
    };
    (score, records, first_pairs.unwrap_or_default())
}

fn score_record(
    kind: &dyn kinds::TaskKind,
    sample: &Sample,
    gold: &kinds::Gold,
    answer: &Answer,
    cfg: &ScoringConfig,
) -> RecordScore {
    let mut parsed = parse_answer_as::<Json>(&answer.text);
    let over_cap = kinds::bounds::unreadable_when_long(&mut parsed, cfg.max_items);
    let keyless = parsed
        .value
        .as_ref()
        .and_then(|v| kinds::keys::missing(sample.kind, sample.task.as_deref(), v));
    let reading = kinds::Parsed {
        value: parsed.value.as_ref(),
        outcome: parsed.outcome,
        text: &answer.text,
        region: parsed.region.as_ref(),
    };
    let kinds::Record {
        mut stats,
        mut primary,
        matching,
        pairs,
        violations,
    } = kind.score(sample, gold, &reading, cfg);
    if answer.failed() || !parsed.outcome.is_success() {
        primary = 0.0;
    }
    stats.add("parse.records", 1.0);
    let outcome_key = match parsed.outcome {
        ParseOutcome::Raw => "parse.raw",
        ParseOutcome::Repaired => "parse.repaired",
        ParseOutcome::NoJsonFound => "parse.no_json",
        ParseOutcome::Error => "parse.error",
    };
    stats.add(outcome_key, 1.0);
    if keyless.is_some() {
        stats.add("parse.keyless", 1.0);
    }
    run_health(answer, &mut stats);
    let suspect = answer.judge.as_ref().map_or_else(Vec::new, |judge| {
        let document = kind
            .judged_document()
            .and_then(|d| parsed.value.as_ref()?.get(d.answer)?.as_str());
        crate::judge::metrics::sums(judge, document, &mut stats)
    });
    RecordScore {
        stats,
        primary,
        outcome: parsed.outcome,
        matching,
        pairs,
        keyless,
        over_cap,
        suspect,
        violations,
    }
}

fn run_health(answer: &Answer, stats: &mut Stats) {
    stats.add("run.records", 1.0);
    stats.add("run.errors", f64::from(u8::from(answer.failed())));
    stats.add("run.cached", f64::from(u8::from(answer.cached)));
    if answer.latency_ms.is_some_and(f64::is_finite) {
        stats.add("run.latency_known", 1.0);
    }
    if let Some(usage) = &answer.usage {
        if let Some(tokens) = usage.tokens() {
            stats.add("run.tokens", tokens as f64);
            stats.add("run.tokens_known", 1.0);
        }
        if let Some(cost) = usage.cost_usd.filter(|c| c.is_finite()) {
            stats.add("run.cost", cost);
            stats.add("run.cost_known", 1.0);
        }
        if usage.estimated {
            stats.add("run.tokens_estimated", 1.0);
        }
        if usage.invalid.is_some() {
            stats.add("run.usage_invalid", 1.0);
        }
    }
}

#[cfg(test)]
mod tests;
