//! What a run's calls used, said in one place for the terminal and the reports: tokens and
//! cost (what the answers cost to make, and what this run spent when the cache answered
//! some), marked `≈ … (estimated)` wherever goldgate counted tokens itself; usage numbers
//! no call can have; and answers cut at the model's token limit.

use goldgate_core::gate::verdict::Verdict;
use goldgate_core::number::{count, usd};
use goldgate_run::runner::RunSummary;

/// An amount in USD, `≈ $0.0124 (estimated)` when goldgate counted any of its tokens.
pub fn amount(usd_amount: f64, estimated: bool) -> String {
    match estimated {
        true => format!("≈ {} (estimated)", usd(usd_amount)),
        false => usd(usd_amount),
    }
}

/// What a run's calls spent: [`amount`] of `spent_usd`.
pub fn spent(s: &RunSummary) -> String {
    amount(s.spent_usd, s.estimated > 0)
}

/// `, 12,345 tokens, $0.0421 (spent now: $0.0100)` for the run summary line; with tokens
/// goldgate counted itself, `, ≈ 12,345 tokens, ≈ $0.0421 (estimated: goldgate counted the
/// tokens of 3 of 40 answers)`; empty when no answer's tokens are known.
pub fn usage_note(s: &RunSummary) -> String {
    if s.tokens_known == 0 && s.cost_known == 0 {
        return String::new();
    }
    let about = if s.estimated > 0 { "≈ " } else { "" };
    let mut note = String::new();
    if s.tokens_known > 0 {
        note.push_str(&format!(", {about}{} tokens", count(s.tokens)));
    }
    if s.cost_known > 0 {
        note.push_str(&format!(", {about}{}", usd(s.cost_usd)));
        if s.cached > 0 {
            note.push_str(&format!(
                " (spent by this run: {about}{})",
                usd(s.spent_usd)
            ));
        }
    }
    if s.estimated > 0 {
        note.push_str(&format!(
            " (estimated: goldgate counted the tokens of {} of {} {}, which reported none it could use)",
            count(s.estimated as u64),
            count(s.written as u64),
            if s.written == 1 { "answer" } else { "answers" }
        ));
    }
    note
}

/// A warning line when answers reported usage no call can have (dropped, never counted);
/// empty otherwise.
pub fn invalid_note(s: &RunSummary) -> String {
    match (s.usage_invalid, &s.first_usage_invalid) {
        (0, _) | (_, None) => String::new(),
        (n, Some(first)) => {
            format!(
            "warning: {n} {} usage no call can have, left out of the tokens and cost (first: {})\n",
            if n == 1 { "answer reported" } else { "answers reported" },
            goldgate_core::escape::one_line(first)
        )
        }
    }
}

/// `36,120 tokens · $0.0124 (baseline: 35,900 tokens · $0.0121)`: what the candidate's
/// answers used (`run.tokens_total`, `run.cost_usd`) beside the baseline's, `≈ … (estimated)`
/// when goldgate counted tokens itself (`run.tokens_estimated_rate`); `None` when the
/// candidate's are unknown.
pub fn verdict_line(v: &Verdict) -> Option<String> {
    let metric = |name: &str| v.metrics.iter().find(|m| m.name == name);
    let (tokens, cost) = (metric("run.tokens_total"), metric("run.cost_usd"));
    let estimated = metric("run.tokens_estimated_rate");
    let said = |t: Option<f64>, c: Option<f64>, estimated: Option<f64>| {
        let estimated = estimated.is_some_and(|r| r > 0.0);
        let about = if estimated { "≈ " } else { "" };
        let parts: Vec<String> = [
            t.map(|t| format!("{about}{} tokens", count(t.round() as u64))),
            c.map(|c| format!("{about}{}", usd(c))),
        ]
        .into_iter()
        .flatten()
        .collect();
        let note = if estimated { " (estimated)" } else { "" };
        (!parts.is_empty()).then(|| format!("{}{note}", parts.join(" · ")))
    };
    let candidate = said(
        tokens.and_then(|m| m.candidate),
        cost.and_then(|m| m.candidate),
        estimated.and_then(|m| m.candidate),
    )?;
    Some(
        match said(
            tokens.and_then(|m| m.baseline),
            cost.and_then(|m| m.baseline),
            estimated.and_then(|m| m.baseline),
        ) {
            Some(baseline) => format!("{candidate} (baseline: {baseline})"),
            None => candidate,
        },
    )
}

/// A warning line when answers were cut at the model's token limit; empty otherwise.
pub fn truncated_note(truncated: usize) -> String {
    match truncated {
        0 => String::new(),
        n => format!(
            "warning: {n} {} cut at the model's token limit (finish_reason: length): raise max_tokens, or ask for shorter answers\n",
            if n == 1 { "answer was" } else { "answers were" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_cost_are_said_only_when_known() {
        let mut s = RunSummary::default();
        assert_eq!(usage_note(&s), "");
        s.tokens = 12_345;
        s.tokens_known = 3;
        assert_eq!(usage_note(&s), ", 12,345 tokens");
        s.cost_usd = 0.0421;
        s.cost_known = 3;
        s.cached = 2;
        s.spent_usd = 0.01;
        assert_eq!(
            usage_note(&s),
            ", 12,345 tokens, $0.0421 (spent by this run: $0.0100)"
        );
        assert_eq!(truncated_note(0), "");
        assert!(truncated_note(2).starts_with("warning: 2 answers were cut"));
    }
}
