//! Diffs for broken samples: gold vs predicted items lined up by the matching scoring made
//! (from the scorer's [`SampleView`]s: matched pairs as context lines with their similarity
//! and differing fields, unmatched gold items as `-`, unmatched predictions as `+`), and the
//! baseline's answer vs the candidate's as a unified diff made with `similar`. They travel
//! in the verdict so `publish` has them, with the schema rules the candidate's answer
//! breaks. A diff is bounded in size and time whatever the
//! answers: the differ sees at most [`MAX_INPUT_LINES`] lines ([`MAX_INPUT_BYTES`]) of each
//! side, stops refining at a deadline ([`DEADLINE`] per diff, [`BUDGET`] for all the diffs
//! of a gate), and every diff keeps at most [`MAX_LINES`] lines ([`MAX_BYTES`]) of output;
//! each cut is said in a `… ` line at the end of the diff.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use similar::TextDiff;

use crate::escape::one_line;
use crate::kinds::aligned::{Aligned, Item, Paired};
use crate::parse::parse_answer;
use crate::score::SampleView;
use crate::text::norm;

/// Diffs shown for a broken sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleDiff {
    pub id: String,
    /// Gold items vs the candidate's predicted items, lined up by the matching: ` ` a
    /// matched pair (`REQ-001 ≈ FR-01 (0.91)`, then its differing fields), `-` a gold item
    /// nothing matched, `+` a prediction that matched nothing, `@` the counts.
    pub gold_vs_candidate: String,
    /// The baseline's answer vs the candidate's, when the baseline's run is kept.
    pub baseline_vs_candidate: Option<String>,
    /// How the candidate's requirements matched the gold: each pair with its similarity,
    /// each unmatched gold item with its best candidate and why (at most
    /// [`MAX_MATCHING_LINES`] lines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matching: Vec<String>,
    /// Why the candidate's answer is not schema-compliant (kinds with a `schema_compliance`
    /// metric): `path: constraint` per broken rule, the first few as the score file keeps
    /// them (each line at most [`MAX_MATCHING_LINE`] characters).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schema: Vec<String>,
}

/// Lines of a diff's matching explanation kept at most.
pub const MAX_MATCHING_LINES: usize = 60;
/// Characters of one matching line kept at most (predicted ids come from the answer).
const MAX_MATCHING_LINE: usize = 240;

/// A view's matching lines within the bounds, the cut said in a last line.
fn matching_lines(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = lines
        .iter()
        .take(MAX_MATCHING_LINES)
        .map(|l| match l.char_indices().nth(MAX_MATCHING_LINE) {
            Some((at, _)) => format!("{}…", &l[..at]),
            None => l.clone(),
        })
        .collect();
    if lines.len() > MAX_MATCHING_LINES {
        out.push(format!("… {} more lines", lines.len() - MAX_MATCHING_LINES));
    }
    out
}

/// Broken samples diffed at most, worst first: the job summary shows every diff (within
/// its 1 MiB), the PR comment as many as fit.
pub const MAX_DIFFS: usize = 100;

/// Lines of each side the differ compares at most.
pub const MAX_INPUT_LINES: usize = 5_000;
/// Bytes of each side the differ compares at most.
pub const MAX_INPUT_BYTES: usize = 512 * 1024;
/// Lines of one diff kept at most.
pub const MAX_LINES: usize = 400;
/// Bytes of one diff kept at most.
pub const MAX_BYTES: usize = 32 * 1024;
/// How long one diff may refine; past it `similar` finishes with a coarser (still correct)
/// diff. A 5,000-line diff with changes every tenth line takes about 20 ms.
pub const DEADLINE: Duration = Duration::from_millis(500);
/// How long the diffs of one gate may take together.
pub const BUDGET: Duration = Duration::from_secs(3);

