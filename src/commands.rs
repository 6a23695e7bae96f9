//! Command handlers: each wires settings to the core modules and hands the results to a
//! renderer, then decides the exit code. No metric or file logic lives here.

use std::path::Path;

use crate::cli;
use crate::cli::Format;
use crate::config::ConfigFile;
use crate::error::{Error, Exit, Problem, Result};
use crate::gate::thresholds::Thresholds;
use crate::gate::{
    self,
    compare::{CompareOptions, Outcome, Verdict},
};
use crate::io::write_atomic;
use crate::metrics::ScoringConfig;
use crate::report::progress::Progress;
use crate::report::terminal;
use crate::run::adapter::Pipeline;
use crate::run::runner::{self, Job, RunOptions, RunSummary};
use crate::runfile::writer::RecordWriter;
use crate::score::file::ScoreFile;
use crate::score::{self, ScoreRequest};
use crate::settings::{AgreementSettings, GateSettings, RunSettings, ScoreSettings};
use crate::suite::agreement::AgreementBuilder;
use crate::suite::stats::SuiteStats;
use crate::suite::{Sample, Suite};
use crate::Reporter;

pub fn run(s: RunSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    run_to(s, reporter, SummaryTo::Stdout)
}

/// Where the run's summary line goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SummaryTo {
    Stdout,
    /// The command's stdout is for something else (`check --format json`).
    Stderr,
    /// Nowhere (`check --format brief`: one line when all is well).
    Nowhere,
}

/// Run the pipeline and report how it went.
fn run_to(s: RunSettings, reporter: &mut Reporter<'_>, summary_to: SummaryTo) -> Result<Exit> {
    let suite = Suite::open(&s.suite)?;
    let mut samples = Vec::new();
    each_sample(&suite, |sample| {
        if s.shard.is_none_or(|shard| shard.contains(&sample.id)) {
            samples.push((sample.id.clone(), std::sync::Arc::new(sample.request())));
        }
    })?;
    let fingerprint = crate::run::config::fingerprint(&s.pipeline)?;
    let pipeline = std::sync::Arc::new(Pipeline::open(&s.pipeline)?);
    let (mut writer, resumed) = RecordWriter::open(&s.output, s.resume)?;
    let jobs: Vec<Job> = samples
        .iter()
        .flat_map(|(id, request)| {
            (0..s.repeat).map(move |repeat| Job {
                sample_id: id.clone(),
                repeat,
                request: request.clone(),
            })
        })
        .filter(|j| !resumed.done.contains(&(j.sample_id.clone(), j.repeat)))
        .collect();
    if !resumed.done.is_empty() {
        reporter.note(&format!(
            "resuming: {} records already done, {} to run\n",
            resumed.done.len(),
            jobs.len()
        ));
    }
    let mut options = RunOptions::new(s.jobs, fingerprint, s.pipeline.retries);
    options.max_errors = s.max_errors;
    options.model = s.pipeline.model.clone();
    options.limits = std::sync::Arc::new(crate::run::limits::Limits::new(s.rpm, s.tpm));
    if !matches!(
        s.pipeline.adapter,
        crate::run::config::Adapter::Replay { .. }
    ) {
        options.cache = Some(crate::run::cache::Cache::new(&s.cache_dir, s.cache));
    }
    let runtime = runtime()?;
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut progress = Progress::new(jobs.len(), tty);
    let mut on_record = |sum: &RunSummary| {
        if let Some(line) = progress.update(sum.written, sum.errors, sum.cached) {
            reporter.note(&line);
        }
    };
    let summary = runtime.block_on(runner::run(
        pipeline,
        jobs,
        &options,
        &mut writer,
        &mut on_record,
    ))?;
    progress.finish();
    let total = summary.written + resumed.done.len();
    if summary.interrupted || summary.tripped {
        let partial = writer.abandon()?;
        if summary.tripped {
            reporter.note(&format!(
                "error: stopped after {} failed calls (--max-errors {}): the pipeline looks broken\n  first failure: {}\n",
                summary.errors,
                s.max_errors.unwrap_or(0),
                summary.first_error.as_deref().unwrap_or("?")
            ));
        }
        reporter.note(&format!("incomplete run: {total} records are in {}; fix the cause and run again with --resume\n", partial.display()));
        return Ok(Exit::Incomplete);
    }
    let path = writer.finish()?;
    let hit_rate = if summary.written == 0 {
        0.0
    } else {
        100.0 * summary.cached as f64 / summary.written as f64
    };
    let summary_line = format!(
        "wrote {total} records to {} ({} calls in {:.1}s, {} failed, {} from the cache: {hit_rate:.0}% hit rate)\n",
        path.display(),
        summary.written,
        summary.elapsed.as_secs_f64(),
        summary.errors,
        summary.cached,
    );
    match summary_to {
        SummaryTo::Stdout => reporter.out(&summary_line),
        SummaryTo::Stderr => reporter.note(&summary_line),
        SummaryTo::Nowhere => {}
    }
    Ok(Exit::Ok)
}

