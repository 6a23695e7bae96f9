//! The one integration-test binary (modules below), so the suite compiles once.

mod action;
mod cli;
mod escaping;
mod failures;
mod github;
mod hook;
mod http;
mod junit;
mod layers;
mod readme;
mod reference;
mod run;
mod scoring;
mod settings;
mod snapshots;
mod support;
mod terminal;
