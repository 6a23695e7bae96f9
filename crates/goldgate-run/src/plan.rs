//! A whole run as one library call: which (sample, repeat) jobs to send (shard, repeats, what
//! a resumed run already has), through which pipeline, with which limits and cache, into
//! which run file (locked while it is written); and the [`RunReport`] saying how it ended.
//! Progress and notices go to an [`Observer`]; nothing here prints.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::adapter::Pipeline;
use super::cache::{Cache, CacheMode};
use super::config::{PipelineConfig, Shard};
use super::fingerprint::{self, CacheWish, Git};
use super::judge::cache::JudgeCache;
use super::judge::Judge;
use super::runner::{self, RunOptions, RunSummary};
pub use super::runner::{Job, Steer};
use goldgate_client::limits::Limits;
use goldgate_core::cachedir::{CacheDir, Ignored};
use goldgate_core::error::Result;
use goldgate_core::kinds::keys::Expects;
use goldgate_core::runfile::lock::OutputLock;
use goldgate_core::runfile::record::{CacheUse, RunProvenance, RunRecord};
use goldgate_core::runfile::writer::{Finished, RecordWriter, Resume};
use goldgate_core::secrets::Secrets;
use goldgate_core::suite::Suite;

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
    /// `cache = true | false` under `[pipeline]` (`--cache`): `http` pipelines are cached
    /// only with `true`.
    pub cache_pipeline: Option<bool>,
    /// Cached answers older than this are not reused.
    pub cache_ttl: Option<Duration>,
    /// goldgate's own inputs and outputs (suite, rules, baseline, output, cache): not part of
    /// the pipeline's code when the repository's content is fingerprinted.
    pub own_files: Vec<PathBuf>,
    pub max_errors: Option<usize>,
    pub rpm: Option<u32>,
    pub tpm: Option<u64>,
    /// Prices that give a call's cost from its tokens (`[pipeline.pricing]`).
    pub pricing: Option<super::cost::Pricing>,
    /// Stop starting calls once this run's calls have cost this much (USD).
    pub max_cost: Option<f64>,
    /// The judge reviewing e2e answers (`[judge]`), when configured.
    pub judge: Option<super::judge::JudgeSettings>,
}

/// Something about a run worth saying once, before its calls start.
#[derive(Clone, Debug, PartialEq)]
pub enum Notice {
    /// The answer cache is neither read nor written, for this reason.
    CacheOff(String),
    /// A resumed run dropped `records` records of samples no longer in this run, or whose
    /// input changed (`suite_changed`: the suite's files changed since the run started).
    Dropped { records: usize, suite_changed: bool },
}

/// Hears how a run goes, for progress displays.
pub trait Observer {
    /// Something to tell the user once.
    fn notice(&mut self, _notice: &Notice) {}
    /// A resumed run found `done` records already written; `todo` calls remain.
    fn resumed(&mut self, _done: usize, _todo: usize) {}
    /// The run is about to make `calls` calls.
    fn started(&mut self, _calls: usize) {}
    /// Before the first call: the order in which to start `jobs` (a permutation of their
    /// indices) and how many of them may start before the observer widens the window
    /// ([`Steer::Until`]), given whether the cache answers a job and the pipeline's
    /// fingerprint (`None`: the suite's order, every job at once). A sequential check sends
    /// the cache's answers first and the others in an order seeded by the fingerprint.
    fn order(
        &mut self,
        _jobs: &[Job],
        _cached: &dyn Fn(&Job) -> bool,
        _fingerprint: &str,
    ) -> Option<(Vec<usize>, usize)> {
        None
    }
    /// A record was written.
    fn record(&mut self, _so_far: &RunSummary) {}
    /// A record was written: how the run goes on ([`Steer::Stop`] once no more answers are
    /// needed: the calls in flight finish and are kept; no new call starts).
    fn answered(&mut self, _record: &RunRecord) -> Result<Steer> {
        Ok(Steer::Continue)
    }
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
    /// The calls spent the budget (`--max-cost`); the calls left were not made.
    OverBudget { max_cost: f64 },
    /// The budget could not be kept: the call of `sample` has no known cost (the pipeline
    /// reported none, and no prices count one); the calls left were not made.
    BudgetUnknown { max_cost: f64, sample: String },
    /// The caller had what it needed (a sequential check decided every rule): the
    /// `not_needed` calls left were not made. The run file holds what was answered.
    Decided { not_needed: usize },
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
    /// Cache entries (answers, judge reviews) that were not goldgate's own, so not used.
    pub cache_ignored: Ignored,
}

