//! `goldgate judge`: review an existing run file again with the configured judge. Every
//! record the judge is for (an e2e sample of the suite with a reference SRS) gets a fresh
//! review in its `judge` field (from the judge cache where it has one); records of other
//! samples lose any review they had; records of samples the suite does not have are kept
//! as they are. The file is rewritten in one atomic step once every review is done, so an
//! interrupted `goldgate judge` leaves it unchanged (and its finished judgements cached).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::cache::JudgeCache;
use super::{document, Judge, JudgeSettings};
use goldgate_client::limits::Limits;
use goldgate_core::cachedir::{CacheDir, Ignored};
use goldgate_core::error::{Error, Location, Problem, Result};
use goldgate_core::judge::JudgeRecord;
use goldgate_core::runfile::lock::OutputLock;
use goldgate_core::runfile::record::RunRecord;
use goldgate_core::secrets::Secrets;
use goldgate_core::suite::Suite;

/// What `goldgate judge` needs, defaults applied.
#[derive(Clone, Debug)]
pub struct RejudgeSettings {
    /// The run file, rewritten in place.
    pub run: PathBuf,
    pub suite: PathBuf,
    pub max_sample_bytes: u64,
    pub judge: JudgeSettings,
    /// Reviews in flight at once.
    pub jobs: usize,
    /// The judge cache lives in `<cache_dir>/judge/`; `None`: no cache.
    pub cache_dir: Option<PathBuf>,
    /// Write the cache without reading it.
    pub refresh_cache: bool,
    pub rpm: Option<u32>,
    pub tpm: Option<u64>,
}

/// What `goldgate judge` did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rejudged {
    pub path: PathBuf,
    /// Records in the file.
    pub records: usize,
    /// Records of the suite's samples that now carry a review.
    pub reviewed: usize,
    /// Records of samples the suite does not have (kept unchanged).
    pub unknown: usize,
    /// Judgements made, and of those: valid, from the cache, with no document to judge.
    pub judgements: usize,
    pub valid: usize,
    pub cached: usize,
    pub nothing_to_judge: usize,
    /// Judge cache entries that were not goldgate's own, so not used.
    pub cache_ignored: Ignored,
    /// The judgements the judge failed, with the first one's cause.
    pub failures: goldgate_core::judge::reviews::JudgeReviews,
}

/// Review every record of the run file again and rewrite it (locked while this runs).
pub fn rejudge(settings: &RejudgeSettings, runtime: &tokio::runtime::Runtime) -> Result<Rejudged> {
    let _lock = OutputLock::acquire(&settings.run)?;
    let mut records = read_records(&settings.run)?;
    let mut requests: HashMap<String, Value> = HashMap::new();
    Suite::open(&settings.suite, settings.max_sample_bytes)?.each_sample(|sample| {
        requests.insert(sample.id.clone(), sample.request());
    })?;
    let cache_dir = (settings.cache_dir.as_deref()).map(|dir| Arc::new(CacheDir::new(dir)));
    let cache = (cache_dir.clone()).map(|dir| JudgeCache::new(dir, !settings.refresh_cache));
    let mut secrets = Secrets::new();
    let judge = Arc::new(Judge::open(&settings.judge, cache, &mut secrets)?);
    let secrets = Arc::new(secrets);
    let limits = Arc::new(Limits::new(settings.rpm, settings.tpm));
    let permits = Arc::new(Semaphore::new(settings.jobs.max(1)));
    let mut done = Rejudged {
        path: settings.run.clone(),
        records: records.len(),
        ..Rejudged::default()
    };
    let mut tasks = JoinSet::new();
    for (i, record) in records.iter_mut().enumerate() {
        let Some(request) = requests.get(&record.sample_id) else {
            done.unknown += 1;
            continue;
        };
        record.judge = match document(request, record) {
            None => None,
            Some(Err(why)) => Some(judge.not_judged(&why)),
            Some(Ok((reference, markdown))) => {
                let (reference, markdown) = (reference.to_string(), markdown.to_string());
                let (judge, secrets, limits, permits) = (
                    judge.clone(),
                    secrets.clone(),
                    limits.clone(),
                    permits.clone(),
                );
                tasks.spawn_on(
                    async move {
                        let _permit = permits.acquire_owned().await;
                        (
                            i,
                            judge.review(&reference, &markdown, &limits, &secrets).await,
                        )
                    },
                    runtime.handle(),
                );
                None
            }
        };
    }
    let reviews: Vec<(usize, JudgeRecord)> = runtime.block_on(async {
        let mut reviews = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok(review) => reviews.push(review),
                Err(e) => std::panic::resume_unwind(e.into_panic()),
            }
        }
        reviews
    });
    for (i, review) in reviews {
        records[i].judge = Some(review);
    }
    let known = records
        .iter()
        .filter(|r| requests.contains_key(&r.sample_id));
    for (sample, review) in known.filter_map(|r| Some((&r.sample_id, r.judge.as_ref()?))) {
        done.reviewed += 1;
        done.failures.add_judgements(sample, review);
        for j in &review.judgements {
            done.judgements += 1;
            done.valid += usize::from(j.metrics.is_some());
            done.cached += usize::from(j.cached);
            done.nothing_to_judge += usize::from(j.attempts == 0 && !j.cached);
        }
    }
    done.cache_ignored = cache_dir.map(|dir| dir.ignored()).unwrap_or_default();
    goldgate_core::io::write_output(&settings.run, |w| {
        for record in &records {
            serde_json::to_writer(&mut *w, record).map_err(std::io::Error::from)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })?;
    Ok(done)
}

/// Every record of a run file, in order; a line that is not a record is an input error at
/// its line (an outputs file of `{"id", "output"}` lines has no record to keep a review in).
fn read_records(path: &std::path::Path) -> Result<Vec<RunRecord>> {
    let text = goldgate_core::io::read(path)?;
    let mut records = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<RunRecord>(line) {
            Ok(record) => records.push(record),
            Err(e) => {
                let (message, hint) = goldgate_core::text::explain_serde(&e.to_string());
                let mut problem =
                    Problem::new(Location::new(path, i + 1, e.column()), None, message);
                problem.hint = hint.or_else(|| {
                    Some("goldgate judge reviews a run file (run.jsonl) written by goldgate run or check".into())
                });
                problems.push(problem);
            }
        }
    }
    match problems.is_empty() {
        true => Ok(records),
        false => Err(Error::Invalid {
            what: "run file",
            problems,
        }),
    }
}
