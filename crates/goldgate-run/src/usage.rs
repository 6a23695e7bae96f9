//! What one pipeline call used, as its record says it: the usage an answer reports about
//! itself (an OpenAI-style top-level `usage` object) with each number checked — a count that
//! cannot be one or a cost no call has is dropped and said in `usage.invalid`, never
//! counted —, goldgate's own count of the request and the answer when the tokens are
//! needed (prices, a budget, a tokens-per-minute limit) and nothing usable was reported, and
//! the cost from the prices. A pipeline's impossible numbers never stop the run, and never
//! reach a sum.

use serde_json::Value;

use super::cost::Pricing;
use goldgate_core::llm::tokens::estimate_text;
use goldgate_core::quantity;
use goldgate_core::runfile::record::Usage;

/// Token usage an answer reports about itself: `None` without a `usage` object (or with an
/// empty one). Each count must be a whole number from 0 to [`quantity::MAX_TOKENS`] and the
/// cost a number from 0 to [`quantity::MAX_COST_USD`]; any other value is left out and said
/// in `invalid`.
pub fn reported(answer: &Value) -> Option<Usage> {
    let object = match answer.get("usage")? {
        Value::Object(object) => object,
        Value::Null => return None,
        other => {
            return Some(Usage {
                invalid: Some(format!(
                    "usage: {} is not an object",
                    goldgate_core::llm::chat::kind(other)
                )),
                ..Usage::default()
            })
        }
    };
    let mut invalid = Vec::new();
    let mut read = |key: &str, check: &dyn Fn(&Value) -> Result<(), String>| -> bool {
        match object.get(key) {
            None | Some(Value::Null) => false,
            Some(v) => match check(v) {
                Ok(()) => true,
                Err(why) => {
                    invalid.push(format!("usage.{key}: {why}"));
                    false
                }
            },
        }
    };
    let count = |v: &Value| quantity::tokens(v).map(|_| ());
    let cost = |v: &Value| quantity::cost_value(v).map(|_| ());
    let keep = [
        read("prompt_tokens", &count),
        read("completion_tokens", &count),
        read("total_tokens", &count),
        read("cost_usd", &cost),
    ];
    let tokens = |i: usize, key: &str| match keep[i] {
        true => object.get(key).and_then(Value::as_u64),
        false => None,
    };
    let usage = Usage {
        prompt_tokens: tokens(0, "prompt_tokens"),
        completion_tokens: tokens(1, "completion_tokens"),
        total_tokens: tokens(2, "total_tokens"),
        cost_usd: match keep[3] {
            true => object.get("cost_usd").and_then(Value::as_f64),
            false => None,
        },
        estimated: false,
        invalid: (!invalid.is_empty()).then(|| invalid.join("; ")),
    };
    (usage != Usage::default()).then_some(usage)
}

/// When a call's tokens are counted by goldgate: something needs them (prices or a budget
/// for a cost the pipeline did not report, a tokens-per-minute limit).
#[derive(Clone, Copy, Debug, Default)]
pub struct Needs {
    pub prices: bool,
    pub budget: bool,
    pub tokens_per_minute: bool,
}

