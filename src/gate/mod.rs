//! The gate: `thresholds.toml` (this module's [`thresholds`]), and later baselines and the
//! comparison that decides pass, warn or fail.

pub mod thresholds;
