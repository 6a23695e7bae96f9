//! Checking a parsed `thresholds.toml`: every value in its range, so no value can quietly
//! defeat a rule — `nan` and infinities, a confidence outside (0, 1), a `sample_pass`
//! outside [0, 1], a negative allowed regression, a bound on the wrong side of a metric's
//! direction or outside the values it can take, an unknown metric; an allowed change in
//! the wrong unit (an absolute `max_regression` on a metric without an upper bound, where
//! 0.02 would be dollars or milliseconds; a `max_increase` that is no percentage, or on a
//! bounded metric). Every problem of the
//! file is collected, each at its own line, so one run reports them all.

use regex::Regex;
use toml::Spanned;

use super::{Defaults, Matching, MetricRule, Regression, Thresholds};
use crate::error::{Location, Problem};
use crate::metrics::registry::Direction;
use crate::text::did_you_mean;

/// Every problem of `t` (parsed from `text`); `at` turns a byte offset into a location.
pub(super) fn check(t: &Thresholds, text: &str, at: &dyn Fn(usize) -> Location) -> Vec<Problem> {
    let mut problems = Vec::new();
    if t.version != 1 {
        problems.push(
            Problem::new(
                at(0),
                Some("version".into()),
                format!("unsupported version {}", t.version),
            )
            .with_hint("this goldgate reads `version = 1`"),
        );
    }
    if let Some(defaults) = &t.defaults {
        problems.extend(check_defaults(defaults, text, at));
    }
    for (name, rule) in &t.metrics {
        problems.extend(check_rule(name, rule, at));
    }
    if let Some(m) = &t.matching {
        problems.extend(check_matching(m, at));
    }
    problems.extend(super::drift::check(t, at));
    if let Some(rd) = &t.rd_score {
        let w = rd.get_ref();
        let sum = w.coverage + w.accuracy + w.structure + w.traceability;
        if (sum - 1.0).abs() > 1e-9
            || [w.coverage, w.accuracy, w.structure, w.traceability]
                .iter()
                .any(|x| *x < 0.0)
        {
            problems.push(
                Problem::new(
                    at(rd.span().start),
                    Some("rd_score".into()),
                    format!("weights must be non-negative and sum to 1, they sum to {sum}"),
                )
                .with_hint(
                    "the defaults are coverage 0.4, accuracy 0.3, structure 0.2, traceability 0.1",
                ),
            );
        }
    }
    problems
}

const CONFIDENCE_HINT: &str = "a confidence level strictly between 0 and 1, e.g. 0.95";

/// Why `c` is no confidence level: outside (0, 1), or so close to 0 or 1 that its error
/// rate, 1 − confidence, rounds to 1 or 0 (`1e-20`), which no test can be run at.
fn confidence_problem(c: f64) -> Option<String> {
    let alpha = 1.0 - c;
    if !(c > 0.0 && c < 1.0) {
        return Some(format!("confidence {c} must be between 0 and 1"));
    }
    (!(alpha > 0.0 && alpha < 1.0)).then(|| {
        format!("confidence {c:e} is too close to 0 or 1: its error rate, 1 − confidence, rounds to {alpha}")
    })
}
const REGRESSION_HINT: &str =
    "the worsening allowed against the baseline: a number >= 0 (e.g. 0.02) or a percentage (\"5%\")";

const INCREASE_HINT: &str =
    "the rise allowed against the baseline, as a percentage of it: max_increase = \"10%\"";

/// `max_regression` a finite amount >= 0 (a negative one fails every change, `nan` none).
fn check_regression(regression: Regression) -> Option<String> {
    let amount = regression.amount();
    (!(amount >= 0.0 && amount.is_finite()))
        .then(|| format!("max_regression {regression} must be a finite number >= 0"))
}

/// `max_increase` a percentage (a number alone would be in the metric's unit: dollars,
/// tokens, milliseconds) of a finite amount >= 0.
fn check_increase(increase: Regression) -> Option<String> {
    let amount = increase.amount();
    match increase {
        Regression::Absolute(x) => Some(format!(
            "max_increase {x} is not a percentage: a rise is relative to the baseline"
        )),
        Regression::Relative(_) if !(amount >= 0.0 && amount.is_finite()) => Some(format!(
            "max_increase {increase} must be a finite percentage >= 0"
        )),
        Regression::Relative(_) => None,
    }
}

