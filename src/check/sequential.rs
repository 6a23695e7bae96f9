//! `check --sequential`: the run's observer that sends the samples the cache answers first
//! and the others in a seeded random order within each kind and task, scores each sample
//! as its answers come in (in sending order), tests every rule after each batch, and stops
//! starting calls once every rule is decided about the full suite.

use std::collections::HashMap;

use goldgate_core::error::Result;
use goldgate_core::gate::sequential::decide::{Decisions, Known, Planned};
use goldgate_core::gate::sequential::order::send_order;
use goldgate_core::gate::sequential::questions::{
    keys, max_errors_question, questions, DriftBasis, Question,
};
use goldgate_core::gate::sequential::report::SequentialReport;
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::metrics::stats::Sums;
use goldgate_core::metrics::ScoringConfig;
use goldgate_core::runfile::record::{Answer, RunRecord};
use goldgate_core::sample::Sample;
use goldgate_core::score::{Embedding, SampleScore, ScoreFile};
use goldgate_run::plan::{Job, Notice, Observer, Steer};
use goldgate_run::runner::RunSummary;

/// How a sequential check runs (`--sequential`, `[check] sequential`).
#[derive(Clone, PartialEq, Eq)]
pub struct SequentialSettings {
    /// Samples answered between two tests of the rules (`None`: [`default_batch`]).
    pub batch: Option<usize>,
    /// Mixed into the order's seed with the pipeline fingerprint
    /// (`GOLDGATE_SEQUENTIAL_SALT`): a secret the change's author does not know, so the
    /// order cannot be chosen by choosing a fingerprint. Never written anywhere.
    pub salt: Option<String>,
}

impl std::fmt::Debug for SequentialSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SequentialSettings")
            .field("batch", &self.batch)
            .field("salt", &self.salt.as_ref().map(|_| "***"))
            .finish()
    }
}

/// Samples answered between two tests of the rules when none is asked for: the larger of the
/// job count (a test per round of calls in flight) and 1% of the suite (so a large suite is
/// not scored a few samples at a time).
pub fn default_batch(jobs: usize, samples: usize) -> usize {
    jobs.max(samples.div_ceil(100)).max(1)
}

/// What the sequential check needs to decide, borrowed from `check`.
pub struct Inputs<'a> {
    pub thresholds: &'a Thresholds,
    pub baseline: Option<&'a ScoreFile>,
    /// The pinned reference of `[drift]`, whose budgets are questions too.
    pub reference: Option<&'a ScoreFile>,
    pub scoring: &'a ScoringConfig,
    pub embedding: Option<Embedding<'a>>,
    pub repeats: u32,
    pub jobs: usize,
    /// `[run] max_errors`: a count over the whole suite, so with it every sample is sent.
    pub max_errors: Option<usize>,
    pub settings: &'a SequentialSettings,
}

/// The observer of a sequential check, around the one that shows progress.
pub struct SequentialRun<'a> {
    inner: &'a mut dyn Observer,
    inputs: Inputs<'a>,
    samples: HashMap<String, Sample>,
    state: Option<State>,
}

/// The plan made before the first call, and what came back so far.
struct State {
    seed: u64,
    batch: usize,
    /// Sample ids in sending order: the cache's first.
    order: Vec<String>,
    cached: usize,
    answers: HashMap<String, Vec<Answer>>,
    /// Samples of the order taken in (scored), and those complete but not yet scored.
    taken: usize,
    complete: usize,
    known: Vec<SampleScore>,
    /// Built once the cache's samples are in.
    pending: Option<(Vec<Question>, Vec<&'static str>, Vec<Planned>)>,
    decisions: Option<Decisions>,
}

impl<'a> SequentialRun<'a> {
    /// An observer deciding with `inputs` over the samples of `suite`.
    pub fn new(
        inner: &'a mut dyn Observer,
        inputs: Inputs<'a>,
        suite: &goldgate_core::suite::Suite,
    ) -> Result<Self> {
        Ok(SequentialRun {
            inner,
            inputs,
            samples: load(suite)?,
            state: None,
        })
    }

    /// The report of what was decided (`None` when the run never planned: no job).
    pub fn report(&self, summary: &RunSummary) -> Option<SequentialReport> {
        let state = self.state.as_ref()?;
        let decisions = state.decisions.as_ref()?;
        let mut report = SequentialReport::of(decisions, state.seed, state.batch, state.cached);
        report.salted = self.inputs.settings.salt.is_some();
        report.not_needed = state
            .order
            .iter()
            .filter(|id| !state.answers.contains_key(*id))
            .cloned()
            .collect();
        report.calls_not_made = summary.not_needed;
        report.stopped_early = report.stopped_early && summary.not_needed > 0;
        report.cost_not_spent_usd = self
            .inputs
            .baseline
            .and_then(cost_per_call)
            .map(|c| c * summary.not_needed as f64);
        Some(report)
    }

    /// The decisions, once made.
    pub fn decisions(&self) -> Option<&Decisions> {
        self.state.as_ref()?.decisions.as_ref()
    }

