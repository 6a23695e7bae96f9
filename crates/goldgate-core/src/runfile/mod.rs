//! The run file (`run.jsonl`): the data contract between running a pipeline and scoring its
//! answers. What one record holds ([`record`]), how records are appended as they finish and
//! renamed into place when a run completes ([`writer`]), how a run file (or a plain outputs
//! file) is indexed and read back one sample at a time ([`reader`]), how shard outputs
//! are joined ([`merge`]), the range of every number a record carries ([`numbers`]), the calls of a multi-step pipeline ([`trace`]), failed calls grouped by cause for reports ([`failures`]), and the
//! lock that keeps two runs from writing one output ([`lock`]). It depends on neither the
//! runner nor the scorer.

pub mod failures;
pub mod lock;
pub mod merge;
pub mod numbers;
pub mod reader;
pub mod record;
pub mod trace;
pub mod traces;
pub mod writer;
