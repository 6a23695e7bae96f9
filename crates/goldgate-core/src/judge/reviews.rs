//! What the LLM judge's reviews of a run say beside the `judge.*` numbers, for every report
//! to show whether or not a rule gates them: how many of the judgements the judge was asked
//! for it failed, with the first one's cause (a judge whose every call is refused is said,
//! not only counted in `judge.invalid_rate`), and which samples' documents are suspect of
//! steering their judge (`judge.suspect_rate`), with why. "First" is by sample id, so the
//! order records finish in never changes what is said.

use serde::{Deserialize, Serialize};

use super::record::JudgeRecord;

/// Suspect samples a verdict lists (the rest are counted).
pub const MAX_SUSPECT: usize = 10;
/// Characters of a sample id, a cause or a reason a report shows at most (a verdict may
/// come from a fork).
const MAX_CHARS: usize = 200;
/// Reasons per suspect sample a report shows at most (goldgate writes at most three).
const MAX_REASONS: usize = 3;

/// The judge's reviews of a candidate run, as reports show them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeReviews {
    /// Judgements the judge was asked for (records with a document to review, times the
    /// judge repeats).
    pub judgements: usize,
    /// Those it failed: every call failed, or no answer was a valid judgement.
    pub failed: usize,
    /// The failed judgement of the first sample (by id) with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_failure: Option<JudgeFailure>,
    /// Samples whose reviewed document is suspect.
    pub suspect_samples: usize,
    /// The first [`MAX_SUSPECT`] of them by id, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suspect: Vec<SuspectSample>,
}

/// A judgement the judge failed: its sample and the cause (the first line of the reason,
/// secrets already masked when it was recorded).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeFailure {
    pub sample: String,
    pub cause: String,
}

/// A sample whose reviewed document could steer its judge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuspectSample {
    pub id: String,
    pub reasons: Vec<String>,
}

impl JudgeReviews {
    /// Whether there is nothing to say: no failed judgement, no suspect document.
    pub fn is_empty(&self) -> bool {
        self.failed == 0 && self.suspect_samples == 0
    }

    /// Add one sample's reviews: `asked` judgements asked of the judge, `failed` of them
    /// failed (`first_cause`: the first one's reason), and why its document is suspect
    /// (empty: it is not).
    pub fn add(
        &mut self,
        sample: &str,
        asked: usize,
        failed: usize,
        first_cause: Option<&str>,
        suspect: &[String],
    ) {
        self.judgements += asked;
        self.failed += failed;
        if let Some(cause) = first_cause {
            if self
                .first_failure
                .as_ref()
                .is_none_or(|f| sample < f.sample.as_str())
            {
                self.first_failure = Some(JudgeFailure {
                    sample: sample.to_string(),
                    cause: cause.to_string(),
                });
            }
        }
        if !suspect.is_empty() {
            self.suspect_samples += 1;
            let at = self.suspect.partition_point(|s| s.id.as_str() < sample);
            if at < MAX_SUSPECT {
                self.suspect.insert(
                    at,
                    SuspectSample {
                        id: sample.to_string(),
                        reasons: suspect.to_vec(),
                    },
                );
                self.suspect.truncate(MAX_SUSPECT);
            }
        }
    }

    /// Add the judgements of one record's review (not its suspicions: a sample with several
    /// records would count more than once), the first failure's reason cut to its first
    /// line.
    pub fn add_judgements(&mut self, sample: &str, review: &JudgeRecord) {
        let failed: Vec<&str> = review
            .judgements
            .iter()
            .filter(|j| j.failed())
            .map(|j| j.invalid.as_deref().unwrap_or_default())
            .collect();
        let asked = review.valid().count() + failed.len();
        let first = failed
            .first()
            .map(|why| why.lines().next().unwrap_or_default());
        self.add(sample, asked, failed.len(), first, &[]);
    }

    /// `the judge failed 20 of 20 judgements`, when it failed any.
    pub fn failed_headline(&self) -> Option<String> {
        (self.failed > 0).then(|| {
            format!(
                "the judge failed {} of {} judgements",
                self.failed,
                self.judgements.max(self.failed)
            )
        })
    }

    /// The first failed judgement's sample and cause, cut for a report.
    pub fn first_failure(&self) -> Option<(String, String)> {
        let f = self.first_failure.as_ref()?;
        Some((cut(&f.sample), cut(&f.cause)))
    }

    /// `2 samples hold text that could steer their judge`, when any does.
    pub fn suspect_headline(&self) -> Option<String> {
        match self.suspect_samples {
            0 => None,
            1 => Some("1 sample holds text that could steer its judge".into()),
            n => Some(format!(
                "{n} samples hold text that could steer their judge"
            )),
        }
    }

    /// Suspect samples not listed.
    pub fn suspect_unlisted(&self) -> usize {
        self.suspect_samples
            .saturating_sub(self.suspect.len().min(MAX_SUSPECT))
    }

    /// The suspect samples listed (at most [`MAX_SUSPECT`]): each id and its reasons.
    pub fn suspect_items(&self) -> Vec<(String, String)> {
        self.suspect
            .iter()
            .take(MAX_SUSPECT)
            .map(|s| {
                let reasons: Vec<String> =
                    s.reasons.iter().take(MAX_REASONS).map(|r| cut(r)).collect();
                (cut(&s.id), reasons.join("; "))
            })
            .collect()
    }
}

/// `text` cut to [`MAX_CHARS`] characters (`…` when cut).
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