    /// Score the samples complete since the last batch and give them to the decisions.
    fn take(&mut self) -> Result<()> {
        let Some(state) = self.state.as_mut() else {
            return Ok(());
        };
        let ids = &state.order[state.taken..state.complete];
        let batch: Vec<(&Sample, &[Answer])> = ids
            .iter()
            .filter_map(|id| Some((self.samples.get(id)?, state.answers.get(id)?.as_slice())))
            .collect();
        // On a thread of its own: this runs inside the run's async loop, and an embedding
        // API's client (`similarity = "openai"`) runs a runtime of its own, which cannot
        // start inside another.
        let (scoring, embedding) = (self.inputs.scoring, self.inputs.embedding);
        let scores = std::thread::scope(|scope| {
            scope
                .spawn(|| goldgate_core::score::score_batch(&batch, scoring, embedding))
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })?;
        for score in scores {
            if state.taken < state.cached {
                state.known.push(score);
            } else {
                if state.decisions.is_none() {
                    state.decisions = Some(self.inputs.decide(state, &self.samples));
                }
                if let Some(d) = state.decisions.as_mut() {
                    d.observe(&score);
                }
            }
            state.taken += 1;
        }
        if state.taken == state.cached && state.decisions.is_none() {
            state.decisions = Some(self.inputs.decide(state, &self.samples));
        }
        Ok(())
    }
}

impl Inputs<'_> {
    /// The decisions over the samples still to send, with the cache's known.
    fn decide(&self, state: &mut State, samples: &HashMap<String, Sample>) -> Decisions {
        let (asked, keys, planned) = state.pending.take().unwrap_or_default();
        let strata: Vec<String> = state.order[..state.cached]
            .iter()
            .map(|id| samples.get(id).map(stratum).unwrap_or_default())
            .collect();
        let known: Vec<Known<'_>> = state
            .known
            .iter()
            .zip(&strata)
            .map(|(score, stratum)| Known { score, stratum })
            .collect();
        Decisions::new(
            asked,
            keys,
            planned,
            &known,
            (self.baseline, self.reference),
        )
    }
}

impl State {
    /// The jobs that may have started: those of the samples taken in, and a batch and a
    /// round of calls beyond them. Calls do not run far ahead of the samples decided on
    /// (answers come back out of order; the rules are tested on the samples in sending
    /// order).
    fn window(&self, jobs: usize, repeats: u32) -> usize {
        let ahead = self.taken.max(self.cached) + self.batch + jobs.max(1);
        ahead.saturating_mul(repeats.max(1) as usize)
    }
}

/// The suite's samples by id.
pub(super) fn load(suite: &goldgate_core::suite::Suite) -> Result<HashMap<String, Sample>> {
    let mut samples = HashMap::new();
    suite.each_sample(|s| {
        samples.insert(s.id.clone(), s.clone());
    })?;
    Ok(samples)
}

/// The kinds `samples` hold, each once.
/// Every question a sequential check of `samples` asks: each rule's, against the baseline
/// of `partners`; each drift budget's, on the samples the suite shares with the reference;
/// and `[run] max_errors` over all `calls`, which waits for every sample.
pub(super) fn asked(
    thresholds: &Thresholds,
    partners: (Option<&ScoreFile>, Option<&ScoreFile>),
    samples: &HashMap<String, Sample>,
    max_errors: Option<usize>,
    calls: usize,
) -> Vec<Question> {
    let (baseline, reference) = partners;
    let suite: std::collections::HashSet<String> = samples.keys().cloned().collect();
    let drift = reference.map(|reference| DriftBasis {
        reference,
        suite: &suite,
    });
    let mut asked = questions(thresholds, baseline, drift, &kinds(samples));
    asked.extend(max_errors.and_then(|max| max_errors_question(max, calls)));
    asked
}

