//! Fitting a report into GitHub's size limits (a comment in characters, a job summary and a
//! check run's summary in bytes) by showing less of it, least important first, instead of
//! cutting it: the per-group breakdown, the fixed samples, the diffs of broken samples,
//! then the least-dropped broken samples; the worst broken samples stay longest.

use goldgate_core::error::Result;
use goldgate_core::gate::verdict::Verdict;

/// How long a rendering may be: GitHub limits a comment in characters, a job summary and
/// a check run's summary in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Chars(usize),
    Bytes(usize),
}

impl Limit {
    fn size(self, text: &str) -> usize {
        match self {
            Limit::Chars(_) => text.chars().count(),
            Limit::Bytes(_) => text.len(),
        }
    }

    fn max(self) -> usize {
        match self {
            Limit::Chars(n) | Limit::Bytes(n) => n,
        }
    }

    pub fn fits(self, text: &str) -> bool {
        self.size(text) <= self.max()
    }

    /// `text` cut to leave room for `note`, at a character boundary, with the note.
    fn cut(self, text: &str, note: &str) -> String {
        let room = self.max().saturating_sub(self.size(note));
        let end = match self {
            Limit::Chars(_) => text.char_indices().nth(room).map_or(text.len(), |(i, _)| i),
            Limit::Bytes(_) => {
                let mut end = room.min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                end
            }
        };
        format!("{}{note}", &text[..end])
    }
}

/// GitHub's limit on a job summary, in bytes.
pub const SUMMARY_LIMIT: usize = 1 << 20;

/// How much of the detail a rendering shows: broken samples (worst first), the diffs of
/// the first of them, fixed samples and the per-group breakdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shown {
    pub broken: usize,
    pub diffs: usize,
    pub fixed: bool,
    pub groups: bool,
}

/// The fullest rendering of `v` by `draw` within `limit`. When everything does not fit,
/// the per-group breakdown goes first, then the list of fixed samples, then the diffs of the
/// broken samples (the worst keep theirs longest), then broken samples from the least
/// dropped up; the rendering says how many were left out. Only when not even that fits is
/// it cut, with a note pointing to `full_report`.
pub fn fit(
    v: &Verdict,
    limit: Limit,
    full_report: &str,
    draw: impl Fn(Shown) -> Result<String>,
) -> Result<String> {
    let broken = v.samples.as_ref().map_or(0, |s| s.broken.len());
    let all = Shown {
        broken,
        diffs: v.diffs.len(),
        fixed: true,
        groups: true,
    };
    let body = draw(all)?;
    if limit.fits(&body) {
        return Ok(body);
    }
    // Fold away what matters least, one step at a time.
    let mut shown = Shown {
        groups: false,
        ..all
    };
    for step in [|s: Shown| s, |s: Shown| Shown { fixed: false, ..s }] {
        shown = step(shown);
        let body = draw(shown)?;
        if limit.fits(&body) {
            return Ok(body);
        }
    }
    // Every broken sample, with as many diffs as fit (worst first).
    let fits = |s: Shown| -> Result<Option<String>> {
        let body = draw(s)?;
        Ok(limit.fits(&body).then_some(body))
    };
    if let Some((_, body)) = largest(0, all.diffs, |d| fits(Shown { diffs: d, ..shown }))? {
        return Ok(body);
    }
    // As many broken samples as fit, worst first, then diffs for the first of them.
    let rows = largest(0, broken, |r| {
        fits(Shown {
            broken: r,
            diffs: 0,
            ..shown
        })
    })?;
    if let Some((rows, body)) = rows {
        let most = diffs_within(v, rows);
        return Ok(largest(0, most, |d| {
            fits(Shown {
                broken: rows,
                diffs: d,
                ..shown
            })
        })?
        .map_or(body, |(_, b)| b));
    }
    let body = draw(Shown {
        broken: 0,
        diffs: 0,
        ..shown
    })?;
    let note =
        format!("\n\n_…cut here: the report is longer than GitHub allows; see {full_report}._\n");
    Ok(limit.cut(&body, &note))
}

/// How many of the diffs belong to the first `rows` broken samples.
pub fn diffs_within(v: &Verdict, rows: usize) -> usize {
    let shown: std::collections::HashSet<&str> = v
        .samples
        .iter()
        .flat_map(|s| s.broken.iter().take(rows).map(|c| c.id.as_str()))
        .collect();
    v.diffs
        .iter()
        .filter(|d| shown.contains(d.id.as_str()))
        .count()
}

/// The largest n in [lo, hi] for which `try_n` gives a rendering (the renderings grow with
/// n), with it; `None` when not even `lo` fits.
fn largest(
    lo: usize,
    hi: usize,
    mut try_n: impl FnMut(usize) -> Result<Option<String>>,
) -> Result<Option<(usize, String)>> {
    let Some(first) = try_n(lo)? else {
        return Ok(None);
    };
    let (mut best, mut lo, mut hi) = ((lo, first), lo + 1, hi);
    while lo <= hi {
        let mid = lo + (hi - lo) / 2;
        match try_n(mid)? {
            Some(body) => {
                best = (mid, body);
                lo = mid + 1;
            }
            None => hi = mid - 1,
        }
    }
    Ok(Some(best))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_count_characters_or_bytes_and_cut_at_a_character_boundary() {
        let wide = "検".repeat(10); // 10 characters, 30 bytes
        assert!(Limit::Chars(10).fits(&wide) && !Limit::Bytes(29).fits(&wide));
        assert_eq!(Limit::Bytes(8).cut(&wide, "!"), "検検!");
        assert_eq!(Limit::Chars(3).cut(&wide, "!"), "検検!");
        assert_eq!(Limit::Chars(30).cut(&wide, "!"), format!("{wide}!"));
    }

    #[test]
    fn the_largest_rendering_that_fits_is_found() {
        let fits = |n: usize| Ok((n * n <= 50).then(|| format!("{n}")));
        assert_eq!(largest(0, 100, fits).unwrap(), Some((7, "7".to_string())));
        assert_eq!(largest(0, 3, fits).unwrap(), Some((3, "3".to_string())));
        assert_eq!(largest(8, 100, fits).unwrap(), None);
    }
}
