//! The gate (SPEC §6): `thresholds.toml`, the comparison of a score with its baseline, the
//! per-sample analysis, and the threshold ratchet.

pub mod compare;
pub mod diff;
pub mod ratchet;
pub mod samples;
pub mod thresholds;
