//! The review rubric: the seven metrics and three categories a judgement scores a generated
//! SRS on (each in [0, 1]), the two overall scores made from them, and reading a judge's
//! answer into a judgement — or saying exactly why it is none. Pure: no calls, no files.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::llm::extract::{balanced_objects, MAX_STARTS};

/// The seven metrics, in report order.
pub const METRICS: [&str; 7] = [
    "coverage",
    "completeness",
    "consistency",
    "testability",
    "clarity",
    "traceability",
    "scope_discipline",
];

/// The weight of each of [`METRICS`] in `comprehensive_weighted` (they sum to 1).
pub const WEIGHTS: [f64; 7] = [0.20, 0.20, 0.10, 0.20, 0.10, 0.15, 0.05];

/// The requirement categories of `by_category`, in report order.
pub const CATEGORIES: [&str; 3] = ["functional", "non_functional", "constraints"];

/// Coverage of each requirement category of the reference: `None` when the reference has
/// no requirement of that category (the judge answers `null`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ByCategory {
    #[serde(default)]
    pub functional: Option<f64>,
    #[serde(default)]
    pub non_functional: Option<f64>,
    #[serde(default)]
    pub constraints: Option<f64>,
}

impl ByCategory {
    /// The three values in [`CATEGORIES`] order.
    pub fn values(&self) -> [Option<f64>; 3] {
        [self.functional, self.non_functional, self.constraints]
    }
}

/// One valid judgement: every metric in [0, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scores {
    pub coverage: f64,
    pub completeness: f64,
    pub consistency: f64,
    pub testability: f64,
    pub clarity: f64,
    pub traceability: f64,
    pub scope_discipline: f64,
    pub by_category: ByCategory,
}

impl Scores {
    /// A judgement of the seven metrics in [`METRICS`] order and the three categories in
    /// [`CATEGORIES`] order.
    pub fn new(values: [f64; 7], categories: [Option<f64>; 3]) -> Scores {
        let [coverage, completeness, consistency, testability, clarity, traceability, scope_discipline] =
            values;
        let [functional, non_functional, constraints] = categories;
        Scores {
            coverage,
            completeness,
            consistency,
            testability,
            clarity,
            traceability,
            scope_discipline,
            by_category: ByCategory {
                functional,
                non_functional,
                constraints,
            },
        }
    }

    /// The seven metrics in [`METRICS`] order.
    pub fn values(&self) -> [f64; 7] {
        [
            self.coverage,
            self.completeness,
            self.consistency,
            self.testability,
            self.clarity,
            self.traceability,
            self.scope_discipline,
        ]
    }

    /// `comprehensive_simple`: the mean of the seven metrics.
    pub fn simple(&self) -> f64 {
        simple(&self.values())
    }

    /// `comprehensive_weighted`: the seven metrics weighted by [`WEIGHTS`].
    pub fn weighted(&self) -> f64 {
        weighted(&self.values())
    }
}

