//! Run progress for people: a live bar on a terminal (elapsed, rate, ETA, failures), plain
//! lines every few seconds otherwise, so CI logs show a run is alive without drowning in it.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often a plain progress line is written when stderr is not a terminal.
pub const PLAIN_EVERY: Duration = Duration::from_secs(10);

pub struct Progress {
    total: usize,
    started: Instant,
    bar: Option<ProgressBar>,
    last_line: Instant,
}

impl Progress {
    /// `tty`: whether stderr is a terminal (a bar), else plain lines.
    pub fn new(total: usize, tty: bool) -> Progress {
        let bar = tty.then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} {per_sec} ETA {eta} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar
        });
        Progress {
            total,
            started: Instant::now(),
            bar,
            last_line: Instant::now(),
        }
    }

    /// Record progress; returns a plain line to print when one is due (non-terminal only).
    pub fn update(&mut self, done: usize, failed: usize, cached: usize) -> Option<String> {
        if let Some(bar) = &self.bar {
            bar.set_position(done as u64);
            bar.set_message(format!("{failed} failed, {cached} cached"));
            return None;
        }
        if self.last_line.elapsed() < PLAIN_EVERY {
            return None;
        }
        self.last_line = Instant::now();
        Some(self.line(done, failed, cached))
    }

    /// The plain progress line.
    pub fn line(&self, done: usize, failed: usize, cached: usize) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        let rate = done as f64 / secs;
        let eta = if rate > 0.0 {
            format!("{:.0}s", (self.total.saturating_sub(done)) as f64 / rate)
        } else {
            "?".into()
        };
        let percent = if self.total == 0 {
            100.0
        } else {
            100.0 * done as f64 / self.total as f64
        };
        format!("run: {done}/{} ({percent:.0}%), {rate:.1}/s, {failed} failed, {cached} cached, {secs:.0}s elapsed, ETA {eta}\n", self.total)
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_say_how_far_how_fast_and_what_failed() {
        let progress = Progress::new(200, false);
        let line = progress.line(50, 2, 10);
        assert!(line.starts_with("run: 50/200 (25%), "), "{line}");
        assert!(
            line.contains("2 failed, 10 cached") && line.contains("ETA"),
            "{line}"
        );
        let mut progress = Progress::new(10, false);
        assert_eq!(
            progress.update(1, 0, 0),
            None,
            "no line before the first interval"
        );
    }
}
