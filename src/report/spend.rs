//! What a run's calls used, said in one place for the terminal and the reports: tokens and
//! cost (what the answers cost to make, and what this run spent when the cache answered
//! some), and answers cut at the model's token limit.

use crate::gate::verdict::Verdict;
use crate::number::{count, usd};
use crate::run::runner::RunSummary;

/// `, 12,345 tokens, $0.0421 (spent now: $0.0100)` for the run summary line; empty when no
/// answer reported its tokens.
pub fn usage_note(s: &RunSummary) -> String {
    if s.tokens_known == 0 && s.cost_known == 0 {
        return String::new();
    }
    let mut note = String::new();
    if s.tokens_known > 0 {
        note.push_str(&format!(", {} tokens", count(s.tokens)));
    }
    if s.cost_known > 0 {
        note.push_str(&format!(", {}", usd(s.cost_usd)));
        if s.cached > 0 {
            note.push_str(&format!(" (spent by this run: {})", usd(s.spent_usd)));
        }
    }
    note
}

/// `36,120 tokens · $0.0124 (baseline: 35,900 tokens · $0.0121)`: what the candidate's
/// answers used (`run.tokens_total`, `run.cost_usd`) beside the baseline's; `None` when the
/// candidate's are unknown.
pub fn verdict_line(v: &Verdict) -> Option<String> {
    let metric = |name: &str| v.metrics.iter().find(|m| m.name == name);
    let (tokens, cost) = (metric("run.tokens_total"), metric("run.cost_usd"));
    let said = |t: Option<f64>, c: Option<f64>| {
        let parts: Vec<String> = [
            t.map(|t| format!("{} tokens", count(t.round() as u64))),
            c.map(usd),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join(" · "))
    };
    let candidate = said(
        tokens.and_then(|m| m.candidate),
        cost.and_then(|m| m.candidate),
    )?;
    Some(
        match said(
            tokens.and_then(|m| m.baseline),
            cost.and_then(|m| m.baseline),
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
