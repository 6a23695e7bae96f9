//! The one integration-test binary (modules below), so the suite compiles once.

mod action;
mod agents;
mod annotate_e2e;
mod baseline;
mod cache;
mod chat;
mod cli;
mod escaping;
mod failures;
mod github;
mod hook;
mod hostile_suite;
mod http;
mod jsonl;
mod judge;
mod junit;
mod layers;
mod llm;
#[cfg(feature = "semantic")]
mod minilm;
mod openai_embed;
mod publish;
mod readme;
mod reference;
mod release;
mod repeats;
mod resume;
mod run;
mod scoring;
mod secrets;
mod semantic;
mod settings;
mod snapshots;
mod support;
mod terminal;
mod tuples;