pub(super) fn kinds(samples: &HashMap<String, Sample>) -> Vec<goldgate_core::sample::Kind> {
    let mut kinds: Vec<_> = samples.values().map(|s| s.kind).collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// `sample` as the decisions plan it: its stratum, and the most its `repeats` records can
/// add to each of `keys`.
pub(super) fn planned(
    sample: &Sample,
    keys: &[&'static str],
    scoring: &ScoringConfig,
    repeats: u32,
) -> Planned {
    let repeats = f64::from(repeats.max(1));
    let bound = |key: &&str| {
        goldgate_core::kinds::bounds::record_bound(key, sample, scoring).map(|b| b * repeats)
    };
    Planned {
        id: sample.id.clone(),
        kind: sample.kind,
        stratum: stratum(sample),
        bounds: keys.iter().map(bound).collect(),
    }
}

/// The stratum a sample is sent in: its kind, and its task within the kind.
pub(super) fn stratum(sample: &Sample) -> String {
    match &sample.task {
        Some(task) => format!("{}/{}", sample.kind.as_str(), task.name),
        None => sample.kind.as_str().to_string(),
    }
}

/// The baseline's cost per call (USD), when it knows the cost of every call it made.
fn cost_per_call(baseline: &ScoreFile) -> Option<f64> {
    let (mut cost, mut known, mut records) = (0.0, 0.0, 0.0);
    for s in &baseline.samples {
        cost += s.stats.get("run.cost");
        known += s.stats.get("run.cost_known");
        records += s.stats.get("run.records");
    }
    (records > 0.0 && known == records).then(|| cost / records)
}

impl Observer for SequentialRun<'_> {
    fn notice(&mut self, notice: &Notice) {
        self.inner.notice(notice);
    }

    fn resumed(&mut self, done: usize, todo: usize) {
        self.inner.resumed(done, todo);
    }

    fn order(
        &mut self,
        jobs: &[Job],
        cached: &dyn Fn(&Job) -> bool,
        fingerprint: &str,
    ) -> Option<(Vec<usize>, usize)> {
        // Each sample's jobs, in suite order, and whether the cache answers all of them.
        let mut ids: Vec<&str> = Vec::new();
        let mut of: HashMap<&str, (Vec<usize>, bool)> = HashMap::new();
        for (i, job) in jobs.iter().enumerate() {
            let entry = of.entry(job.sample_id.as_str()).or_insert_with(|| {
                ids.push(job.sample_id.as_str());
                (Vec::new(), true)
            });
            entry.0.push(i);
            entry.1 &= cached(job);
        }
        let (known, sent): (Vec<&str>, Vec<&str>) = ids.iter().partition(|id| of[*id].1);
        let strata: Vec<String> = sent
            .iter()
            .map(|id| self.samples.get(*id).map(stratum).unwrap_or_default())
            .collect();
        // The fingerprint alone is known to the change's author, whose pipeline can work out
        // its own order; a salt kept secret from them (a CI secret) keys the seed with
        // HMAC-SHA-256, which no seed seen in a comment lets them run backwards.
        let seed = match &self.inputs.settings.salt {
            None => goldgate_core::rng::label_hash(fingerprint),
            Some(salt) => goldgate_core::rng::keyed_seed(salt, fingerprint),
        };
        let order: Vec<&str> = known
            .iter()
            .copied()
            .chain(send_order(&strata, seed).into_iter().map(|i| sent[i]))
            .collect();
        let asked = asked(
            self.inputs.thresholds,
            (self.inputs.baseline, self.inputs.reference),
            &self.samples,
            self.inputs.max_errors,
            jobs.len(),
        );
        let keys = keys(&asked);
        let (scoring, repeats) = (self.inputs.scoring, self.inputs.repeats);
        let planned = order[known.len()..]
            .iter()
            .filter_map(|id| Some(planned(self.samples.get(*id)?, &keys, scoring, repeats)))
            .collect();
        let batch = self
            .inputs
            .settings
            .batch
            .unwrap_or_else(|| default_batch(self.inputs.jobs, order.len()));
        let permutation = order.iter().flat_map(|id| of[id].0.clone()).collect();
        let mut state = State {
            seed,
            batch,
            order: order.iter().map(|s| s.to_string()).collect(),
            cached: known.len(),
            answers: HashMap::new(),
            taken: 0,
            complete: 0,
            known: Vec::new(),
            pending: Some((asked, keys, planned)),
            decisions: None,
        };
        if state.cached == 0 {
            state.decisions = Some(self.inputs.decide(&mut state, &self.samples));
        }
        let open = state.window(self.inputs.jobs, self.inputs.repeats);
        self.state = Some(state);
        Some((permutation, open))
    }

    fn started(&mut self, calls: usize) {
        self.inner.started(calls);
    }

    fn record(&mut self, so_far: &RunSummary) {
        self.inner.record(so_far);
    }

    fn answered(&mut self, record: &RunRecord) -> Result<Steer> {
        let repeats = self.inputs.repeats.max(1) as usize;
        let Some(state) = self.state.as_mut() else {
            return Ok(Steer::Continue);
        };
        state
            .answers
            .entry(record.sample_id.clone())
            .or_default()
            .push(Answer::from(record.clone()));
        let done = |state: &State, i: usize| {
            state
                .answers
                .get(&state.order[i])
                .is_some_and(|a| a.len() >= repeats)
        };
        while state.complete < state.order.len() && done(state, state.complete) {
            state.complete += 1;
        }
        let waiting = state.complete - state.taken;
        let end = state.complete == state.order.len();
        // The cache's samples are taken in together: they decide nothing, they are known.
        let batch = match state.taken < state.cached {
            true => state.cached - state.taken,
            false => state.batch,
        };
        if waiting == 0 || (waiting < batch && !end) {
            return Ok(Steer::Continue);
        }
        self.take()?;
        if self.decisions().is_some_and(Decisions::all_decided) {
            return Ok(Steer::Stop);
        }
        let (jobs, repeats) = (self.inputs.jobs, self.inputs.repeats);
        Ok(self
            .state
            .as_ref()
            .map_or(Steer::Continue, |s| Steer::Until(s.window(jobs, repeats))))
    }

    fn finished(&mut self) {
        self.inner.finished();
    }
}
