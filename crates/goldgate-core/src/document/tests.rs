//! Tests of YAML and JSON parsing with positions.

use super::*;
use serde_json::json;

fn at(line: usize, column: usize) -> Position {
    Position { line, column }
}

fn yaml(text: &str) -> Document {
    parse_yaml(text).unwrap_or_else(|e| panic!("{e:?} in {text:?}"))
}

fn yaml_err(text: &str) -> SyntaxError {
    match parse_yaml(text) {
        Ok(doc) => panic!("expected an error, got {:?}", doc.value),
        Err(error) => error,
    }
}

fn json_err(text: &str) -> SyntaxError {
    match parse_json(text) {
        Ok(doc) => panic!("expected an error, got {:?}", doc.value),
        Err(error) => error,
    }
}

pub(super) const SAMPLE_YAML: &str = "\
id: s-001
labels:
  requirements:
    - title: Export CSV
      source_messages: [0, 2]
    - title: \"Login\"
      source_messages:
        - 3
        - 5
  flow: {a: [x, {b: 1}]}
";

#[test]
fn yaml_block_positions() {
    let doc = yaml(SAMPLE_YAML);
    let p = &doc.positions;
    assert_eq!(
        doc.value["labels"]["requirements"][1]["source_messages"],
        json!([3, 5])
    );
    assert_eq!(p.value(""), Some(at(1, 1)));
    assert_eq!(p.value("/id"), Some(at(1, 5)));
    assert_eq!(p.key("/id"), Some(at(1, 1)));
    assert_eq!(p.key("/labels"), Some(at(2, 1)));
    assert_eq!(
        p.value("/labels"),
        Some(at(3, 3)),
        "block mapping: its first key"
    );
    assert_eq!(
        p.value("/labels/requirements"),
        Some(at(4, 5)),
        "block sequence: its dash"
    );
    assert_eq!(p.value("/labels/requirements/1"), Some(at(6, 7)));
    assert_eq!(p.value("/labels/requirements/1/title"), Some(at(6, 14)));
    assert_eq!(
        p.key("/labels/requirements/1/source_messages"),
        Some(at(7, 7))
    );
    assert_eq!(
        p.value("/labels/requirements/1/source_messages/0"),
        Some(at(8, 11))
    );
    assert_eq!(
        p.value("/labels/requirements/1/source_messages/1"),
        Some(at(9, 11))
    );
    assert_eq!(p.key("/labels/requirements/1/source_messages/1"), None);
}

#[test]
fn yaml_flow_positions() {
    let doc = yaml(SAMPLE_YAML);
    let p = &doc.positions;
    assert_eq!(
        p.value("/labels/requirements/0/source_messages"),
        Some(at(5, 24))
    );
    assert_eq!(
        p.value("/labels/requirements/0/source_messages/1"),
        Some(at(5, 28))
    );
    assert_eq!(p.value("/labels/flow"), Some(at(10, 9)));
    assert_eq!(p.key("/labels/flow/a"), Some(at(10, 10)));
    assert_eq!(p.value("/labels/flow/a"), Some(at(10, 13)));
    assert_eq!(p.value("/labels/flow/a/0"), Some(at(10, 14)));
    assert_eq!(p.value("/labels/flow/a/1"), Some(at(10, 17)));
    assert_eq!(p.key("/labels/flow/a/1/b"), Some(at(10, 18)));
    assert_eq!(p.value("/labels/flow/a/1/b"), Some(at(10, 21)));

    let doc = yaml("a: &anchor {\n  b: 1}\nc: !!seq [\n  2]\nd: &x\n  e: 3\n");
    assert_eq!(
        doc.positions.value("/a"),
        Some(at(1, 12)),
        "the brace, not the anchor"
    );
    assert_eq!(doc.positions.value("/c"), Some(at(3, 10)));
    assert_eq!(
        doc.positions.value("/d"),
        Some(at(6, 3)),
        "block: the first key"
    );
}

pub(super) const SAMPLE_JSON: &str = r#"{
  "id": "s-001",
  "labels": {
    "requirements": [
      {"title": "Export", "source_messages": [0, 2]},
      {
        "title": "Login",
        "source_messages": [3, 5]
      }
    ]
  }
}
"#;

