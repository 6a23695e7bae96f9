//! The `srs-agents` adapter: the built-in multi-agent SRS generator.

pub mod ids;
pub mod state;
pub mod mapping;
