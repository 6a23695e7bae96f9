//! Running a suite through the pipeline under test: the adapters that call it (`command` in
//! oneshot or jsonl mode, `http`, `chat`, `srs-agents`, `replay`), the runner (concurrency, timeouts, retries,
//! rate limits, repeats, shards), the answer cache, and the LLM judge that reviews e2e answers
//! ([`judge`]). Records go to a run file through
//! [`goldgate_core::runfile`].

pub mod adapter;
pub mod agents;
pub mod cache;
pub mod call;
pub mod chat;
pub mod config;
pub mod cost;
pub mod envkey;
pub mod fingerprint;
pub mod http;
pub mod jsonl;
pub mod jsonl_protocol;
pub mod judge;
pub mod oneshot;
pub mod plan;
pub mod preflight;
pub mod process;
pub mod replay;
pub mod repository;
pub mod resume;
pub mod runner;
pub mod settings_hashes;
mod summary;
pub mod usage;