/// The largest char boundary of `text` at or below `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Lines in `text` (a last line without a newline counts).
fn count_lines(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
        + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// What the differ sees of one side: whole lines up to [`MAX_INPUT_LINES`] and
/// [`MAX_INPUT_BYTES`] (the start of a first line longer than that).
fn head(text: &str) -> &str {
    let mut end = 0;
    for (lines, newline) in memchr::memchr_iter(b'\n', text.as_bytes()).enumerate() {
        if lines == MAX_INPUT_LINES || newline >= MAX_INPUT_BYTES {
            return match end {
                0 => &text[..floor_boundary(text, MAX_INPUT_BYTES)],
                _ => &text[..end],
            };
        }
        end = newline + 1;
    }
    match count_lines(text) <= MAX_INPUT_LINES && text.len() <= MAX_INPUT_BYTES {
        true => text,
        false if end == 0 => &text[..floor_boundary(text, MAX_INPUT_BYTES)],
        false => &text[..end],
    }
}

/// The first [`MAX_LINES`] lines ([`MAX_BYTES`]) of a diff, and a note when there is more.
fn bounded(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len().min(MAX_BYTES + 128));
    let mut lines = diff.split_inclusive('\n');
    for (kept, line) in lines.by_ref().enumerate() {
        if kept == MAX_LINES || out.len() + line.len() > MAX_BYTES {
            let cut = if kept == 0 {
                // A first line longer than the whole allowance: its start.
                out.push_str(&line[..floor_boundary(line, MAX_BYTES / 2)]);
                out.push_str("…\n");
                0
            } else {
                1
            };
            let more = cut + lines.count();
            if more > 0 {
                out.push_str(&format!("… {more} more lines of this diff are not shown\n"));
            }
            return out;
        }
        out.push_str(line);
    }
    out
}

/// A unified diff of `old` and `new`, bounded (see the module documentation); `deadline`
/// is when the gate's diffs must be done.
fn unified(old: &str, new: &str, from: &str, to: &str, deadline: Instant) -> String {
    let (a, b) = (head(old), head(new));
    let started = Instant::now();
    let deadline = deadline.min(started + DEADLINE);
    let diff = TextDiff::configure()
        .deadline(deadline)
        .diff_lines(a, b)
        .unified_diff()
        .context_radius(3)
        .header(from, to)
        .to_string();
    let late = Instant::now() >= deadline;
    let mut out = bounded(&diff);
    if a.len() < old.len() || b.len() < new.len() {
        let (total, kept) = (
            (count_lines(old), count_lines(new)),
            (count_lines(a), count_lines(b)),
        );
        let kept = match kept.0 == kept.1 {
            true => format!("{} of each", kept.0),
            false => format!("{} and {}", kept.0, kept.1),
        };
        out.push_str(&format!(
            "… the two sides have {} and {} lines: only the first {kept} were compared\n",
            total.0, total.1
        ));
    }
    if late {
        out.push_str("… the diff ran out of time: its last changes may be coarser than they are\n");
    }
    out
}

/// A matched pair's heading: the two names and how they matched (`REQ-001 ≈ FR-01 (0.91)`,
/// `(loose match)`), empty for items without names matched exactly.
fn pair_heading(gold: &Item, predicted: &Item, pair: &Paired) -> String {
    let mut parts: Vec<String> = Vec::new();
    match (gold.name.is_empty(), predicted.name.is_empty()) {
        (false, false) => parts.push(format!("{} ≈ {}", gold.name, predicted.name)),
        (false, true) => parts.push(gold.name.clone()),
        (true, false) => parts.push(format!("≈ {}", predicted.name)),
        (true, true) => {}
    }
    parts.extend(pair.similarity.map(|s| format!("({s:.2})")));
    parts.extend(pair.how.map(|h| format!("({h})")));
    parts.join(" ")
}

/// `name  text`, or the text alone for an item without a name.
fn named(item: &Item) -> String {
    match item.name.is_empty() {
        true => item.text.clone(),
        false => format!("{}  {}", item.name, item.text),
    }
}

