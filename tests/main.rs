//! The one integration-test binary (modules below), so the suite compiles once.

mod action;
mod baseline;
mod bounded;
mod browser_e2e;
mod budget;
mod cache;
mod cache_env;
mod cache_trust;
mod chat;
mod cli;
mod config_suite;
mod evidence;
mod github;
mod hook;
mod hostile_suite;
mod http;
mod init;
mod init_files;
mod jsonl;
mod kind_names;
mod layers;
mod links;
mod llm;
#[cfg(feature = "semantic")]
mod minilm;
#[cfg(feature = "semantic")]
mod minilm_agreement;
mod openai_embed;
mod openai_embed_errors;
mod outputs;
mod prompt_reuse;
mod provenance;
mod publish;
mod readers;
mod readme;
mod reference;
mod release;
mod resume;
mod run;
mod run_cache;
mod run_gate;
mod schema_corpus;
mod schema_drift;
mod schemas;
mod secrets;
mod sequential;
/// Each task kind's end-to-end tests, from its folder
/// (`crates/goldgate-core/src/kinds/<kind>/end_to_end/<topic>.rs`, listed by `build.rs`).
mod kinds {
    include!(concat!(env!("OUT_DIR"), "/kind_end_to_end.rs"));
}
mod settings;
mod sizes;
mod snapshots;
mod support;
