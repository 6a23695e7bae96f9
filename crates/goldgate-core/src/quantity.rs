//! The quantities goldgate reads from outside — token counts, costs in USD, latencies in
//! milliseconds — and the values each can take. One home for the range checks of every such
//! number, whoever gives it: a pipeline's answer, a chat API, a run file, a cache entry, a
//! baseline. A value outside its range is impossible (a negative cost, a count that is no
//! whole number, `1e308` dollars for one call): readers of files refuse it, naming the file,
//! line and field; a pipeline's impossible number is recorded as such and never counted.
//! Every range is far above any real call, and small enough that sums over any run stay
//! finite and exact.

use serde_json::Value;

/// The most tokens one call (or one record) can report: a trillion. A count above it is no
/// real call's, and sums of counts this size over millions of records stay within `u64` and
/// within the integers an `f64` holds exactly.
pub const MAX_TOKENS: u64 = 1_000_000_000_000;

/// The most one call (or one record) can cost, in USD.
pub const MAX_COST_USD: f64 = 1_000_000.0;

/// The longest one call (or one record) can take, in milliseconds: 30 days.
pub const MAX_LATENCY_MS: f64 = 30.0 * 24.0 * 3600.0 * 1000.0;

/// The largest size of one sample's sum of a statistic in a score file (counts, tokens and
/// costs over its repeats): sums of them over any suite stay finite.
pub const MAX_SUM: f64 = 1e18;

/// A token count as a JSON value gives it: a whole number from 0 to [`MAX_TOKENS`]. A
/// negative, fractional, too large or non-numeric value is refused with what it is.
pub fn tokens(value: &Value) -> Result<u64, String> {
    match value.as_u64() {
        Some(n) => check_tokens(n),
        None => Err(format!(
            "{} is not a token count ({})",
            shown(value),
            TOKENS_RANGE
        )),
    }
}

const TOKENS_RANGE: &str = "a whole number from 0 to 1000000000000";

/// A token count within its range.
pub fn check_tokens(n: u64) -> Result<u64, String> {
    match n <= MAX_TOKENS {
        true => Ok(n),
        false => Err(format!("{n} is not a token count ({TOKENS_RANGE})")),
    }
}

/// A cost in USD as a JSON value gives it.
pub fn cost_value(value: &Value) -> Result<f64, String> {
    match value.as_f64() {
        Some(x) => cost(x),
        None => Err(format!(
            "{} is not a cost in USD ({COST_RANGE})",
            shown(value)
        )),
    }
}

const COST_RANGE: &str = "a number from 0 to 1000000";

/// A cost in USD within its range: finite, not negative, at most [`MAX_COST_USD`].
pub fn cost(x: f64) -> Result<f64, String> {
    match x.is_finite() && (0.0..=MAX_COST_USD).contains(&x) {
        true => Ok(x),
        false => Err(format!("{} is not a cost in USD ({COST_RANGE})", number(x))),
    }
}

/// A latency in milliseconds within its range: finite, not negative, at most
/// [`MAX_LATENCY_MS`].
pub fn latency(x: f64) -> Result<f64, String> {
    match x.is_finite() && (0.0..=MAX_LATENCY_MS).contains(&x) {
        true => Ok(x),
        false => Err(format!(
            "{} is not a latency in milliseconds (a number from 0 to {MAX_LATENCY_MS}, 30 days)",
            number(x)
        )),
    }
}

/// A number within `[lo, hi]` (`hi` infinite: no upper bound) and finite.
pub fn within(x: f64, lo: f64, hi: f64) -> bool {
    x.is_finite() && x >= lo && x <= hi
}

/// The sum of two token counts, `None` when it would overflow.
pub fn add_tokens(a: u64, b: u64) -> Option<u64> {
    a.checked_add(b)
}

/// A number in a message as people write it: `1e308`, not 309 digits.
pub fn number(x: f64) -> String {
    match x.is_finite() && x != 0.0 && !(1e-6..1e15).contains(&x.abs()) {
        true => format!("{x:e}"),
        false => format!("{x}"),
    }
}

/// A value in a message: JSON as written, cut to 40 characters.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.chars().count() > 40 {
        true => format!("{}…", text.chars().take(40).collect::<String>()),
        false => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_costs_and_latencies_are_refused_outside_their_ranges() {
        assert_eq!(tokens(&json!(12)), Ok(12));
        assert_eq!(tokens(&json!(MAX_TOKENS)), Ok(MAX_TOKENS));
        for bad in [
            json!(-5),
            json!(1.5),
            json!("12"),
            json!(u64::MAX),
            json!(1e308),
            json!(null),
        ] {
            let e = tokens(&bad).unwrap_err();
            assert!(e.contains("is not a token count"), "{bad}: {e}");
        }
        assert_eq!(cost(0.0), Ok(0.0));
        assert_eq!(cost_value(&json!(0.25)), Ok(0.25));
        for bad in [1e308, -100.0, f64::NAN, f64::INFINITY, -0.000001] {
            assert!(
                cost(bad).unwrap_err().contains("not a cost in USD"),
                "{bad}"
            );
        }
        assert!(cost_value(&json!("0.1")).is_err());
        assert_eq!(latency(12.5), Ok(12.5));
        for bad in [1e308, -5.0, f64::NAN] {
            assert!(latency(bad).unwrap_err().contains("not a latency"), "{bad}");
        }
        assert_eq!(
            cost(1e308).unwrap_err(),
            "1e308 is not a cost in USD (a number from 0 to 1000000)"
        );
        assert_eq!(
            (number(-100.0), number(0.25), number(-1e300)),
            ("-100".into(), "0.25".into(), "-1e300".into())
        );
        assert_eq!(add_tokens(u64::MAX, 1), None);
        assert_eq!(add_tokens(2, 3), Some(5));
        assert!(within(0.5, 0.0, 1.0) && !within(f64::NAN, 0.0, f64::INFINITY));
    }
}