/// The gold items against the predictions, lined up by the pairs scoring matched: each gold
/// item in order, a matched one as a context line with its match (and a context line per
/// field the two write differently), an unmatched one as `-` with why; then the
/// predictions that matched nothing as `+`. Every line is one line of text, whatever the
/// answer held; the whole is bounded like every diff.
pub fn aligned_diff(a: &Aligned) -> String {
    let mut partner: Vec<Option<&Paired>> = vec![None; a.gold.len()];
    let mut taken = vec![false; a.predicted.len()];
    for pair in &a.pairs {
        if partner[pair.gold].is_none() && !taken[pair.predicted] {
            partner[pair.gold] = Some(pair);
            taken[pair.predicted] = true;
        }
    }
    let mut why: Vec<Option<&str>> = vec![None; a.gold.len()];
    for (i, reason) in &a.misses {
        if let Some(slot) = why.get_mut(*i) {
            *slot = Some(reason);
        }
    }
    let matched = partner.iter().flatten().count();
    let mut out = format!(
        "--- gold\n+++ candidate\n@@ {} gold, {} predicted, {matched} matched @@\n",
        a.gold.len(),
        a.predicted.len() + a.extra.len()
    );
    let mut line = |sign: char, text: &str| {
        out.push(sign);
        out.push(' ');
        out.push_str(&one_line(text));
        out.push('\n');
    };
    for (g, item) in a.gold.iter().enumerate() {
        match partner[g] {
            Some(pair) => {
                let predicted = &a.predicted[pair.predicted];
                let heading = pair_heading(item, predicted, pair);
                match heading.is_empty() {
                    true => line(' ', &item.text),
                    false => line(' ', &format!("{heading}  {}", item.text)),
                }
                for ((field, was), (_, is)) in item.fields.iter().zip(&predicted.fields) {
                    if norm(was) != norm(is) {
                        line(' ', &format!("    {field}: {was} → {is}"));
                    }
                }
            }
            None => match why[g] {
                Some(reason) => line('-', &format!("{}  ({reason})", named(item))),
                None => line('-', &named(item)),
            },
        }
    }
    for (p, item) in a.predicted.iter().enumerate() {
        if !taken[p] {
            line('+', &named(item));
        }
    }
    for extra in &a.extra {
        line('+', extra);
    }
    bounded(&out)
}

/// An answer made readable: pretty JSON when it parses, else the text as it is.
fn readable(text: &str) -> String {
    match parse_answer(text).value {
        Some(v) => serde_json::to_string_pretty(&v).unwrap_or_else(|_| text.to_string()),
        None => text.to_string(),
    }
}

