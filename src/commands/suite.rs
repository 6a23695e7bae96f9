//! `goldgate suite lint | stats | agreement`; `stats --flaky` lists a baseline's flaky
//! samples. `lint` also holds each sample's gold to the
//! most items matching takes (`[matching] max_items` of the project's rules).

use crate::cli::SuiteFormat;
use crate::output::Reporter;
use crate::report::terminal;
use crate::settings::{
    flaky_inputs, max_items, max_sample_bytes, named_suite, AgreementSettings, NamedSuite,
    StatsSettings, SuiteSettings,
};
use goldgate_core::error::{Exit, Result};
use goldgate_core::kinds::bounds::gold_over_cap;
use goldgate_core::suite::agreement::AgreementBuilder;
use goldgate_core::suite::stats::SuiteStats;
use goldgate_core::suite::Suite;

pub fn lint(s: SuiteSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let (suite, named) = open_suite(&s, reporter)?;
    let max_items = max_items(&named)?;
    let (mut problems, mut samples) = (Vec::new(), 0);
    for loaded in suite.reader() {
        samples += usize::from(loaded.sample.is_some());
        problems.extend(loaded.problems);
        let sample = loaded.sample.as_ref();
        problems.extend(sample.and_then(|s| gold_over_cap(&s.labels, &s.origin, max_items)));
    }
    match s.format {
        SuiteFormat::Text => reporter.out(&terminal::lint_report(
            &problems,
            suite.files().len(),
            samples,
        )),
        SuiteFormat::Json => reporter.out(&super::json(&terminal::lint_json(&problems))?),
    }
    Ok(match problems.is_empty() {
        true => Exit::Ok,
        false => Exit::Input,
    })
}

pub fn stats(s: StatsSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    if let Some(flag) = s.flaky {
        // The baseline's runs, not the suite's labels: the suite need not be read.
        let named = named_suite(&s.suite.dir)?;
        let (baseline, sample_pass) = flaky_inputs(&named, flag)?;
        let file = goldgate_core::score::file::read(&baseline)?;
        let report = goldgate_core::gate::flaky::report(&file, sample_pass);
        match s.suite.format {
            SuiteFormat::Text => reporter.out(&crate::report::flaky::table(&report, &baseline)),
            SuiteFormat::Json => reporter.out(&super::json(&report)?),
        }
        return Ok(Exit::Ok);
    }
    let (suite, _) = open_suite(&s.suite, reporter)?;
    let mut stats = SuiteStats::default();
    suite.each_sample(|sample| stats.add(sample))?;
    match s.suite.format {
        SuiteFormat::Text => reporter.out(&terminal::stats_table(&stats)),
        SuiteFormat::Json => reporter.out(&super::json(&stats)?),
    }
    Ok(Exit::Ok)
}

pub fn agreement(s: AgreementSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let (suite, _) = open_suite(&s.suite, reporter)?;
    let mut builder = AgreementBuilder::default();
    suite.each_sample(|sample| builder.add(sample))?;
    let report = builder.finish();
    match s.suite.format {
        SuiteFormat::Text => reporter.out(&terminal::agreement_table(&report, s.min_kappa)),
        SuiteFormat::Json => reporter.out(&super::json(&report)?),
    }
    Ok(match report.headline {
        Some(k) if k >= s.min_kappa => Exit::Ok,
        _ => Exit::Failed,
    })
}

/// Open the suite `s.dir` names (itself, or the suite its `goldgate.toml` names).
fn open_suite(s: &SuiteSettings, reporter: &mut Reporter<'_>) -> Result<(Suite, NamedSuite)> {
    let named = named_suite(&s.dir)?;
    if let Some(config) = &named.named_by {
        reporter.note(&format!(
            "suite: {} (named by {})\n",
            named.dir.display(),
            config.display()
        ));
    }
    let suite = Suite::open(
        &named.dir,
        max_sample_bytes(s.max_sample_bytes, &named.config)?,
    )?;
    Ok((suite, named))
}
