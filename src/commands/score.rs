//! `goldgate score`: a run file against the suite into a score file.

use crate::cli::ScoreFormat;
use crate::output::Reporter;
use crate::report::terminal;
use crate::settings::ScoreSettings;
use goldgate_core::cachedir::CacheDir;
use goldgate_core::error::{Exit, Result};
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::io::write_output;
use goldgate_core::metrics::ScoringConfig;
use goldgate_core::score::{self, ScoreRequest};
use goldgate_core::suite::Suite;

pub fn score(s: ScoreSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let suite = Suite::open(&s.suite, s.max_sample_bytes)?;
    let thresholds = match &s.thresholds {
        Some(path) => Some(Thresholds::load(path)?),
        None => None,
    };
    let scoring = thresholds
        .as_ref()
        .map_or_else(ScoringConfig::default, Thresholds::scoring);
    let backend = thresholds
        .as_ref()
        .map(crate::settings::similarity::backend)
        .unwrap_or_default();
    let embedder = goldgate_embed::open(&backend)?;
    let cache_dir = CacheDir::new(&s.cache_dir);
    let scored = score::score(&ScoreRequest {
        suite: &suite,
        run: &s.run,
        scoring: &scoring,
        bootstrap: s.bootstrap,
        facts: &s.facts,
        keep_view: None,
        embedding: score::Embedding::of(embedder.as_deref(), &cache_dir),
    })?;
    // With --format json the file's bytes are also stdout's: written once, in memory.
    let json = match s.format {
        ScoreFormat::Json => {
            let text = scored.file.to_json()?;
            write_output(&s.output, |out| out.write_all(text.as_bytes()))?;
            Some(text)
        }
        ScoreFormat::Text => {
            write_output(&s.output, |out| scored.file.write_to(out))?;
            None
        }
    };
    reporter.note(&super::unreadable_note(&scored.unreadable));
    if let Some(stats) = &scored.embedded {
        reporter.note(&terminal::embedded_note(stats));
    }
    reporter.note(&terminal::ignored_cache_entries(&cache_dir.ignored()));
    if !scored.warnings.is_empty() {
        reporter.note(&format!(
            "note: the suite has {} labelling warnings; run `goldgate suite lint {}`\n",
            scored.warnings.len(),
            s.suite.display()
        ));
    }
    match json {
        Some(text) => {
            reporter.out(&text);
            reporter.note(&super::wrote(&[&s.output]));
        }
        None => reporter.out(&terminal::score_summary(&scored.file, &s.output)),
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
    // The process exits right after this: freeing every sample's maps one by one would only
    // cost time (~5% of a 10k-sample score).
    std::mem::forget(scored);
    Ok(exit)
}