/// Diffs for up to [`MAX_DIFFS`] of the `broken` samples, in that order. `views` holds the
/// candidate's gold and predicted items per sample; `baseline_answers` the baseline's answer
/// texts (empty when the baseline's run was not kept).
pub fn broken_sample_diffs(
    broken: &[String],
    views: &[SampleView],
    baseline_answers: &HashMap<String, String>,
) -> Vec<SampleDiff> {
    let by_id: HashMap<&str, &SampleView> = views.iter().map(|v| (v.id.as_str(), v)).collect();
    let deadline = Instant::now() + BUDGET;
    broken
        .iter()
        .filter_map(|id| by_id.get(id.as_str()))
        .take(MAX_DIFFS)
        .map(|view| SampleDiff {
            id: view.id.clone(),
            gold_vs_candidate: aligned_diff(&view.aligned),
            baseline_vs_candidate: baseline_answers.get(&view.id).map(|before| {
                unified(
                    &(readable(before) + "\n"),
                    &(readable(&view.answer) + "\n"),
                    "baseline answer",
                    "candidate answer",
                    deadline,
                )
            }),
            matching: matching_lines(&view.matching),
            schema: matching_lines(&view.violations),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    /// A 100,000-line answer against another with every tenth line changed: the differ sees
    /// a bounded part of each side, says so, and the diff it returns is bounded too, with
    /// the shape of a unified diff. (It finishes in well under a second; before the bounds it
    /// took 10 s in a release build, minutes in a debug one.)
    #[test]
    fn a_huge_answer_diff_is_bounded_and_says_what_it_left_out() {
        let old: String = (0..100_000).map(|i| format!("line {i}\n")).collect();
        let new: String = (0..100_000)
            .map(|i| match i % 10 {
                0 => format!("changed {i}\n"),
                _ => format!("line {i}\n"),
            })
            .collect();
        let deadline = std::time::Instant::now() + super::BUDGET;
        let d = super::unified(&old, &new, "baseline answer", "candidate answer", deadline);
        assert!(
            d.starts_with("--- baseline answer\n+++ candidate answer\n@@ -1,"),
            "{}",
            &d[..200.min(d.len())]
        );
        assert!(
            d.contains("\n-line 0\n+changed 0\n"),
            "the first change is shown"
        );
        assert!(
            d.contains("… the two sides have 100000 and 100000 lines: only the first 5000 of each were compared\n"),
            "the input cut is said"
        );
        assert!(
            d.lines()
                .any(|l| l.starts_with("… ")
                    && l.ends_with(" more lines of this diff are not shown")),
            "the output cut is said"
        );
        assert!(d.len() <= 40 * 1024, "bounded output: {} bytes", d.len());
        assert!(
            d.lines().count() <= 410,
            "bounded output: {} lines",
            d.lines().count()
        );
        // Every line is a diff line or a note.
        assert!(d
            .lines()
            .all(|l| l.starts_with(['-', '+', ' ', '@', '…', '\\'])));
    }

    fn item(name: &str, title: &str) -> crate::kinds::aligned::Item {
        crate::kinds::aligned::Item {
            name: name.into(),
            text: format!("functional | user | {title}"),
            fields: vec![("title".into(), title.into())],
        }
    }

    /// A matched paraphrase is one context line with both names and the similarity, then
    /// the field the two write differently; gold nothing matched is `-` (with why),
    /// predictions that matched nothing `+`; an answer's newline cannot start a line.
    #[test]
    fn the_gold_diff_lines_items_up_by_their_matching() {
        use crate::kinds::aligned::{Aligned, Paired};
        let mut a = Aligned::new(
            vec![item("REQ-001", "Log in"), item("REQ-002", "Export")],
            vec![
                item("FR-01", "Sign in"),
                item("FR-02", "Dark mode\n+ forged line"),
            ],
            &[Paired::similar(0, 0, 0.912)],
        );
        a.misses
            .push((1, "best candidate FR-02, similarity 0.100".into()));
        let d = super::aligned_diff(&a);
        assert_eq!(
            d,
            "--- gold\n+++ candidate\n@@ 2 gold, 2 predicted, 1 matched @@\n\
             \x20 REQ-001 ≈ FR-01 (0.91)  functional | user | Log in\n\
             \x20     title: Log in → Sign in\n\
             - REQ-002  functional | user | Export  (best candidate FR-02, similarity 0.100)\n\
             + FR-02  functional | user | Dark mode␊+ forged line\n"
        );
        // Fields written alike (case, spacing) are not a difference; exact pairs without
        // names read as the item alone.
        let same = Aligned::new(
            vec![item("", "Log in")],
            vec![item("", "log  IN")],
            &[Paired::exact(0, 0)],
        );
        assert!(super::aligned_diff(&same).ends_with("@@\n  functional | user | Log in\n"));
    }

    #[test]
    fn unified_diffs_show_what_went_missing() {
        let deadline = std::time::Instant::now() + super::BUDGET;
        let d = super::unified("a\nb\nc\n", "a\nc\n", "gold", "candidate", deadline);
        assert!(
            d.contains("--- gold") && d.contains("+++ candidate") && d.contains("-b"),
            "{d}"
        );
    }
}