#[test]
fn json_positions_nested() {
    let doc = parse_json(SAMPLE_JSON).unwrap();
    let expected: Value = serde_json::from_str(SAMPLE_JSON).unwrap();
    assert_eq!(doc.value, expected);
    let p = &doc.positions;
    assert_eq!(p.value(""), Some(at(1, 1)));
    assert_eq!(p.key("/id"), Some(at(2, 3)));
    assert_eq!(p.value("/id"), Some(at(2, 9)));
    assert_eq!(p.value("/labels"), Some(at(3, 13)));
    assert_eq!(p.value("/labels/requirements/0"), Some(at(5, 7)));
    assert_eq!(p.key("/labels/requirements/0/title"), Some(at(5, 8)));
    assert_eq!(p.value("/labels/requirements/0/title"), Some(at(5, 17)));
    assert_eq!(
        p.value("/labels/requirements/0/source_messages/1"),
        Some(at(5, 50))
    );
    assert_eq!(p.value("/labels/requirements/1"), Some(at(6, 7)));
    assert_eq!(
        p.key("/labels/requirements/1/source_messages"),
        Some(at(8, 9))
    );
    assert_eq!(
        p.value("/labels/requirements/1/source_messages"),
        Some(at(8, 28))
    );
    assert_eq!(
        p.value("/labels/requirements/1/source_messages/0"),
        Some(at(8, 29))
    );
    assert_eq!(
        p.value("/labels/requirements/1/source_messages/1"),
        Some(at(8, 32))
    );
    assert_eq!(p.key("/labels/requirements/1/source_messages/1"), None);
}

#[test]
fn json_literals_and_escapes() {
    let text = "[true, null, -1.5e3, \"a\\\"b\", {\"k\\\"\": false}]";
    let p = json_positions(text);
    assert_eq!(p.value("/0"), Some(at(1, 2)));
    assert_eq!(p.value("/1"), Some(at(1, 8)));
    assert_eq!(p.value("/2"), Some(at(1, 14)));
    assert_eq!(p.value("/3"), Some(at(1, 22)));
    assert_eq!(p.value("/4"), Some(at(1, 30)));
    assert_eq!(p.key("/4/k\""), Some(at(1, 31)));
    assert_eq!(p.value("/4/k\""), Some(at(1, 38)));
    assert_eq!(p.value("/5"), None);
    let p = json_positions("{\"a\": 1, \"a\": [2]}");
    assert_eq!(
        p.value("/a"),
        Some(at(1, 15)),
        "the last duplicate wins, as in serde_json"
    );
    assert_eq!(p.value("/a/0"), Some(at(1, 16)));
}

#[test]
fn nearest_falls_back() {
    let doc = yaml(SAMPLE_YAML);
    let p = &doc.positions;
    assert_eq!(
        p.nearest("/labels/requirements/1/title"),
        at(6, 7),
        "key first"
    );
    assert_eq!(
        p.nearest("/labels/requirements/1/source_messages/0"),
        at(8, 11)
    );
    assert_eq!(
        p.nearest("/labels/requirements/1/missing"),
        at(6, 7),
        "ancestor"
    );
    assert_eq!(p.nearest("/labels/requirements/7/x/y"), at(4, 5));
    assert_eq!(p.nearest("/nope"), at(1, 1), "the root");
    assert_eq!(Positions::default().nearest("/a/b"), at(1, 1));
    assert_eq!(Positions::default().nearest(""), at(1, 1));
}

fn scalar(text: &str) -> Value {
    yaml(&format!("v: {text}\n"))["v"].take()
}

impl std::ops::Index<&str> for Document {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        &self.value[key]
    }
}

impl std::ops::IndexMut<&str> for Document {
    fn index_mut(&mut self, key: &str) -> &mut Value {
        &mut self.value[key]
    }
}