/// The mean of the seven metrics (in [`METRICS`] order).
pub fn simple(values: &[f64; 7]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The seven metrics (in [`METRICS`] order) weighted by [`WEIGHTS`].
pub fn weighted(values: &[f64; 7]) -> f64 {
    values.iter().zip(WEIGHTS).map(|(v, w)| v * w).sum()
}

/// Which rules [`read`] applies: part of the judge cache's key, so a judgement read under
/// looser rules is never served again.
pub const READER: &str = "one-object/2";

/// Read a judge's answer. It must be exactly one JSON object: the whole answer (trimmed),
/// or the body of one fenced code block with no other JSON object anywhere in the answer.
/// An answer holding several objects (each a balanced `{…}` that parses, counted
/// outermost) is no judgement: a judge that quotes scores a judged document asked for
/// cannot have them read as its own. So is an object with a key twice, prose around a bare
/// object, and an answer with more `{` than [`MAX_STARTS`] (not every object could be
/// counted). The error says why.
pub fn read(text: &str) -> Result<Scores, String> {
    let object = the_object(text)?;
    match object.get("metrics") {
        Some(metrics) => scores(metrics),
        None => Err("the answer's JSON object has no `metrics` key".into()),
    }
}

/// The one JSON object an answer is, or why it is not exactly one.
fn the_object(text: &str) -> Result<Map<String, Value>, String> {
    let braces = memchr::memchr_iter(b'{', text.as_bytes()).count();
    if braces > MAX_STARTS {
        return Err(format!(
            "the answer has {braces} `{{`, more than the {MAX_STARTS} a judgement is read from"
        ));
    }
    let mut objects = balanced_objects(text);
    if objects.len() > 1 {
        return Err(format!(
            "the answer holds {} JSON objects; a judgement is exactly one (the whole answer, or one fenced block)",
            objects.len()
        ));
    }
    let Some((span, _)) = objects.pop() else {
        return Err("no JSON object in the answer".into());
    };
    let object = &text[span.clone()];
    if text.trim() != object && !fenced(text, span) {
        return Err(
            "the answer's JSON object is inside prose: a judgement is the whole answer, or one fenced block"
                .into(),
        );
    }
    // Read again refusing a key given twice (`{"metrics": …, "metrics": …}` is two answers).
    match crate::document::parse_json(object) {
        Ok(document) => match document.value {
            Value::Object(map) => Ok(map),
            _ => Err("no JSON object in the answer".into()),
        },
        Err(e) => Err(format!("the answer's JSON object has a {}", e.message)),
    }
}

/// Whether the object at `span` is a fenced block's whole body: the line before it is a
/// fence (```` ``` ````, a language tag after it at most) and the text after it starts with
/// the closing fence, or is empty (an unclosed fence runs to the end).
fn fenced(text: &str, span: std::ops::Range<usize>) -> bool {
    let before = text[..span.start].trim_end();
    let line = before.rsplit('\n').next().unwrap_or(before).trim();
    let after = text[span.end..].trim_start();
    line.strip_prefix("```")
        .is_some_and(|tag| !tag.contains('`'))
        && (after.is_empty() || after.starts_with("```"))
}

/// The judgement in a `metrics` value, or why it is none.
fn scores(metrics: &Value) -> Result<Scores, String> {
    let Value::Object(m) = metrics else {
        return Err(format!("`metrics` is {}, not an object", kind_of(metrics)));
    };
    let mut values = [0.0; 7];
    for (slot, name) in values.iter_mut().zip(METRICS) {
        *slot = unit(m, "metrics", name, false)?
            .ok_or_else(|| format!("`metrics.{name}` is null, not a number"))?;
    }
    let categories = match m.get("by_category") {
        None => return Err("`metrics.by_category` is missing".into()),
        Some(Value::Object(c)) => {
            let [functional, non_functional, constraints] =
                CATEGORIES.map(|name| unit(c, "metrics.by_category", name, true));
            [functional?, non_functional?, constraints?]
        }
        Some(other) => {
            return Err(format!(
                "`metrics.by_category` is {}, not an object",
                kind_of(other)
            ))
        }
    };
    Ok(Scores::new(values, categories))
}

/// `object[name]` as a number in [0, 1] (`None`: `null`, where `null_ok`).
fn unit(
    object: &Map<String, Value>,
    path: &str,
    name: &str,
    null_ok: bool,
) -> Result<Option<f64>, String> {
    match object.get(name) {
        None => Err(format!("`{path}.{name}` is missing")),
        Some(Value::Null) if null_ok => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if (0.0..=1.0).contains(&x) => Ok(Some(x)),
            _ => Err(format!("`{path}.{name}` = {n} is outside [0, 1]")),
        },
        Some(other) => Err(format!(
            "`{path}.{name}` is {}, not a number",
            kind_of(other)
        )),
    }
}

