//! The LLM judge: a second model reviews each e2e sample's generated SRS (`srs_markdown`)
//! against the sample's reference SRS on a seven-metric rubric ([`rubric`]), and the
//! review is stored in the sample's run record ([`record`]) so scoring reads only files.
//! Judged texts are fenced as data in the judge's prompt, and a generated SRS that could
//! pass for the prompt's structure is flagged ([`fence`]); what a run's reviews say beside
//! the numbers — judgements the judge failed, suspect documents — is [`reviews`]; the
//! judge's metrics (`judge.*`, reported with the e2e kind's) are [`metrics`]. Asking the
//! judge (the calls, their cache) is goldgate-run's `judge`.
//! docs/judge.md describes it for users.

pub mod fence;
pub mod metrics;
pub mod record;
pub mod reviews;
pub mod rubric;
#[cfg(test)]
mod rubric_props;

pub use record::{JudgeRecord, Judgement};
pub use rubric::Scores;