#[test]
fn scalar_resolution_table() {
    let table = [
        ("~", json!(null)),
        ("null", json!(null)),
        ("Null", json!(null)),
        ("NULL", json!(null)),
        ("", json!(null)),
        ("nULL", json!("nULL")),
        ("true", json!(true)),
        ("True", json!(true)),
        ("TRUE", json!(true)),
        ("false", json!(false)),
        ("FALSE", json!(false)),
        ("yes", json!("yes")),
        ("on", json!("on")),
        ("\"true\"", json!("true")),
        ("'null'", json!("null")),
        ("\"12\"", json!("12")),
        ("42", json!(42)),
        ("-17", json!(-17)),
        ("+5", json!(5)),
        ("0123", json!(123)),
        ("0o17", json!(15)),
        ("0x1F", json!(31)),
        ("0xff", json!(255)),
        (
            "18446744073709551615",
            json!(18_446_744_073_709_551_615_u64),
        ),
        ("99999999999999999999", json!(1e20)),
        ("1e3", json!(1000.0)),
        ("-.5", json!(-0.5)),
        (".5", json!(0.5)),
        ("1.", json!(1.0)),
        ("3.25", json!(3.25)),
        ("+1.5E-2", json!(0.015)),
        ("1.2.3", json!("1.2.3")),
        ("0x", json!("0x")),
        ("0o8", json!("0o8")),
        ("1e", json!("1e")),
        ("12abc", json!("12abc")),
        ("inf", json!("inf")),
        ("nan", json!("nan")),
        ("1_000", json!("1_000")),
        ("!!str 12", json!("12")),
        ("!!str true", json!("true")),
        ("!!int \"42\"", json!(42)),
        ("!!float 1", json!(1.0)),
        ("!!bool 'false'", json!(false)),
        ("!!null ''", json!(null)),
        ("!custom 12", json!("12")),
        ("! 12", json!("12")),
        ("|\n  12\n", json!("12\n")),
        (">-\n  true\n", json!("true")),
    ];
    for (text, expected) in table {
        assert_eq!(scalar(text), expected, "scalar {text:?}");
    }
}

#[test]
fn non_finite_and_invalid_tagged_scalars_are_errors() {
    for text in [
        ".inf",
        "-.inf",
        "+.INF",
        ".Inf",
        ".nan",
        ".NaN",
        "!!float .inf",
        "1e999",
    ] {
        let error = yaml_err(&format!("a: 1\nb: {text}\n"));
        assert_eq!(error.position, at(2, 4), "{text}");
        assert!(error.message.contains("not a finite number"), "{error}");
    }
    let error = yaml_err("a: !!int abc\n");
    assert_eq!(
        (error.position, error.message.as_str()),
        (at(1, 4), "`abc` is not a valid !!int")
    );
    assert!(yaml_err("a: !!bool yes\n").message.contains("!!bool"));
    assert!(yaml_err("a: !!null x\n").message.contains("!!null"));
}

#[test]
fn non_string_keys_become_strings() {
    let doc = yaml("1: a\ntrue: b\n~: c\n0x10: d\n\"q\": e\n");
    assert_eq!(
        doc.value,
        json!({"1": "a", "true": "b", "null": "c", "16": "d", "q": "e"})
    );
    assert_eq!(doc.positions.key("/16"), Some(at(4, 1)));
    let error = yaml_err("a: 1\n? [x, y]\n: 2\n");
    assert_eq!(error.position, at(2, 3));
    assert!(error.message.contains("cannot be used as a key"), "{error}");
    let error = yaml_err("a: 1\n{x: 1}: 2\n");
    assert_eq!(error.position.line, 2);
    let error = yaml_err("a: &m {x: 1}\n*m : 2\n");
    assert_eq!(error.position, at(2, 1));
}

pub(super) const ANCHORS: &str = "\
base: &base
  lang: en
  tags: [a, b]
copy: *base
list:
  - &item {x: 1}
  - *item
merged:
  <<: *base
  lang: de
multi:
  <<: [*item, *base]
  x: 2
inline:
  <<: {k: v}
";

#[test]
fn anchors_and_aliases() {
    let doc = yaml(ANCHORS);
    assert_eq!(doc.value["copy"], json!({"lang": "en", "tags": ["a", "b"]}));
    assert_eq!(doc.value["list"], json!([{"x": 1}, {"x": 1}]));
    let p = &doc.positions;
    assert_eq!(p.value("/copy"), Some(at(4, 7)), "the alias");
    assert_eq!(p.nearest("/copy/tags/1"), at(4, 7));
    assert_eq!(p.value("/list/1"), Some(at(7, 5)));
    assert_eq!(p.value("/base/tags/1"), Some(at(3, 13)));
    let error = yaml_err("a: [*x]\n");
    assert_eq!(error.position.line, 1);
    let error = yaml_err("a: &x [1, *x]\n");
    assert_eq!(error.position, at(1, 11));
}