pub fn merge(
    inputs: &[std::path::PathBuf],
    output: &Path,
    reporter: &mut Reporter<'_>,
) -> Result<Exit> {
    let merged = crate::runfile::merge::merge(inputs)?;
    write_atomic(output, |out| {
        for line in &merged.lines {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })?;
    reporter.out(&format!(
        "merged {} records from {} files into {}\n",
        merged.lines.len(),
        inputs.len(),
        output.display()
    ));
    Ok(Exit::Ok)
}

pub fn score(s: ScoreSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let suite = Suite::open(&s.suite)?;
    let scoring = match &s.thresholds {
        Some(path) => Thresholds::load(path)?.scoring(),
        None => ScoringConfig::default(),
    };
    let scored = score::score(&ScoreRequest {
        suite: &suite,
        run: &s.run,
        scoring: &scoring,
        bootstrap: s.bootstrap,
        facts: &crate::settings::provenance_facts(),
        keep_view: None,
    })?;
    write_atomic(&s.output, |out| scored.file.write_to(out))?;
    if !scored.warnings.is_empty() {
        reporter.note(&format!(
            "note: the suite has {} labelling warnings; run `goldgate suite lint {}`\n",
            scored.warnings.len(),
            s.suite.display()
        ));
    }
    match s.format {
        Format::Text | Format::Markdown | Format::Junit | Format::Html | Format::Brief => {
            reporter.out(&terminal::score_summary(&scored.file, &s.output))
        }
        Format::Json => reporter.out(&json(&scored.file.metrics)?),
    }
    let missing = &scored.file.missing;
    let exit = if missing.is_empty() || s.allow_missing {
        Exit::Ok
    } else {
        reporter.note(&terminal::missing_note(
            missing,
            &s.run,
            suite.root.as_path(),
        ));
        Exit::Incomplete
    };
    // `goldgate::run` is the process's entry point and it exits right after this: freeing
    // every sample's maps one by one would only cost time (~5% of a 10k-sample score).
    std::mem::forget(scored);
    Ok(exit)
}

pub fn lint(dir: &Path, format: Format, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let suite = open_suite(dir, reporter)?;
    let (mut problems, mut samples) = (Vec::new(), 0);
    for loaded in suite.reader() {
        samples += usize::from(loaded.sample.is_some());
        problems.extend(loaded.problems);
    }
    match format {
        Format::Text | Format::Markdown | Format::Junit | Format::Html | Format::Brief => reporter
            .out(&terminal::lint_report(
                &problems,
                suite.files().len(),
                samples,
            )),
        Format::Json => reporter.out(&json(&terminal::lint_json(&problems))?),
    }
    Ok(if problems.is_empty() {
        Exit::Ok
    } else {
        Exit::Input
    })
}

/// Open the suite at `dir`, or, when `dir` is a project directory (a `goldgate.toml` whose
/// `[check] suite` names another directory, and no `suite.toml`), the suite it names.
fn open_suite(dir: &Path, reporter: &mut Reporter<'_>) -> Result<Suite> {
    let config = dir.join(crate::config::DEFAULT_FILE);
    if config.is_file() && !dir.join("suite.toml").is_file() {
        if let Some(named) = ConfigFile::load(&config)?.check.suite {
            if named != dir {
                reporter.note(&format!(
                    "suite: {} (named by {})\n",
                    named.display(),
                    config.display()
                ));
                return Suite::open(&named);
            }
        }
    }
    Suite::open(dir)
}

/// Read every sample of a valid suite, refusing it with all its errors otherwise.
fn each_sample(suite: &Suite, mut visit: impl FnMut(&Sample)) -> Result<()> {
    let mut errors: Vec<Problem> = Vec::new();
    for loaded in suite.reader() {
        errors.extend(loaded.problems.into_iter().filter(Problem::is_error));
        if let Some(sample) = &loaded.sample {
            visit(sample);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::Invalid {
            what: "suite",
            problems: errors,
        })
    }
}

pub fn stats(dir: &Path, format: Format, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let suite = open_suite(dir, reporter)?;
    let mut stats = SuiteStats::default();
    each_sample(&suite, |s| stats.add(s))?;
    match format {
        Format::Text | Format::Markdown | Format::Junit | Format::Html | Format::Brief => {
            reporter.out(&terminal::stats_table(&stats))
        }
        Format::Json => reporter.out(&json(&stats)?),
    }
    Ok(Exit::Ok)
}

pub fn agreement(s: AgreementSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let suite = open_suite(&s.dir, reporter)?;
    let mut builder = AgreementBuilder::default();
    each_sample(&suite, |sample| builder.add(sample))?;
    let report = builder.finish();
    match s.format {
        Format::Text | Format::Markdown | Format::Junit | Format::Html | Format::Brief => {
            reporter.out(&terminal::agreement_table(&report, s.min_kappa))
        }
        Format::Json => reporter.out(&json(&report)?),
    }
    Ok(match report.headline {
        Some(k) if k >= s.min_kappa => Exit::Ok,
        _ => Exit::Failed,
    })
}

fn json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| {
            Error::usage(
                format!("cannot render JSON: {e}"),
                "this is a bug; please report it",
            )
        })
}

