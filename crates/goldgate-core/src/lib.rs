//! goldgate-core: everything goldgate decides, as plain synchronous functions over plain
//! data: no async runtime, no network, no command line. The gold-sample model ([`sample`],
//! below the kinds), the task kinds ([`kinds`]), loading and linting suites and their
//! documents ([`suite`], above the kinds; [`document`], [`parse`]), the metrics
//! ([`metrics`]), run files ([`runfile`]), scoring ([`score`]), the gate ([`gate`]), the LLM
//! judge's rubric ([`judge`]), the data of LLM calls ([`llm`]), the embedding trait and its
//! cache ([`embed`]), and the foundations they share (errors and exit codes, escaping,
//! secrets, files, numbers). The crates above it run pipelines (goldgate-run), call APIs
//! (goldgate-client), compute embeddings (goldgate-embed) and face the user (goldgate).
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cachedir;
pub mod document;
pub mod embed;
pub mod env;
pub mod error;
pub mod escape;
pub mod gate;
pub mod hash;
pub mod io;
pub mod judge;
pub mod kinds;
pub mod llm;
pub mod lockfile;
pub mod metrics;
pub mod number;
pub mod parse;
pub mod quantity;
pub mod retry;
pub mod rng;
pub mod runfile;
pub mod sample;
pub mod score;
pub mod secrets;
pub mod suite;
pub mod text;

#[cfg(any(test, feature = "test-support"))]
pub mod testkit;

pub use error::{Error, Exit};
