//! How goldgate writes a number for people, in every report and message: one rule for
//! decimals, one sign for "no value", one form for a delta with its interval.

/// Shown where a value is missing (no data, no baseline).
pub const MISSING: &str = "–";

/// A metric value with `decimals` decimals; values of 100 or more (latencies, token counts)
/// with one.
pub fn value(v: f64, decimals: usize) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.decimals$}")
    }
}

/// [`value`], or [`MISSING`].
pub fn optional(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| MISSING.to_string(), |v| value(v, decimals))
}

/// A signed delta with `decimals` decimals, and its interval (three decimals) when known:
/// `-0.2857 [-0.441, -0.093]`.
pub fn delta(delta: Option<f64>, ci: Option<[f64; 2]>, decimals: usize) -> String {
    match (delta, ci) {
        (Some(d), Some(ci)) => format!("{d:+.decimals$} {}", interval(ci)),
        (Some(d), None) => format!("{d:+.decimals$}"),
        (None, _) => MISSING.to_string(),
    }
}

/// A delta's interval, signed, with three decimals: `[-0.441, -0.093]`.
pub fn interval([lo, hi]: [f64; 2]) -> String {
    format!("[{lo:+.3}, {hi:+.3}]")
}

/// [`delta`] for a metric whose values are up to `magnitude` in size, written like those
/// values ([`value`]): from 100 up (latencies, token counts) the delta and its interval with
/// one decimal, `+29.0 [+0.5, +137.8]`.
pub fn delta_like(d: Option<f64>, ci: Option<[f64; 2]>, decimals: usize, magnitude: f64) -> String {
    match (d, ci) {
        _ if magnitude.abs() < 100.0 => delta(d, ci, decimals),
        (Some(d), Some([lo, hi])) => format!("{d:+.1} [{lo:+.1}, {hi:+.1}]"),
        (Some(d), None) => format!("{d:+.1}"),
        (None, _) => MISSING.to_string(),
    }
}

/// A mean and standard deviation over runs, `0.8050 ± 0.0210`: the standard deviation
/// [`MISSING`] when there is none (one run), [`MISSING`] alone without a mean.
pub fn spread(mean: Option<f64>, std: Option<f64>, decimals: usize) -> String {
    match mean {
        Some(m) => format!("{} ± {}", value(m, decimals), optional(std, decimals)),
        None => MISSING.to_string(),
    }
}

/// An amount in US dollars: `$0.0421` below a dollar (four decimals: one call costs a
/// fraction of a cent), `$12.50` from a dollar up.
pub fn usd(v: f64) -> String {
    if v.abs() < 1.0 {
        format!("${v:.4}")
    } else {
        format!("${v:.2}")
    }
}

/// A count with thousands separated: `12,345`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_and_counts() {
        assert_eq!(usd(0.04213), "$0.0421");
        assert_eq!(usd(12.5), "$12.50");
        assert_eq!(usd(0.0), "$0.0000");
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1234567), "1,234,567");
    }

    #[test]
    fn one_rule_for_decimals_missing_values_and_deltas() {
        assert_eq!(value(0.88191, 4), "0.8819");
        assert_eq!(value(0.88191, 3), "0.882");
        assert_eq!(value(1234.56, 4), "1234.6");
        assert_eq!(value(-100.0, 4), "-100.0");
        assert_eq!(optional(None, 4), "–");
        assert_eq!(optional(Some(0.5), 2), "0.50");
        assert_eq!(
            delta(Some(-0.28571), Some([-0.4412, -0.0931]), 4),
            "-0.2857 [-0.441, -0.093]"
        );
        assert_eq!(delta(Some(0.01), None, 3), "+0.010");
        assert_eq!(delta(None, Some([0.0, 1.0]), 3), "–");
        assert_eq!(
            delta_like(Some(28.98), Some([0.487, 137.767]), 4, 236.5),
            "+29.0 [+0.5, +137.8]"
        );
        assert_eq!(
            delta_like(Some(-0.28571), Some([-0.4412, -0.0931]), 4, 0.9),
            "-0.2857 [-0.441, -0.093]"
        );
        assert_eq!(spread(Some(0.80512), Some(0.0213), 3), "0.805 ± 0.021");
        assert_eq!(spread(Some(0.5), None, 4), "0.5000 ± –");
        assert_eq!(spread(None, None, 4), "–");
    }
}
