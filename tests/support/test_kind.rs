//! The kind test builds register and list nowhere (`goldgate_core::testkit::test_kind`),
//! as the integration tests of generic machinery (the hook, baselines, publishing, the
//! verdict's wording) use it: its name, its metrics, its samples and answers. A sample
//! of it names marks in a conversation; its labels and its answer are the list of marks.

use serde_json::{json, Value};

/// The test kind's name.
pub fn name() -> &'static str {
    goldgate_core::testkit::test_kind().name()
}

/// The test kind's metric `NAME.suffix` (`f1`, `recall`, `precision`).
pub fn metric(suffix: &str) -> String {
    format!("{}.{suffix}", name())
}

/// The key of the test kind's one label list, which is also its answer's key.
pub fn key() -> &'static str {
    let keys = goldgate_core::testkit::test_kind().label_keys();
    assert_eq!(keys.len(), 1, "the test kind has one label list: {keys:?}");
    keys[0]
}

/// Sample `id` of the test kind: `text` as its conversation, `marks` as its gold.
pub fn sample(id: &str, text: &str, marks: &[&str]) -> Value {
    json!({"id": id, "kind": name(), "conversation": [{"role": "user", "content": text}],
        "labels": {key(): marks}})
}

/// An answer of the test kind naming `marks`.
pub fn answer(marks: &[&str]) -> Value {
    json!({key(): marks})
}

/// The lines of a suite file of `samples`.
pub fn lines(samples: &[Value]) -> String {
    samples.iter().map(|s| s.to_string() + "\n").collect()
}