/// Read a score (or baseline) file, with the location of any problem.
pub fn read_score(path: &Path) -> Result<ScoreFile> {
    let text = crate::io::read(path)?;
    let file: ScoreFile = serde_json::from_str(&text).map_err(|e| {
        let (message, hint) = crate::text::explain_serde(&e.to_string());
        let mut problem = Problem::new(
            crate::error::Location::new(path, e.line(), e.column()),
            None,
            message,
        );
        problem.hint = hint.or_else(|| {
            Some("score files are written by goldgate score, check or baseline refresh".into())
        });
        Error::invalid("score file", problem)
    })?;
    if file.schema != crate::score::file::SCHEMA {
        let problem = Problem::new(
            crate::error::Location::file(path),
            Some("schema".into()),
            format!("unknown schema `{}`", file.schema),
        )
        .with_hint(format!(
            "this goldgate reads `{}`",
            crate::score::file::SCHEMA
        ));
        return Err(Error::invalid("score file", problem));
    }
    Ok(file)
}

fn exit_of(verdict: &Verdict) -> Exit {
    match verdict.verdict {
        Outcome::Pass | Outcome::Warn => Exit::Ok,
        Outcome::Fail => Exit::Failed,
        Outcome::Incomplete => Exit::Incomplete,
    }
}

fn report_verdict(
    verdict: &Verdict,
    candidate: &ScoreFile,
    gate: &GateSettings,
    reporter: &mut Reporter<'_>,
) -> Result<Exit> {
    match gate.format {
        Format::Html => reporter.out(&crate::report::html::report(
            verdict,
            candidate,
            gate.templates.as_deref(),
        )?),
        Format::Text => reporter.out(&terminal::verdict(verdict)),
        Format::Brief => reporter.out(&terminal::brief(verdict)),
        Format::Junit => reporter.out(&crate::report::junit::junit(verdict)),
        Format::Markdown => reporter.out(&crate::report::markdown::comment(
            verdict,
            &gate.gate_name,
            gate.templates.as_deref(),
        )?),
        Format::Json => reporter.out(&json(verdict)?),
    }
    Ok(exit_of(verdict))
}

