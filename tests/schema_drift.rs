//! The schemas of `schemas/` against the code, so they cannot silently rot: the keys of every
//! table and object goldgate refuses unknown keys in (read from the readers themselves: the
//! list their "unknown field" error gives), the values of every enum, and the metric names of
//! the registry with each one's direction and range. The parts made from the code (enum
//! values and their `norm` patterns, metric names, the thresholds schema's metric tables)
//! are rewritten from it with `SNAPSHOTS=overwrite`; then read the diff.

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::support::schema::{dir, load};

/// The names between backticks after "expected" in a serde error: the fields a struct
/// knows, or the variants of an enum.
fn expected_names(message: &str) -> BTreeSet<String> {
    let Some(at) = message.find("expected") else {
        return BTreeSet::new();
    };
    message[at..]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The fields `T` knows: what it says when given an unknown one, as JSON.
pub(crate) fn json_fields<T: DeserializeOwned + std::fmt::Debug>() -> BTreeSet<String> {
    let err = serde_json::from_value::<T>(json!({"zz_unknown": 1})).unwrap_err();
    expected_names(&err.to_string())
}

/// The same for a TOML table.
fn toml_fields<T: DeserializeOwned + std::fmt::Debug>() -> BTreeSet<String> {
    let err = toml::from_str::<T>("zz_unknown = 1\n").unwrap_err();
    expected_names(err.message())
}

/// The variants `T` knows.
fn variants<T: DeserializeOwned + std::fmt::Debug>() -> BTreeSet<String> {
    let err = serde_json::from_value::<T>(json!("zz_unknown")).unwrap_err();
    expected_names(&err.to_string())
}

/// The keys the suite reader knows in a `suite.toml` whose text is `head` with an unknown
/// key added to its last table.
fn suite_toml_fields(text: &str) -> BTreeSet<String> {
    let dir = crate::support::TempDir::new("drift-suite");
    let kind = goldgate_core::kinds::listed().next().unwrap();
    let sample = json!({"id": "s", "kind": kind.as_str(), "labels": {}});
    std::fs::write(dir.0.join("s.json"), sample.to_string()).unwrap();
    std::fs::write(dir.0.join("suite.toml"), text).unwrap();
    let err = format!(
        "{:?}",
        goldgate_core::suite::Suite::open(&dir.0, 1 << 20).unwrap_err()
    );
    // The reader's message, without the hint after it.
    let at = err.find("unknown field").unwrap_or_else(|| panic!("{err}"));
    let message = &err[at..];
    expected_names(&message[..message.find('"').unwrap_or(message.len())])
}

/// The property names of the schema object at `pointer` (its own, and those of a `$ref`
/// it names in the same file).
fn properties(schema: &Value, pointer: &str) -> BTreeSet<String> {
    let node = schema
        .pointer(pointer)
        .unwrap_or_else(|| panic!("no {pointer}"));
    let mut names: BTreeSet<String> = node
        .get("properties")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    if let Some(r) = node.get("$ref").and_then(Value::as_str) {
        names.extend(properties(schema, &r[1..]));
    }
    names
}

#[test]
fn every_object_knows_the_keys_its_reader_knows() {
    use goldgate::config::*;
    use goldgate_core::gate::thresholds::*;
    use goldgate_core::judge::record::{JudgeRecord, Judgement};
    use goldgate_core::judge::rubric::{ByCategory, Scores};
    use goldgate_core::runfile::record::*;
    use goldgate_core::runfile::trace::*;
    use goldgate_core::sample::*;
    let sample = load("sample.schema.json");
    let run = load("run-record.schema.json");
    let config = load("goldgate-toml.schema.json");
    let thresholds = load("thresholds.schema.json");
    let suite = load("suite-toml.schema.json");
    // The label keys are the kinds' (an annotation adds its annotator).
    let label_keys: BTreeSet<String> = goldgate_core::kinds::ALL
        .iter()
        .filter(|k| k.listed())
        .flat_map(|k| k.label_shapes().iter().map(|s| s.key().to_string()))
        .collect();
    let mut annotation_keys = label_keys.clone();
    annotation_keys.insert("annotator".into());
    let mut cases: Vec<(&str, &Value, &str, BTreeSet<String>)> = vec![
        ("sample", &sample, "", json_fields::<goldgate_core::suite::SampleDoc>()),
        ("sample", &sample, "/$defs/message", json_fields::<Message>()),
        ("sample", &sample, "/properties/labels", label_keys.clone()),
        ("sample", &sample, "/properties/annotations/items", annotation_keys),
        ("sample", &sample, "/properties/discussion/items", json_fields::<DiscussionNote>()),
        ("sample", &sample, "/properties/review", json_fields::<Review>()),
        ("run record", &run, "/$defs/record", json_fields::<RunRecord>()),
        ("run record", &run, "/$defs/output", json_fields::<OutputLine>()),
        ("run record", &run, "/$defs/error", json_fields::<RecordError>()),
        ("run record", &run, "/$defs/usage", json_fields::<Usage>()),
        ("run record", &run, "/$defs/trace", json_fields::<Trace>()),
        ("run record", &run, "/$defs/traceCall", json_fields::<TraceCall>()),
        ("run record", &run, "/$defs/traceCall/properties/messages/items", json_fields::<TraceMessage>()),
        ("run record", &run, "/$defs/traceCall/properties/retries/items", json_fields::<TraceAttempt>()),
        ("run record", &run, "/$defs/judge", json_fields::<JudgeRecord>()),
        ("run record", &run, "/$defs/judgement", json_fields::<Judgement>()),
        ("run record", &run, "/$defs/scores", json_fields::<Scores>()),
        ("run record", &run, "/$defs/scores/properties/by_category", json_fields::<ByCategory>()),
        ("goldgate.toml", &config, "", toml_fields::<ConfigFile>()),
        ("goldgate.toml", &config, "/properties/pipeline", toml_fields::<PipelineTable>()),
        ("goldgate.toml", &config, "/properties/pipeline/properties/agents", toml_fields::<AgentsTable>()),
        ("goldgate.toml", &config, "/properties/pipeline/properties/agents/properties/reqparse", toml_fields::<AgentTable>()),
        ("goldgate.toml", &config, "/properties/pipeline/properties/messages/items", toml_fields::<MessageTemplate>()),
        ("goldgate.toml", &config, "/properties/pipeline/properties/pricing", toml_fields::<PricingTable>()),
        ("goldgate.toml", &config, "/properties/run", toml_fields::<RunTable>()),
        ("goldgate.toml", &config, "/properties/check", toml_fields::<CheckTable>()),
        ("goldgate.toml", &config, "/properties/suite", toml_fields::<SuiteTable>()),
        ("goldgate.toml", &config, "/properties/judge", toml_fields::<JudgeTable>()),
        ("goldgate.toml", &config, "/properties/judge/properties/pricing", toml_fields::<PricingTable>()),
        ("thresholds.toml", &thresholds, "", toml_fields::<Thresholds>()),
        ("thresholds.toml", &thresholds, "/properties/defaults", toml_fields::<Defaults>()),
        ("thresholds.toml", &thresholds, "/$defs/rule", toml_fields::<MetricRule>()),
        ("thresholds.toml", &thresholds, "/properties/matching", toml_fields::<Matching>()),
        ("thresholds.toml", &thresholds, "/properties/rd_score", toml_fields::<RdScore>()),
        ("thresholds.toml", &thresholds, "/properties/drift", toml_fields::<DriftTable>()),
        ("suite.toml", &suite, "", suite_toml_fields("zz_unknown = 1\n")),
        ("suite.toml", &suite, "/$defs/task", suite_toml_fields("[tasks.t]\nfields = [{ name = \"a\", role = \"span\" }]\nzz_unknown = 1\n")),
        ("suite.toml", &suite, "/$defs/field", suite_toml_fields("[tasks.t]\nfields = [{ name = \"a\", role = \"span\", zz_unknown = 1 }]\n")),
        ("suite.toml", &suite, "/$defs/task/properties/relaxed", suite_toml_fields("[tasks.t]\nfields = [{ name = \"a\", role = \"span\" }]\nrelaxed = { zz_unknown = 1 }\n")),
        ("suite.toml", &suite, "/$defs/task/properties/hallucination", suite_toml_fields("[tasks.t]\nfields = [{ name = \"a\", role = \"span\" }]\nhallucination = { match_mode = \"exact_span\", zz_unknown = 1 }\n")),
        ("suite.toml", &suite, "/$defs/task/properties/cot", suite_toml_fields("[tasks.t]\nfields = [{ name = \"a\", role = \"span\" }]\ncot = { zz_unknown = 1 }\n")),
    ];
    // The objects each kind reads, as its folder says.
    for defs in crate::kinds::schema_defs() {
        for (pointer, code) in defs.objects {
            cases.push(("sample", &sample, pointer, code));
        }
    }
    let mut failures = Vec::new();
    for (what, schema, pointer, code) in cases {
        assert!(
            !code.is_empty(),
            "{what} {pointer}: the reader named no keys"
        );
        let documented = properties(schema, pointer);
        if documented != code {
            failures.push(format!(
                "{what} schema at `{pointer}`: the reader knows {:?}, the schema {:?}",
                code.difference(&documented).collect::<Vec<_>>(),
                documented.difference(&code).collect::<Vec<_>>()
            ));
        }
    }
    assert!(failures.is_empty(), "the schemas and the readers disagree (first: missing from the schema, second: unknown to the reader):\n{}", failures.join("\n"));
}

/// The values of the enum at `pointer`: its `enum`, or its first `anyOf` branch's.
fn enum_at(schema: &Value, pointer: &str) -> BTreeSet<String> {
    let node = schema
        .pointer(pointer)
        .unwrap_or_else(|| panic!("no {pointer}"));
    let list = node.get("enum").or_else(|| node.pointer("/anyOf/0/enum"));
    list.and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no enum at {pointer}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_enum_has_the_values_the_code_reads() {
    use goldgate_core::error::Outcome;
    use goldgate_core::gate::thresholds::Severity;
    use goldgate_core::gate::verdict::Status;
    use goldgate_core::metrics::matching::Miss;
    use goldgate_core::metrics::registry::Direction;
    use goldgate_core::metrics::SchemaMode;
    use goldgate_core::parse::ParseOutcome;
    use goldgate_core::runfile::record::{CacheUse, ErrorKind};
    use goldgate_core::sample::task::{MatchMode, Role, SupportMode};
    use goldgate_core::sample::Kind;
    use goldgate_run::agents::state::Ablation;
    let files: Vec<(&str, Value)> = [
        "score.schema.json",
        "verdict.schema.json",
        "run-record.schema.json",
        "suite-toml.schema.json",
        "thresholds.schema.json",
        "goldgate-toml.schema.json",
    ]
    .into_iter()
    .map(|n| (n, load(n)))
    .collect();
    let get = |name: &str| &files.iter().find(|(n, _)| *n == name).unwrap().1;
    let cases: Vec<(&str, &str, BTreeSet<String>)> = vec![
        ("score.schema.json", "/$defs/kind", variants::<Kind>()),
        (
            "score.schema.json",
            "/$defs/errorKind",
            variants::<ErrorKind>(),
        ),
        (
            "score.schema.json",
            "/$defs/sample/properties/parse/items",
            variants::<ParseOutcome>(),
        ),
        (
            "score.schema.json",
            "/$defs/sample/properties/matching/items/properties/unmatched/items/properties/reason",
            variants::<Miss>(),
        ),
        (
            "score.schema.json",
            "/$defs/provenance/properties/scoring/properties/schema",
            variants::<SchemaMode>(),
        ),
        ("verdict.schema.json", "/$defs/kind", variants::<Kind>()),
        (
            "verdict.schema.json",
            "/$defs/errorKind",
            variants::<ErrorKind>(),
        ),
        (
            "verdict.schema.json",
            "/properties/verdict",
            variants::<Outcome>(),
        ),
        (
            "verdict.schema.json",
            "/$defs/metric/properties/status",
            variants::<Status>(),
        ),
        (
            "verdict.schema.json",
            "/$defs/metric/properties/direction",
            variants::<Direction>(),
        ),
        (
            "run-record.schema.json",
            "/$defs/error/properties/kind",
            variants::<ErrorKind>(),
        ),
        (
            "run-record.schema.json",
            "/$defs/provenance/properties/cache",
            variants::<CacheUse>(),
        ),
        (
            "suite-toml.schema.json",
            "/$defs/field/properties/role",
            variants::<Role>(),
        ),
        (
            "suite-toml.schema.json",
            "/$defs/task/properties/relaxed/properties/match_mode",
            variants::<MatchMode>(),
        ),
        (
            "suite-toml.schema.json",
            "/$defs/task/properties/hallucination/properties/match_mode",
            variants::<SupportMode>(),
        ),
        (
            "suite-toml.schema.json",
            "/$defs/task/properties/schema",
            variants::<SchemaMode>(),
        ),
        (
            "thresholds.schema.json",
            "/properties/defaults/properties/severity",
            variants::<Severity>(),
        ),
        (
            "thresholds.schema.json",
            "/properties/matching/properties/schema",
            variants::<SchemaMode>(),
        ),
        (
            "goldgate-toml.schema.json",
            "/properties/pipeline/properties/agents/properties/ablation",
            variants::<Ablation>(),
        ),
    ];
    let mut failures = Vec::new();
    for (name, pointer, code) in cases {
        assert!(
            code.len() > 1,
            "{name} {pointer}: no variants read from the code"
        );
        let documented = enum_at(get(name), pointer);
        if documented != code {
            failures.push(format!("schemas/{name} at `{pointer}`: the code reads {code:?}, the schema lists {documented:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The pattern that matches what `norm` reads as one of `values`, spelt in ASCII: each
/// value's words in any case, separated and surrounded by ASCII characters that are not
/// letters or digits. (Unicode property classes would take other separators too, but
/// Python's `re` has none: the portable pattern is the ASCII one; an answer's compliance
/// applies exactly it, and the suite reader reads the other spellings too.)
pub fn norm_pattern(values: &[&str]) -> String {
    const SEP: &str = r"[\x00-\x2F\x3A-\x40\x5B-\x60\x7B-\x7F]";
    let alternatives: Vec<String> = values
        .iter()
        .map(|v| {
            v.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(|w| {
                    w.chars()
                        .map(|c| match c.is_ascii_alphabetic() {
                            true => format!("[{}{}]", c.to_ascii_uppercase(), c),
                            false => c.to_string(),
                        })
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join(&format!("{SEP}+"))
        })
        .collect();
    let body = match alternatives.as_slice() {
        [one] => one.clone(),
        many => format!("(?:{})", many.join("|")),
    };
    format!("^{SEP}*{body}{SEP}*$")
}

/// Write `schema` back to `schemas/name` when it changed and `SNAPSHOTS=overwrite`; else
/// report the difference.
pub fn settle(
    name: &str,
    before: &Value,
    after: &Value,
    what: &[String],
    failures: &mut Vec<String>,
) {
    if before == after {
        return;
    }
    if std::env::var("SNAPSHOTS").as_deref() == Ok("overwrite") {
        let text = serde_json::to_string_pretty(after).unwrap() + "\n";
        std::fs::write(dir().join(name), text).unwrap();
    } else {
        failures.push(format!("schemas/{name} disagrees with the code at {} (SNAPSHOTS=overwrite rewrites it from the code; then read the diff)", what.join(", ")));
    }
}

#[test]
fn the_enums_compared_after_norm_are_the_codes() {
    use goldgate_core::sample::enums;
    // The kinds the loader accepts are the registry's.
    let kinds: Vec<&str> = goldgate_core::kinds::listed().map(|k| k.as_str()).collect();
    // The sample's own enums, then each kind's, as its folder says.
    let mut defs: Vec<(&str, &[&str])> = vec![("kind", &kinds), ("difficulty", enums::DIFFICULTY)];
    let by_kind: Vec<_> = crate::kinds::schema_defs();
    defs.extend(by_kind.iter().flat_map(|d| d.enums.iter().copied()));
    let mut failures = Vec::new();
    let mut seen = 0;
    for name in crate::support::schema::schema_names() {
        let before = load(&name);
        let mut after = before.clone();
        let mut changed = Vec::new();
        for &(def, values) in &defs {
            let Some(node) = after.pointer_mut(&format!("/$defs/{def}")) else {
                continue;
            };
            if node.get("anyOf").is_none() {
                continue; // the score file's kinds are written exactly, not after norm
            }
            seen += 1;
            let expected =
                json!([{"enum": values}, {"type": "string", "pattern": norm_pattern(values)}]);
            if node["anyOf"] != expected {
                node["anyOf"] = expected;
                changed.push(format!("$defs/{def}"));
            }
        }
        // A `kind: X` condition of the sample schema.
        if name == "sample.schema.json" {
            let mut conditions = Vec::new();
            collect_kind_patterns(&after, &mut conditions);
            for pattern in conditions {
                let known = kinds.iter().any(|k| pattern == norm_pattern(&[k]));
                assert!(
                    known,
                    "sample.schema.json: a condition on kind matches none of {kinds:?}: {pattern}"
                );
            }
        }
        settle(&name, &before, &after, &changed, &mut failures);
    }
    assert!(
        seen >= 18,
        "only {seen} enums compared after norm were found"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn collect_kind_patterns(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let Some(p) = map
                .get("properties")
                .and_then(|p| p.get("kind"))
                .and_then(|k| k.get("pattern"))
                .and_then(Value::as_str)
            {
                out.push(p.to_string());
            }
            map.values().for_each(|c| collect_kind_patterns(c, out));
        }
        Value::Array(items) => items.iter().for_each(|c| collect_kind_patterns(c, out)),
        _ => {}
    }
}

#[test]
fn the_metric_names_and_rules_are_the_registrys() {
    let metrics: Vec<_> = goldgate_core::kinds::metrics()
        .iter()
        .filter(|m| goldgate_core::kinds::is_listed_metric(m.name))
        .collect();
    let names: Vec<&str> = metrics.iter().map(|m| m.name).collect();
    let mut failures = Vec::new();
    for name in ["score.schema.json", "verdict.schema.json"] {
        let before = load(name);
        let mut after = before.clone();
        after["$defs"]["metricName"]["anyOf"][0] = json!({"enum": names});
        settle(
            name,
            &before,
            &after,
            &["$defs/metricName".into()],
            &mut failures,
        );
    }
    let before = load("thresholds.schema.json");
    let mut after = before.clone();
    let percent = &before["properties"]["defaults"]["properties"]["max_increase"]["pattern"];
    let tables: serde_json::Map<String, Value> = metrics
        .iter()
        .map(|m| {
            (
                m.name.to_string(),
                crate::support::schema::metric_rule(m, percent),
            )
        })
        .collect();
    after["properties"]["metrics"]["properties"] = Value::Object(tables);
    settle(
        "thresholds.schema.json",
        &before,
        &after,
        &["properties/metrics/properties".into()],
        &mut failures,
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The rules the schema allows are the rules `goldgate thresholds check` allows, on
    // metrics picked from the catalog: a score (higher is better, within [0, 1]), a rate
    // (lower is better), an agreement (within [-1, 1]), and a member of a family named by a
    // JSON pointer (from the events example).
    use goldgate_core::metrics::registry::{Direction, Range};
    let catalog = goldgate_core::kinds::metrics();
    let first = goldgate_core::kinds::listed().next().unwrap();
    let score = goldgate_core::kinds::of(first).primary_metric();
    let rate = catalog
        .iter()
        .find(|m| {
            m.name.starts_with(first.as_str())
                && m.direction == Direction::Lower
                && m.range == Range::Unit
        })
        .unwrap()
        .name;
    let agreement = catalog
        .iter()
        .find(|m| m.range == Range::Agreement)
        .unwrap()
        .name;
    // A member of a family, as the events example's baseline names one.
    let events: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("examples/events/baselines/main.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let member = events["metrics"]
        .as_object()
        .unwrap()
        .keys()
        .find(|name| goldgate_core::kinds::is_family_member(name))
        .unwrap()
        .clone();
    let rule = |name: &str, body: &str| format!("[metrics.\"{name}\"]\n{body}");
    let drift = |rules: &str| format!("[drift]\nreference = \"r.json\"\n{rules}");
    let cases = [
        (rule(score, "min = 0.7\n"), true),
        (rule(score, "max = 0.7\n"), false),
        (rule(score, "min = 80\n"), false),
        (rule(rate, "max = 0.2\nmax_regression = \"5%\"\n"), true),
        (rule(rate, "min = 0.2\n"), false),
        (rule(agreement, "min = -0.5\n"), true),
        (rule("run.latency_p95_ms", "max = 30000\n"), true),
        (rule(&member, "min = 1\n"), true),
        (rule(&member, "max_regression = 0.1\n"), false),
        (
            rule("run.cost_usd", "max = 5\nmax_increase = \"10%\"\n"),
            true,
        ),
        (rule("run.cost_usd", "max_regression = 0.02\n"), false),
        (rule("run.cost_usd", "max_increase = 0.5\n"), false),
        (rule(score, "max_increase = \"10%\"\n"), false),
        ("[defaults]\nmax_increase = \"10%\"\n".to_string(), true),
        ("[defaults]\nmax_increase = 3\n".to_string(), false),
        (rule(&format!("{score}x"), "min = 0.7\n"), false),
        (rule(score, "minimum = 0.7\n"), false),
        (
            "[matching]\nsimilarity = \"minilm\"\nembedding_model = \"x\"\n".to_string(),
            false,
        ),
        (
            "[matching]\nsimilarity = \"openai\"\nembedding_model = \"x\"\n".to_string(),
            true,
        ),
        ("[matching]\nmodel = \"x\"\n".to_string(), false),
        (drift(&rule(score, "max_drift = 0.05\n")), true),
        (drift(&rule("run.cost_usd", "max_drift = \"25%\"\n")), true),
        (drift(&rule("run.cost_usd", "max_drift = 0.5\n")), false),
        (drift(&rule(score, "max_drift = -0.1\n")), false),
        ("[drift]\nreference = \"\"\n".to_string(), false),
        ("[drift]\nrefrence = \"r.json\"\n".to_string(), false),
    ];
    let schema = crate::support::schema::problems;
    for (rule, ok) in cases {
        let text = format!("version = 1\n{rule}");
        let value: Value = toml::from_str(&text).unwrap();
        let by_schema = schema("thresholds.schema.json", &value, false).is_empty();
        let by_goldgate = goldgate_core::gate::thresholds::Thresholds::parse(
            &text,
            std::path::Path::new("t.toml"),
        )
        .is_ok();
        assert_eq!((by_schema, by_goldgate), (ok, ok), "{rule}");
    }
}
