//! The one integration-test binary (modules below), so the suite compiles once.

mod action;
mod cli;
mod github;
mod hook;
mod http;
mod jsonl;
mod layers;
mod readme;
mod reference;
mod run;
mod scoring;
mod secrets;
mod settings;
mod snapshots;
mod support;
mod terminal;
