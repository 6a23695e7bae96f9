//! The gate: `thresholds.toml` ([`thresholds`]), the rule each metric is held to
//! ([`rule`]), deciding each rule from its metric's values ([`decide`]), comparing a
//! candidate with its baseline into a [`verdict::Verdict`] ([`compare`], with what it
//! reports beside the metrics from `breakdown`), what a rule needs before it can hold or
//! break ([`evidence`]), the samples two runs both scored ([`pairs`]), the per-sample fix/break analysis ([`samples`]) with flips of flaky samples told apart ([`flaky`]), diffs of broken samples ([`diff`]), the threshold ratchet ([`ratchet`]), the drift budget against a pinned reference ([`drift`]), deciding rules before every sample is sent ([`sequential`])
//! and verdict files from elsewhere, checked ([`untrusted`]) and judged again
//! ([`rederive`]).

mod breakdown;
pub mod comparable;
pub mod compare;
pub mod decide;
pub mod diff;
pub mod drift;
pub mod evidence;
pub mod flaky;
pub mod pairs;
pub mod ratchet;
pub mod rederive;
pub mod rule;
pub mod samples;
pub mod sequential;
pub mod thresholds;
pub mod untrusted;
pub mod verdict;
