//! GitHub: what goldgate writes when it runs inside GitHub Actions.

pub mod actions;
pub mod api;
