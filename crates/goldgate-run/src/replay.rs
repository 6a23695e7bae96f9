//! The `replay` adapter: answers recorded earlier (a run.jsonl or an outputs file of
//! `{"id", "output"}` lines) played back. A sample without an answer is an error on that
//! sample, never a crash; a recorded failure is replayed as that failure. A record's judge
//! review (see [`super::runner`]) and its trace are replayed with it.

use std::collections::HashMap;
use std::path::Path;

use super::call::{CallError, Reply};
use goldgate_core::error::{Error, Result};
use goldgate_core::judge::JudgeRecord;
use goldgate_core::runfile::reader::RunIndex;
use goldgate_core::runfile::record::{Answer, ErrorKind};
use goldgate_core::runfile::trace::Trace;

pub struct Replay {
    answers: HashMap<(String, u32), Answer>,
    errors: HashMap<(String, u32), CallError>,
    /// The recorded traces of a multi-step pipeline's calls (srs-agents), replayed with
    /// their records so reports can still show them.
    traces: HashMap<(String, u32), Trace>,
    source: String,
}

impl Replay {
    /// Read every recorded answer (the file is checked as `score` checks run files).
    pub fn open(path: &Path) -> Result<Replay> {
        let mut index = RunIndex::build(path)?;
        let reader = index.reader()?;
        let (mut answers, mut errors, mut problems) = (HashMap::new(), HashMap::new(), Vec::new());
        for (id, entries) in index.drain() {
            for entry in entries {
                match reader.read(&entry) {
                    Ok(answer) => {
                        let key = (id.clone(), answer.repeat);
                        if let Some(e) = &answer.error {
                            errors.insert(
                                key,
                                CallError::new(e.kind, format!("replayed failure: {}", e.message)),
                            );
                        } else {
                            answers.insert(key, answer);
                        }
                    }
                    Err(p) => problems.push(p),
                }
            }
        }
        if !problems.is_empty() {
            return Err(Error::Invalid {
                what: "replay file",
                problems,
            });
        }
        let traces = goldgate_core::runfile::traces::traces(path, usize::MAX)?
            .samples
            .into_iter()
            .map(|t| ((t.sample_id, t.repeat), t.trace))
            .collect();
        Ok(Replay {
            answers,
            errors,
            traces,
            source: path.display().to_string(),
        })
    }

    /// The judge's review the replayed record carries, if any.
    pub fn judged(&self, sample_id: &str, repeat: u32) -> Option<&JudgeRecord> {
        self.answers
            .get(&(sample_id.to_string(), repeat))
            .and_then(|a| a.judge.as_ref())
    }

    pub fn call(&self, sample_id: &str, repeat: u32) -> Result<Reply, CallError> {
        let key = (sample_id.to_string(), repeat);
        let trace = self.traces.get(&key).cloned();
        if let Some(error) = self.errors.get(&key) {
            let mut error = error.clone();
            error.trace = trace.map(Box::new);
            return Err(error);
        }
        // An outputs file records one answer per sample: it serves every repeat.
        let answer = self
            .answers
            .get(&key)
            .or_else(|| self.answers.get(&(sample_id.to_string(), 0)));
        match answer {
            Some(a) => Ok(Reply {
                text: a.text.clone(),
                usage: a.usage.clone(),
                latency_ms: a.latency_ms,
                finish_reason: a.finish_reason.clone(),
                trace,
                ..Reply::default()
            }),
            None => Err(CallError::new(
                ErrorKind::Missing,
                format!(
                    "{} has no answer for sample `{sample_id}` repeat {repeat}",
                    self.source
                ),
            )),
        }
    }
}
