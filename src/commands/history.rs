//! `goldgate history`: the baseline's committed versions, read from git, as a sparkline row
//! per gated metric, JSON, or one HTML page.

use crate::cli::HistoryFormat;
use crate::output::Reporter;
use crate::report::{history, history_html};
use crate::settings::HistorySettings;
use goldgate_core::error::{Exit, Result};
use goldgate_core::io::write_output;

pub fn history(s: HistorySettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let mut read = crate::history::read(&s.baseline, s.reference.as_deref(), s.last)?;
    history::keep_last(&mut read, s.last);
    let text = match s.format {
        HistoryFormat::Text => history::text(&read, &s.thresholds),
        HistoryFormat::Json => history::json(&read)?,
        HistoryFormat::Html => history_html::page(&read, &s.thresholds)?,
    };
    match &s.output {
        Some(path) => {
            write_output(path, |w| w.write_all(text.as_bytes()))?;
            reporter.note(&super::wrote(&[path.as_path()]));
        }
        None => reporter.out(&text),
    }
    Ok(Exit::Ok)
}