pub fn compare(a: cli::CompareArgs, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let gate = GateSettings::resolve(&a.gate, None)?;
    let candidate = read_score(&a.score)?;
    let baseline = a.baseline.as_deref().map(read_score).transpose()?;
    let options = CompareOptions {
        bootstrap: gate.bootstrap,
        allow_version_change: gate.allow_version_change,
        ratchet: gate.ratchet.clone(),
    };
    let verdict =
        gate::compare::compare(&candidate, baseline.as_ref(), &gate.thresholds, &options)?;
    if let Some(out) = &a.output {
        write_verdict(out, &verdict)?;
    }
    let mut paths = vec![("score", a.score.clone())];
    paths.extend(a.output.clone().map(|o| ("verdict-file", o)));
    to_actions(&verdict, &gate, &paths, None, reporter)?;
    report_verdict(&verdict, &candidate, &gate, reporter)
}

pub fn check(a: cli::CheckArgs, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let file = ConfigFile::discover(a.pipeline.config.as_deref())?;
    let suite_dir = suite_dir(a.suite.clone(), &file, "no suite to check")?;
    let out_dir = a
        .out_dir
        .clone()
        .or(file.check.out_dir.clone())
        .unwrap_or_else(|| ".goldgate/out".into());
    let baseline_path = a
        .baseline
        .clone()
        .or(file.check.baseline.clone())
        .unwrap_or_else(|| "baselines/main.json".into());
    let gate = GateSettings::resolve(&a.gate, file.check.thresholds.as_deref())?;
    let run_settings = RunSettings::resolve(
        suite_dir.clone(),
        out_dir.join("run.jsonl"),
        a.pipeline,
        &file,
    )?;
    let summary_to = match gate.format {
        Format::Brief => SummaryTo::Nowhere,
        _ => SummaryTo::Stderr,
    };
    let exit = run_to(run_settings, reporter, summary_to)?;
    if exit != Exit::Ok {
        return Ok(exit);
    }
    let suite = Suite::open(&suite_dir)?;
    let scoring = gate.thresholds.scoring();
    let baseline = if baseline_path.is_file() {
        Some(read_score(&baseline_path)?)
    } else if gate.format == Format::Brief {
        None // the verdict line says "no baseline yet"
    } else {
        reporter.note(&format!(
            "note: no baseline at {}: only absolute rules apply. Create one from a trusted run with `goldgate baseline refresh --suite {}` and commit it.\n",
            baseline_path.display(),
            suite_dir.display()
        ));
        None
    };
    // A sample can break only if the baseline passed it and the candidate does not: keep
    // what the diffs need of exactly those.
    let sample_pass = gate.thresholds.sample_pass();
    let passed: std::collections::HashSet<&str> = baseline
        .iter()
        .flat_map(|b| &b.samples)
        .filter(|s| s.primary >= sample_pass)
        .map(|s| s.id.as_str())
        .collect();
    let keep_view = |id: &str, primary: f64| primary < sample_pass && passed.contains(id);
    let request = ScoreRequest {
        suite: &suite,
        run: &out_dir.join("run.jsonl"),
        scoring: &scoring,
        bootstrap: gate.bootstrap,
        facts: &crate::settings::provenance_facts(),
        keep_view: Some(&keep_view),
    };
    let scored = score::score(&request)?;
    write_atomic(&out_dir.join("score.json"), |w| scored.file.write_to(w))?;
    let options = CompareOptions {
        bootstrap: gate.bootstrap,
        allow_version_change: gate.allow_version_change,
        ratchet: gate.ratchet.clone(),
    };
    let mut verdict =
        gate::compare::compare(&scored.file, baseline.as_ref(), &gate.thresholds, &options)?;
    let broken: Vec<String> = verdict
        .samples
        .iter()
        .flat_map(|a| a.broken.iter().map(|c| c.id.clone()))
        .collect();
    let baseline_run = crate::settings::baseline_run_path(&baseline_path);
    let wanted: std::collections::HashSet<&str> = broken
        .iter()
        .take(gate::diff::MAX_DIFFS)
        .map(String::as_str)
        .collect();
    let baseline_answers = if baseline_run.is_file() && !wanted.is_empty() {
        crate::runfile::reader::answer_texts(&baseline_run, &wanted)?
    } else {
        Default::default()
    };
    verdict.diffs = gate::diff::broken_sample_diffs(&broken, &scored.views, &baseline_answers);
    write_verdict(&out_dir.join("verdict.json"), &verdict)?;
    // The PR comment as a file too: for artifacts, other CI systems and `cat`.
    let markdown = comment(&verdict, &gate)?;
    write_atomic(&out_dir.join("report.md"), |w| {
        w.write_all(markdown.as_bytes())
    })?;
    let paths = [
        ("run", out_dir.join("run.jsonl")),
        ("score", out_dir.join("score.json")),
        ("verdict-file", out_dir.join("verdict.json")),
        ("report", out_dir.join("report.md")),
    ];
    to_actions(&verdict, &gate, &paths, Some(&markdown), reporter)?;
    report_verdict(&verdict, &scored.file, &gate, reporter)
}

