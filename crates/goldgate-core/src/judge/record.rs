//! What the judge leaves in a run record: which judge it was (model and prompt fingerprint)
//! and one judgement per judge repeat — the scores, or why there are none with the answer
//! that was read — with the tokens, cost, latency and attempts it took. Scoring reads only
//! this, so a score stays a function of files.

use serde::{Deserialize, Serialize};

use super::rubric::Scores;
use crate::llm::TokenUsage;

/// The judge's review of one record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeRecord {
    /// The judge model.
    pub model: String,
    /// `sha256:` of the judge's prompt templates: with the model, which judge this was.
    pub prompt_fingerprint: String,
    /// One per judge repeat, in order.
    pub judgements: Vec<Judgement>,
    /// Why the generated SRS is suspect of steering its judge (see
    /// [`super::fence::suspicions`]); absent when it is not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suspect: Vec<String>,
}

/// One judge repeat: valid (`metrics`) or invalid (`invalid`, with the answer read in `raw`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Judgement {
    /// The scores of a valid judgement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Scores>,
    /// Why the judgement is invalid: the answer's last problem, the last failed call, or
    /// that there was no document to judge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    /// The judge's last answer, kept with an invalid judgement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// Tokens of every attempt, where the server reported them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// Their cost under `[judge.pricing]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// How long the last attempt took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// Calls made (0: answered from the judge cache, or nothing to judge).
    #[serde(default)]
    pub attempts: u32,
    /// Read from the judge cache.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
}

/// How the reason of a judgement made without a document starts.
pub const NOTHING_TO_JUDGE: &str = "nothing to judge: ";

impl Judgement {
    /// An invalid judgement made without calling the judge (no document to judge).
    pub fn not_judged(why: impl Into<String>) -> Judgement {
        Judgement {
            invalid: Some(why.into()),
            ..Judgement::default()
        }
    }

    /// Whether the judge failed it: there was a document to judge, and no valid judgement
    /// came of it (every call failed, or no answer was a valid judgement).
    pub fn failed(&self) -> bool {
        self.metrics.is_none()
            && !self
                .invalid
                .as_deref()
                .is_some_and(|why| why.starts_with(NOTHING_TO_JUDGE))
    }
}

impl JudgeRecord {
    /// The valid judgements' scores.
    pub fn valid(&self) -> impl Iterator<Item = &Scores> {
        self.judgements.iter().filter_map(|j| j.metrics.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written_and_refuses_unknown_keys() {
        let record = JudgeRecord {
            model: "gpt-4o-mini".into(),
            prompt_fingerprint: "sha256:ab".into(),
            judgements: vec![
                Judgement {
                    metrics: Some(Scores::default()),
                    usage: Some(TokenUsage {
                        prompt_tokens: 900,
                        completion_tokens: 80,
                        estimated: false,
                    }),
                    latency_ms: Some(812.5),
                    attempts: 1,
                    ..Judgement::default()
                },
                Judgement {
                    invalid: Some("`metrics.clarity` = 1.2 is outside [0, 1]".into()),
                    raw: Some("{\"metrics\": …}".into()),
                    attempts: 6,
                    ..Judgement::default()
                },
                Judgement::not_judged("nothing to judge: the answer has no `srs_markdown`"),
            ],
            suspect: vec!["line 3 is fence-like (it starts with `>>>`)".into()],
        };
        let text = serde_json::to_string(&record).unwrap();
        assert!(
            !text.contains("cached") && !text.contains("cost_usd"),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<JudgeRecord>(&text).unwrap(), record);
        assert_eq!(record.valid().count(), 1);
        let failed: Vec<bool> = record.judgements.iter().map(Judgement::failed).collect();
        assert_eq!(failed, [false, true, false]);
        let typo = text.replacen("\"attempts\"", "\"atempts\"", 1);
        assert!(serde_json::from_str::<JudgeRecord>(&typo).is_err());
    }
}
