//! The gate as one library call: run the suite through the pipeline, score the run, compare
//! it with the baseline under the rules, diff the samples it broke, and write `run.jsonl`,
//! `score.json`, `verdict.json` and `report.md` (the PR comment). [`check`] returns all of
//! it as data; printing and publishing are the caller's business.

pub mod plan;
mod sequential;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub use sequential::{default_batch, SequentialSettings};

use crate::report::markdown;
use goldgate_core::cachedir::CacheDir;
use goldgate_core::error::{Error, Problem, Result};
use goldgate_core::gate::compare::{compare, CompareOptions};
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::gate::verdict::Verdict;
use goldgate_core::gate::{diff, samples};
use goldgate_core::io::write_output;
use goldgate_core::metrics::ScoringConfig;
use goldgate_core::runfile::lock::OutputLock;
use goldgate_core::score::{self, Embedding, Facts, ScoreFile, ScoreRequest};
use goldgate_core::suite::Suite;
use goldgate_embed::Backend;
use goldgate_run::plan::{run_suite_locked, Observer, RunReport, RunSettings};

/// Everything `check` needs, defaults already applied.
#[derive(Clone, Debug)]
pub struct CheckSettings {
    /// The run; its `output` is `out_dir/run.jsonl`.
    pub run: RunSettings,
    pub out_dir: PathBuf,
    pub baseline: PathBuf,
    /// What it means when `baseline` does not exist.
    pub missing_baseline: MissingBaseline,
    /// Where the baseline's run is kept (for the baseline-vs-candidate answer diffs).
    pub baseline_run: PathBuf,
    pub thresholds: Thresholds,
    /// The similarity backend the rules' `[matching]` selects.
    pub similarity: Backend,
    pub compare: CompareOptions,
    pub report: ReportOptions,
    pub facts: Facts,
    /// Stop starting calls once every rule is decided (`--sequential`).
    pub sequential: Option<SequentialSettings>,
}

/// What a baseline file that does not exist means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MissingBaseline {
    /// A first run: only the absolute rules apply, and the report says how to create one.
    /// For the default path, and when a missing baseline is explicitly allowed.
    AbsoluteRulesOnly,
    /// An input error: the path was named (`named_by` says where), so a missing file is a
    /// mistake (a typo, a renamed file), never a silent switch to absolute rules only.
    Refuse {
        named_by: String,
        /// How to run with absolute rules only instead.
        instead: &'static str,
    },
}

/// How `check` runs with absolute rules only until a named baseline exists.
pub const ALLOW_MISSING_BASELINE: &str = "to apply only the absolute rules until it exists, pass --allow-missing-baseline (or set allow_missing_baseline = true under [check] in goldgate.toml)";

/// The baseline score file at `path`, read before anything runs: `None` when it does not
/// exist and `missing` allows that; a directory, or a named file that does not exist, is
/// an input error naming the score files near it.
pub fn read_baseline(path: &Path, missing: &MissingBaseline) -> Result<Option<ScoreFile>> {
    if path.is_dir() {
        return Err(Error::usage(
            format!(
                "{} is a directory, not a baseline score file",
                path.display()
            ),
            format!("{}name the score file itself", near_paths(path)),
        ));
    }
    if path.exists() {
        return score::file::read(path).map(Some);
    }
    match missing {
        MissingBaseline::AbsoluteRulesOnly => Ok(None),
        MissingBaseline::Refuse { named_by, instead } => Err(Error::usage(
            format!("no baseline at {} (named by {named_by})", path.display()),
            format!(
                "{}create one from a trusted run with `goldgate baseline refresh` and commit it; {instead}",
                near_paths(path)
            ),
        )),
    }
}

/// "did you mean …? " for a path that is not a score file: the closest file name in its
/// directory (or, for a directory, the score files in it), or the score files there.
pub fn near_paths(path: &Path) -> String {
    let (dir, name) = match path.is_dir() {
        true => (path.to_path_buf(), None),
        false => {
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
            (
                parent.map_or_else(|| PathBuf::from("."), Path::to_path_buf),
                path.file_name().map(|n| n.to_string_lossy().to_string()),
            )
        }
    };
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".json"))
        .collect();
    files.sort();
    let shown = |n: &str| match path.is_dir() {
        true => path.join(n).display().to_string(),
        false => path.with_file_name(n).display().to_string(),
    };
    if let Some(close) =
        name.and_then(|n| goldgate_core::text::did_you_mean(&n, files.iter().map(String::as_str)))
    {
        return format!("did you mean {}? ", shown(close));
    }
    match files.len() {
        0 => String::new(),
        1..=5 => {
            let list: Vec<String> = files.iter().map(|f| shown(f)).collect();
            let place = if path.is_dir() { "in it" } else { "there" };
            format!("score files {place}: {}; ", list.join(", "))
        }
        n => format!("{} has {n} .json files; ", dir.display()),
    }
}

