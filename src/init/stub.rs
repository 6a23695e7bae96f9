//! The stub pipeline's `EXAMPLES` (`pipeline.py`): what a good pipeline answers for each
//! sample the scaffold writes, made from the sample itself — its gold labels, each item with
//! a `confidence`, and for e2e its reference SRS as the document — and written as a Python
//! literal. The samples are the one source: a sample added to the scaffold is answered
//! without writing its answer twice.

use serde_json::{Map, Value};

use goldgate_core::sample::Kind;

/// The confidence the stub gives every item it answers.
const CONFIDENCE: f64 = 0.9;

/// A good answer to `sample` (a sample as its YAML reads): the keys its kind reads, each
/// item with the stub's confidence.
pub fn answer(kind: Kind, sample: &Value) -> Value {
    goldgate_core::kinds::of(kind).good_answer(sample, CONFIDENCE)
}

/// `EXAMPLES`' value: each sample's id to its [`answer`], in the order given.
pub fn examples(samples: &[(Kind, Value)]) -> String {
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

    #[test]
    fn an_answer_is_the_gold_with_a_confidence() {
        let sample = json!({"id": "s", "labels": {"tuples": [{"aspect_term": "a", "polarity": "positive"}]}});
        assert_eq!(
            answer(Kind::named("tuples").unwrap(), &sample),
            json!({"final_tuples": [{"aspect_term": "a", "polarity": "positive", "confidence": 0.9}]})
        );
        let e2e = json!({"reference_srs": "# 1 Introduction\n", "labels": {"requirements": []}});
        assert_eq!(
            answer(Kind::named("e2e").unwrap(), &e2e),
            json!({"requirements": [], "srs_markdown": "# 1 Introduction"})
        );
    }
}
