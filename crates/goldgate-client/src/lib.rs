//! goldgate-client: where goldgate talks to the network on its own behalf. One
//! OpenAI-compatible chat-completions [`Client`] (shared by the `chat` and `srs-agents`
//! pipelines and the LLM judge; one attempt per call: retries and backoff are the caller's),
//! the rate [`limits`] shared by every call to one service (the runner's and the embeddings
//! client's), and the one tokio [`runtime`]. What a call is made of (requests, completions,
//! usage, endpoints) is plain data in goldgate-core's `llm`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod client;
pub mod endpoint;
pub mod limits;
pub mod runtime;

pub use client::Client;