/// One `[metrics."name"]` table: a known metric; bounds that are finite, on the side the
/// metric's direction allows (a floor for higher-is-better, a ceiling for lower-is-better)
/// and within the values it can take; a confidence in (0, 1); an allowed regression >= 0.
/// Every problem of the table is reported, each at its own key.
fn check_rule(
    name: &Spanned<String>,
    rule: &MetricRule,
    at: &dyn Fn(usize) -> Location,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let metric = crate::kinds::find(name.get_ref());
    let field = |key: &str| Some(format!("metrics.\"{}\".{key}", name.get_ref()));
    if metric.is_none() {
        let hint = match did_you_mean(name.get_ref(), crate::kinds::names()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => "`goldgate score` writes every metric name into score.json".to_string(),
        };
        let field = Some(format!("metrics.\"{}\"", name.get_ref()));
        let message = format!("unknown metric `{}`", name.get_ref());
        problems.push(Problem::new(at(name.span().start), field, message).with_hint(hint));
    }
    for (key, bound) in [("min", &rule.min), ("max", &rule.max)] {
        let Some(bound) = bound else { continue };
        let (v, here) = (*bound.get_ref(), at(bound.span().start));
        let problem = |message: String, hint: String| {
            Problem::new(here.clone(), field(key), message).with_hint(hint)
        };
        if !v.is_finite() {
            problems.push(problem(
                format!("{key} {v} is not a finite number"),
                "a bound is a number in the metric's own range, e.g. `min = 0.8`".into(),
            ));
            continue;
        }
        let Some(metric) = metric else { continue };
        let name = metric.name;
        match (key, metric.direction) {
            ("max", Direction::Higher) => problems.push(problem(
                format!("`{name}` is higher-is-better: a ceiling would fail the gate when it improves"),
                format!("use `min = {v}` for a floor; a drop against the baseline is caught by `max_regression`"),
            )),
            ("min", Direction::Lower) => problems.push(problem(
                format!("`{name}` is lower-is-better: a floor would fail the gate when it improves"),
                format!("use `max = {v}` for a ceiling; a rise against the baseline is caught by `max_regression`"),
            )),
            _ if !metric.range.contains(v) => {
                let (lo, _) = metric.range.bounds();
                let never = (key == "min") == (v < lo);
                problems.push(problem(
                    format!("{key} {v} is outside the values of `{name}`, {}", metric.range.describe()),
                    format!(
                        "this bound would {} break{}",
                        if never { "never" } else { "always" },
                        if v > 1.0 && metric.range.bounds().1 == Some(1.0) {
                            " (a share is written 0.8, not 80)"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            _ => {}
        }
    }
    if let (Some(min), Some(max)) = (rule.min(), rule.max()) {
        if min > max {
            let at_max = at(rule.max.as_ref().map_or(0, |m| m.span().start));
            let message = format!("min {min} is above max {max}");
            problems.push(Problem::new(at_max, field("max"), message));
        }
    }
    if let Some((c, message)) = rule
        .confidence
        .as_ref()
        .and_then(|c| Some((c, confidence_problem(*c.get_ref())?)))
    {
        problems.push(
            Problem::new(at(c.span().start), field("confidence"), message)
                .with_hint(CONFIDENCE_HINT),
        );
    }
    if let Some(r) = &rule.max_increase {
        let problem = |message: String, hint: &str| {
            Problem::new(at(r.span().start), field("max_increase"), message).with_hint(hint)
        };
        if let Some(message) = check_increase(*r.get_ref()) {
            problems.push(problem(message, INCREASE_HINT));
        } else if let Some(m) = metric.filter(|m| m.direction == Direction::Neither) {
            problems.push(problem(
                format!(
                    "`{}` is better neither higher nor lower: it has no regressions",
                    m.name
                ),
                "bound it with `min` or `max`",
            ));
        } else if let Some(m) = metric.filter(|m| m.is_bounded()) {
            problems.push(problem(
                format!(
                    "`{}` is bounded, {}: a change in it is written as `max_regression`",
                    m.name,
                    m.range.describe()
                ),
                "write max_regression = 0.02 (in the metric's own units) or \"5%\"",
            ));
        }
    }
    if let Some(r) = &rule.max_regression {
        if let Some(message) = check_regression(*r.get_ref()) {
            problems.push(
                Problem::new(at(r.span().start), field("max_regression"), message)
                    .with_hint(REGRESSION_HINT),
            );
        } else if let Some(m) =
            metric.filter(|m| !m.is_bounded() && m.direction != Direction::Neither)
        {
            let message = format!(
                "`{}` has no upper bound: an allowed regression of {} would be in {}, whatever the baseline",
                m.name,
                r.get_ref(),
                match m.unit {
                    "" => "its own units",
                    unit => unit,
                }
            );
            problems.push(
                Problem::new(at(r.span().start), field("max_regression"), message)
                    .with_hint("write max_increase = \"10%\" for a rise relative to the baseline"),
            );
        } else if metric.is_some_and(|m| m.direction == Direction::Neither) {
            let message = format!(
                "`{}` is better neither higher nor lower: it has no regressions",
                name.get_ref()
            );
            problems.push(
                Problem::new(at(r.span().start), field("max_regression"), message)
                    .with_hint("bound it with `min` or `max`"),
            );
        }
    }
    problems
}

/// `[defaults]` values in their ranges: a confidence level in (0, 1), `sample_pass` a primary
/// score in [0, 1] (`nan` and infinities are out of every range).
fn check_defaults(
    defaults: &Spanned<Defaults>,
    text: &str,
    at: &dyn Fn(usize) -> Location,
) -> Vec<Problem> {
    let d = defaults.get_ref();
    let span = defaults.span();
    let place = |key: &str| at(value_offset(text, span.clone(), key).unwrap_or(span.start));
    let mut problems = Vec::new();
    if let Some(message) = confidence_problem(d.confidence) {
        problems.push(
            Problem::new(
                place("confidence"),
                Some("defaults.confidence".into()),
                message,
            )
            .with_hint(CONFIDENCE_HINT),
        );
    }
    if let Some(message) = d.max_regression.and_then(check_regression) {
        problems.push(
            Problem::new(
                place("max_regression"),
                Some("defaults.max_regression".into()),
                message,
            )
            .with_hint(REGRESSION_HINT),
        );
    }
    if let Some(message) = d.max_increase.and_then(check_increase) {
        problems.push(
            Problem::new(
                place("max_increase"),
                Some("defaults.max_increase".into()),
                message,
            )
            .with_hint(INCREASE_HINT),
        );
    }
    if !(0.0..=1.0).contains(&d.sample_pass) {
        problems.push(
            Problem::new(
                place("sample_pass"),
                Some("defaults.sample_pass".into()),
                format!("sample_pass {} must be between 0 and 1", d.sample_pass),
            )
            .with_hint("a primary score from 0 to 1 at or above which a sample passes, e.g. 0.8"),
        );
    }
    problems
}

/// Where the value of `key` is written in the table whose header starts at `span` of
/// `text` (`key = value` on a line of its own, before the next table's header): the
/// table's own span says only where its header is.
fn value_offset(text: &str, span: std::ops::Range<usize>, key: &str) -> Option<usize> {
    let mut start = span.end;
    let body = text.get(span.end..)?;
    for line in body.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            break;
        }
        if let Some(rest) = trimmed.strip_prefix(key) {
            if let Some(value) = rest.trim_start().strip_prefix('=') {
                return Some(start + line.len() - value.trim_start().len());
            }
        }
        start += line.len();
    }
    None
}

fn check_matching(m: &Spanned<Matching>, at: &dyn Fn(usize) -> Location) -> Vec<Problem> {
    let mut problems = Vec::new();
    let location = at(m.span().start);
    let m = m.get_ref();
    let similarity = m.similarity.as_deref().unwrap_or("lexical");
    match similarity {
        "lexical" | "minilm" | "openai" => {}
        other => problems.push(
            Problem::new(
                location.clone(),
                Some("matching.similarity".into()),
                format!("unknown similarity `{other}`"),
            )
            .with_hint(crate::text::hint_for(
                other,
                &["lexical", "minilm", "openai"],
            )),
        ),
    }
    // A key of another backend is a mistake (a typo in `similarity`, or a setting that
    // silently does nothing), never ignored.
    let keys: [(&str, &str, Option<usize>); 6] = [
        ("model", "minilm", m.model.as_ref().map(|v| v.span().start)),
        (
            "embedding_model",
            "openai",
            m.embedding_model.as_ref().map(|v| v.span().start),
        ),
        (
            "embedding_base_url",
            "openai",
            m.embedding_base_url.as_ref().map(|v| v.span().start),
        ),
        (
            "embedding_api_key_env",
            "openai",
            m.embedding_api_key_env.as_ref().map(|v| v.span().start),
        ),
        (
            "embedding_batch_size",
            "openai",
            m.embedding_batch_size.as_ref().map(|v| v.span().start),
        ),
        (
            "embedding_requests_per_minute",
            "openai",
            m.embedding_requests_per_minute
                .as_ref()
                .map(|v| v.span().start),
        ),
    ];
    for (key, backend, at_offset) in keys {
        if let Some(offset) = at_offset.filter(|_| similarity != backend) {
            problems.push(
                Problem::new(
                    at(offset),
                    Some(format!("matching.{key}")),
                    format!("`{key}` is a setting of the `{backend}` similarity, but similarity is `{similarity}`"),
                )
                .with_hint(format!("set similarity = \"{backend}\", or remove `{key}`")),
            );
        }
    }
    for (key, value) in [
        ("model", &m.model),
        ("embedding_model", &m.embedding_model),
        ("embedding_base_url", &m.embedding_base_url),
        ("embedding_api_key_env", &m.embedding_api_key_env),
    ] {
        if let Some(v) = value.as_ref().filter(|v| v.get_ref().trim().is_empty()) {
            problems.push(
                Problem::new(
                    at(v.span().start),
                    Some(format!("matching.{key}")),
                    "is empty",
                )
                .with_hint(format!("remove `{key}` to use its default")),
            );
        }
    }
    if let Some(rpm) = m
        .embedding_requests_per_minute
        .as_ref()
        .filter(|r| *r.get_ref() == 0)
    {
        problems.push(
            Problem::new(
                at(rpm.span().start),
                Some("matching.embedding_requests_per_minute".into()),
                "0 requests per minute would never send one",
            )
            .with_hint("remove `embedding_requests_per_minute` for no limit"),
        );
    }
    if let Some(batch) = &m.embedding_batch_size {
        if !(1..=2048).contains(batch.get_ref()) {
            problems.push(
                Problem::new(
                    at(batch.span().start),
                    Some("matching.embedding_batch_size".into()),
                    format!("{} is outside 1..=2048", batch.get_ref()),
                )
                .with_hint("texts per request: OpenAI accepts at most 2048; 256 is the default"),
            );
        }
    }
    for (key, value) in [
        ("requirement_threshold", m.requirement_threshold),
        ("ac_threshold", m.ac_threshold),
    ] {
        if let Some(v) = value.filter(|v| !(*v > 0.0 && *v <= 1.0)) {
            let problem = Problem::new(
                location.clone(),
                Some(format!("matching.{key}")),
                format!("{v} is outside (0, 1]"),
            );
            problems.push(
                problem
                    .with_hint("a threshold of 0 would match unrelated, even empty, requirements"),
            );
        }
    }
    if let Some(max) = m.max_items.as_ref().filter(|m| *m.get_ref() == 0) {
        problems.push(
            Problem::new(
                at(max.span().start),
                Some("matching.max_items".into()),
                "0 items would make every sample's gold and every answer too long to match",
            )
            .with_hint(format!(
                "the most items matching takes from one sample; {} is the default",
                crate::metrics::scoring::DEFAULT_MAX_ITEMS
            )),
        );
    }
    if let Some(p) = &m.id_pattern {
        if let Err(e) = Regex::new(p.get_ref()) {
            problems.push(Problem::new(
                at(p.span().start),
                Some("matching.id_pattern".into()),
                format!("invalid regular expression: {e}"),
            ));
        }
    }
    problems
}
