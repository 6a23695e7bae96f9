//! The LLM judge: a second model reviews each e2e sample's generated SRS (`srs_markdown`)
//! against the sample's reference SRS on a seven-metric rubric ([`rubric`]), and the
//! review is stored in the sample's run record ([`record`]) so scoring reads only files.
//! docs/judge.md describes it for users.

pub mod record;
pub mod rubric;
#[cfg(test)]
mod rubric_props;

pub use record::{JudgeRecord, Judgement};
pub use rubric::Scores;
