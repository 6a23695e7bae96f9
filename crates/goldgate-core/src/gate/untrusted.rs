//! Verdict files from elsewhere (`goldgate publish` posts the one a fork's run uploaded):
//! [`read`] refuses a file whose schema or values are invalid — an unknown schema, a metric
//! goldgate does not know (or listed twice, or with the wrong direction), a value outside
//! its metric's range, a delta no metric allows, a mean ± std over runs that cannot be, a
//! per-sample score outside [0, 1], a sample listed twice, a file over
//! [`MAX_VERDICT_BYTES`] — naming each problem's line and field. What the file claims is
//! judged again by [`super::rederive`].

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use super::verdict::{Verdict, VERDICT_SCHEMA};
use crate::document::{field_of, parse_json, pointer_of, Positions};
use crate::error::{Error, Location, Problem, Result};

/// Largest verdict file read (a verdict of 100,000 samples with diffs is a few MiB).
pub const MAX_VERDICT_BYTES: u64 = 64 << 20;

const HINT: &str =
    "publish reads the verdict.json written by `goldgate check` or `compare --output` of the same goldgate release";

/// Read a verdict file that cannot be trusted, refusing it (every problem at once, each with
/// its line and field) when its schema or values are invalid.
pub fn read(path: &Path) -> Result<Verdict> {
    let size = std::fs::metadata(path)
        .map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?
        .len();
    if size > MAX_VERDICT_BYTES {
        let problem = Problem::new(
            Location::file(path),
            None,
            format!(
                "the file has {size} bytes, more than the {MAX_VERDICT_BYTES} a verdict may have"
            ),
        )
        .with_hint(HINT);
        return Err(Error::invalid("verdict file", problem));
    }
    let text = crate::io::read(path)?;
    let document = parse_json(&text).map_err(|e| {
        let at = Location::new(path, e.position.line, e.position.column);
        Error::invalid(
            "verdict file",
            Problem::new(at, None, e.message).with_hint(HINT),
        )
    })?;
    let at = |pointer: &str| {
        let p = document.positions.nearest(pointer);
        Location::new(path, p.line, p.column)
    };
    let schema = document.value.get("schema").and_then(Value::as_str);
    if schema != Some(VERDICT_SCHEMA) {
        let claimed = match document.value.get("schema") {
            Some(Value::String(s)) => shown(s),
            Some(other) => shown(&other.to_string()),
            None => "(none)".into(),
        };
        let problem = Problem::new(
            at("/schema"),
            Some("schema".into()),
            format!("unknown schema version {claimed}"),
        )
        .with_hint(format!("this goldgate reads `{VERDICT_SCHEMA}`; {HINT}"));
        return Err(Error::invalid("verdict file", problem));
    }
    let verdict: Verdict = serde_path_to_error::deserialize(document.value).map_err(|e| {
        let pointer = pointer_of(e.path());
        let (message, hint) = crate::text::explain_serde(&e.into_inner().to_string());
        let problem = Problem::new(at(&pointer), field_of(&pointer), message)
            .with_hint(hint.unwrap_or_else(|| HINT.into()));
        Error::invalid("verdict file", problem)
    })?;
    let problems = check(&verdict, &|pointer| at(pointer), &document.positions);
    if problems.is_empty() {
        Ok(verdict)
    } else {
        Err(Error::Invalid {
            what: "verdict file",
            problems,
        })
    }
}

/// Untrusted text in a message: quoted, control characters escaped, cut.
fn shown(text: &str) -> String {
    let cut: String = text.chars().take(80).collect();
    format!("`{}`", cut.escape_debug())
}

