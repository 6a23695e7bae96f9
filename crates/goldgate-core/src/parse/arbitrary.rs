//! Arbitrary JSON answers for property tests: nested objects and lists of bounded size whose
//! keys are the ones a kind reads and whose strings mix the values it knows with random
//! text, so a property meets both the shapes a pipeline means and the ones it never should.

use proptest::prelude::*;
use serde_json::Value;

/// Any JSON value up to 5 levels deep, with object keys from `keys` and strings from
/// `words` or matching `pattern`.
pub fn json_value(
    keys: &'static [&'static str],
    words: &'static [&'static str],
    pattern: &'static str,
) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-2.0f64..2.0).prop_map(Value::from),
        prop::sample::select(words).prop_map(Value::from),
        pattern.prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 96, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(keys), inner), 0..8).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}