pub fn baseline_refresh(a: cli::RefreshArgs, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let file = ConfigFile::discover(a.pipeline.config.as_deref())?;
    let suite_dir = suite_dir(a.suite.clone(), &file, "no suite to run")?;
    let target = a
        .baseline
        .clone()
        .or(file.check.baseline.clone())
        .unwrap_or_else(|| "baselines/main.json".into());
    let thresholds = match a.thresholds.as_deref().or(file.check.thresholds.as_deref()) {
        Some(p) => Some(Thresholds::load(p)?),
        None if Path::new("thresholds.toml").is_file() => {
            Some(Thresholds::load(Path::new("thresholds.toml"))?)
        }
        None => None,
    };
    let work = std::env::temp_dir().join(format!("goldgate-refresh-{}", std::process::id()));
    let run_path = work.join("run.jsonl");
    let run_settings =
        RunSettings::resolve(suite_dir.clone(), run_path.clone(), a.pipeline, &file)?;
    let exit = run_to(run_settings, reporter, SummaryTo::Stderr)?;
    if exit != Exit::Ok {
        reporter.note("the baseline was not changed: the run did not complete\n");
        return Ok(exit);
    }
    let suite = Suite::open(&suite_dir)?;
    let scoring = thresholds.map(|t| t.scoring()).unwrap_or_default();
    let request = ScoreRequest {
        suite: &suite,
        run: &run_path,
        scoring: &scoring,
        bootstrap: crate::metrics::bootstrap::BootstrapConfig::default(),
        facts: &crate::settings::provenance_facts(),
        keep_view: None,
    };
    let scored = score::score(&request)?;
    if !scored.file.missing.is_empty() {
        let _ = std::fs::remove_dir_all(&work);
        reporter.note(&terminal::missing_note(
            &scored.file.missing,
            &run_path,
            &suite_dir,
        ));
        return Ok(Exit::Incomplete);
    }
    write_atomic(&target, |w| scored.file.write_to(w))?;
    // Keep the run beside the baseline: reports diff a broken sample's answers against it.
    let kept = crate::settings::baseline_run_path(&target);
    write_atomic(&kept, |w| w.write_all(&std::fs::read(&run_path)?))?;
    let _ = std::fs::remove_dir_all(&work);
    reporter.out(&format!(
        "baseline written to {} ({} samples, {} records)\n",
        target.display(),
        scored.file.samples.len(),
        scored.file.provenance.records
    ));
    Ok(Exit::Ok)
}

pub fn baseline_show(path: &Path, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let file = read_score(path)?;
    reporter.out(&terminal::baseline(&file, path));
    Ok(Exit::Ok)
}

pub fn thresholds_check(path: &Path, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let thresholds = Thresholds::load(path)?;
    reporter.out(&terminal::thresholds(&thresholds, path));
    Ok(Exit::Ok)
}

