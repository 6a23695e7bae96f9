//! Reading a parsed answer field by field, as every task kind reads its own keys (each in
//! its folder, `prediction.rs`): a field of the wrong type counts as missing and never
//! throws the whole answer away; an element that is not an object still counts as a
//! prediction (one that can never match); a scalar answer yields an empty prediction.

use super::json::{Json, Object};

/// The top-level object of an answer, when it is one.
pub fn object<'a, 'j>(value: Option<&'a Json<'j>>) -> Option<&'a Object<'j>> {
    value.and_then(Json::as_object)
}

pub fn list<'a, 'j>(map: &'a Object<'j>, key: &str) -> impl Iterator<Item = &'a Json<'j>> {
    map.get(key).and_then(Json::as_array).into_iter().flatten()
}

pub fn string<'a>(map: &'a Object<'_>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Json::as_str)
}

/// A JSON number as f64 (booleans and strings are not numbers).
pub fn number(map: &Object<'_>, key: &str) -> Option<f64> {
    map.get(key).and_then(Json::as_f64)
}

/// A JSON integer; integers beyond i64 saturate (they are out of any range anyway).
pub fn integer(value: &Json<'_>) -> Option<i64> {
    match value {
        Json::Number(n) if n.is_i64() => n.as_i64(),
        Json::Number(n) if n.is_u64() => Some(i64::MAX),
        // A whole number written with a fraction or an exponent (`1.0`, `1e2`) is an integer
        // too, as JSON Schema's `integer` has it (past the range of i64: its nearest end).
        Json::Number(n) => n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64),
        _ => None,
    }
}
