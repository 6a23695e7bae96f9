//! Command handlers: each wires settings to the core modules and hands the results to a
//! renderer, then decides the exit code. No metric or file logic lives here.

use std::path::Path;

use crate::cli::Format;
use crate::error::{Error, Exit, Problem, Result};
use crate::gate::thresholds::Thresholds;
use crate::metrics::ScoringConfig;
use crate::pipeline::adapter::Pipeline;
use crate::pipeline::runner::{self, Job, RunOptions, RunSummary};
use crate::pipeline::writer::RecordWriter;
use crate::report::progress::Progress;
use crate::report::terminal;
use crate::score::{self, ScoreRequest};
use crate::settings::{AgreementSettings, RunSettings, ScoreSettings};
use crate::suite::agreement::AgreementBuilder;
use crate::suite::stats::SuiteStats;
use crate::suite::{Sample, Suite};
use crate::Reporter;

pub fn run(s: RunSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let suite = Suite::open(&s.suite)?;
    let mut samples = Vec::new();
    each_sample(&suite, |sample| {
        if s.shard.is_none_or(|shard| shard.contains(&sample.id)) {
            samples.push((sample.id.clone(), std::sync::Arc::new(sample.request())));
        }
    })?;
    let fingerprint = crate::pipeline::config::fingerprint(&s.pipeline)?;
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
    options.limits = std::sync::Arc::new(crate::pipeline::limits::Limits::new(s.rpm, s.tpm));
    if !matches!(
        s.pipeline.adapter,
        crate::pipeline::config::Adapter::Replay { .. }
    ) {
        options.cache = Some(crate::pipeline::cache::Cache::new(&s.cache_dir, s.cache));
    }
    // The one tokio runtime: concurrency lives in the runner.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            Error::usage(
                format!("cannot start the async runtime: {e}"),
                "check the process limits (ulimit -u)",
            )
        })?;
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
    reporter.out(&format!(
        "wrote {total} records to {} ({} calls in {:.1}s, {} failed, {} from the cache: {hit_rate:.0}% hit rate)\n",
        path.display(),
        summary.written,
        summary.elapsed.as_secs_f64(),
        summary.errors,
        summary.cached,
    ));
    Ok(Exit::Ok)
}

pub fn merge(
    inputs: &[std::path::PathBuf],
    output: &Path,
    reporter: &mut Reporter<'_>,
) -> Result<Exit> {
    let merged = crate::pipeline::merge::merge(inputs)?;
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
        Format::Text => reporter.out(&terminal::score_summary(&scored.file, &s.output)),
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
    let suite = Suite::open(dir)?;
    let (mut problems, mut samples) = (Vec::new(), 0);
    for loaded in suite.reader() {
        samples += usize::from(loaded.sample.is_some());
        problems.extend(loaded.problems);
    }
    match format {
        Format::Text => reporter.out(&terminal::lint_report(
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
    let suite = Suite::open(dir)?;
    let mut stats = SuiteStats::default();
    each_sample(&suite, |s| stats.add(s))?;
    match format {
        Format::Text => reporter.out(&terminal::stats_table(&stats)),
        Format::Json => reporter.out(&json(&stats)?),
    }
    Ok(Exit::Ok)
}

pub fn agreement(s: AgreementSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let suite = Suite::open(&s.dir)?;
    let mut builder = AgreementBuilder::default();
    each_sample(&suite, |sample| builder.add(sample))?;
    let report = builder.finish();
    match s.format {
        Format::Text => reporter.out(&terminal::agreement_table(&report, s.min_kappa)),
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

/// Write a file atomically: streamed to a temporary file beside the target, then renamed.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<()> {
    let write_err = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(write_err)?;
    }
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(write_err(e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        write_err(e)
    })
}
