//! `goldgate thresholds check`: validate a rules file and show the rules it makes.

use std::path::Path;

use crate::output::Reporter;
use crate::report::terminal;
use goldgate_core::error::{Exit, Result};
use goldgate_core::gate::thresholds::Thresholds;

pub fn check(path: &Path, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let thresholds = Thresholds::load(path)?;
    reporter.out(&terminal::thresholds(&thresholds, path));
    Ok(Exit::Ok)
}
