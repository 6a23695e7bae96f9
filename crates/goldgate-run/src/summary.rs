//! What a run did, counted as its records are written: calls, failures (grouped by cause),
//! cache hits, tokens and cost (made and spent), usage that could not be, truncated and
//! keyless answers, the judge's reviews, and why it stopped early when it did.

use std::time::Duration;

use goldgate_core::judge::reviews::JudgeReviews;
use goldgate_core::kinds::keys::Tally;
use goldgate_core::runfile::failures::Grouping;
use goldgate_core::runfile::record::{RunRecord, Usage};

/// What happened.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSummary {
    /// Records written by this run.
    pub written: usize,
    /// Records with a failed call.
    pub errors: usize,
    /// Records answered from the cache.
    pub cached: usize,
    /// The first failure, to show when the run is stopped for failing too often.
    pub first_error: Option<String>,
    /// Every failed call, grouped by cause (for the run summary).
    pub failures: Grouping,
    /// Stopped by Ctrl-C or SIGTERM.
    pub interrupted: bool,
    /// Stopped because more than `max_errors` calls failed.
    pub tripped: bool,
    /// Stopped because the calls spent the budget (`--max-cost`).
    pub over_budget: bool,
    /// Stopped because the budget could not be enforced: a call whose cost is unknown (no
    /// cost reported, no prices), said with its sample.
    pub budget_unknown: Option<String>,
    /// Stopped because the caller needed no more answers: the calls that never started.
    pub not_needed: usize,
    /// Tokens and cost (USD) of the answers written, cached ones included: what the
    /// answers cost to make.
    pub tokens: u64,
    pub cost_usd: f64,
    /// Tokens and cost of the calls this run made (cached answers cost nothing now).
    pub spent_tokens: u64,
    pub spent_usd: f64,
    /// Records whose tokens / cost were known.
    pub tokens_known: usize,
    pub cost_known: usize,
    /// Records whose tokens goldgate counted itself (their cost, when priced, is an
    /// estimate too).
    pub estimated: usize,
    /// Records whose pipeline reported usage numbers no call can have (dropped), and the
    /// first of them with why.
    pub usage_invalid: usize,
    pub first_usage_invalid: Option<String>,
    /// Answers cut at the model's token limit (`finish_reason: length`).
    pub truncated: usize,
    /// Answers that parsed but hold none of the keys their kind reads.
    pub keyless: Tally,
    /// The judgements the judge was asked for and those it failed, with the first cause.
    pub judge: JudgeReviews,
    pub elapsed: Duration,
}

impl RunSummary {
    pub(crate) fn count(&mut self, record: &RunRecord) {
        self.written += 1;
        self.cached += usize::from(record.cached);
        self.truncated += usize::from(record.finish_reason.as_deref() == Some("length"));
        let usage = record.usage.as_ref();
        // Counts and costs are in their ranges here (checked where they were read), so
        // these sums stay finite; token sums saturate rather than wrap all the same.
        if let Some(tokens) = usage.and_then(Usage::tokens) {
            self.tokens = self.tokens.saturating_add(tokens);
            self.tokens_known += 1;
            if !record.cached {
                self.spent_tokens = self.spent_tokens.saturating_add(tokens);
            }
        }
        if let Some(cost) = usage.and_then(|u| u.cost_usd).filter(|c| c.is_finite()) {
            self.cost_usd += cost;
            self.cost_known += 1;
            if !record.cached {
                self.spent_usd += cost;
            }
        }
        self.estimated += usize::from(Usage::is_estimated(usage));
        if let Some(why) = usage.and_then(|u| u.invalid.as_ref()) {
            self.usage_invalid += 1;
            self.first_usage_invalid
                .get_or_insert_with(|| format!("{}: {why}", record.sample_id));
        }
        if let Some(e) = &record.error {
            self.errors += 1;
            self.first_error
                .get_or_insert_with(|| format!("{}: {}", record.sample_id, e.message));
            self.failures.add(&record.sample_id, e);
        }
        if let Some(review) = &record.judge {
            self.judge.add_judgements(&record.sample_id, review);
        }
    }
}