/// How the PR comment is rendered.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// The gate's name: one sticky comment per name.
    pub gate_name: String,
    /// A directory whose templates replace the built-in ones.
    pub templates: Option<PathBuf>,
    /// The commands that give the verdict again (the comment's footer, the job summary).
    pub reproduce: Vec<String>,
}

/// The files a complete check wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    pub run: PathBuf,
    pub score: PathBuf,
    pub verdict: PathBuf,
    pub report: PathBuf,
}

impl Written {
    /// (output name, path) pairs, as the GitHub Action names them.
    pub fn named(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("run", self.run.clone()),
            ("score", self.score.clone()),
            ("verdict-file", self.verdict.clone()),
            ("report", self.report.clone()),
        ]
    }
}

/// A gated run: the score, the verdict with its diffs, the rendered comment, the files.
#[derive(Clone, Debug)]
pub struct Gated {
    pub score: ScoreFile,
    /// Labelling warnings met while reading the suite (they do not stop the gate).
    pub warnings: Vec<Problem>,
    /// Answers scored as unreadable: longer than `[matching] max_items`.
    pub unreadable: Vec<Problem>,
    /// `None` when there is no baseline file yet: only absolute rules applied.
    pub baseline: Option<PathBuf>,
    pub verdict: Verdict,
    /// The PR comment (also in `report.md`).
    pub markdown: String,
    pub written: Written,
    /// What the embedding cache did (with an embedding similarity).
    pub embedded: Option<goldgate_core::embed::cache::Stats>,
}

/// What `check` did: the run, and the gate's result when the run completed.
#[derive(Clone, Debug)]
pub struct Checked {
    pub run: RunReport,
    /// `None` when the run did not complete (no verdict on an incomplete run).
    pub gated: Option<Gated>,
    /// A sequential check stopped before its verdict (at its budget, interrupted): where
    /// each rule stood.
    pub undecided: Option<goldgate_core::gate::sequential::report::SequentialReport>,
}

/// Run, score, compare and write the results of one gate. The output directory's lock (on
/// its run file) is held until every file is written: a second check there stops at once.
pub fn check(
    s: &CheckSettings,
    runtime: &tokio::runtime::Runtime,
    observer: &mut dyn Observer,
) -> Result<Checked> {
    let lock = OutputLock::acquire(&s.run.output)?;
    let baseline = read_baseline(&s.baseline, &s.missing_baseline)?;
    refuse_over_budget(s, baseline.as_ref())?;
    // A model that cannot be found fails here, before the pipeline costs anything.
    let embedder = goldgate_embed::open(&s.similarity)?;
    let suite = Suite::open(&s.run.suite, s.run.max_sample_bytes)?;
    let scoring = s.thresholds.scoring();
    let cache_dir = CacheDir::new(&s.run.cache_dir);
    let embedding = Embedding::of(embedder.as_deref(), &cache_dir);
    let (mut run, sequential) = match &s.sequential {
        None => (run_suite_locked(&s.run, runtime, observer, &lock)?, None),
        Some(settings) => {
            let inputs = sequential::Inputs {
                thresholds: &s.thresholds,
                baseline: baseline.as_ref(),
                reference: s.compare.reference.as_deref().map(|r| &r.file),
                scoring: &scoring,
                embedding,
                repeats: s.run.repeat,
                jobs: s.run.jobs,
                max_errors: s.run.max_errors,
                settings,
            };
            let mut observer = sequential::SequentialRun::new(observer, inputs, &suite)?;
            let run = run_suite_locked(&s.run, runtime, &mut observer, &lock)?;
            let report = observer.report(&run.summary);
            let decided = report.zip(observer.decisions().cloned());
            (run, decided)
        }
    };
    if !run.is_complete() {
        return Ok(Checked {
            run,
            gated: None,
            undecided: sequential.map(|(report, _)| report),
        });
    }
    let (scored, mut verdict) = gate(s, &suite, &run.path, &scoring, embedding, baseline.as_ref())?;
    if let Some((report, decisions)) = sequential {
        goldgate_core::gate::sequential::report::apply(&mut verdict, &decisions, report);
    }
    if baseline.is_some() {
        verdict.trends = trends(&verdict, &s.baseline);
    }
    // Said once, with the run's.
    run.cache_ignored.merge(&cache_dir.ignored());
    let written = Written {
        run: run.path.clone(),
        score: s.out_dir.join("score.json"),
        verdict: s.out_dir.join("verdict.json"),
        report: s.out_dir.join("report.md"),
    };
    write_output(&written.score, |w| scored.file.write_to(w))?;
    goldgate_core::gate::verdict::write(&written.verdict, &verdict)?;
    let render = markdown::Render {
        gate_name: &s.report.gate_name,
        templates: s.report.templates.as_deref(),
        reproduce: s.report.reproduce.clone(),
        ..markdown::Render::default()
    };
    let markdown = markdown::comment_within(
        &verdict,
        &render,
        markdown::Limit::Chars(markdown::GITHUB_LIMIT),
    )?;
    write_output(&written.report, |w| w.write_all(markdown.as_bytes()))?;
    Ok(Checked {
        run,
        gated: Some(Gated {
            score: scored.file,
            warnings: scored.warnings,
            unreadable: scored.unreadable,
            baseline: baseline.is_some().then(|| s.baseline.clone()),
            verdict,
            markdown,
            written,
            embedded: scored.embedded,
        }),
        undecided: None,
    })
}

