//! The JSON Schemas of `schemas/`: each is a valid JSON Schema 2020-12 document with its
//! `$id`, title and a description on every property; every shipped example (suites, answers,
//! run files, baselines, goldgate.toml, thresholds.toml), the examples in the docs, and
//! every file goldgate writes (run files, score files, baselines, verdicts, from real runs)
//! validate against their schema. `tests/schema_drift.rs` checks the schemas against the code.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::answers::{answer_text, sample_id};
use crate::support::files_below;
use crate::support::schema::{check, check_written, load, schema_names};
use crate::support::TempDir;

const BASE: &str = "https://raw.githubusercontent.com/goldgate/goldgate/main/schemas/";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every place in `v` (at JSON pointer `at`) where a property or a definition has no
/// description.
fn undescribed(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for key in ["properties", "$defs"] {
                if let Some(Value::Object(children)) = map.get(key) {
                    // A property of a condition (`if`, `then`, `else`) restates one described
                    // where it is defined; a `false` schema forbids the key.
                    let conditional = key == "properties"
                        && at.split('/').any(|s| matches!(s, "if" | "then" | "else"));
                    for (name, child) in children {
                        if child.is_object() && !conditional && child.get("description").is_none() {
                            out.push(format!("{at}/{key}/{name}"));
                        }
                    }
                }
            }
            for (k, child) in map {
                undescribed(child, &format!("{at}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                undescribed(child, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_schema_is_valid_and_describes_every_property() {
    let names = schema_names();
    for expected in [
        "sample.schema.json",
        "suite-toml.schema.json",
        "answer-extraction.schema.json",
        "answer-inference.schema.json",
        "answer-validation.schema.json",
        "answer-e2e.schema.json",
        "answer-tuples.schema.json",
        "run-record.schema.json",
        "score.schema.json",
        "verdict.schema.json",
        "thresholds.schema.json",
        "goldgate-toml.schema.json",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "schemas/{expected} is missing"
        );
    }
    let mut failures = Vec::new();
    for name in &names {
        let schema = load(name);
        if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
            failures.push(format!("{name}: not a valid 2020-12 schema: {e}"));
        }
        let field = |k: &str| {
            schema
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        if field("$schema") != "https://json-schema.org/draft/2020-12/schema" {
            failures.push(format!("{name}: `$schema` is not 2020-12"));
        }
        if field("$id") != format!("{BASE}{name}") {
            failures.push(format!("{name}: `$id` is not {BASE}{name}"));
        }
        for key in ["title", "description"] {
            if field(key).is_empty() {
                failures.push(format!("{name}: no `{key}`"));
            }
        }
        let mut missing = Vec::new();
        undescribed(&schema, "", &mut missing);
        failures.extend(
            missing
                .into_iter()
                .map(|m| format!("{name}: no description at {m}")),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A YAML or JSON sample file as JSON.
fn sample_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    goldgate_core::document::parse_yaml(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .value
}

fn toml_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The answer schema of a sample's kind.
fn answer_schema(kind: &str) -> String {
    format!("answer-{}.schema.json", kind.to_lowercase())
}

/// Check an answer of `kind` against its schema. A kind whose schema states its compliance
/// rules judges its answers itself (its answer corpus's `compliant`): an answer validates
/// exactly when goldgate counts it compliant (some example answers are not); the other
/// kinds' schemas describe what is read, and every answer validates.
fn check_answer(kind: &str, answer: &Value, what: &str, failures: &mut Vec<String>) {
    let schema = answer_schema(kind);
    let judged = crate::kinds::answer_corpora()
        .into_iter()
        .find(|c| c.kind == kind.to_lowercase())
        .and_then(|c| c.compliant)
        .map(|compliant| compliant(answer));
    let Some(compliant) = judged else {
        return check(&schema, answer, false, what, failures);
    };
    let found = crate::support::schema::problems(&schema, answer, false);
    if found.is_empty() != compliant {
        failures.push(format!(
            "{what}: goldgate and schemas/{schema} judge its compliance differently: {found:?}"
        ));
    }
}

#[test]
fn the_shipped_examples_validate() {
    let mut failures = Vec::new();
    let mut checked = 0;
    let examples = root().join("examples");
    let files = files_below(&examples);
    // Each sample's kind, for its answers.
    let mut kinds = std::collections::HashMap::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let what = path.strip_prefix(root()).unwrap().display().to_string();
        let in_suite = what.contains("/suite/");
        let ext = path.extension().map(|e| e.to_string_lossy().to_string());
        match ext.as_deref() {
            Some("yaml" | "yml" | "json") if in_suite => {
                let sample = sample_file(path);
                check("sample.schema.json", &sample, false, &what, &mut failures);
                kinds.insert(
                    sample["id"].as_str().unwrap_or_default().to_string(),
                    sample["kind"].as_str().unwrap_or_default().to_string(),
                );
            }
            Some("toml") if name == "suite.toml" => check(
                "suite-toml.schema.json",
                &toml_file(path),
                false,
                &what,
                &mut failures,
            ),
            Some("toml") if name.starts_with("thresholds") => check(
                "thresholds.schema.json",
                &toml_file(path),
                false,
                &what,
                &mut failures,
            ),
            Some("toml") => check(
                "goldgate-toml.schema.json",
                &toml_file(path),
                false,
                &what,
                &mut failures,
            ),
            Some("json") if what.contains("/baselines/") => check(
                "score.schema.json",
                &serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap(),
                true,
                &what,
                &mut failures,
            ),
            Some("jsonl") => {
                check_written(path, &mut failures);
            }
            _ => continue,
        }
        checked += 1;
    }
    // The recorded answers are in the format their kind reads.
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
    {
        let what = path.strip_prefix(root()).unwrap().display().to_string();
        for (i, line) in std::fs::read_to_string(path).unwrap().lines().enumerate() {
            let record: Value = serde_json::from_str(line).unwrap();
            let id = sample_id(&record).unwrap();
            let Some(text) = answer_text(&record) else {
                continue;
            };
            if record.get("error").is_some_and(|e| !e.is_null()) {
                continue;
            }
            let Some(answer) = goldgate_core::parse::parse_answer(&text).value else {
                continue;
            };
            let kind = kinds
                .get(id)
                .unwrap_or_else(|| panic!("{what}: no sample {id}"));
            check_answer(
                kind,
                &answer,
                &format!("{what}:{} (answer to {id})", i + 1),
                &mut failures,
            );
        }
    }
    // The project's own .taplo.toml maps each kind of TOML file to a schema that exists.
    let taplo = toml_file(&root().join(".taplo.toml"));
    for rule in taplo["rule"].as_array().unwrap() {
        let path = rule["schema"]["path"].as_str().unwrap();
        assert!(
            root().join(path).is_file(),
            ".taplo.toml names {path}, which does not exist"
        );
    }
    // The project's own rules file.
    check(
        "thresholds.schema.json",
        &toml_file(&root().join("thresholds.toml")),
        false,
        "thresholds.toml",
        &mut failures,
    );
    assert!(checked > 100, "only {checked} example files found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fenced code blocks of a Markdown file: (info string, body, line of the fence).
fn code_blocks(text: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String, usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let indent = line.len() - trimmed.len();
                    open = Some((
                        info.trim().to_string(),
                        String::new(),
                        i + 1,
                        " ".repeat(indent),
                    ));
                }
            }
            Some((info, body, at, indent)) => {
                if trimmed.starts_with("```") {
                    out.push((info.clone(), body.clone(), *at));
                    open = None;
                } else {
                    body.push_str(line.strip_prefix(indent.as_str()).unwrap_or(line));
                    body.push('\n');
                }
            }
        }
    }
    out
}

/// What a TOML snippet of the docs is, by its tables and keys.
fn toml_schema(value: &Value) -> Option<&'static str> {
    let has = |k: &str| value.get(k).is_some();
    if has("tasks") || has("protocol_version") || (has("name") && !has("pipeline")) {
        Some("suite-toml.schema.json")
    } else if has("version")
        || has("metrics")
        || has("defaults")
        || has("matching")
        || has("rd_score")
    {
        Some("thresholds.schema.json")
    } else if ["pipeline", "run", "check", "suite", "judge"]
        .iter()
        .any(|k| has(k))
    {
        Some("goldgate-toml.schema.json")
    } else {
        None
    }
}

#[test]
fn the_documented_examples_validate() {
    let mut failures = Vec::new();
    let mut counted = std::collections::BTreeMap::<&str, usize>::new();
    let mut docs: Vec<PathBuf> = vec![root().join("README.md")];
    docs.extend(files_below(&root().join("docs")));
    docs.retain(|p| p.extension().is_some_and(|e| e == "md"));
    docs.sort();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        let file = doc.strip_prefix(root()).unwrap().display().to_string();
        for (info, body, line) in code_blocks(&text) {
            let what = format!("{file}:{line}");
            match info.as_str() {
                "yaml" => {
                    let Ok(doc) = goldgate_core::document::parse_yaml(&body) else {
                        continue;
                    };
                    if doc.value.get("id").is_some() && doc.value.get("kind").is_some() {
                        check(
                            "sample.schema.json",
                            &doc.value,
                            false,
                            &what,
                            &mut failures,
                        );
                        *counted.entry("sample").or_default() += 1;
                    }
                }
                "toml" => {
                    let Ok(mut value) = toml::from_str::<Value>(&body) else {
                        continue;
                    };
                    let Some(schema) = toml_schema(&value) else {
                        continue;
                    };
                    // A snippet of a rules file may leave out the version line.
                    if schema == "thresholds.schema.json" && value.get("version").is_none() {
                        value["version"] = 1.into();
                    }
                    check(schema, &value, false, &what, &mut failures);
                    *counted.entry(schema).or_default() += 1;
                }
                _ => {}
            }
        }
    }
    // docs/pipelines.md: under "What a pipeline prints", every JSON block of a kind's
    // section is an answer of that kind.
    let text = std::fs::read_to_string(root().join("docs/pipelines.md")).unwrap();
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("What a pipeline prints"))
        .expect("docs/pipelines.md has a section \"What a pipeline prints\"");
    let mut answers = 0;
    for part in section.split("\n### ").skip(1) {
        let kind = part.split_whitespace().next().unwrap().trim_matches('`');
        for (info, body, _) in code_blocks(part)
            .into_iter()
            .filter(|(i, _, _)| i == "json")
        {
            let value: Value = serde_json::from_str(&body)
                .unwrap_or_else(|e| panic!("docs/pipelines.md, {kind}: {e}\n{body}"));
            check_answer(
                kind,
                &value,
                &format!("docs/pipelines.md ({kind}, {info})"),
                &mut failures,
            );
            answers += 1;
        }
    }
    assert!(
        answers >= 10,
        "docs/pipelines.md shows {answers} answers: a minimal and a complete one per kind"
    );
    for (what, at_least) in [
        ("sample", 5),
        ("thresholds.schema.json", 5),
        ("goldgate-toml.schema.json", 5),
        ("suite-toml.schema.json", 2),
    ] {
        let n = counted.get(what).copied().unwrap_or(0);
        assert!(n >= at_least, "only {n} documented {what} examples found");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `goldgate ARGS` in `dir`; returns its exit code.
fn goldgate(dir: &Path, args: &[&str]) -> i32 {
    let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .env("SOURCE_DATE_EPOCH", "0")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "goldgate {args:?}: {stderr}");
    out.status.code().unwrap_or(-1)
}

