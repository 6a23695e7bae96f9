//! The stub pipeline's `EXAMPLES` (`pipeline.py`): what a good pipeline answers for each
//! sample the scaffold writes, made from the sample itself by its kind
//! (`TaskKind::good_answer`: its gold labels in the shape of the kind's answer, each item
//! with a `confidence`) and written as a Python literal. The samples are the one source: a sample added to the scaffold is answered
//! without writing its answer twice.

use serde_json::{Map, Value};

use goldgate_core::kinds::TaskKind;

/// The confidence the stub gives every item it answers.
const CONFIDENCE: f64 = 0.9;

/// A good answer to `sample` (a sample as its YAML reads): the keys its kind reads, each
/// item with the stub's confidence.
pub fn answer(kind: &dyn TaskKind, sample: &Value) -> Value {
    kind.good_answer(sample, CONFIDENCE)
}

/// `EXAMPLES`' value: each sample's id to its [`answer`], in the order given.
pub fn examples(samples: &[(&dyn TaskKind, Value)]) -> String {
    let mut all = Map::new();
    for (kind, sample) in samples {
        let id = sample["id"].as_str().unwrap_or_default().to_string();
        all.insert(id, answer(*kind, sample));
    }
    python(&Value::Object(all), 0)
}

/// `value` as a Python literal, its nested lines indented from `indent`: a list of short
/// scalars on one line, a string of several lines as `"\n".join([...])`.
pub fn python(value: &Value, indent: usize) -> String {
    let pad = " ".repeat(indent + 4);
    let close = " ".repeat(indent);
    let string = |s: &str| serde_json::to_string(s).unwrap_or_default();
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.contains('\n') => {
            let lines: String = s
                .split('\n')
                .map(|line| format!("{pad}    {},\n", string(line)))
                .collect();
            format!("\"\\n\".join(\n{pad}[\n{lines}{pad}]\n{close})")
        }
        Value::String(s) => string(s),
        Value::Array(items) if items.is_empty() => "[]".into(),
        Value::Array(items) => {
            let inline: Vec<String> = items.iter().map(|v| python(v, indent)).collect();
            let scalars = items.iter().all(|v| !v.is_array() && !v.is_object());
            if scalars && inline.iter().map(String::len).sum::<usize>() < 60 {
                return format!("[{}]", inline.join(", "));
            }
            let lines: String = items
                .iter()
                .map(|v| format!("{pad}{},\n", python(v, indent + 4)))
                .collect();
            format!("[\n{lines}{close}]")
        }
        Value::Object(fields) if fields.is_empty() => "{}".into(),
        Value::Object(fields) => {
            let lines: String = fields
                .iter()
                .map(|(k, v)| format!("{pad}{}: {},\n", string(k), python(v, indent + 4)))
                .collect();
            format!("{{\n{lines}{close}}}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_as_python() {
        let v = json!({"a": [1, 2], "b": null, "c": true, "d": "x\ny", "e": [{"f": "g"}], "h": []});
        assert_eq!(
            python(&v, 0),
            "{\n    \"a\": [1, 2],\n    \"b\": None,\n    \"c\": True,\n    \"d\": \"\\n\".join(\n        [\n            \"x\",\n            \"y\",\n        ]\n    ),\n    \"e\": [\n        {\n            \"f\": \"g\",\n        },\n    ],\n    \"h\": [],\n}"
        );
    }

    /// Every item of `lists` (the values of an object: lists, or anything else).
    fn items(lists: &Value) -> Vec<Value> {
        let lists = lists.as_object().cloned().unwrap_or_default();
        lists
            .into_values()
            .flat_map(|v| v.as_array().cloned().unwrap_or_default())
            .collect()
    }

    /// `item` with the stub's confidence, when it is an object (a list of strings, such as
    /// personal data found, has no confidence to give).
    fn with_confidence(item: &Value) -> Value {
        let mut item = item.clone();
        if let Some(fields) = item.as_object_mut() {
            fields.insert("confidence".into(), json!(CONFIDENCE));
        }
        item
    }

    #[test]
    fn an_answer_is_the_gold_with_a_confidence() {
        let mut answered = 0;
        for &kind in goldgate_core::kinds::ALL {
            let files = crate::init::scaffold(
                &[goldgate_core::kinds::kind_of(kind)],
                crate::init::Pipeline::Http,
            )
            .unwrap();
            let samples = files.iter().filter(|f| f.path.starts_with("suite/"));
            for f in samples.filter(|f| f.path.extension().is_some_and(|e| e == "yaml")) {
                let sample = goldgate_core::document::parse_yaml(&f.text).unwrap().value;
                let answer = answer(kind, &sample);
                let what = format!("{}: {answer}", f.path.display());
                let keys = answer.as_object().unwrap().keys();
                assert!(
                    keys.into_iter()
                        .all(|k| kind.answer_keys().contains(&k.as_str())),
                    "the keys its kind reads: {what}"
                );
                // Every gold item, with a confidence, and nothing else.
                let gold: Vec<Value> = items(&sample["labels"])
                    .iter()
                    .map(with_confidence)
                    .collect();
                let mut given = items(&answer);
                assert_eq!(given.len(), gold.len(), "{what}");
                for item in &gold {
                    let at = given.iter().position(|g| g == item);
                    assert!(at.is_some(), "{item} in {what}");
                    given.remove(at.unwrap_or_default());
                }
                answered += gold.len();
                // A text the answer holds is the sample's own (a reference document), trimmed.
                for text in answer
                    .as_object()
                    .unwrap()
                    .values()
                    .filter_map(Value::as_str)
                {
                    let own = sample
                        .as_object()
                        .unwrap()
                        .values()
                        .filter_map(Value::as_str);
                    assert!(own.map(str::trim_end).any(|t| t == text), "{what}");
                }
            }
        }
        assert!(answered > 0);
    }
}