/// Every value the file claims, in its range; every sample once.
fn check(v: &Verdict, at: &dyn Fn(&str) -> Location, positions: &Positions) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut problem = |pointer: String, message: String, hint: &str| {
        problems.push(Problem::new(at(&pointer), field_of(&pointer), message).with_hint(hint));
    };
    let range_hint = |m: &crate::metrics::registry::Metric| {
        let (lo, hi) = m.bounds();
        match hi.is_finite() {
            true => format!("`{}` takes values from {lo} to {hi}", m.name),
            false => format!("`{}` takes values of at least {lo}", m.name),
        }
    };
    let mut seen = HashSet::new();
    for (i, m) in v.metrics.iter().enumerate() {
        let here = format!("/metrics/{i}");
        let Some(metric) = crate::kinds::find(&m.name) else {
            let hint = match crate::text::did_you_mean(&m.name, crate::kinds::names()) {
                Some(s) => format!("did you mean `{s}`? {HINT}"),
                None => HINT.to_string(),
            };
            problem(
                format!("{here}/name"),
                format!("unknown metric {}", shown(&m.name)),
                &hint,
            );
            continue;
        };
        if !seen.insert(metric.name) {
            problem(
                format!("{here}/name"),
                format!("metric `{}` is listed twice", metric.name),
                HINT,
            );
        }
        if m.direction != metric.direction {
            problem(
                format!("{here}/direction"),
                format!(
                    "`{}` is a metric where {} is better",
                    metric.name,
                    match metric.direction {
                        crate::metrics::registry::Direction::Higher => "higher",
                        crate::metrics::registry::Direction::Lower => "lower",
                        crate::metrics::registry::Direction::Neither => "neither",
                    }
                ),
                HINT,
            );
        }
        let (lo, hi) = metric.bounds();
        let hint = range_hint(metric);
        for (key, value) in [("candidate", m.candidate), ("baseline", m.baseline)] {
            if let Some(x) = value.filter(|x| !(lo..=hi).contains(x)) {
                problem(
                    format!("{here}/{key}"),
                    format!("{key} value {x} of `{}` is outside its range", metric.name),
                    &hint,
                );
            }
        }
        let span = hi - lo;
        let deltas = m.delta.iter().chain(m.delta_ci.iter().flatten());
        if let Some(x) = deltas.copied().find(|x| !(-span..=span).contains(x)) {
            problem(
                format!("{here}/delta"),
                format!("a delta of {x} is impossible for `{}`", metric.name),
                &hint,
            );
        }
        if let Some([a, b]) = m.delta_ci.filter(|[a, b]| a > b) {
            problem(
                format!("{here}/delta_ci"),
                format!("the interval [{a}, {b}] ends below its start"),
                HINT,
            );
        }
        for (key, spread) in [
            ("candidate_runs", m.candidate_runs),
            ("baseline_runs", m.baseline_runs),
        ] {
            let Some(s) = spread else { continue };
            let within = |x: &f64, lo: f64, hi: f64| x.is_finite() && (lo..=hi).contains(x);
            if let Some(x) = s.mean.filter(|x| !within(x, lo, hi)) {
                let message = format!(
                    "mean {x} of `{}` over runs is outside its range",
                    metric.name
                );
                problem(format!("{here}/{key}/mean"), message, &hint);
            }
            // Values within the range spread by at most its width, and never below zero.
            if let Some(x) = s.std.filter(|x| !within(x, 0.0, span)) {
                let message = format!(
                    "a standard deviation of {x} is impossible for `{}`",
                    metric.name
                );
                problem(format!("{here}/{key}/std"), message, &hint);
            }
            if s.mean.is_some() != (s.runs > 0) || s.std.is_some() != (s.runs > 1) {
                problem(
                    format!("{here}/{key}"),
                    format!(
                        "mean {} and standard deviation {} cannot come from {} run{}",
                        crate::number::optional(s.mean, 4),
                        crate::number::optional(s.std, 4),
                        s.runs,
                        if s.runs == 1 { "" } else { "s" }
                    ),
                    "a mean needs one run with a value, a standard deviation two (null otherwise)",
                );
            }
        }
    }
    for (i, g) in v.groups.iter().enumerate() {
        let here = format!("/groups/{i}");
        let Some(metric) = crate::kinds::find(&g.metric) else {
            problem(
                format!("{here}/metric"),
                format!("unknown metric {}", shown(&g.metric)),
                HINT,
            );
            continue;
        };
        let (lo, hi) = metric.bounds();
        for (key, value) in [("candidate", g.candidate), ("baseline", g.baseline)] {
            if let Some(x) = value.filter(|x| !(lo..=hi).contains(x)) {
                problem(
                    format!("{here}/{key}"),
                    format!("{key} value {x} of `{}` is outside its range", metric.name),
                    &range_hint(metric),
                );
            }
        }
    }
    const SCORE_HINT: &str = "a sample's primary score is from 0 to 1";
    let primary = |x: f64| (0.0..=1.0).contains(&x);
    for (i, s) in v.sample_results.iter().enumerate() {
        for (key, value) in [("primary", Some(s.primary)), ("baseline", s.baseline)] {
            if let Some(x) = value.filter(|x| !primary(*x)) {
                problem(
                    format!("/sample_results/{i}/{key}"),
                    format!(
                        "{key} score {x} of sample {} is outside [0, 1]",
                        shown(&s.id)
                    ),
                    SCORE_HINT,
                );
            }
        }
    }
    let mut lists: Vec<(String, Vec<&str>)> = vec![
        (
            "/sample_results".into(),
            v.sample_results.iter().map(|s| s.id.as_str()).collect(),
        ),
        (
            "/missing".into(),
            v.missing.iter().map(String::as_str).collect(),
        ),
        (
            "/added".into(),
            v.added.iter().map(String::as_str).collect(),
        ),
        (
            "/removed".into(),
            v.removed.iter().map(String::as_str).collect(),
        ),
        (
            "/diffs".into(),
            v.diffs.iter().map(|d| d.id.as_str()).collect(),
        ),
    ];
    if let Some(a) = &v.samples {
        for (key, changes) in [
            ("fixed", &a.fixed),
            ("broken", &a.broken),
            ("still_failing", &a.still_failing),
        ] {
            lists.push((
                format!("/samples/{key}"),
                changes.iter().map(|c| c.id.as_str()).collect(),
            ));
            for (i, c) in changes.iter().enumerate() {
                if let Some(x) = [c.baseline, c.candidate].into_iter().find(|x| !primary(*x)) {
                    problem(
                        format!("/samples/{key}/{i}"),
                        format!("score {x} of sample {} is outside [0, 1]", shown(&c.id)),
                        SCORE_HINT,
                    );
                }
            }
        }
        lists.push((
            "/samples/unanswered".into(),
            a.unanswered.iter().map(|u| u.id.as_str()).collect(),
        ));
        for (i, u) in a.unanswered.iter().enumerate() {
            if !primary(u.baseline) {
                problem(
                    format!("/samples/unanswered/{i}"),
                    format!(
                        "score {} of sample {} is outside [0, 1]",
                        u.baseline,
                        shown(&u.id)
                    ),
                    SCORE_HINT,
                );
            }
        }
    }
    for (list, ids) in lists {
        let mut first: HashMap<&str, usize> = HashMap::new();
        for (i, id) in ids.into_iter().enumerate() {
            if let Some(&j) = first.get(id) {
                let line = positions.nearest(&format!("{list}/{j}")).line;
                let key = if list == "/sample_results"
                    || list.starts_with("/samples/")
                    || list == "/diffs"
                {
                    "/id"
                } else {
                    ""
                };
                problem(
                    format!("{list}/{i}{key}"),
                    format!(
                        "sample {} is listed twice (first at line {line})",
                        shown(id)
                    ),
                    "every sample appears once: a suite's sample ids are unique",
                );
            } else {
                first.insert(id, i);
            }
        }
    }
    problems
}
