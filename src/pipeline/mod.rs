//! The pipeline side of goldgate (SPEC §3): adapters that call the pipeline under test, the
//! runner that sends a suite through one, what a run records per sample (`run.jsonl`), and
//! how run files are written and read back.

pub mod adapter;
pub mod cache;
pub mod config;
pub mod http;
pub mod jsonl;
pub mod limits;
pub mod merge;
pub mod oneshot;
pub mod record;
pub mod replay;
pub mod run_file;
pub mod runner;
pub mod writer;