/// `--suite`, else `[check] suite` in goldgate.toml.
fn suite_dir(
    flag: Option<std::path::PathBuf>,
    file: &ConfigFile,
    what: &str,
) -> Result<std::path::PathBuf> {
    flag.or(file.check.suite.clone()).ok_or_else(|| {
        Error::usage(
            what,
            "pass --suite DIR, or set suite = \"...\" under [check] in goldgate.toml",
        )
    })
}

fn write_verdict(path: &Path, verdict: &Verdict) -> Result<()> {
    write_atomic(path, |w| {
        serde_json::to_writer_pretty(w, verdict).map_err(std::io::Error::other)
    })
}

/// Inside GitHub Actions: the comment as the job summary, step outputs, and annotations
/// (on stderr, which the runner reads too, so `--format json` output stays clean).
/// `markdown` is the rendered comment when the caller has it already.
fn to_actions(
    verdict: &Verdict,
    gate: &GateSettings,
    paths: &[(&str, std::path::PathBuf)],
    markdown: Option<&str>,
    reporter: &mut Reporter<'_>,
) -> Result<()> {
    use crate::publish::actions;
    if !actions::in_actions() {
        return Ok(());
    }
    let markdown = match markdown {
        Some(m) => m.to_string(),
        None => comment(verdict, gate)?,
    };
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
        actions::write_summary(Path::new(&summary), &markdown)?;
    }
    if let Some(output) = std::env::var_os("GITHUB_OUTPUT").filter(|s| !s.is_empty()) {
        let word = serde_json::to_value(verdict.verdict)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        let mut outputs = vec![
            ("verdict", word),
            ("exit-code", verdict.exit_code.to_string()),
            ("summary", verdict.summary.clone()),
        ];
        outputs.extend(
            paths
                .iter()
                .map(|(name, path)| (*name, path.display().to_string())),
        );
        actions::write_outputs(Path::new(&output), &outputs)?;
    }
    reporter.note(&actions::annotations(verdict));
    post_comment(verdict, gate, &markdown, reporter)
}

/// The PR comment for `verdict`.
fn comment(verdict: &Verdict, gate: &GateSettings) -> Result<String> {
    crate::report::markdown::comment(verdict, &gate.gate_name, gate.templates.as_deref())
}

/// Post or update the sticky PR comment, as `--comment-on` says. Failing to post warns; it
/// never changes the gate's exit code.
fn post_comment(
    verdict: &Verdict,
    gate: &GateSettings,
    body: &str,
    reporter: &mut Reporter<'_>,
) -> Result<()> {
    use crate::publish::api::{GitHub, Published, Target};
    if gate.comment_on == cli::CommentOn::Never {
        return Ok(());
    }
    let target = match Target::from_env(gate.pr) {
        Ok(t) => t,
        Err(why) => {
            reporter.note(&format!("note: no PR comment: {why}\n"));
            return Ok(());
        }
    };
    let pr = target.pr;
    let create = gate.comment_on == cli::CommentOn::Always || verdict.verdict != Outcome::Pass;
    let marker = crate::report::markdown::marker(&gate.gate_name);
    let conclusion = match verdict.verdict {
        Outcome::Pass => "success",
        Outcome::Warn => "neutral",
        Outcome::Fail | Outcome::Incomplete => "failure",
    };
    let (outcome, check) = runtime()?
        .block_on(async {
            let github = GitHub::new(target)?.with_backoff(backoff_for_tests());
            let comment = github.sticky_comment(&marker, body, create).await;
            let check = match gate.check_run {
                true => Some(
                    github
                        .check_run(&gate.gate_name, conclusion, &verdict.summary, body)
                        .await,
                ),
                false => None,
            };
            Ok::<_, crate::publish::api::ApiError>((comment, check))
        })
        .unwrap_or_else(|e| (Err(e), None));
    match check {
        Some(Ok(Published::Created(id))) => {
            reporter.note(&format!("created check run {id} ({conclusion})\n"))
        }
        Some(Ok(Published::Forbidden(why))) => reporter.note(&format!("warning: {why}\n")),
        Some(Err(e)) => reporter.note(&format!("warning: could not create the check run: {e}\n")),
        _ => {}
    }
    match outcome {
        Ok(Published::Created(id)) => reporter.note(&format!("posted the goldgate comment on #{pr} (comment {id})\n")),
        Ok(Published::Updated(id)) => reporter.note(&format!("updated the goldgate comment on #{pr} (comment {id})\n")),
        Ok(Published::Skipped) => {}
        Ok(Published::Forbidden(why)) => reporter.note(&format!("::warning title=goldgate%3A no PR comment::{}\nwarning: {why}\n", why.replace('%', "%25"))),
        Err(e) => reporter.note(&format!("::warning title=goldgate%3A no PR comment::{e}\nwarning: could not post the PR comment: {e}\n")),
    }
    Ok(())
}

