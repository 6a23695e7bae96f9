//! The runner: sends every (sample, repeat) through the pipeline with bounded concurrency
//! and hands each record to the writer the moment it is finished. A failed call is a
//! record, never an abort; Ctrl-C (or SIGTERM) stops the run with every finished record
//! on disk.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::adapter::Pipeline;
use super::record::RunRecord;
use super::writer::RecordWriter;
use crate::error::Result;
use crate::parse::{parse_answer, ParseOutcome};

/// One call to make.
#[derive(Clone, Debug)]
pub struct Job {
    pub sample_id: String,
    pub repeat: u32,
    /// The sample without `labels` and `annotations` (SPEC §3).
    pub request: Arc<Value>,
}

/// How the runner behaves.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub jobs: usize,
    pub pipeline_fingerprint: String,
}

/// What happened.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSummary {
    /// Records written by this run.
    pub written: usize,
    /// Records with a failed call.
    pub errors: usize,
    /// Whether the run was stopped before every job finished.
    pub interrupted: bool,
    pub elapsed: Duration,
}

/// Run every job; records go to `writer` as they finish.
pub async fn run(
    pipeline: Arc<Pipeline>,
    jobs: Vec<Job>,
    options: &RunOptions,
    writer: &mut RecordWriter,
) -> Result<RunSummary> {
    let started = Instant::now();
    let permits = Arc::new(Semaphore::new(options.jobs.max(1)));
    let mut tasks = JoinSet::new();
    for job in jobs {
        let (pipeline, permits, fingerprint) = (
            pipeline.clone(),
            permits.clone(),
            options.pipeline_fingerprint.clone(),
        );
        tasks.spawn(async move {
            let _permit = permits.acquire_owned().await;
            call(&pipeline, &job, fingerprint).await
        });
    }
    let mut summary = RunSummary::default();
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            biased;
            _ = &mut stop => {
                summary.interrupted = true;
                tasks.abort_all(); // dropping a call kills its process group
                break;
            }
            next = tasks.join_next() => match next {
                None => break,
                Some(Ok(record)) => {
                    summary.errors += usize::from(record.error.is_some());
                    writer.write(&record)?;
                    summary.written += 1;
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

/// Make one call and turn its outcome into a record.
async fn call(pipeline: &Pipeline, job: &Job, fingerprint: String) -> RunRecord {
    let started = Instant::now();
    let result = pipeline
        .call(&job.sample_id, job.repeat, &job.request)
        .await;
    let measured = started.elapsed().as_secs_f64() * 1000.0;
    let mut record = RunRecord {
        sample_id: job.sample_id.clone(),
        repeat: job.repeat,
        raw_output: None,
        prediction: None,
        parse: None,
        error: None,
        latency_ms: Some(measured),
        cached: false,
        usage: None,
        pipeline_fingerprint: Some(fingerprint),
        stderr: None,
    };
    match result {
        Ok(reply) => {
            let parsed = parse_answer(&reply.text);
            record.parse = Some(json!({"outcome": parsed.outcome, "detail": parsed.detail}));
            record.prediction = parsed.value;
            record.raw_output = Some(reply.text);
            record.usage = reply.usage;
            record.stderr = reply.stderr;
            record.latency_ms = Some(reply.latency_ms.unwrap_or(measured));
        }
        Err(e) => {
            record.parse = Some(
                json!({"outcome": ParseOutcome::NoJsonFound, "detail": "the pipeline call failed"}),
            );
            record.raw_output = Some(String::new());
            record.error = Some(e.record());
            record.stderr = e.stderr;
        }
    }
    record
}
