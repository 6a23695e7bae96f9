//! Rate limits shared by every call to one service: requests per minute (calls are spaced
//! evenly, no bursts) and tokens per minute (a sliding one-minute window of the tokens answers
//! reported; a call waits while the window is full). Every attempt counts, retries too. One
//! home for the pipeline runner and the embeddings client.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

const WINDOW: Duration = Duration::from_secs(60);

/// Tokens reported in the last minute: (when, how many).
type TokenWindow = Mutex<VecDeque<(Instant, u64)>>;

#[derive(Debug, Default)]
pub struct Limits {
    /// Minimum spacing between call starts, and when the next may start.
    spacing: Option<(Duration, Mutex<Option<Instant>>)>,
    /// Tokens per minute, and the tokens used in the last minute.
    tokens: Option<(u64, TokenWindow)>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Limits {
    pub fn new(requests_per_minute: Option<u32>, tokens_per_minute: Option<u64>) -> Self {
        Limits {
            spacing: requests_per_minute
                .filter(|r| *r > 0)
                .map(|r| (WINDOW / r, Mutex::new(None))),
            tokens: tokens_per_minute
                .filter(|t| *t > 0)
                .map(|t| (t, Mutex::new(VecDeque::new()))),
        }
    }

    /// Wait until a call may start.
    pub async fn acquire(&self) {
        if let Some((budget, used)) = &self.tokens {
            loop {
                let wait = {
                    let mut used = lock(used);
                    let now = Instant::now();
                    while used
                        .front()
                        .is_some_and(|(at, _)| now.duration_since(*at) >= WINDOW)
                    {
                        used.pop_front();
                    }
                    let total: u64 = used.iter().map(|(_, t)| t).sum();
                    match used.front() {
                        Some((oldest, _)) if total >= *budget => Some(*oldest + WINDOW),
                        _ => None,
                    }
                };
                match wait {
                    Some(until) => tokio::time::sleep_until(until).await,
                    None => break,
                }
            }
        }
        if let Some((spacing, next)) = &self.spacing {
            let slot = {
                let mut next = lock(next);
                let now = Instant::now();
                let slot = next.map_or(now, |n| n.max(now));
                *next = Some(slot + *spacing);
                slot
            };
            tokio::time::sleep_until(slot).await;
        }
    }

    /// Whether a tokens-per-minute limit needs every call's tokens.
    pub fn counts_tokens(&self) -> bool {
        self.tokens.is_some()
    }

    /// Count the tokens a finished call used.
    pub fn used(&self, tokens: u64) {
        if let Some((_, used)) = &self.tokens {
            lock(used).push_back((Instant::now(), tokens));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn requests_are_spaced_evenly() {
        let limits = Limits::new(Some(120), None);
        let start = Instant::now();
        for _ in 0..5 {
            limits.acquire().await;
        }
        // 120 per minute: one every 0.5 s; the first goes at once.
        assert_eq!(start.elapsed(), Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_token_window_waits_for_its_oldest_entry() {
        let limits = Limits::new(None, Some(250));
        let start = Instant::now();
        for _ in 0..3 {
            limits.acquire().await;
            limits.used(100);
        }
        assert_eq!(
            start.elapsed(),
            Duration::ZERO,
            "200 tokens of 250: no wait yet"
        );
        limits.acquire().await; // 300 >= 250: wait until the first 100 leave the window
        assert_eq!(start.elapsed(), WINDOW);
    }

    #[tokio::test(start_paused = true)]
    async fn no_limits_no_wait() {
        let limits = Limits::new(None, None);
        let start = Instant::now();
        limits.acquire().await;
        limits.used(1_000_000);
        limits.acquire().await;
        assert_eq!(start.elapsed(), Duration::ZERO);
    }
}
