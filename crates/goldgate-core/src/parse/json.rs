//! The JSON tree scoring reads an answer from: serde_json's parser (so exactly the texts
//! `serde_json::Value` accepts, with the same numbers), into a tree that borrows every
//! string without escapes from the answer text and keeps an object's entries in a plain
//! list. Reading it answers what reading a `Value` answers: `get` returns the last of
//! duplicate keys, as `Value`'s map keeps the last value.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

/// A parsed JSON value borrowing from its text.
#[derive(Clone, Debug, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    Object(Object<'a>),
}

/// A JSON object's entries in text order, duplicates included.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object<'a>(Vec<(Cow<'a, str>, Json<'a>)>);

impl<'a> Object<'a> {
    /// The value of `key`: the last one when the key is repeated.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The keys in text order, a repeated key each time it is written.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }

    /// The values in text order, a repeated key's each time it is written.
    pub fn values(&self) -> impl Iterator<Item = &Json<'a>> {
        self.0.iter().map(|(_, v)| v)
    }
}

impl<'a> Json<'a> {
    /// The value a JSON pointer names (`""` is the whole document), when there is one.
    pub fn pointer(&self, pointer: &str) -> Option<&Json<'a>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut here = self;
        for token in pointer.strip_prefix('/')?.split('/') {
            let token: Cow<'_, str> = if token.contains('~') {
                Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
            } else {
                Cow::Borrowed(token)
            };
            here = match here {
                Json::Object(object) => object.get(&token)?,
                Json::Array(items) => items.get(array_index(&token)?)?,
                _ => return None,
            };
        }
        Some(here)
    }

    /// Parse a text, borrowing its strings.
    pub fn parse(text: &'a str) -> serde_json::Result<Json<'a>> {
        serde_json::from_str(text)
    }

    /// Parse a text that does not outlive the call (a repaired candidate).
    pub fn parse_owned(text: &str) -> serde_json::Result<Json<'static>> {
        serde_json::from_str::<Json<'_>>(text).map(Json::into_owned)
    }

    /// The same tree owning its strings.
    pub fn into_owned(self) -> Json<'static> {
        let own = |s: Cow<'_, str>| Cow::Owned(s.into_owned());
        match self {
            Json::Null => Json::Null,
            Json::Bool(b) => Json::Bool(b),
            Json::Number(n) => Json::Number(n),
            Json::String(s) => Json::String(own(s)),
            Json::Array(items) => Json::Array(items.into_iter().map(Json::into_owned).collect()),
            Json::Object(Object(entries)) => Json::Object(Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (own(k), v.into_owned()))
                    .collect(),
            )),
        }
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Json::Object(map) => Some(map),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json<'a>]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Json::String(_))
    }

    /// A number as `f64`, as `Value::as_f64` gives it.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    /// `value[key]` of an object.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.as_object().and_then(|map| map.get(key))
    }
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(i.into()))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(u.into()))
    }

    fn visit_f64<E>(self, f: f64) -> Result<Json<'de>, E> {
        // As `Value` does: a non-finite number (which JSON text cannot hold) is null.
        Ok(Number::from_f64(f).map_or(Json::Null, Json::Number))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s.to_string())))
    }

    fn visit_string<E>(self, s: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s)))
    }

    fn visit_none<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json<'de>, D::Error> {
        Deserialize::deserialize(d)
    }

    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
        while let Some(key) = map.next_key::<Key<'de>>()? {
            entries.push((key.0, map.next_value()?));
        }
        Ok(Json::Object(Object(entries)))
    }
}

/// An object key, borrowed when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
            fn visit_string<E>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// An array index token: `0`, or digits without a leading zero.
fn array_index(token: &str) -> Option<usize> {
    let digits = !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit());
    (digits && (token == "0" || !token.starts_with('0')))
        .then(|| token.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::*;

    /// What reading `json` answers must equal what reading `value` answers, everywhere.
    fn same(json: &Json<'_>, value: &Value) {
        assert_eq!(json.as_str(), value.as_str());
        assert_eq!(json.is_string(), value.is_string());
        assert_eq!(
            json.as_f64().map(f64::to_bits),
            value.as_f64().map(f64::to_bits)
        );
        match (json, value) {
            (Json::Null, Value::Null) => {}
            (Json::Bool(a), Value::Bool(b)) => assert_eq!(a, b),
            (Json::Number(a), Value::Number(b)) => {
                assert_eq!(a, b);
                assert_eq!((a.is_i64(), a.is_u64()), (b.is_i64(), b.is_u64()));
            }
            (Json::String(a), Value::String(b)) => assert_eq!(a, b),
            (Json::Array(a), Value::Array(b)) => {
                assert_eq!(a.len(), b.len());
                a.iter().zip(b).for_each(|(x, y)| same(x, y));
            }
            (Json::Object(a), Value::Object(b)) => {
                for (key, v) in b {
                    same(a.get(key).expect("every key of the value"), v);
                }
                for (key, _) in &a.0 {
                    assert!(b.contains_key(key.as_ref()));
                }
            }
            other => panic!("different kinds: {other:?}"),
        }
    }

    #[test]
    fn duplicate_keys_read_as_the_last_one() {
        let text = r#"{"a": 1, "b": [true, null], "a": "x", "c": {"d": 2, "d": 3}}"#;
        let json = Json::parse(text).unwrap();
        assert_eq!(json.get("a").and_then(Json::as_str), Some("x"));
        assert_eq!(
            json.get("c").and_then(|c| c.get("d")),
            Some(&Json::Number(3.into()))
        );
        same(&json, &serde_json::from_str(text).unwrap());
    }

    #[test]
    fn strings_without_escapes_are_borrowed() {
        let json = Json::parse(r#"{"plain": "abc", "esc\"aped": "a\nb"}"#).unwrap();
        let Json::Object(Object(entries)) = &json else {
            panic!()
        };
        assert!(matches!(entries[0].0, Cow::Borrowed("plain")));
        assert!(matches!(entries[0].1, Json::String(Cow::Borrowed("abc"))));
        assert!(matches!(&entries[1].0, Cow::Owned(k) if k == "esc\"aped"));
        assert_eq!(entries[1].1.as_str(), Some("a\nb"));
    }

    fn text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            Just("false".to_string()),
            any::<i64>().prop_map(|i| i.to_string()),
            any::<u64>().prop_map(|u| u.to_string()),
            Just("18446744073709551616".to_string()),
            Just("-0".to_string()),
            Just("1e400".to_string()),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| format!("{f:e}")),
            "[a-c\"\\\\n é]{0,6}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec(
                    (
                        prop::sample::select(&["a", "b", "a\\u0062", "c"][..]),
                        inner
                    ),
                    0..6
                )
                .prop_map(|kv| {
                    let entries: Vec<String> = kv
                        .into_iter()
                        .map(|(k, v)| format!("\"{k}\": {v}"))
                        .collect();
                    format!("{{{}}}", entries.join(", "))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any text parses exactly when `Value` parses it, and reads the same.
        #[test]
        fn reads_as_value_reads(text in text(), junk in prop::sample::select(&["", " ", "x", ",", "]"][..])) {
            let text = format!("{text}{junk}");
            let value = serde_json::from_str::<Value>(&text);
            let json = Json::parse(&text);
            prop_assert_eq!(value.is_ok(), json.is_ok(), "{}", text);
            if let (Ok(value), Ok(json)) = (value, json) {
                same(&json, &value);
                same(&Json::parse_owned(&text).unwrap(), &value);
            }
        }
    }
}
