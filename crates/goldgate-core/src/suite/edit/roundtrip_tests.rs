//! Round trips of [`super`] over the example suite and random annotations: the edited file
//! differs from the original only in the edited element, still loads as a suite, and a
//! second identical edit changes nothing.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{json, Value};

use super::tests::common;
use super::*;

fn example_suite() -> PathBuf {
    crate::testkit::repository().join("examples/requirements/suite")
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            out.push(path);
        }
    }
}

/// The sample of a one-file suite at `dir` after writing `text` as `name` there.
fn load_alone(name: &str, text: &str) -> crate::sample::Sample {
    let dir = std::env::temp_dir().join(format!(
        "goldgate-edit-{}-{}",
        std::process::id(),
        name.replace('/', "_")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(example_suite().join("suite.toml"), dir.join("suite.toml")).unwrap();
    std::fs::write(dir.join(Path::new(name).file_name().unwrap()), text).unwrap();
    let suite = crate::suite::Suite::open(&dir, 1 << 24).unwrap();
    let mut samples = Vec::new();
    suite.each_sample(|s| samples.push(s.clone())).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(samples.len(), 1);
    samples.pop().unwrap()
}

#[test]
fn every_example_sample_takes_a_new_annotation_and_nothing_else_changes() {
    let mut files = Vec::new();
    yaml_files(&example_suite(), &mut files);
    assert!(files.len() >= 40, "{files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let sample = crate::document::parse_yaml(&text).unwrap().value;
        let requirements = sample["labels"]
            .get("requirements")
            .cloned()
            .unwrap_or(json!([]));
        let new = json!({"annotator": "web", "requirements": requirements});
        let out = upsert_annotation(&text, Format::Yaml, None, &new).unwrap();
        // A pure insertion: the original is the output's prefix and suffix.
        let (prefix, suffix) = common(&text, &out);
        assert_eq!(prefix + suffix, text.len(), "{}", path.display());
        let inserted = &out[prefix..out.len() - suffix];
        let read = crate::document::parse_yaml(inserted).unwrap().value;
        let expect = if sample.get("annotations").is_some() {
            json!([new])
        } else {
            json!({"annotations": [new]})
        };
        assert_eq!(read, expect, "{}: {inserted}", path.display());
        assert_eq!(
            upsert_annotation(&out, Format::Yaml, None, &new).unwrap(),
            out,
            "{}: a second upsert changes nothing",
            path.display()
        );
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let loaded = load_alone(&name, &out);
        let web = loaded.annotations.iter().find(|a| a.annotator == "web");
        assert!(web.is_some(), "{}", path.display());
    }
}

#[test]
fn replacing_an_example_annotator_changes_only_its_item() {
    let path = example_suite().join("extraction/ext-001.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let new = json!({"annotator": "a2", "requirements": []});
    let out = upsert_annotation(&text, Format::Yaml, None, &new).unwrap();
    let start = text.find("  - annotator: a2\n").unwrap();
    let end = text.find("  - annotator: a3\n").unwrap();
    let expected = format!(
        "{}  - annotator: a2\n    requirements: []\n{}",
        &text[..start],
        &text[end..]
    );
    assert_eq!(out, expected);
    let loaded = load_alone("ext-001.yaml", &out);
    let annotators: Vec<_> = loaded.annotations.iter().map(|a| &a.annotator).collect();
    assert_eq!(annotators, ["a1", "a2", "a3"]);
    assert!(loaded.annotations[1].labels.is_empty());
}

#[test]
fn a_jsonl_example_line_takes_an_annotation() {
    let path = crate::testkit::repository().join("tests/cases/lint-clean/suite/more.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let line = text.lines().position(|l| !l.trim().is_empty()).unwrap() + 1;
    let new = json!({"annotator": "web", "requirements": []});
    let out = upsert_annotation(&text, Format::Jsonl, Some(line), &new).unwrap();
    let (prefix, suffix) = common(&text, &out);
    assert_eq!(prefix + suffix, text.len());
    assert_eq!(
        upsert_annotation(&out, Format::Jsonl, Some(line), &new).unwrap(),
        out
    );
    assert_eq!(out.lines().count(), text.lines().count());
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        "[ -~]{0,12}".prop_map(Value::from),
        // Words that may be written plain, and near misses that must not be.
        "[A-Za-zé][A-Za-z0-9 :#'\"\\.,!?|>&*@%-]{0,14}".prop_map(Value::from),
        prop_oneof![
            Just("No"),
            Just("on"),
            Just("Null"),
            Just("y"),
            Just("a:"),
            Just("x #y")
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

const YAML: &str = "id: p\nlabels: {}  # gold\nannotations:\n- annotator: a1 # one\n  requirements: [1]\n# after\n";
const JSON: &str = "{\n  \"id\": \"p\",\n  \"annotations\": [\n    {\"annotator\": \"a1\"}\n  ]\n}";
const JSONL: &str = "{\"id\":\"o\"}\r\n{\"id\":\"p\",\"annotations\":[{\"annotator\":\"a1\"}]}\r\n";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_annotations_read_back_exactly_and_the_rest_stays(
        name in "[^\\x00]{1,8}".prop_filter("non-blank", |s| !s.trim().is_empty()),
        extra in prop::collection::btree_map(any::<String>(), any_json(), 0..4),
        labels in any_json(),
    ) {
        let mut annotation = serde_json::Map::new();
        annotation.extend(extra);
        annotation.insert("annotator".into(), Value::from(name.clone()));
        let annotation = Value::Object(annotation);
        for (text, format, line) in [(YAML, Format::Yaml, None), (JSON, Format::Json, None), (JSONL, Format::Jsonl, Some(2))] {
            let out = upsert_annotation(text, format, line, &annotation).unwrap();
            let span = document_span(&out, format, line).unwrap();
            let value = parse(&out[span], format, 1).unwrap();
            let list = value["annotations"].as_array().unwrap();
            prop_assert_eq!(list.last().unwrap(), &annotation);
            if name != "a1" {
                let (prefix, suffix) = common(text, &out);
                prop_assert_eq!(prefix + suffix, text.len(), "{}", out);
            }
            let out = set_top_level(text, format, line, "labels", &labels).unwrap();
            let span = document_span(&out, format, line).unwrap();
            prop_assert_eq!(&parse(&out[span], format, 1).unwrap()["labels"], &labels);
            prop_assert!(out.starts_with(&text[..text.find("\"p\"").unwrap_or(4)]));
        }
    }
}