#[test]
fn merge_keys() {
    let doc = yaml(ANCHORS);
    assert_eq!(
        doc.value["merged"],
        json!({"lang": "de", "tags": ["a", "b"]})
    );
    assert_eq!(
        doc.value["multi"],
        json!({"x": 2, "lang": "en", "tags": ["a", "b"]})
    );
    assert_eq!(doc.value["inline"], json!({"k": "v"}));
    let p = &doc.positions;
    assert_eq!(p.key("/merged/lang"), Some(at(10, 3)), "explicit key wins");
    assert_eq!(
        p.value("/merged/tags"),
        Some(at(9, 7)),
        "merged: where it was merged"
    );
    assert_eq!(p.value("/multi/x"), Some(at(13, 6)));
    assert_eq!(p.value("/multi/lang"), Some(at(12, 15)));
    assert_eq!(p.value("/merged/<<"), None);
    let error = yaml_err("a: &a [1]\nb:\n  <<: *a\n");
    assert_eq!(error.position, at(3, 7));
    assert!(error.message.contains("merge key"), "{error}");
    assert_eq!(
        yaml("a: {\"<<\": 1}\n").value,
        json!({"a": {"<<": 1}}),
        "quoted: a plain key"
    );
}

#[test]
fn duplicate_keys() {
    let error = yaml_err("id: a\ntitle: x\nid: b\n");
    assert_eq!(error.position, at(3, 1));
    assert_eq!(error.message, "duplicate key `id` (first at line 1)");
    let error = yaml_err("a:\n  b: {c: 1,\n    c: 2}\n");
    assert_eq!(error.position, at(3, 5));
    assert_eq!(error.message, "duplicate key `c` (first at line 2)");
    assert!(yaml_err("1: a\n\"1\": b\n")
        .message
        .contains("duplicate key `1`"));

    let error = json_err("{\n  \"id\": 1,\n  \"x\": {\"id\": 2},\n  \"id\": 3\n}");
    assert_eq!(error.position, at(4, 3));
    assert_eq!(error.message, "duplicate key `id` (first at line 2)");
    let error = json_err("{\"a\": 1, \"\\u0061\": 2}");
    assert_eq!(
        (error.position, error.message.as_str()),
        (at(1, 10), "duplicate key `a` (first at line 1)")
    );
    assert!(parse_json("[{\"a\": 1}, {\"a\": 2}]").is_ok());
}

#[test]
fn one_yaml_document_per_file() {
    let error = yaml_err("a: 1\n---\nb: 2\n");
    assert_eq!(error.position, at(2, 1));
    assert_eq!(error.message, "a sample file holds one YAML document");
    assert_eq!(yaml_err("---\na: 1\n---\n").position, at(3, 1));
    assert_eq!(yaml("---\na: 1\n...\n").value, json!({"a": 1}));
    assert_eq!(yaml("").value, Value::Null);
    assert_eq!(yaml("# only a comment\n\n").value, Value::Null);
    assert_eq!(yaml("plain text\n").value, json!("plain text"));
}

#[test]
fn yaml_syntax_errors_have_lines() {
    let error = yaml_err("id: x\nlabels:\n  a: 1\n b: 2\n");
    assert_eq!(error.position.line, 4, "{error:?}");
    let error = yaml_err("id: x\nlabels:\n  a: 1\n   b: 2\n");
    assert_eq!(error.position, at(4, 5), "{error:?}");
    let error = yaml_err("a: [1, 2\nb: 3\nc: 4\n");
    assert!(error.position.line >= 2, "{error:?}");
    let error = yaml_err("a: 1\nb: \"open\n");
    assert!(error.position.line >= 2, "{error:?}");
    let error = yaml_err("a:\n\t- 1\n");
    assert_eq!(error.position.line, 2, "{error:?}");
}

