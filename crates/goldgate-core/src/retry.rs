//! Retrying a call that failed for a reason worth another try (rate limits, server errors,
//! dropped connections): exponential backoff with full jitter, never shorter than what the
//! server asked for in `Retry-After`, and the wait until a rate limit's reset. One home for
//! the pipeline runner and the GitHub client.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::rng::Rng;

/// Retry k waits a random time in [0, min(cap, base·2^k)], and at least the server's
/// `Retry-After` (itself capped at `max_server_wait`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    pub base: Duration,
    pub cap: Duration,
    /// The longest `Retry-After` honoured: a server asking for an hour does not stall a CI
    /// job for an hour.
    pub max_server_wait: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
            max_server_wait: Duration::from_secs(120),
        }
    }
}

impl Backoff {
    /// A backoff with this first step (tests shorten it).
    pub fn with_base(base: Duration) -> Self {
        Backoff {
            base,
            ..Backoff::default()
        }
    }

    /// The wait before retry `attempt` (1-based).
    pub fn wait(&self, attempt: u32, retry_after: Option<Duration>, rng: &mut Rng) -> Duration {
        let step = self
            .base
            .saturating_mul(1u32 << attempt.min(16))
            .min(self.cap);
        let jitter = step.mul_f64((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64);
        jitter.max(retry_after.unwrap_or_default().min(self.max_server_wait))
    }
}

/// A `Retry-After` header value: delay-seconds (`120`, `1.5`) or an HTTP-date
/// (`Sun, 06 Nov 1994 08:49:37 GMT`, read against `now`; a date in the past is no wait).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = http_date(value)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// The wait until a rate limit's reset, given as seconds since the epoch (GitHub's
/// `x-ratelimit-reset`), read against `now`; a reset in the past is no wait.
pub fn until_reset(value: &str, now: SystemTime) -> Option<Duration> {
    let at = value.trim().parse::<u64>().ok()?;
    let at = UNIX_EPOCH + Duration::from_secs(at);
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Seconds since the epoch of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn http_date(text: &str) -> Option<u64> {
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let hms: Vec<u64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [h, m, s] = hms.as_slice() else {
        return None;
    };
    if !(1..=31).contains(&day) || *h > 23 || *m > 59 || *s > 60 {
        return None;
    }
    // Days from civil (proleptic Gregorian).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = u64::try_from(era * 146_097 + doe - 719_468).ok()?;
    Some(days * 86_400 + h * 3600 + m * 60 + s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_grow_with_jitter_up_to_the_cap_and_honour_the_server() {
        let backoff = Backoff::default();
        let mut rng = Rng::new(7);
        for attempt in 1..=20 {
            let step = (backoff.base * (1 << attempt.min(16))).min(backoff.cap);
            for _ in 0..50 {
                let wait = backoff.wait(attempt, None, &mut rng);
                assert!(wait <= step, "attempt {attempt}: {wait:?} > {step:?}");
            }
        }
        // Full jitter spreads the waits (not all the same).
        let waits: Vec<Duration> = (0..20).map(|_| backoff.wait(3, None, &mut rng)).collect();
        assert!(waits.iter().any(|w| *w != waits[0]));
        // Never shorter than Retry-After, which is itself capped.
        let wait = backoff.wait(1, Some(Duration::from_secs(7)), &mut rng);
        assert!(wait >= Duration::from_secs(7));
        let wait = backoff.wait(1, Some(Duration::from_secs(3600)), &mut rng);
        assert_eq!(wait, backoff.max_server_wait);
    }

    #[test]
    fn retry_after_in_seconds_and_as_an_http_date() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after(" 1.5 ", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:50:07 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            parse_retry_after("Thu, 29 Feb 2024 00:00:00 GMT", UNIX_EPOCH),
            Some(Duration::from_secs(1_709_164_800))
        );
        for bad in ["-1", "NaN", "soon", "Sun, 06 Foo 1994 08:49:37 GMT", ""] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad}");
        }
    }

    #[test]
    fn the_wait_until_a_rate_limit_resets() {
        let now = UNIX_EPOCH + Duration::from_millis(1_700_000_000_500);
        assert_eq!(
            until_reset("1700000002", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(until_reset(" 1600000000 ", now), Some(Duration::ZERO));
        for bad in ["", "soon", "-5", "1.5e9"] {
            assert_eq!(until_reset(bad, now), None, "{bad}");
        }
    }
}