/// A successful call's usage as its record keeps it: what it reported, with goldgate's own
/// count of `request` and `answer` (counted with `model`'s encoding) when it reported no
/// token counts and something needs them, priced when it has no cost of its own.
pub fn complete(
    usage: Option<Usage>,
    needs: Needs,
    model: Option<&str>,
    request: &dyn Fn() -> String,
    answer: &str,
    pricing: Option<&Pricing>,
) -> Option<Usage> {
    let has_tokens = usage.as_ref().and_then(Usage::tokens).is_some();
    let split = usage
        .as_ref()
        .is_some_and(|u| u.prompt_tokens.is_some() && u.completion_tokens.is_some());
    let has_cost = usage.as_ref().is_some_and(|u| u.cost_usd.is_some());
    // A cost is priced from both counts: one the pipeline left out is counted, never 0.
    let to_price = !has_cost && (needs.prices || needs.budget) && !split;
    let usage = match (needs.tokens_per_minute && !has_tokens) || to_price {
        true => {
            let counted = estimate_text(model, &request(), answer);
            let mut usage = usage.unwrap_or_default();
            let prompt = *usage.prompt_tokens.get_or_insert(counted.prompt_tokens);
            let completion = *usage
                .completion_tokens
                .get_or_insert(counted.completion_tokens);
            usage.total_tokens = goldgate_core::quantity::add_tokens(prompt, completion);
            usage.estimated = true;
            Some(usage)
        }
        false => usage,
    };
    usage.map(|u| Pricing::price(pricing, u))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A pipeline that reports one of the two counts has the other counted, so its cost
    /// is never priced with 0 tokens on one side, and the record says it is an estimate.
    #[test]
    fn a_count_left_out_is_counted_not_taken_as_zero() {
        let half = reported(&json!({"usage": {"prompt_tokens": 900}})).unwrap();
        let prices = Pricing {
            input_per_mtok: 1.0,
            output_per_mtok: 1000.0,
        };
        let needs = Needs {
            prices: true,
            ..Needs::default()
        };
        let request = || "{}".to_string();
        let answer = "The system shall notify the customer.";
        let usage = complete(
            Some(half.clone()),
            needs,
            None,
            &request,
            answer,
            Some(&prices),
        )
        .unwrap();
        assert_eq!(usage.prompt_tokens, Some(900));
        assert!(usage.completion_tokens > Some(0), "{usage:?}");
        assert!(usage.estimated);
        let cost = usage.cost_usd.unwrap();
        assert!(
            cost > 900.0 / 1e6 + 1e-4,
            "the answer's tokens are priced: {cost}"
        );
        // Nothing needs a cost: the half count is kept as reported.
        let kept = complete(Some(half), Needs::default(), None, &request, answer, None).unwrap();
        assert_eq!((kept.completion_tokens, kept.estimated), (None, false));
    }

    #[test]
    fn usage_is_read_from_the_answer() {
        let answer = json!({"requirements": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {}}});
        let usage = reported(&answer).unwrap();
        assert_eq!(usage.tokens(), Some(15));
        assert_eq!(usage.invalid, None);
        assert_eq!(reported(&json!({"usage": {}})), None);
        assert_eq!(reported(&json!([1])), None);
    }

    /// Numbers no call can have are dropped and said, never kept: they printed `$inf`,
    /// passed a cost ceiling with a negative cost and wrapped the total to 0 tokens.
    #[test]
    fn impossible_numbers_are_dropped_and_said() {
        let usage = reported(&json!({"usage": {"cost_usd": 1e308, "prompt_tokens": 10}})).unwrap();
        assert_eq!((usage.cost_usd, usage.prompt_tokens), (None, Some(10)));
        assert!(usage
            .invalid
            .unwrap()
            .contains("usage.cost_usd: 1e308 is not a cost in USD"));
        let usage = reported(&json!({"usage": {"cost_usd": -100}})).unwrap();
        assert_eq!(usage.cost_usd, None);
        let usage =
            reported(&json!({"usage": {"prompt_tokens": u64::MAX, "completion_tokens": 1}}))
                .unwrap();
        assert_eq!((usage.prompt_tokens, usage.tokens()), (None, Some(1)));
        assert!(usage
            .invalid
            .unwrap()
            .contains("usage.prompt_tokens: 18446744073709551615"));
        let usage =
            reported(&json!({"usage": {"prompt_tokens": -3, "completion_tokens": "7"}})).unwrap();
        assert_eq!(usage.tokens(), None);
        assert!(usage
            .invalid
            .unwrap()
            .contains("usage.completion_tokens: \"7\""));
        assert!(reported(&json!({"usage": "lots"}))
            .unwrap()
            .invalid
            .is_some());
    }

    /// Without reported tokens, goldgate counts them when something needs them (and only
    /// then: a run without prices, budget or token limit costs no counting), marks them
    /// estimated, and prices them.
    #[test]
    fn missing_tokens_are_counted_when_needed() {
        let p = Pricing {
            input_per_mtok: 1_000_000.0,
            output_per_mtok: 2_000_000.0,
        };
        let request = || "hello world".to_string();
        let needs = Needs {
            prices: true,
            ..Needs::default()
        };
        let usage = complete(None, needs, None, &request, "hello world", Some(&p)).unwrap();
        assert_eq!(
            (usage.prompt_tokens, usage.completion_tokens),
            (Some(2), Some(2))
        );
        assert!(usage.estimated);
        assert_eq!(usage.cost_usd, Some(2.0 + 4.0));
        assert_eq!(
            complete(None, Needs::default(), None, &request, "x", None),
            None
        );
        // A cost the pipeline reported is kept; its tokens are not counted for it.
        let reported = Usage {
            cost_usd: Some(0.5),
            ..Usage::default()
        };
        let usage = complete(Some(reported), needs, None, &request, "x", Some(&p)).unwrap();
        assert_eq!((usage.cost_usd, usage.estimated), (Some(0.5), false));
    }
}