#[test]
fn json_syntax_errors_have_lines() {
    let error = json_err("{\n  \"a\": \"unterminated");
    assert_eq!(error.position, at(2, 20), "its last char");
    assert!(
        error.message.starts_with("EOF while parsing a string"),
        "{error}"
    );
    let error = json_err("{\"a\": \"abc\n}");
    assert_eq!(error.position, at(1, 11), "the newline ending line 1");
    let error = json_err("{\"é\": 1, x}");
    assert_eq!(error.position, at(1, 10), "columns in chars");
    assert_eq!(error.message, "key must be a string");
    let error = json_err("\n\n  [1,\n 2,,]");
    assert_eq!(error.position, at(4, 4));
    assert_eq!(json_err("").position, at(1, 1));
    assert_eq!(json_err("{\"a\": 1}\nx").position, at(2, 1));
}

#[test]
fn offset_lines_shifts_everything() {
    let mut p = json_positions("{\"a\": [1]}");
    p.offset_lines(9);
    assert_eq!(p.value("/a/0"), Some(at(10, 8)));
    assert_eq!(p.key("/a"), Some(at(10, 2)));
    assert_eq!(p.nearest("/a/5"), at(10, 7));
    let mut empty = Positions::default();
    empty.offset_lines(4);
    assert_eq!(empty.nearest("/x"), at(5, 1));
}

#[test]
fn pointer_segments_are_escaped() {
    assert_eq!(escape_pointer_segment("a/b~c"), "a~1b~0c");
    assert_eq!(escape_pointer_segment("~1"), "~01");
    assert_eq!(escape_pointer_segment("plain"), "plain");
    let doc = yaml("\"a/b\": 1\nc~d:\n  - x\n");
    assert_eq!(doc.positions.value("/a~1b"), Some(at(1, 8)));
    assert_eq!(doc.positions.value("/c~0d/0"), Some(at(3, 5)));
    let p = json_positions("{\"x\\/y\": {\"~\": 2}, \"a/b\": 3}");
    assert_eq!(p.value("/x~1y/~0"), Some(at(1, 16)));
    assert_eq!(p.key("/a~1b"), Some(at(1, 20)));
}

#[test]
fn crlf_line_endings() {
    let doc = yaml("a: 1\r\nb:\r\n  - x\r\n");
    assert_eq!(doc.positions.value("/b/0"), Some(at(3, 5)));
    let doc = parse_json("{\r\n  \"a\": [1,\r\n 2]\r\n}").unwrap();
    assert_eq!(doc.positions.value("/a/1"), Some(at(3, 2)));
}

#[test]
fn unicode_shifts_columns_by_chars() {
    let doc = yaml("title: \"héllo wörld\"\nünï: [a, b]\n");
    assert_eq!(doc.positions.value("/ünï/1"), Some(at(2, 10)));
    let doc = yaml("t: 日本語 [x]\nb: {ä: é, c: 1}\n");
    assert_eq!(doc.positions.value("/b/c"), Some(at(2, 14)));
    assert_eq!(
        doc.positions.value("/b"),
        Some(at(2, 4)),
        "flow start found by char index"
    );
    let doc = yaml("😀: x\nü: &a {a: 1}\n");
    assert_eq!(doc.positions.value("/ü"), Some(at(2, 7)));
    let text = "{\"ünï\": [\"日本\", \"x\"],\n \"😀\": 1}";
    let doc = parse_json(text).unwrap();
    assert_eq!(doc.positions.value("/ünï/1"), Some(at(1, 16)));
    assert_eq!(doc.positions.value("/😀"), Some(at(2, 7)));
}

#[test]
fn deep_nesting_is_capped() {
    let deep = "[".repeat(100_000);
    let p = json_positions(&deep);
    assert_eq!(p.value(""), Some(at(1, 1)));
    assert!(p.value(&"/0".repeat(MAX_DEPTH - 1)).is_some());
    assert!(p.value(&"/0".repeat(MAX_DEPTH)).is_none());
    let closed = format!("{}{}, 7]", "[".repeat(2000), "]".repeat(1999));
    assert_eq!(json_positions(&closed).value("/1"), Some(at(1, 4002)));
    assert!(parse_json(&deep).is_err());
    assert!(parse_yaml(&deep).is_err());
    let nested = format!("{}1{}", "[".repeat(600), "]".repeat(600));
    assert_eq!(
        yaml_err(&nested).message,
        "recursion limit exceeded",
        "saphyr's own cap"
    );
}

#[test]
fn alias_expansion_is_bounded() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    assert!(yaml_err(&text).message.contains("aliases copy more than"));
}