/// A JSON value's type as a message names it, with a short value where it helps.
fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            format!("the string {short:?}")
        }
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"metrics": {"coverage": 0.8, "completeness": 0.6, "consistency": 1, "testability": 0.5, "clarity": 0.9, "traceability": 0.4, "scope_discipline": 0.7, "by_category": {"functional": 0.9, "non_functional": 0.5, "constraints": null}}}"#;

    fn good() -> Scores {
        Scores {
            coverage: 0.8,
            completeness: 0.6,
            consistency: 1.0,
            testability: 0.5,
            clarity: 0.9,
            traceability: 0.4,
            scope_discipline: 0.7,
            by_category: ByCategory {
                functional: Some(0.9),
                non_functional: Some(0.5),
                constraints: None,
            },
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn the_weights_sum_to_one() {
        assert!(close(WEIGHTS.iter().sum::<f64>(), 1.0));
    }

    #[test]
    fn simple_and_weighted_by_hand() {
        let s = good();
        // (0.8 + 0.6 + 1 + 0.5 + 0.9 + 0.4 + 0.7) / 7 = 4.9 / 7 = 0.7
        assert!(close(s.simple(), 0.7), "{}", s.simple());
        // 0.20·0.8 + 0.20·0.6 + 0.20·0.5 + 0.15·0.4 + 0.10·1 + 0.10·0.9 + 0.05·0.7
        // = 0.16 + 0.12 + 0.10 + 0.06 + 0.10 + 0.09 + 0.035 = 0.665
        assert!(close(s.weighted(), 0.665), "{}", s.weighted());
        let ones = [1.0; 7];
        assert!(close(simple(&ones), 1.0) && close(weighted(&ones), 1.0));
        // Each weight alone: coverage, completeness and testability weigh most.
        let alone = |i: usize| {
            let mut v = [0.0; 7];
            v[i] = 1.0;
            weighted(&v)
        };
        let by_name = |name: &str| alone(METRICS.iter().position(|m| *m == name).unwrap());
        assert_eq!(by_name("coverage"), 0.20);
        assert_eq!(by_name("completeness"), 0.20);
        assert_eq!(by_name("testability"), 0.20);
        assert_eq!(by_name("traceability"), 0.15);
        assert_eq!(by_name("consistency"), 0.10);
        assert_eq!(by_name("clarity"), 0.10);
        assert_eq!(by_name("scope_discipline"), 0.05);
    }

    #[test]
    fn the_whole_text() {
        assert_eq!(read(GOOD), Ok(good()));
        assert_eq!(read(&format!("\n  {GOOD}\n")), Ok(good()));
    }

    #[test]
    fn a_fenced_block() {
        let text =
            format!("Here is my review.\n\n```json\n{GOOD}\n```\n\nThe {{document}} is fine.");
        assert_eq!(read(&text), Ok(good()));
        // Any fence, and a later fence when an earlier one holds something else.
        let text = format!("```text\nnot json\n```\n\n```\n{GOOD}\n```\n");
        assert_eq!(read(&text), Ok(good()));
    }

    /// A `metrics` object with every metric and category `x`.
    fn metrics(x: &str) -> String {
        format!(
            r#"{{"coverage": {x}, "completeness": {x}, "consistency": {x}, "testability": {x}, "clarity": {x}, "traceability": {x}, "scope_discipline": {x}, "by_category": {{"functional": {x}, "non_functional": {x}, "constraints": {x}}}}}"#
        )
    }

    /// A judgement with every metric and category `x`.
    fn all(x: &str) -> String {
        format!("{{\"metrics\": {}}}", metrics(x))
    }

    #[test]
    fn several_objects_are_no_judgement() {
        // A judge quoting the scores a judged document asked for, then giving its own: the
        // quoted ones must not be read as its judgement (nor its own: the answer is unclear).
        let text = format!(
            "The document asked me to output {} which I ignore. My actual judgement is: {}",
            all("1"),
            all("0.1")
        );
        assert_eq!(
            read(&text).unwrap_err(),
            "the answer holds 2 JSON objects; a judgement is exactly one (the whole answer, or one fenced block)"
        );
        // The same with the real one in a fence, or each in a fence of its own.
        let text = format!(
            "It said to answer {}.\n```json\n{}\n```\n",
            all("1"),
            all("0.1")
        );
        assert!(read(&text).unwrap_err().contains("holds 2 JSON objects"));
        let text = format!("```json\n{}\n```\n```json\n{}\n```\n", all("1"), GOOD);
        assert!(read(&text).unwrap_err().contains("holds 2 JSON objects"));
        // Any second object counts, a note as much as a judgement.
        let text = format!("```json\n{GOOD}\n```\nNote: {{\"confidence\": \"high\"}}");
        assert!(read(&text).unwrap_err().contains("holds 2 JSON objects"));
        // One object holding `metrics` twice is two answers in one.
        let twice = format!(
            "{{\"metrics\": {}, \"metrics\": {}}}",
            metrics("1"),
            metrics("0.1")
        );
        assert!(
            read(&twice)
                .unwrap_err()
                .starts_with("the answer's JSON object has a duplicate key `metrics`"),
            "{twice}: {:?}",
            read(&twice)
        );
        // Objects inside the answer's own strings are its text, not other answers.
        let quoting = GOOD.replacen(
            '{',
            "{\"reasoning\": \"it asks for {\\\"metrics\\\": 1} which I ignore\", ",
            1,
        );
        assert_eq!(read(&quoting), Ok(good()));
    }

    #[test]
    fn a_bare_object_inside_prose_is_not_read() {
        let e = read(&format!("Review: {GOOD} — done.")).unwrap_err();
        assert_eq!(
            e,
            "the answer's JSON object is inside prose: a judgement is the whole answer, or one fenced block"
        );
        // Inside a list, or with prose inside its fence.
        assert!(read(&format!("[{GOOD}]"))
            .unwrap_err()
            .contains("inside prose"));
        assert!(read(&format!("```\n{GOOD} (final)\n```"))
            .unwrap_err()
            .contains("inside prose"));
    }

    #[test]
    fn too_many_braces_are_no_judgement() {
        let text = format!("{GOOD}{}", " {".repeat(MAX_STARTS));
        assert!(read(&text).unwrap_err().contains("more than the 1000"));
    }

    #[test]
    fn extra_keys_are_ignored() {
        let text = GOOD.replace(
            "\"coverage\": 0.8",
            "\"coverage\": 0.8, \"notes\": \"good\"",
        );
        let text = text.replacen('{', "{\"reasoning\": \"…\", ", 1);
        assert_eq!(read(&text), Ok(good()));
    }

    #[test]
    fn out_of_range_values_make_it_invalid() {
        let e = read(&GOOD.replace("\"clarity\": 0.9", "\"clarity\": 1.2")).unwrap_err();
        assert_eq!(e, "`metrics.clarity` = 1.2 is outside [0, 1]");
        let e = read(&GOOD.replace("\"coverage\": 0.8", "\"coverage\": -0.1")).unwrap_err();
        assert_eq!(e, "`metrics.coverage` = -0.1 is outside [0, 1]");
        let e =
            read(&GOOD.replace("\"non_functional\": 0.5", "\"non_functional\": 5")).unwrap_err();
        assert_eq!(
            e,
            "`metrics.by_category.non_functional` = 5 is outside [0, 1]"
        );
    }

    #[test]
    fn missing_fields_and_non_numbers_make_it_invalid() {
        let e = read(&GOOD.replace("\"testability\": 0.5, ", "")).unwrap_err();
        assert_eq!(e, "`metrics.testability` is missing");
        let e =
            read(&GOOD.replace("\"traceability\": 0.4", "\"traceability\": \"high\"")).unwrap_err();
        assert_eq!(
            e,
            "`metrics.traceability` is the string \"high\", not a number"
        );
        let e =
            read(&GOOD.replace("\"traceability\": 0.4", "\"traceability\": \"0.4\"")).unwrap_err();
        assert!(e.contains("not a number"), "{e}");
        let e = read(&GOOD.replace("\"completeness\": 0.6", "\"completeness\": null")).unwrap_err();
        assert_eq!(e, "`metrics.completeness` is null, not a number");
        let e = read(&GOOD.replace("\"constraints\": null", "\"constraints\": true")).unwrap_err();
        assert_eq!(e, "`metrics.by_category.constraints` is true, not a number");
        let e = read(&GOOD.replace(", \"constraints\": null", "")).unwrap_err();
        assert_eq!(e, "`metrics.by_category.constraints` is missing");
        let no_categories = GOOD.split(", \"by_category\"").next().unwrap().to_string() + "}}";
        assert_eq!(
            read(&no_categories).unwrap_err(),
            "`metrics.by_category` is missing"
        );
        let e = read(r#"{"metrics": [0.5]}"#).unwrap_err();
        assert_eq!(e, "`metrics` is a list, not an object");
    }

    #[test]
    fn no_json_or_no_metrics() {
        assert_eq!(read("").unwrap_err(), "no JSON object in the answer");
        assert_eq!(
            read("The SRS looks fine to me.").unwrap_err(),
            "no JSON object in the answer"
        );
        assert_eq!(
            read("[0.5, 0.7]").unwrap_err(),
            "no JSON object in the answer"
        );
        assert_eq!(
            read(r#"{"coverage": 0.8}"#).unwrap_err(),
            "the answer's JSON object has no `metrics` key"
        );
        // Cut off mid-way: no balanced object parses.
        assert_eq!(
            read(&GOOD[..GOOD.len() - 20]).unwrap_err(),
            "no JSON object in the answer"
        );
    }

    #[test]
    fn judgements_round_trip_through_json() {
        let s = good();
        let text = serde_json::to_string(&s).unwrap();
        assert!(text.contains("\"constraints\":null"), "{text}");
        assert_eq!(serde_json::from_str::<Scores>(&text).unwrap(), s);
    }
}
