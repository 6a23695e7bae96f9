//! The corpus JSON Schema validators are run on: for every schema of `schemas/`, valid
//! instances (shipped examples, files goldgate wrote) and invalid ones (a valid one with one
//! rule broken, and spellings regex dialects read differently: line breaks at the end,
//! Unicode spaces, separators), in `tests/fixtures/schemas/<schema>.jsonl`, one
//! `{"name", "valid", "instance"}` per line. Each label is goldgate's judgement: the
//! jsonschema crate agrees with it, and so does goldgate's own reading where it reads the
//! file itself (an extraction answer's compliance, a sample, `suite.toml`,
//! `thresholds.toml`, `goldgate.toml`). CI runs ajv, Python's
//! `jsonschema` and `check-jsonschema` on the same corpus (scripts/schema-validators.sh),
//! each of which must agree with every label. `SNAPSHOTS=overwrite` rewrites the corpus.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::corpus::{root, sample_files, set, Instance};
use crate::support::schema::problems;

/// Where the corpus is.
fn corpus_dir() -> PathBuf {
    root().join("tests/fixtures/schemas")
}

fn read_toml(path: &Path) -> Value {
    toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The example files at `paths` (below `examples/`), read as JSON.
fn examples(paths: &[&str], read: fn(&Path) -> Value) -> Vec<(String, Value)> {
    paths
        .iter()
        .map(|p| {
            (
                format!("examples/{p}"),
                read(&root().join("examples").join(p)),
            )
        })
        .collect()
}

/// An example score file cut to two samples and one group of one dimension.
fn small_score(path: &str) -> (String, Value) {
    let mut score = read_json(&root().join("examples").join(path));
    score["samples"].as_array_mut().unwrap().truncate(2);
    let groups = score["groups"].as_object_mut().unwrap();
    let first = groups.keys().next().cloned();
    groups.retain(|k, _| Some(k) == first.as_ref());
    for dimension in groups.values_mut() {
        let dimension = dimension.as_object_mut().unwrap();
        let first = dimension.keys().next().cloned();
        dimension.retain(|k, _| Some(k) == first.as_ref());
    }
    (format!("examples/{path} (2 samples, 1 group)"), score)
}

/// Every schema's corpus.
#[rustfmt::skip]
fn corpus() -> BTreeMap<String, Vec<Instance>> {
    let mut all = BTreeMap::new();
    for corpus in crate::kinds::answer_corpora() {
        all.insert(format!("answer-{}", corpus.kind), (corpus.instances)());
    }
    let mut samples = sample_files("requirements", 3);
    samples.extend(sample_files("reviews", 3));
    samples.extend(sample_files("events", 2));
    let kind = samples[0].1["kind"].as_str().unwrap().to_string();
    let note = |n: &str| json!([{"annotator": "ann", "note": n}]);
    all.insert("sample".into(), set(samples, json!([
        ["id-with-a-space", "/id", "ext 001", false],
        ["id-trailing-line-break", "/id", "ext-001\n", false],
        ["kind-unknown", "/kind", "feature", false],
        ["kind-other-spelling", "/kind", format!(" {} ", kind.to_uppercase()), true],
        ["kind-trailing-line-break", "/kind", format!("{kind}\n"), true],
        ["note-blank", "/discussion", note(" \t"), false],
        ["note-ideographic-space", "/discussion", note("\u{3000}"), false],
        ["note-next-line", "/discussion", note("\u{85}"), false],
        ["note-information-separator", "/discussion", note("\u{1c}"), true],
        ["note-byte-order-mark", "/discussion", note("\u{feff}"), true],
        ["note-text", "/discussion", note("unclear actor"), true],
    ])));
    // The events suite first: its task's pointers are edited.
    let suites = examples(&["events/suite/suite.toml", "requirements/suite/suite.toml", "reviews/suite/suite.toml"], read_toml);
    let task = suites[0].1["tasks"].as_object().unwrap().keys().next().unwrap().clone();
    let paths = format!("/tasks/{task}/final_paths");
    all.insert("suite-toml".into(), set(suites, json!([
        ["final-path-root", paths, [""], true],
        ["final-path-line-break", paths, ["\n"], false],
        ["final-path-no-slash", paths, ["final"], false],
        ["final-path-bad-escape", paths, ["/a~2"], false],
        ["final-path-escapes", paths, ["/a~0b~1c"], true],
    ])));
    let mut rules = vec![("thresholds.toml".to_string(), read_toml(&root().join("thresholds.toml")))];
    rules.extend(examples(&["requirements/thresholds.toml", "requirements/thresholds-srs-agents.toml", "reviews/thresholds.toml", "events/thresholds.toml"], read_toml));
    let regression = "/defaults/max_regression";
    all.insert("thresholds".into(), set(rules, json!([
        ["percent", regression, "5%", true],
        ["percent-spaced", regression, " 5 % ", true],
        ["percent-trailing-line-break", regression, "5%\n", true],
        ["percent-ideographic-space", regression, "\u{3000}5%", true],
        ["percent-byte-order-mark", regression, "\u{feff}5%", false],
        ["percent-twice", regression, "5%%", false],
        ["percent-missing", regression, "5", false],
        ["version-2", "/version", 2, false],
    ])));
    let configs = examples(&["requirements/goldgate.toml", "requirements/srs-agents.toml", "reviews/goldgate.toml", "events/goldgate.toml"], read_toml);
    let ttl = "/pipeline/cache_ttl";
    all.insert("goldgate-toml".into(), set(configs, json!([
        ["ttl", ttl, "1h", true],
        ["ttl-spaced", ttl, " 30 m ", true],
        ["ttl-trailing-line-break", ttl, "2d\n", true],
        ["ttl-zero", ttl, "0h", false],
        ["ttl-unit-unknown", ttl, "1w", false],
        ["unknown-key", "/pipeline/modle", "x", false],
    ])));
    let mut records = Vec::new();
    for run in ["requirements/baselines/main.run.jsonl", "events/baselines/main.run.jsonl", "requirements/baselines/srs-agents.run.jsonl"] {
        let text = std::fs::read_to_string(root().join("examples").join(run)).unwrap();
        for (i, line) in text.lines().take(2).enumerate() {
            records.push((format!("examples/{run}:{}", i + 1), serde_json::from_str(line).unwrap()));
        }
    }
    all.insert("run-record".into(), set(records, json!([
        ["sample-id-a-number", "/sample_id", 3, false],
        ["latency-text", "/latency_ms", "12", false],
    ])));
    let scores = vec![small_score("requirements/baselines/main.json"), small_score("events/baselines/main.json")];
    // A metric of the first score file, one the schema does not know (its kind's `f2`), and
    // a metric of the second named by a JSON pointer to where its answers were found.
    let (first, f1) = scores[0].1["metrics"].as_object().unwrap().iter().find(|(name, _)| name.ends_with(".f1")).unwrap();
    let (first, f1) = (first.clone(), f1.clone());
    let unknown = format!("/metrics/{}", first.replace(".f1", ".f2"));
    let sourced = scores[1].1["metrics"].as_object().unwrap().keys().find(|name| name.contains('[')).unwrap();
    let sourced = format!("/metrics/{}", sourced.replace('/', "~1"));
    all.insert("score".into(), set(scores, json!([
        ["metric-unknown", unknown, f1, false],
        ["metric-source-pointer", sourced, f1, true],
        ["metric-source-line-break", format!("{sourced}\n"), f1, false],
        ["schema-other", "/schema", "goldgate.score/2", false],
    ])));
    let verdicts: Vec<(String, Value)> = ["publish-format-markdown", "publish-forged-pass"]
        .iter()
        .map(|c| (format!("tests/cases/{c}/verdict.json"), read_json(&root().join("tests/cases").join(c).join("verdict.json"))))
        .collect();
    // The verdict's first F1 rule, its name ending in a line break.
    let first_metric = verdicts[0].1["metrics"].as_array().unwrap().iter()
        .map(|m| m["name"].as_str().unwrap().to_string())
        .find(|name| name.ends_with(".f1"))
        .unwrap();
    all.insert("verdict".into(), set(verdicts, json!([
        ["verdict-unknown", "/verdict", "maybe", false],
        ["metric-name-line-break", "/metrics/0/name", format!("{}\n", first_metric), false],
    ])));
    all
}

/// The corpus of one schema as its file holds it.
fn text(instances: &[Instance]) -> String {
    instances
        .iter()
        .map(|i| json!({"name": i.name, "valid": i.valid, "instance": i.value}).to_string() + "\n")
        .collect()
}

/// Whether goldgate reads an instance of schema `stem` without an error, for the schemas of
/// files goldgate reads itself (`None` for the others, which the jsonschema crate judges
/// alone): an extraction answer's compliance, a sample in its project's suite, `suite.toml`,
/// `thresholds.toml` and `goldgate.toml`.
fn goldgate_reads(stem: &str, name: &str, value: &Value) -> Option<bool> {
    let toml = || toml::to_string(value).unwrap();
    let dir = crate::support::TempDir::new("corpus");
    let suite = |suite_toml: &str, sample: &Value| {
        std::fs::write(dir.0.join("suite.toml"), suite_toml).unwrap();
        std::fs::write(dir.0.join("s.json"), sample.to_string()).unwrap();
        goldgate_core::suite::Suite::open(&dir.0, 1 << 20).is_ok_and(|suite| {
            suite
                .documents()
                .all(|d| d.load().problems.iter().all(|p| !p.is_error()))
        })
    };
    Some(match stem {
        _ if stem.starts_with("answer-") => {
            let kind = stem.trim_start_matches("answer-");
            let corpus = crate::kinds::answer_corpora()
                .into_iter()
                .find(|c| c.kind == kind)?;
            (corpus.compliant?)(value)
        }
        "thresholds" => goldgate_core::gate::thresholds::Thresholds::parse(
            &toml(),
            Path::new("thresholds.toml"),
        )
        .is_ok(),
        "goldgate-toml" => {
            let path = dir.0.join("goldgate.toml");
            std::fs::write(&path, toml()).unwrap();
            goldgate::config::ConfigFile::load(&path).is_ok()
        }
        "sample" => {
            let project = ["events", "reviews"]
                .into_iter()
                .find(|p| name.contains(&format!("examples/{p}/")))
                .unwrap_or("requirements");
            let path = root()
                .join("examples")
                .join(project)
                .join("suite/suite.toml");
            suite(&std::fs::read_to_string(path).unwrap(), value)
        }
        "suite-toml" => {
            // A sample of the first listed kind whose example samples have a conversation.
            let kind = goldgate_core::kinds::ALL
                .iter()
                .find(|k| k.listed() && k.example_samples().contains("conversation:"))
                .unwrap();
            let sample = json!({"id": "s", "kind": kind.name(), "labels": {},
                "conversation": [{"role": "user", "content": "Customers track orders."}]});
            suite(&toml(), &sample)
        }
        _ => return None,
    })
}

#[test]
fn every_schema_has_a_corpus_judged_as_labelled() {
    let corpus = corpus();
    let names = crate::support::schema::schema_names();
    let mut failures = Vec::new();
    for name in &names {
        let stem = name.trim_end_matches(".schema.json");
        let Some(instances) = corpus.get(stem) else {
            failures.push(format!("schemas/{name} has no corpus"));
            continue;
        };
        let valid = instances.iter().filter(|i| i.valid).count();
        if valid == 0 || valid == instances.len() {
            failures.push(format!("schemas/{name}: its corpus needs valid and invalid instances ({valid} of {} valid)", instances.len()));
        }
        for i in instances {
            let found = problems(name, &i.value, false);
            if found.is_empty() != i.valid {
                failures.push(format!(
                    "schemas/{name}, {}: labelled {}, the schema says {}",
                    i.name,
                    if i.valid { "valid" } else { "invalid" },
                    if found.is_empty() {
                        "valid".to_string()
                    } else {
                        found.join("; ")
                    }
                ));
            }
            if goldgate_reads(stem, &i.name, &i.value).is_some_and(|ok| ok != i.valid) {
                failures.push(format!(
                    "schemas/{name}, {}: labelled {}, goldgate reads it otherwise",
                    i.name,
                    if i.valid { "valid" } else { "invalid" }
                ));
            }
        }
        let path = corpus_dir().join(format!("{stem}.jsonl"));
        let want = text(instances);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            if std::env::var("SNAPSHOTS").as_deref() == Ok("overwrite") {
                std::fs::create_dir_all(corpus_dir()).unwrap();
                std::fs::write(&path, want).unwrap();
            } else {
                failures.push(format!("{} is not the corpus the tests make (SNAPSHOTS=overwrite rewrites it; then read the diff)", path.display()));
            }
        }
    }
    for entry in std::fs::read_dir(corpus_dir()).into_iter().flatten() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        let stem = file.trim_end_matches(".jsonl");
        if file.ends_with(".jsonl") && !corpus.contains_key(stem) {
            failures.push(format!(
                "tests/fixtures/schemas/{file} belongs to no schema"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