/// A budget (`--max-cost`) the check cannot keep is said before the first call: when even
/// its cheapest completion, at the baseline's cheapest call of each kind, costs more. The
/// baseline's prices say nothing of another model's, so only a baseline answered by the
/// same model is asked.
fn refuse_over_budget(s: &CheckSettings, baseline: Option<&ScoreFile>) -> Result<()> {
    let Some(max) = s.run.max_cost else {
        return Ok(());
    };
    if baseline.is_none_or(|b| b.provenance.model != s.run.pipeline.model) {
        return Ok(());
    }
    let plan = plan::plan(s, baseline, false)?;
    let least = plan::cheapest(&plan, s.sequential.as_ref(), s.run.jobs);
    let Some(least) = least.filter(|least| *least > max) else {
        return Ok(());
    };
    let usd = goldgate_core::number::usd;
    let what = match s.sequential {
        Some(_) => "its first batch of calls",
        None => "the calls the cache does not answer",
    };
    Err(Error::OverBudget {
        message: format!(
            "no call was made: even at the baseline's cheapest call of each kind, {what} would cost {}, over the {} budget (--max-cost)",
            usd(least),
            usd(max)
        ),
        hint: "raise --max-cost, or check sequentially (--sequential) to stop once the rules are decided; `goldgate check --plan` shows the calls and their expected cost".into(),
    })
}

/// How many of the baseline's versions the reports show of a failing or drifting metric.
pub const TREND_VERSIONS: usize = 8;

/// The last values in the baseline's history of every metric that failed, warned or left
/// the run incomplete.
fn trends(verdict: &Verdict, baseline: &Path) -> Vec<goldgate_core::gate::drift::Trend> {
    use goldgate_core::gate::verdict::Status;
    let names: Vec<&str> = verdict
        .metrics
        .iter()
        .filter(|m| matches!(m.status, Status::Fail | Status::Warn | Status::Incomplete))
        .map(|m| m.name.as_str())
        .collect();
    crate::history::trends(baseline, &names, TREND_VERSIONS)
}

/// Score the run and judge it, with diffs of the samples it broke.
fn gate(
    s: &CheckSettings,
    suite: &Suite,
    run: &Path,
    scoring: &ScoringConfig,
    embedding: Option<Embedding<'_>>,
    baseline: Option<&ScoreFile>,
) -> Result<(score::Scored, Verdict)> {
    // A sample can break only if the baseline passed it and the candidate does not: the
    // scorer keeps what the diffs need of exactly those.
    let sample_pass = s.thresholds.sample_pass();
    let passed: HashSet<&str> = baseline
        .iter()
        .flat_map(|b| &b.samples)
        .filter(|b| b.primary >= sample_pass)
        .map(|b| b.id.as_str())
        .collect();
    let keep_view = |id: &str, primary: f64| primary < sample_pass && passed.contains(id);
    let scored = score::score(&ScoreRequest {
        suite,
        run,
        scoring,
        bootstrap: s.compare.bootstrap,
        facts: &s.facts,
        keep_view: Some(&keep_view),
        embedding,
    })?;
    let mut verdict = compare(&scored.file, baseline, &s.thresholds, &s.compare)?;
    let broken: Vec<String> = verdict
        .samples
        .iter()
        .flat_map(|a: &samples::SampleAnalysis| a.broken.iter().map(|c| c.id.clone()))
        .collect();
    let wanted: HashSet<&str> = broken
        .iter()
        .take(diff::MAX_DIFFS)
        .map(String::as_str)
        .collect();
    let baseline_answers = match s.baseline_run.is_file() && !wanted.is_empty() {
        true => goldgate_core::runfile::reader::answer_texts(&s.baseline_run, &wanted)?,
        false => Default::default(),
    };
    verdict.diffs = diff::broken_sample_diffs(&broken, &scored.views, &baseline_answers);
    Ok((scored, verdict))
}
