//! How much matching is given from one sample, bounded by `[matching] max_items`. Matching
//! compares every gold item with every predicted one and assigns them one to one, so its time
//! and memory grow with the product of the two lists and faster: 10,000 items on each side
//! took minutes and gigabytes. So the longest list of a sample's gold labels (requirements,
//! their acceptance criteria, inferred requirements, issues, PII, tuples) and the longest list
//! anywhere in an answer are capped: gold over the cap is a suite error, an answer over it is
//! scored as an unreadable answer (parse outcome `error`, score 0) with a warning saying why.

use crate::error::{Location, Problem};
use crate::parse::json::Json;
use crate::parse::{ParseOutcome, ParsedAnswer};
use crate::sample::Labels;
use crate::sample::Sample;

/// The longest list anywhere in `answer` (of requirements, criteria, tuples, …); 0 without
/// one.
pub fn longest_list(answer: &Json<'_>) -> usize {
    let (mut longest, mut stack) = (0, vec![answer]);
    while let Some(value) = stack.pop() {
        match value {
            Json::Array(items) => {
                longest = longest.max(items.len());
                stack.extend(items);
            }
            Json::Object(object) => stack.extend(object.values()),
            _ => {}
        }
    }
    longest
}

/// Where a gold list is: its key, and the item and field of a list inside an item.
type ListAt = (&'static str, Option<(usize, &'static str)>);

/// The longest list of gold labels: its field and length (the first of the longest, the
/// top-level lists before the lists inside items). Its field is named once, for the one
/// found: this runs on every sample.
pub fn longest_gold(labels: &Labels) -> (String, usize) {
    let mut best: (Option<ListAt>, usize) = (None, 0);
    for (key, list) in labels.iter() {
        if list.len() > best.1 {
            best = (Some((key, None)), list.len());
        }
    }
    for (key, list) in labels.iter() {
        let Some(shape) = super::label_shapes().iter().find(|s| s.key() == key) else {
            continue;
        };
        for (i, field, n) in shape.inner_lists(list) {
            if n > best.1 {
                best = (Some((key, Some((i, field)))), n);
            }
        }
    }
    let field = match best.0 {
        None => String::new(),
        Some((key, None)) => format!("labels.{key}"),
        Some((key, Some((i, field)))) => format!("labels.{key}[{i}].{field}"),
    };
    (field, best.1)
}

/// The error of a sample whose gold holds a list longer than `max_items`, if it does.
pub fn gold_over_cap(labels: &Labels, origin: &Location, max_items: usize) -> Option<Problem> {
    let (field, len) = longest_gold(labels);
    (len > max_items).then(|| {
        Problem::new(
            origin.clone(),
            Some(field),
            format!("{len} items; matching takes at most {max_items} from one sample"),
        )
        .with_hint("split the sample into smaller ones, or raise `max_items` under [matching] in thresholds.toml")
    })
}

/// A loaded sample's `problems`, with its gold's if it holds a list longer than
/// `max_items`; and whether it fits (it is scored only then).
pub fn gold_fits(
    sample: Option<&Sample>,
    mut problems: Vec<Problem>,
    max_items: usize,
) -> (Vec<Problem>, bool) {
    let over = sample.and_then(|s| gold_over_cap(&s.labels, &s.origin, max_items));
    let fits = over.is_none();
    problems.extend(over);
    (problems, fits)
}

/// Make an answer whose longest list is over `max_items` unreadable (no value, parse
/// outcome `error`), so it scores as an answer that did not parse; that list's length when
/// it was.
pub fn unreadable_when_long(
    parsed: &mut ParsedAnswer<Json<'_>>,
    max_items: usize,
) -> Option<usize> {
    let len = parsed
        .value
        .as_ref()
        .map(longest_list)
        .filter(|&len| len > max_items)?;
    (parsed.value, parsed.region) = (None, None);
    parsed.outcome = ParseOutcome::Error;
    parsed.detail = format!("a list of {len} items, more than the {max_items} matching takes");
    Some(len)
}

/// The warning of an answer (at `location` in the run file) whose longest list holds `len`
/// items, more than `max_items`.
pub fn answer_over_cap(location: Location, sample: &str, len: usize, max_items: usize) -> Problem {
    Problem::new(
        location,
        None,
        format!(
            "the answer to {sample} holds a list of {len} items; matching takes at most {max_items} from one sample, so it is scored as an unreadable answer (parse error, score 0)"
        ),
    )
    .with_hint("if answers this long are real, raise `max_items` under [matching] in thresholds.toml")
    .warning()
}

/// The statistics every record adds 0 or 1 to, whatever its kind: its parse outcome and
/// its run health.
const PER_RECORD: &[&str] = &[
    "parse.records",
    "parse.raw",
    "parse.repaired",
    "parse.error",
    "parse.no_json",
    "parse.keyless",
    "run.records",
    "run.errors",
    "run.cached",
    "run.tokens_estimated",
    "run.usage_invalid",
];

/// The most one record of `sample` can add to its statistic `key` before it is answered:
/// 1 for the counts every record makes, else its kind's
/// [`record_bound`](super::TaskKind::record_bound). `None`: unknown.
pub fn record_bound(
    key: &str,
    sample: &Sample,
    cfg: &crate::metrics::ScoringConfig,
) -> Option<f64> {
    match PER_RECORD.contains(&key) {
        true => Some(1.0),
        false => super::of(sample.kind).record_bound(key, sample, cfg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_list_is_found_at_any_depth() {
        let answer = Json::parse_owned(
            r#"{"requirements": [{"acceptance_criteria": [1, 2, 3, 4]}, 2], "x": {"y": [[1, 2, 3, 4, 5]]}}"#,
        )
        .unwrap();
        assert_eq!(longest_list(&answer), 5);
        assert_eq!(longest_list(&Json::parse_owned("7").unwrap()), 0);
        let labels = crate::testkit::labels(serde_json::json!({"pii": ["a", "a", "a"]}));
        assert_eq!(longest_gold(&labels), ("labels.pii".to_string(), 3));
        let origin = Location::file(std::path::Path::new("s.yaml"));
        assert!(gold_over_cap(&labels, &origin, 3).is_none());
        let e = gold_over_cap(&labels, &origin, 2).unwrap().to_string();
        assert!(e.contains("labels.pii") && e.contains("3 items"), "{e}");
    }
}
