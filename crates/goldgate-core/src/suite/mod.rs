//! Gold suites (the format is in docs/suites.md): finding sample files below a directory, loading them one sample at
//! a time with exact error locations, and the checks `suite lint` reports.

pub mod agreement;
pub mod documents;
pub mod edit;
mod files;
mod keys;
pub mod load;
mod read;
mod rules;
pub mod stats;
mod validate;

pub use documents::{Documents, RawDocument, UniqueIds};
pub use load::{Suite, SuiteConfig, SuiteReader};
pub use read::SampleDoc;
pub use validate::Loaded;

use crate::sample::Sample;

impl Suite {
    /// Visit every sample of a valid suite, in order, and return the suite fingerprint; a
    /// suite with errors is refused with all of them (labelling warnings do not stop it).
    pub fn each_sample(&self, mut visit: impl FnMut(&Sample)) -> crate::error::Result<String> {
        let mut errors = Vec::new();
        let mut reader = self.reader();
        for loaded in &mut reader {
            errors.extend(loaded.problems.into_iter().filter(|p| p.is_error()));
            if let Some(sample) = &loaded.sample {
                visit(sample);
            }
        }
        if errors.is_empty() {
            Ok(reader.fingerprint())
        } else {
            Err(crate::error::Error::Invalid {
                what: "suite",
                problems: errors,
            })
        }
    }
}

#[cfg(test)]
mod tests;
