//! The pipeline side of goldgate: what a run records for each sample (`run.jsonl`) and how
//! run files are read back.

pub mod record;
pub mod run_file;
