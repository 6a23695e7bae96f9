//! Gold suites (SPEC §2): finding sample files below a directory, loading them one sample at
//! a time with exact error locations, and the checks `suite lint` reports.

pub mod agreement;
pub mod document;
pub mod load;
pub mod model;
pub mod stats;
mod validate;

pub use validate::{field_of, in_enum, pointer_of};

pub use load::{Loaded, Suite, SuiteConfig, SuiteReader};
pub use model::{Difficulty, Kind, Sample};
