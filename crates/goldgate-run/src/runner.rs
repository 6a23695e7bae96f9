//! The runner: sends every (sample, repeat) through the pipeline with bounded concurrency
//! and hands each record to the writer the moment it is finished. A failed call is a
//! record, never an abort; retryable failures are retried with exponential backoff and full
//! jitter (at least the server's `Retry-After`); Ctrl-C (or SIGTERM) stops the run with
//! every finished record on disk. Every known secret is redacted from what a call brought
//! back (answer, stderr, error message) before it is cached or recorded. With a judge, an
//! e2e answer is reviewed right after it comes back, under the same concurrency permit.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::adapter::Pipeline;
use super::cache::Cache;
use super::call::{CallError, Reply};
use super::cost::{Budget, Pricing};
use super::judge::Judge;
pub use super::summary::RunSummary;
use goldgate_client::limits::Limits;
use goldgate_core::error::Result;
use goldgate_core::judge::JudgeRecord;
use goldgate_core::kinds::keys::Expects;
use goldgate_core::parse::{parse_answer, ParseOutcome};
use goldgate_core::retry::Backoff;
use goldgate_core::rng::{label_hash, Rng};
use goldgate_core::runfile::record::{ErrorKind, RunRecord, Usage};
use goldgate_core::runfile::trace::Trace;
use goldgate_core::runfile::writer::RecordWriter;
use goldgate_core::secrets::Secrets;

/// One call to make.
#[derive(Clone, Debug)]
pub struct Job {
    pub sample_id: String,
    pub repeat: u32,
    /// The sample without `labels` and `annotations`.
    pub request: Arc<Value>,
    /// What its answer should hold (to count answers that hold none of it).
    pub expects: Expects,
}

/// How the runner behaves.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub jobs: usize,
    pub pipeline_fingerprint: String,
    /// The fingerprint each kind's answers are keyed on, when it has its own (a `chat`
    /// pipeline's per-kind prompts); else `pipeline_fingerprint`.
    pub key_fingerprints: Arc<std::collections::BTreeMap<String, String>>,
    /// The answer cache (`None` for replay, which has nothing to save).
    pub cache: Option<Cache>,
    /// The model, recorded in every record for provenance.
    pub model: Option<String>,
    /// Stop the run once more calls than this have failed (the circuit breaker).
    pub max_errors: Option<usize>,
    /// Requests and tokens per minute, shared by every call.
    pub limits: Arc<Limits>,
    /// Extra attempts for a retryable failure.
    pub retries: u32,
    /// How long to wait between attempts.
    pub backoff: Backoff,
    /// Values replaced by `***` in everything a call brings back.
    pub secrets: Arc<Secrets>,
    /// Prices that give a call's cost from its tokens, when the pipeline reports none.
    pub pricing: Option<Pricing>,
    /// What this run may spend on new calls (`--max-cost`).
    pub budget: Arc<Budget>,
    /// The judge reviewing e2e answers (`[judge]`).
    pub judge: Option<Arc<Judge>>,
    /// Set once the caller needs no more answers (a sequential check has its verdict):
    /// calls not yet started never start.
    pub halt: Arc<AtomicBool>,
    /// How many jobs (in the order given) may have started: the caller widens it as it
    /// takes their answers in (a sequential check keeps the calls a batch or so ahead of
    /// what it has decided on). `None`: every job may start.
    pub window: Option<Arc<tokio::sync::watch::Sender<usize>>>,
}

impl RunOptions {
    /// The key `job`'s answer is cached under: its request and repeat, with the fingerprint
    /// of what its call uses (its kind's, when kinds have their own).
    pub fn cache_key(&self, job: &Job) -> String {
        let (by_kind, fingerprint) = (&self.key_fingerprints, &self.pipeline_fingerprint);
        Cache::key_by_kind(&job.request, by_kind, fingerprint, job.repeat)
    }
}

/// What the caller says once it has heard of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Steer {
    /// Go on.
    Continue,
    /// Jobs up to this many (in the order given) may start.
    Until(usize),
    /// No more answers are needed: calls not yet started never start.
    Stop,
}

impl RunOptions {
    pub fn new(jobs: usize, pipeline_fingerprint: String, retries: u32) -> Self {
        RunOptions {
            jobs,
            pipeline_fingerprint,
            key_fingerprints: Arc::default(),
            cache: None,
            model: None,
            max_errors: None,
            limits: Arc::default(),
            retries,
            backoff: Backoff::default(),
            secrets: Arc::default(),
            pricing: None,
            budget: Arc::default(),
            judge: None,
            halt: Arc::default(),
            window: None,
        }
    }
}

/// A call that never started.
enum NotStarted {
    /// The budget was spent.
    Budget,
    /// The caller needed no more answers.
    NotNeeded,
}