impl RunReport {
    /// Whether the run file is final: every job answered, or every answer the caller
    /// needed ([`Ending::Decided`]).
    pub fn is_complete(&self) -> bool {
        matches!(self.ending, Ending::Complete | Ending::Decided { .. })
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
    pub fn failures(&self) -> goldgate_core::runfile::failures::FailedCalls {
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

/// Run the suite through the pipeline on `runtime`, writing records to `settings.output`
/// (locked for the run: a second run of the same output stops at once).
pub fn run_suite(
    settings: &RunSettings,
    runtime: &tokio::runtime::Runtime,
    observer: &mut dyn Observer,
) -> Result<RunReport> {
    let lock = OutputLock::acquire(&settings.output)?;
    run_suite_locked(settings, runtime, observer, &lock)
}

/// [`run_suite`] for a caller that holds the output's lock (`check` holds it until every
/// file is written).
pub fn run_suite_locked(
    settings: &RunSettings,
    runtime: &tokio::runtime::Runtime,
    observer: &mut dyn Observer,
    _lock: &OutputLock,
) -> Result<RunReport> {
    // The pipeline is fingerprinted (git runs) while the suite is read.
    let (fingerprint, read) = std::thread::scope(|scope| {
        let fingerprint = scope.spawn(|| pipeline_fingerprint(settings));
        let read = read_suite(settings);
        let fingerprint = fingerprint
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (fingerprint, read)
    });
    let (samples, suite_fingerprint) = read?;
    let fingerprint = fingerprint?;
    // A pipeline that cannot start is a configuration error before anything else is said.
    let mut secrets = super::config::known_secrets(&settings.pipeline);
    let cache_dir = Arc::new(CacheDir::new(&settings.cache_dir));
    let judge = judge(settings, cache_dir.clone(), &mut secrets)?;
    let secrets = Arc::new(secrets);
    let limits = Arc::new(Limits::new(settings.rpm, settings.tpm));
    let pipeline = Arc::new(Pipeline::open(
        &settings.pipeline,
        secrets.clone(),
        limits.clone(),
    )?);
    let (cache_use, cache_off) = cache_use(settings, &fingerprint);
    if let Some(why) = &cache_off {
        observer.notice(&Notice::CacheOff(why.clone()));
    }
    let provenance = RunProvenance {
        suite_fingerprint: format!("sha256:{suite_fingerprint}"),
        repeats: settings.repeat,
        fingerprint: fingerprint.parts.clone(),
        cache: cache_use,
        cache_off,
        cache_ttl_secs: settings.cache_ttl.map(|t| t.as_secs()),
    };
    let mut jobs: Vec<Job> = samples
        .iter()
        .flat_map(|(id, request, expects)| {
            (0..settings.repeat).map(move |repeat| Job {
                sample_id: id.clone(),
                repeat,
                request: request.clone(),
                expects: expects.clone(),
            })
        })
        .collect();
    let earlier = match settings.resume {
        true => RecordWriter::earlier(&settings.output)?,
        false => None,
    };
    let (mut writer, resumed) = match earlier {
        Some(earlier) => {
            super::resume::check(&earlier, &provenance, &fingerprint.value)?;
            let suite_changed = earlier
                .provenance
                .as_ref()
                .is_some_and(|p| p.suite_fingerprint != provenance.suite_fingerprint);
            // A record is kept when its sample is still in this run with the same request.
            let wanted: HashMap<(&str, u32), String> = jobs
                .iter()
                .map(|j| {
                    let fp = (&fingerprint.by_kind, fingerprint.value.as_str());
                    let key = Cache::key_by_kind(&j.request, fp.0, fp.1, j.repeat);
                    ((j.sample_id.as_str(), j.repeat), key)
                })
                .collect();
            let keep = |r: &Finished| {
                wanted.get(&(r.sample_id.as_str(), r.repeat)) == r.cache_key.as_ref()
            };
            let opened = RecordWriter::open(
                &settings.output,
                &provenance,
                Some(Resume {
                    earlier,
                    keep: &keep,
                }),
            )?;
            if opened.1.dropped > 0 {
                observer.notice(&Notice::Dropped {
                    records: opened.1.dropped,
                    suite_changed,
                });
            }
            opened
        }
        None => RecordWriter::open(&settings.output, &provenance, None)?,
    };
    if !resumed.done.is_empty() {
        jobs.retain(|j| !resumed.done.contains(&(j.sample_id.clone(), j.repeat)));
        observer.resumed(resumed.done.len(), jobs.len());
    }
    let mut options = RunOptions::new(settings.jobs, fingerprint.value, settings.pipeline.retries);
    options.key_fingerprints = Arc::new(fingerprint.by_kind);
    options.max_errors = settings.max_errors;
    options.model = settings.pipeline.model.clone();
    options.limits = limits;
    options.secrets = secrets;
    options.judge = judge;
    options.pricing = settings.pricing;
    options.budget = Arc::new(super::cost::Budget::new(settings.max_cost));
    let max_entry_bytes = super::cache::max_entry_bytes(settings.pipeline.max_output_bytes);
    options.cache = match cache_use {
        CacheUse::ReadWrite => Some((CacheMode::Use, settings.cache_ttl)),
        CacheUse::WriteOnly => Some((CacheMode::Refresh, None)),
        CacheUse::Off => None,
    }
    .map(|(mode, ttl)| Cache::new(cache_dir.clone(), mode, ttl, max_entry_bytes));
    let cached = |job: &Job| {
        options
            .cache
            .as_ref()
            .is_some_and(|c| matches!(c.get(&options.cache_key(job)), Ok(Some(_))))
    };
    if let Some((order, open)) = observer.order(&jobs, &cached, &options.pipeline_fingerprint) {
        let mut slots: Vec<Option<Job>> = jobs.into_iter().map(Some).collect();
        jobs = order
            .into_iter()
            .filter_map(|i| slots.get_mut(i)?.take())
            .collect();
        jobs.extend(slots.into_iter().flatten());
        options.window = Some(Arc::new(tokio::sync::watch::Sender::new(open)));
    }
    observer.started(jobs.len());
    // The first error the observer meets (scoring an answer) stops the calls and is
    // returned once those in flight are in.
    let mut failed = None;
    let summary = runtime.block_on(runner::run(
        pipeline,
        jobs,
        &options,
        &mut writer,
        &mut |so_far, record| {
            observer.record(so_far);
            if failed.is_some() {
                return Steer::Stop;
            }
            observer.answered(record).unwrap_or_else(|e| {
                failed = Some(e);
                Steer::Stop
            })
        },
    ));
    observer.finished();
    let summary = summary?;
    if let Some(e) = failed {
        writer.abandon()?;
        return Err(e);
    }
    let total = summary.written + resumed.done.len();
    let errors = summary.errors + resumed.errors;
    let ending = if summary.tripped {
        Ending::Tripped {
            max_errors: settings.max_errors.unwrap_or(0),
            first_error: summary.first_error.clone().unwrap_or_default(),
        }
    } else if summary.interrupted {
        Ending::Interrupted
    } else if let Some(sample) = &summary.budget_unknown {
        Ending::BudgetUnknown {
            max_cost: settings.max_cost.unwrap_or(0.0),
            sample: sample.clone(),
        }
    } else if summary.over_budget {
        Ending::OverBudget {
            max_cost: settings.max_cost.unwrap_or(0.0),
        }
    } else if summary.not_needed > 0 {
        Ending::Decided {
            not_needed: summary.not_needed,
        }
    } else {
        Ending::Complete
    };
    let path = match ending {
        Ending::Complete | Ending::Decided { .. } => writer.finish()?,
        _ => writer.abandon()?,
    };
    Ok(RunReport {
        path,
        total,
        errors,
        summary,
        ending,
        cache_ignored: cache_dir.ignored(),
    })
}

/// What a run with `settings` keys its cached answers on and how it uses the cache, before
/// it runs (the GitHub Action keys its copy of the cache directory on it).
#[derive(Clone, Debug, PartialEq)]
pub struct CachePlan {
    pub fingerprint: fingerprint::Fingerprint,
    pub cache: CacheUse,
    /// Why goldgate turned the cache off, when it did.
    pub cache_off: Option<String>,
}

/// The [`CachePlan`] of a run with `settings`: the same fingerprint and cache use
/// [`run_suite`] computes, by the same functions.
pub fn cache_plan(settings: &RunSettings) -> Result<CachePlan> {
    let fingerprint = pipeline_fingerprint(settings)?;
    let (cache, cache_off) = cache_use(settings, &fingerprint);
    Ok(CachePlan {
        fingerprint,
        cache,
        cache_off,
    })
}

/// One call a run with some settings would make, and whether the cache answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedCall {
    pub sample_id: String,
    pub kind: String,
    pub repeat: u32,
    pub cached: bool,
}

/// The calls a run with `settings` would make (its shard of the suite, every repeat), and
/// which of them its cache would answer: looked up by the keys [`run_suite`] computes, by
/// the same functions. No call is made.
pub fn planned_calls(settings: &RunSettings) -> Result<(CachePlan, Vec<PlannedCall>)> {
    let plan = cache_plan(settings)?;
    let (samples, _) = read_suite(settings)?;
    let cache = match plan.cache {
        CacheUse::ReadWrite => Some(Cache::new(
            Arc::new(CacheDir::new(&settings.cache_dir)),
            CacheMode::Use,
            settings.cache_ttl,
            super::cache::max_entry_bytes(settings.pipeline.max_output_bytes),
        )),
        CacheUse::WriteOnly | CacheUse::Off => None,
    };
    let mut calls = Vec::new();
    for (id, request, _) in &samples {
        for repeat in 0..settings.repeat {
            let fp = &plan.fingerprint;
            let key = Cache::key_by_kind(request, &fp.by_kind, &fp.value, repeat);
            calls.push(PlannedCall {
                sample_id: id.clone(),
                kind: request["kind"].as_str().unwrap_or_default().to_string(),
                repeat,
                cached: cache
                    .as_ref()
                    .is_some_and(|c| matches!(c.get(&key), Ok(Some(_)))),
            });
        }
    }
    Ok((plan, calls))
}

/// The pipeline's fingerprint, part of every cache key of the run.
fn pipeline_fingerprint(settings: &RunSettings) -> Result<fingerprint::Fingerprint> {
    fingerprint::fingerprint(&settings.pipeline, &settings.own_files, git(settings))
}

/// How the run uses the answer cache, and why goldgate turned it off when it did.
fn cache_use(settings: &RunSettings, fp: &fingerprint::Fingerprint) -> (CacheUse, Option<String>) {
    let wish = CacheWish {
        read: settings.cache == CacheMode::Use,
        off: settings.cache == CacheMode::Off,
        pipeline: settings.cache_pipeline,
    };
    fingerprint::cache_use(&settings.pipeline.adapter, fp, wish)
}

/// The judge, when configured, with its cache in the run's cache directory (read and
/// written as the answer cache is asked to be).
fn judge(
    settings: &RunSettings,
    cache_dir: Arc<CacheDir>,
    secrets: &mut Secrets,
) -> Result<Option<Arc<Judge>>> {
    let Some(judge) = &settings.judge else {
        return Ok(None);
    };
    let cache = (settings.cache != CacheMode::Off)
        .then(|| JudgeCache::new(cache_dir, settings.cache == CacheMode::Use));
    Ok(Some(Arc::new(Judge::open(judge, cache, secrets)?)))
}

/// Where the pipeline's repository is looked for: where its command runs.
fn git(settings: &RunSettings) -> Git<'_> {
    Git {
        dir: settings
            .pipeline
            .workdir
            .as_deref()
            .unwrap_or(std::path::Path::new(".")),
        ..Git::default()
    }
}

/// Each sample this run sends (its shard of the suite): its id and request.
/// Each sample's id, request and what its answers should hold.
type Requests = Vec<(String, Arc<Value>, Expects)>;

/// The requests of the samples this run sends, and the suite fingerprint.
fn read_suite(settings: &RunSettings) -> Result<(Requests, String)> {
    let suite = Suite::open(&settings.suite, settings.max_sample_bytes)?;
    let mut samples = Vec::new();
    let fingerprint = suite.each_sample(|sample| {
        if settings
            .shard
            .is_none_or(|shard| shard.contains(&sample.id))
        {
            samples.push((
                sample.id.clone(),
                Arc::new(sample.request()),
                Expects::of(sample),
            ));
        }
    })?;
    Ok((samples, fingerprint))
}
