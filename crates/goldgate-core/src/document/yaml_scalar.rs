//! YAML 1.2 core-schema scalar resolution: which plain scalars are null, booleans,
//! integers (decimal, octal, hex) or floats, and what explicit tags (`!!str`, `!!int`, …)
//! make of a scalar; non-finite numbers are errors (JSON cannot hold them).

use saphyr_parser::{ScalarStyle, Tag};
use serde_json::{Number, Value};

// ---------------------------------------------------------------------------------------------
// YAML scalar resolution (YAML 1.2 core schema)
// ---------------------------------------------------------------------------------------------

/// A number as YAML wrote it, before the JSON finiteness check.
enum Num {
    Int(i64),
    UInt(u64),
    Float(f64),
}

pub(super) fn resolve_scalar(
    text: &str,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<Value, String> {
    match tag {
        Some(tag) if tag.is_yaml_core_schema() => resolve_tagged(text, &tag.suffix),
        Some(_) => Ok(Value::String(text.to_owned())),
        None if style == ScalarStyle::Plain => resolve_plain(text),
        None => Ok(Value::String(text.to_owned())),
    }
}

fn resolve_plain(text: &str) -> Result<Value, String> {
    if is_null(text) {
        return Ok(Value::Null);
    }
    if let Some(b) = parse_bool(text) {
        return Ok(Value::Bool(b));
    }
    match parse_int(text).or_else(|| parse_float(text).map(Num::Float)) {
        Some(number) => number_value(number, text),
        None => Ok(Value::String(text.to_owned())),
    }
}

fn resolve_tagged(text: &str, suffix: &str) -> Result<Value, String> {
    let invalid = || format!("`{text}` is not a valid !!{suffix}");
    match suffix {
        "null" if is_null(text) => Ok(Value::Null),
        "bool" => parse_bool(text).map(Value::Bool).ok_or_else(invalid),
        "int" => parse_int(text)
            .ok_or_else(invalid)
            .and_then(|n| number_value(n, text)),
        "float" => {
            let float = parse_float(text).or_else(|| parse_int(text).map(num_to_f64));
            let float = float.ok_or_else(invalid)?;
            number_value(Num::Float(float), text)
        }
        "null" => Err(invalid()),
        _ => Ok(Value::String(text.to_owned())),
    }
}

fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`; too large for 64 bits gives a float.
fn parse_int(text: &str) -> Option<Num> {
    if let Some(digits) = text.strip_prefix("0o") {
        return parse_radix(digits, 8);
    }
    if let Some(digits) = text.strip_prefix("0x") {
        return parse_radix(digits, 16);
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !is_digits(unsigned) {
        return None;
    }
    if let Ok(i) = text.parse::<i64>() {
        return Some(Num::Int(i));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Num::UInt(u));
    }
    text.parse::<f64>().ok().map(Num::Float)
}

fn parse_radix(digits: &str, radix: u32) -> Option<Num> {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    if let Ok(u) = u64::from_str_radix(digits, radix) {
        return Some(Num::UInt(u));
    }
    let float = digits.chars().filter_map(|c| c.to_digit(radix));
    Some(Num::Float(
        float.fold(0.0, |acc, d| acc * f64::from(radix) + f64::from(d)),
    ))
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` and the `.inf` / `.nan` forms.
fn parse_float(text: &str) -> Option<f64> {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let negative = text.starts_with('-');
    match unsigned {
        ".inf" | ".Inf" | ".INF" if negative => return Some(f64::NEG_INFINITY),
        ".inf" | ".Inf" | ".INF" => return Some(f64::INFINITY),
        ".nan" | ".NaN" | ".NAN" if unsigned.len() == text.len() => return Some(f64::NAN),
        _ => {}
    }
    if !is_float_syntax(unsigned) {
        return None;
    }
    text.parse::<f64>().ok()
}

fn is_float_syntax(unsigned: &str) -> bool {
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", fraction)) => is_digits(fraction),
        Some((whole, fraction)) => is_digits(whole) && fraction.bytes().all(|b| b.is_ascii_digit()),
        None => is_digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| is_digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn num_to_f64(number: Num) -> f64 {
    match number {
        Num::Int(i) => i as f64,
        Num::UInt(u) => u as f64,
        Num::Float(f) => f,
    }
}

fn number_value(number: Num, text: &str) -> Result<Value, String> {
    match number {
        Num::Int(i) => Ok(Value::from(i)),
        Num::UInt(u) => Ok(Value::from(u)),
        Num::Float(f) => Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| format!("`{text}` is not a finite number (JSON cannot hold it)")),
    }
}