/// Run every job, starting them in the order given; records go to `writer` as they finish
/// and `progress` hears of each and steers the rest: it may widen the window of jobs that
/// may start, or stop (the calls in flight then finish and are kept; no new one starts).
pub async fn run(
    pipeline: Arc<Pipeline>,
    jobs: Vec<Job>,
    options: &RunOptions,
    writer: &mut RecordWriter,
    progress: &mut dyn FnMut(&RunSummary, &RunRecord) -> Steer,
) -> Result<RunSummary> {
    let started = Instant::now();
    let permits = Arc::new(Semaphore::new(options.jobs.max(1)));
    let mut tasks = JoinSet::new();
    for (index, job) in jobs.into_iter().enumerate() {
        let (pipeline, permits, options) = (pipeline.clone(), permits.clone(), options.clone());
        tasks.spawn(async move {
            if let Some(window) = &options.window {
                let mut open = window.subscribe();
                let _ = open.wait_for(|&until| until > index).await;
            }
            let _permit = permits.acquire_owned().await;
            // Once the budget is spent, or no more answers are needed, calls still waiting
            // never start.
            if options.halt.load(Ordering::SeqCst) {
                return Ok(Err(NotStarted::NotNeeded));
            }
            match options.budget.open() {
                true => {
                    let (record, keyless) = call(&pipeline, &job, &options).await?;
                    // Counted before the permit goes to the next call, which then sees
                    // whether the budget is spent.
                    let cost = record.usage.as_ref().and_then(|u| u.cost_usd);
                    let unknown = match (cost, record.cached) {
                        (Some(cost), false) => {
                            options.budget.spend(cost);
                            false
                        }
                        // A budget cannot be kept on a call whose cost nobody knows: the
                        // run stops rather than go on unchecked.
                        (None, false) => record.error.is_none() && options.budget.refuse(),
                        (_, true) => false,
                    };
                    if let Some(cost) = judge_cost(&record) {
                        options.budget.spend(cost);
                    }
                    Ok(Ok((
                        record,
                        keyless.map(|found| (job.expects, found)),
                        unknown,
                    )))
                }
                false => Ok(Err(NotStarted::Budget)),
            }
        });
    }
    let mut summary = RunSummary::default();
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        // Once the budget is spent, the jobs waiting for the window must wake to find it
        // spent: their samples will never be answered, so the window would never widen.
        if let (false, Some(window)) = (options.budget.open(), &options.window) {
            window.send_replace(usize::MAX);
        }
        tokio::select! {
            biased;
            _ = &mut stop => {
                summary.interrupted = true;
                tasks.abort_all(); // dropping a call kills its process group
                break;
            }
            next = tasks.join_next() => match next {
                None => break,
                Some(Ok(Ok(Err(NotStarted::Budget)))) => summary.over_budget = true,
                Some(Ok(Ok(Err(NotStarted::NotNeeded)))) => summary.not_needed += 1,
                // An answer-cache entry that cannot be goldgate's: no answer is taken from it,
                // and the run stops on it like on any input error.
                Some(Ok(Err(problem))) => {
                    tasks.abort_all();
                    while tasks.join_next().await.is_some() {}
                    return Err(goldgate_core::error::Error::invalid("answer cache entry", problem));
                }
                Some(Ok(Ok(Ok((record, keyless, unknown))))) => {
                    writer.write(&record)?;
                    summary.count(&record);
                    if unknown {
                        summary.budget_unknown.get_or_insert_with(|| record.sample_id.clone());
                    }
                    if let Some((expects, found)) = keyless {
                        expects.count(&mut summary.keyless, &record.sample_id, &found);
                    }
                    match progress(&summary, &record) {
                        Steer::Continue => {}
                        Steer::Until(until) => {
                            if let Some(window) = &options.window {
                                window.send_modify(|open| *open = (*open).max(until));
                            }
                        }
                        Steer::Stop => {
                            options.halt.store(true, Ordering::SeqCst);
                            // The jobs waiting for the window wake to find they are not needed.
                            if let Some(window) = &options.window {
                                window.send_replace(usize::MAX);
                            }
                        }
                    }
                    if options.max_errors.is_some_and(|max| summary.errors > max) {
                        summary.tripped = true;
                        tasks.abort_all();
                        break;
                    }
                }
                Some(Err(e)) if e.is_cancelled() => {}
                Some(Err(e)) => std::panic::resume_unwind(e.into_panic()),
            }
        }
    }
    while tasks.join_next().await.is_some() {}
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// Resolves on Ctrl-C or SIGTERM.
async fn stop_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminate = async {
        match term.as_mut() {
            Some(t) => {
                t.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate => {}
    }
}

/// Call the pipeline, retrying retryable failures. Returns the outcome and the attempts made.
async fn call_with_retries(
    pipeline: &Pipeline,
    job: &Job,
    options: &RunOptions,
) -> (Result<Reply, CallError>, u32) {
    let mut rng = Rng::new(
        label_hash(&format!("{}#{}", job.sample_id, job.repeat)) ^ std::process::id() as u64,
    );
    let mut attempts = 1;
    loop {
        if !pipeline.paces_itself() {
            options.limits.acquire().await;
        }
        match pipeline
            .call(&job.sample_id, job.repeat, &job.request)
            .await
        {
            Err(e) if e.retryable && attempts <= options.retries => {
                tokio::time::sleep(options.backoff.wait(attempts, e.retry_after, &mut rng)).await;
                attempts += 1;
            }
            outcome => return (outcome, attempts),
        }
    }
}

/// Make one call and turn its outcome into a record; with it, what the answer held instead
/// when it parsed but holds none of the keys its kind reads.
async fn call(
    pipeline: &Pipeline,
    job: &Job,
    options: &RunOptions,
) -> std::result::Result<(RunRecord, Option<Vec<String>>), goldgate_core::error::Problem> {
    let started = Instant::now();
    let key = options.cache_key(job);
    let hit = match options.cache.as_ref().map(|c| c.get(&key)) {
        Some(Err(problem)) => return Err(problem),
        Some(Ok(hit)) => hit,
        None => None,
    };
    let cached = hit.is_some();
    let (outcome, attempts) = match hit {
        Some(reply) => (Ok(reply), 0),
        None => call_with_retries(pipeline, job, options).await,
    };
    let outcome = redact(outcome, &options.secrets);
    let measured = started.elapsed().as_secs_f64() * 1000.0;
    if let (Some(cache), Ok(reply), false) = (&options.cache, &outcome, cached) {
        cache.put(&key, reply, measured);
    }
    let mut keyless = None;
    let mut record = RunRecord {
        sample_id: job.sample_id.clone(),
        repeat: job.repeat,
        raw_output: None,
        prediction: None,
        parse: None,
        error: None,
        latency_ms: Some(measured),
        cached,
        usage: None,
        pipeline_fingerprint: Some(options.pipeline_fingerprint.clone()),
        stderr: None,
        model: options.model.clone(),
        finish_reason: None,
        cache_key: Some(key),
        provenance: None, // the writer puts the run's on the file's first record
        trace: None,
        judge: None,
    };
    match outcome {
        Ok(reply) => {
            let parsed = parse_answer(&reply.text);
            keyless = parsed.value.as_ref().and_then(|v| job.expects.missing(v));
            record.parse = Some(json!({"outcome": parsed.outcome, "detail": parsed.detail}));
            let needs = super::usage::Needs {
                prices: options.pricing.is_some(),
                budget: options.budget.limit().is_some(),
                tokens_per_minute: options.limits.counts_tokens(),
            };
            let request = || job.request.to_string();
            record.usage = super::usage::complete(
                reply
                    .usage
                    .or_else(|| parsed.value.as_ref().and_then(super::usage::reported)),
                needs,
                options.model.as_deref(),
                &request,
                &reply.text,
                options.pricing.as_ref(),
            );
            if let (Some(tokens), false, false) = (
                record.usage.as_ref().and_then(Usage::tokens),
                cached,
                pipeline.paces_itself(),
            ) {
                options.limits.used(tokens);
            }
            record.prediction = parsed.value;
            record.raw_output = Some(reply.text);
            record.stderr = reply.stderr;
            record.finish_reason = reply.finish_reason;
            record.trace = reply.trace;
            // A replayed answer keeps its recorded latency; replaying takes no real time, so
            // an answer recorded without one has none (not the microseconds of a lookup).
            record.latency_ms = match (reply.latency_ms, pipeline) {
                (Some(recorded), _) => Some(recorded),
                (None, Pipeline::Replay(_)) => None,
                (None, _) => Some(measured),
            };
        }
        Err(e) => {
            let mut error = e.record();
            // A crash's cause is what the process said last (a traceback's final line).
            if let (ErrorKind::Exit, Some(said)) = (e.kind, e.stderr.as_deref().and_then(last_line))
            {
                error.message = format!("{}: {said}", error.message);
            }
            if attempts > 1 {
                error.message = format!("{} (after {attempts} attempts)", error.message);
            }
            record.parse = Some(
                json!({"outcome": ParseOutcome::NoJsonFound, "detail": "the pipeline call failed"}),
            );
            record.raw_output = Some(String::new());
            record.error = Some(error);
            record.stderr = e.stderr;
            // The tokens a multi-step pipeline spent before it failed.
            record.usage = e
                .trace
                .as_ref()
                .and_then(|t| t.usage())
                .map(|u| Pricing::price(options.pricing.as_ref(), super::agents::usage(u)));
            record.trace = e.trace.map(|t| *t);
        }
    }
    record.judge = review(pipeline, job, &record, options).await;
    Ok((record, keyless))
}

/// The judge's review of a record: a replayed record's own review when no judge is
/// configured or the configured judge made it; else the configured judge's, for the
/// records it reviews (see [`super::judge::document`]).
async fn review(
    pipeline: &Pipeline,
    job: &Job,
    record: &RunRecord,
    options: &RunOptions,
) -> Option<JudgeRecord> {
    let recorded = match pipeline {
        Pipeline::Replay(replay) => replay.judged(&job.sample_id, job.repeat),
        _ => None,
    };
    let Some(judge) = &options.judge else {
        return recorded.cloned();
    };
    if let Some(recorded) = recorded.filter(|r| judge.made(r)) {
        return Some(recorded.clone());
    }
    Some(match super::judge::document(&job.request, record)? {
        Err(why) => judge.not_judged(&why),
        Ok((reference, markdown)) => {
            judge
                .review(reference, markdown, &options.limits, &options.secrets)
                .await
        }
    })
}

/// What the judge's calls for a record cost (its cached judgements cost nothing now).
fn judge_cost(record: &RunRecord) -> Option<f64> {
    let costs = record.judge.iter().flat_map(|j| &j.judgements);
    let costs: Vec<f64> = costs
        .filter(|j| !j.cached)
        .filter_map(|j| j.cost_usd)
        .collect();
    (!costs.is_empty()).then(|| costs.iter().sum())
}

/// A call's outcome with every secret replaced by `***`: the answer and stderr of a reply,
/// the message and stderr of a failure.
fn redact(outcome: Result<Reply, CallError>, secrets: &Secrets) -> Result<Reply, CallError> {
    if secrets.is_empty() {
        return outcome;
    }
    let clean = |text: Option<String>| text.map(|t| secrets.redact_string(t));
    let mask = |trace: &mut Trace| trace.map_text(&|s| secrets.redact_string(s));
    match outcome {
        Ok(mut reply) => {
            reply.trace.iter_mut().for_each(mask);
            Ok(Reply {
                text: secrets.redact_string(reply.text),
                stderr: clean(reply.stderr),
                ..reply
            })
        }
        Err(mut e) => {
            e.trace.iter_mut().for_each(|t| mask(t));
            Err(CallError {
                message: secrets.redact_string(e.message),
                stderr: clean(e.stderr),
                ..e
            })
        }
    }
}

/// The last non-blank line of captured standard error (of a cut one: its last whole line).
fn last_line(stderr: &str) -> Option<&str> {
    let kept = match stderr.rfind("… [") {
        Some(at) if stderr.ends_with(" more bytes not kept]") => {
            let cut = &stderr[..at];
            cut.rfind('\n').map_or("", |n| &cut[..n])
        }
        _ => stderr,
    };
    kept.lines().map(str::trim).rfind(|l| !l.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_is_told_by_the_last_line_it_wrote() {
        assert_eq!(last_line("calling…\nError: 401\n\n"), Some("Error: 401"));
        assert_eq!(last_line("a\nb… [12 more bytes not kept]"), Some("a"));
        assert_eq!(last_line(" \n"), None);
    }

    #[test]
    fn secrets_are_redacted_from_answers_stderr_and_errors() {
        let mut secrets = Secrets::new();
        secrets.add("ghp_0123456789");
        let reply = Reply {
            text: "{\"t\": \"ghp_0123456789\"}".into(),
            stderr: Some("token ghp_0123456789".into()),
            ..Reply::default()
        };
        let mut reply = reply;
        reply.trace = Some(Trace {
            calls: vec![],
            state: Some(json!({"said": "ghp_0123456789"})),
        });
        let clean = redact(Ok(reply), &secrets).unwrap();
        assert_eq!(clean.text, "{\"t\": \"***\"}");
        assert_eq!(clean.trace.unwrap().state, Some(json!({"said": "***"})));
        assert_eq!(clean.stderr.as_deref(), Some("token ***"));
        let mut error = CallError::new(
            goldgate_core::runfile::record::ErrorKind::Http,
            "POST x answered 401: bad ghp_0123456789",
        );
        error.stderr = Some("ghp_0123456789".into());
        error.trace = Some(Box::new(Trace {
            calls: vec![],
            state: Some(json!(["ghp_0123456789"])),
        }));
        let clean = redact(Err(error), &secrets).unwrap_err();
        assert_eq!(clean.trace.unwrap().state, Some(json!(["***"])));
        assert_eq!(clean.message, "POST x answered 401: bad ***");
        assert_eq!(clean.stderr.as_deref(), Some("***"));
    }
}
