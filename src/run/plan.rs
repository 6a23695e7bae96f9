//! A whole run as one library call: which (sample, repeat) jobs to send (shard, repeats, what
//! a resumed run already has), through which pipeline, with which limits and cache, into
//! which run file; and the [`RunReport`] saying how it ended. Progress goes to an
//! [`Observer`]; nothing here prints.

use std::path::PathBuf;
use std::sync::Arc;

use super::adapter::Pipeline;
use super::cache::{Cache, CacheMode};
use super::config::{Adapter, PipelineConfig, Shard};
use super::limits::Limits;
use super::runner::{self, Job, RunOptions, RunSummary};
use crate::error::Result;
use crate::runfile::writer::RecordWriter;
use crate::suite::Suite;

/// Everything a run needs, defaults already applied (the command line and `goldgate.toml`
/// are resolved into this by `settings`).
#[derive(Clone, Debug)]
pub struct RunSettings {
    pub suite: PathBuf,
    /// The largest suite sample read (a YAML or JSON file, or one JSONL line).
    pub max_sample_bytes: u64,
    pub output: PathBuf,
    pub pipeline: PipelineConfig,
    pub jobs: usize,
    pub resume: bool,
    pub repeat: u32,
    pub shard: Option<Shard>,
    pub cache_dir: PathBuf,
    pub cache: CacheMode,
    pub max_errors: Option<usize>,
    pub rpm: Option<u32>,
    pub tpm: Option<u64>,
}

/// Hears how a run goes, for progress displays.
pub trait Observer {
    /// A resumed run found `done` records already written; `todo` calls remain.
    fn resumed(&mut self, _done: usize, _todo: usize) {}
    /// The run is about to make `calls` calls.
    fn started(&mut self, _calls: usize) {}
    /// A record was written.
    fn record(&mut self, _so_far: &RunSummary) {}
    /// No more records will come.
    fn finished(&mut self) {}
}

/// An observer that ignores everything.
impl Observer for () {}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// Every job has a record; the run file is in place.
    Complete,
    /// Stopped by Ctrl-C or SIGTERM; finished records are kept in the partial file.
    Interrupted,
    /// More than `max_errors` calls failed: the pipeline looks broken.
    Tripped {
        max_errors: usize,
        first_error: String,
    },
}

/// What a run did.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReport {
    /// The run file when complete, else the partial file holding the finished records.
    pub path: PathBuf,
    /// Records in the file, resumed ones included.
    pub total: usize,
    /// Records in the file whose call failed, resumed ones included.
    pub errors: usize,
    /// What this run's calls did.
    pub summary: RunSummary,
    pub ending: Ending,
}

impl RunReport {
    pub fn is_complete(&self) -> bool {
        self.ending == Ending::Complete
    }

    /// Share of the file's records whose call failed (`run.error_rate`), resumed ones
    /// included.
    pub fn error_rate(&self) -> f64 {
        match self.total {
            0 => 0.0,
            n => self.errors as f64 / n as f64,
        }
    }

    /// This run's failed calls, grouped by cause, most frequent first.
    pub fn failures(&self) -> crate::runfile::failures::FailedCalls {
        self.summary.failures.finish()
    }

    /// Share of this run's records answered from the cache, in percent.
    pub fn hit_rate(&self) -> f64 {
        match self.summary.written {
            0 => 0.0,
            n => 100.0 * self.summary.cached as f64 / n as f64,
        }
    }
}

/// Run the suite through the pipeline on `runtime`, writing records to `settings.output`.
pub fn run_suite(
    settings: &RunSettings,
    runtime: &tokio::runtime::Runtime,
    observer: &mut dyn Observer,
) -> Result<RunReport> {
    let suite = Suite::open(&settings.suite, settings.max_sample_bytes)?;
    let mut samples = Vec::new();
    suite.each_sample(|sample| {
        if settings
            .shard
            .is_none_or(|shard| shard.contains(&sample.id))
        {
            samples.push((sample.id.clone(), Arc::new(sample.request())));
        }
    })?;
    let fingerprint = super::config::fingerprint(&settings.pipeline)?;
    let secrets = Arc::new(super::config::known_secrets(&settings.pipeline));
    let pipeline = Arc::new(Pipeline::open(&settings.pipeline, secrets.clone())?);
    let (mut writer, resumed) = RecordWriter::open(&settings.output, settings.resume)?;
    let jobs: Vec<Job> = samples
        .iter()
        .flat_map(|(id, request)| {
            (0..settings.repeat).map(move |repeat| Job {
                sample_id: id.clone(),
                repeat,
                request: request.clone(),
            })
        })
        .filter(|j| !resumed.done.contains(&(j.sample_id.clone(), j.repeat)))
        .collect();
    if !resumed.done.is_empty() {
        observer.resumed(resumed.done.len(), jobs.len());
    }
    let mut options = RunOptions::new(settings.jobs, fingerprint, settings.pipeline.retries);
    options.max_errors = settings.max_errors;
    options.model = settings.pipeline.model.clone();
    options.limits = Arc::new(Limits::new(settings.rpm, settings.tpm));
    options.secrets = secrets;
    if !matches!(settings.pipeline.adapter, Adapter::Replay { .. }) {
        options.cache = Some(Cache::new(&settings.cache_dir, settings.cache));
    }
    observer.started(jobs.len());
    let summary = runtime.block_on(runner::run(
        pipeline,
        jobs,
        &options,
        &mut writer,
        &mut |so_far| observer.record(so_far),
    ));
    observer.finished();
    let summary = summary?;
    let total = summary.written + resumed.done.len();
    let errors = summary.errors + resumed.errors;
    let ending = if summary.tripped {
        Ending::Tripped {
            max_errors: settings.max_errors.unwrap_or(0),
            first_error: summary.first_error.clone().unwrap_or_default(),
        }
    } else if summary.interrupted {
        Ending::Interrupted
    } else {
        Ending::Complete
    };
    let path = match ending {
        Ending::Complete => writer.finish()?,
        _ => writer.abandon()?,
    };
    Ok(RunReport {
        path,
        total,
        errors,
        summary,
        ending,
    })
}
