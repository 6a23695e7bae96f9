//! What calls cost: the price table a project states (`[pipeline.pricing]`: USD per million
//! input and output tokens; goldgate ships no prices, since they change and differ by
//! provider), the cost of one call from its token counts, and the run's budget
//! (`--max-cost`): once the calls made so far have spent it, no new call starts.

use std::sync::atomic::{AtomicBool, Ordering};

use goldgate_core::runfile::record::Usage;

/// USD per million tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pricing {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

impl Pricing {
    /// The cost of a call that used `usage`: prompt tokens at the input price, completion
    /// tokens at the output price. Unknown when the counts are not split (a total alone
    /// cannot be priced).
    pub fn cost(&self, usage: &Usage) -> Option<f64> {
        if usage.prompt_tokens.is_none() && usage.completion_tokens.is_none() {
            return None;
        }
        let tokens = |n: Option<u64>, price: f64| n.unwrap_or(0) as f64 * price / 1e6;
        Some(
            tokens(usage.prompt_tokens, self.input_per_mtok)
                + tokens(usage.completion_tokens, self.output_per_mtok),
        )
    }

    /// `usage` with its cost filled in, when the pipeline did not report one itself.
    pub fn price(pricing: Option<&Pricing>, mut usage: Usage) -> Usage {
        if usage.cost_usd.is_none() {
            usage.cost_usd = pricing.and_then(|p| p.cost(&usage));
        }
        usage
    }
}

/// A spending limit shared by every call of a run.
#[derive(Debug, Default)]
pub struct Budget {
    limit: Option<f64>,
    spent: std::sync::Mutex<f64>,
    closed: AtomicBool,
}

impl Budget {
    pub fn new(limit: Option<f64>) -> Budget {
        Budget {
            limit,
            ..Budget::default()
        }
    }

    /// Whether calls may still start.
    pub fn open(&self) -> bool {
        !self.closed.load(Ordering::SeqCst)
    }

    /// Count what a finished call cost; true when that spent the budget (no call starts
    /// after it).
    pub fn spend(&self, usd: f64) -> bool {
        let Some(limit) = self.limit else {
            return false;
        };
        let mut spent = self.spent.lock().unwrap_or_else(|p| p.into_inner());
        *spent += usd.max(0.0);
        if *spent >= limit {
            self.closed.store(true, Ordering::SeqCst);
        }
        !self.open()
    }

    pub fn limit(&self) -> Option<f64> {
        self.limit
    }

    /// A call whose cost nobody knows (no cost reported, no prices to count one from): with
    /// a limit, no call starts after it, since the budget can no longer be kept (true);
    /// without one, nothing happens (false).
    pub fn refuse(&self) -> bool {
        if self.limit.is_none() {
            return false;
        }
        self.closed.store(true, Ordering::SeqCst);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_costs_its_prompt_and_completion_tokens_at_their_prices() {
        let p = Pricing {
            input_per_mtok: 0.15,
            output_per_mtok: 0.60,
        };
        let usage = Usage {
            prompt_tokens: Some(2_000),
            completion_tokens: Some(500),
            ..Usage::default()
        };
        assert!((p.cost(&usage).unwrap() - (0.0003 + 0.0003)).abs() < 1e-12);
        let total_only = Usage {
            total_tokens: Some(2_500),
            ..Usage::default()
        };
        assert_eq!(p.cost(&total_only), None);
        let reported = Usage {
            cost_usd: Some(1.5),
            ..usage.clone()
        };
        assert_eq!(Pricing::price(Some(&p), reported).cost_usd, Some(1.5));
        assert_eq!(Pricing::price(None, usage).cost_usd, None);
    }

    #[test]
    fn the_budget_closes_once_spent() {
        let b = Budget::new(Some(1.0));
        assert!(!b.spend(0.6) && b.open());
        assert!(b.spend(0.4) && !b.open());
        let unlimited = Budget::new(None);
        assert!(!unlimited.spend(1e9) && unlimited.open());
    }
}