#[test]
fn every_file_goldgate_writes_validates() {
    let work = TempDir::new("schemas-written");
    let dir = &work.0;
    let root = root();
    let example = |p: &str| root.join("examples").join(p).display().to_string();
    let pipeline = |p: &str| format!("sh {}", root.join("tests/pipelines").join(p).display());
    // The example projects: a failing extraction candidate (diffs, broken samples), the two
    // tuple projects, and srs-agents' records with traces and the judge's reviews.
    let checks = [
        (
            "requirements/goldgate.toml",
            Some("requirements/answers/candidate.jsonl"),
            1,
        ),
        (
            "reviews/goldgate.toml",
            Some("reviews/answers/candidate.jsonl"),
            1,
        ),
        ("events/goldgate.toml", None, 0),
        (
            "requirements/srs-agents.toml",
            Some("requirements/answers/srs-agents-candidate.jsonl"),
            1,
        ),
    ];
    let mut outs = Vec::new();
    for (i, (config, replay, status)) in checks.iter().enumerate() {
        let out = format!("out-{i}");
        let mut args = vec![
            "check".to_string(),
            "--config".into(),
            example(config),
            "--out-dir".into(),
            out.clone(),
        ];
        if let Some(r) = replay {
            args.extend(["--replay".to_string(), example(r)]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(goldgate(dir, &args), *status, "{args:?}");
        outs.push(dir.join(out));
    }
    // Repeats with failed calls, scored on their own; a baseline of answers that hold none
    // of the kind's keys (the pipeline echoes its request); the two compared.
    crate::support::project::example_suite(dir, 6);
    let crash = pipeline("crash_some.sh");
    assert_eq!(
        goldgate(
            dir,
            &[
                "run",
                "--suite",
                "suite",
                "--command",
                &crash,
                "--repeat",
                "2",
                "--output",
                "run.jsonl",
                "--no-cache"
            ]
        ),
        3
    );
    assert_eq!(
        goldgate(
            dir,
            &[
                "score",
                "--suite",
                "suite",
                "--run",
                "run.jsonl",
                "--output",
                "score.json"
            ]
        ),
        0
    );
    let echo = pipeline("echo.sh");
    // Keyless answers are never a baseline under the built-in ceiling: this one allows them.
    std::fs::write(
        dir.join("keyless.toml"),
        "version = 1\n[metrics.\"parse.keyless_rate\"]\nmax = 1.0\n",
    )
    .unwrap();
    assert_eq!(
        goldgate(
            dir,
            &[
                "baseline",
                "refresh",
                "--suite",
                "suite",
                "--baseline",
                "base.json",
                "--thresholds",
                "keyless.toml",
                "--command",
                &echo,
                "--no-cache"
            ]
        ),
        0
    );
    assert_eq!(
        goldgate(
            dir,
            &[
                "compare",
                "--score",
                "score.json",
                "--baseline",
                "base.json",
                "--output",
                "verdict.json"
            ]
        ),
        3,
        "the candidate's failed calls make it incomplete"
    );
    let mut written = vec![
        dir.join("run.jsonl"),
        dir.join("score.json"),
        dir.join("base.json"),
        dir.join("verdict.json"),
    ];
    for out in &outs {
        written.extend(["run.jsonl", "score.json", "verdict.json"].map(|f| out.join(f)));
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        written.extend(
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().ends_with(".run.jsonl")),
        );
    }
    let mut failures = Vec::new();
    for path in &written {
        assert!(
            check_written(path, &mut failures),
            "{} was not written or has no schema",
            path.display()
        );
    }
    let base: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("base.json")).unwrap()).unwrap();
    assert!(
        base.get("keyless").is_some(),
        "the echoed answers are keyless: {}",
        base["keyless"]
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The published answer schemas are the kinds' own, byte for byte: a kind's folder holds
/// its schema, and `schemas/answer-<kind>.schema.json` is a copy of it; every published
/// answer schema belongs to a kind.
#[test]
fn the_published_answer_schemas_are_the_kinds_own() {
    let mut published: Vec<String> = schema_names()
        .into_iter()
        .filter(|n| n.starts_with("answer-"))
        .collect();
    published.sort();
    let mut expected = Vec::new();
    for kind in goldgate_core::kinds::ALL.iter().filter(|k| k.listed()) {
        let name = answer_schema(kind.name());
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("schemas")
            .join(&name);
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            text == kind.answer_schema(),
            "schemas/{name} differs from its kind's answer.schema.json: copy it with\n  cp crates/goldgate-core/src/kinds/{0}/answer.schema.json schemas/answer-{0}.schema.json",
            kind.name()
        );
        expected.push(name);
    }
    expected.sort();
    assert_eq!(published, expected, "answer schemas without a kind");
}