/// Retry waits for GitHub calls (`GOLDGATE_TEST_BACKOFF_MS` shortens them in tests).
fn backoff_for_tests() -> std::time::Duration {
    std::env::var("GOLDGATE_TEST_BACKOFF_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(
            std::time::Duration::from_millis(500),
            std::time::Duration::from_millis,
        )
}

/// The one tokio runtime (concurrency lives in the runner and in GitHub publishing).
fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            Error::usage(
                format!("cannot start the async runtime: {e}"),
                "check the process limits (ulimit -u)",
            )
        })
}

pub fn publish(a: cli::PublishArgs, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let text = crate::io::read(&a.verdict)?;
    let verdict: Verdict = serde_json::from_str(&text).map_err(|e| {
        let problem = Problem::new(
            crate::error::Location::new(&a.verdict, e.line(), e.column()),
            None,
            crate::text::explain_serde(&e.to_string()).0,
        )
        .with_hint("publish reads the verdict.json written by goldgate check or compare --output");
        Error::invalid("verdict file", problem)
    })?;
    let gate = GateSettings::resolve(&a.gate, None)?;
    let markdown = comment(&verdict, &gate)?;
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
        crate::publish::actions::write_summary(Path::new(&summary), &markdown)?;
    }
    post_comment(&verdict, &gate, &markdown, reporter)?;
    Ok(Exit::Ok)
}

pub fn hook_install(
    s: crate::settings::HookInstallSettings,
    reporter: &mut Reporter<'_>,
) -> Result<Exit> {
    use crate::hook::Installed;
    let cwd = current_dir()?;
    let line = match crate::hook::install(&cwd, &s.goldgate, &s.check_args, s.force)? {
        Installed::Created(p) => {
            format!("installed the goldgate pre-push hook at {}\n", p.display())
        }
        Installed::Updated(p) => format!("updated the goldgate pre-push hook at {}\n", p.display()),
        Installed::Replaced(p, kept) => format!(
            "installed the goldgate pre-push hook at {} (the previous hook is kept at {})\n",
            p.display(),
            kept.display()
        ),
    };
    reporter.out(&line);
    reporter.note(
        "every `git push` now runs `goldgate check` first; `git push --no-verify` skips it once\n",
    );
    if !crate::hook::ignored(&cwd, ".goldgate/") {
        reporter.note(
            "note: add `.goldgate/` to .gitignore: goldgate keeps its answer cache and reports there\n",
        );
    }
    Ok(Exit::Ok)
}

pub fn hook_uninstall(force: bool, reporter: &mut Reporter<'_>) -> Result<Exit> {
    use crate::hook::Uninstalled;
    let line = match crate::hook::uninstall(&current_dir()?, force)? {
        Uninstalled::Removed(p) => format!("removed the goldgate pre-push hook {}\n", p.display()),
        Uninstalled::Restored(p) => format!(
            "removed the goldgate pre-push hook and restored the hook it had replaced at {}\n",
            p.display()
        ),
        Uninstalled::NotInstalled(p) => format!("no pre-push hook at {}\n", p.display()),
    };
    reporter.out(&line);
    Ok(Exit::Ok)
}

fn current_dir() -> Result<std::path::PathBuf> {
    std::env::current_dir().map_err(|source| Error::Read {
        path: ".".into(),
        source,
    })
}
