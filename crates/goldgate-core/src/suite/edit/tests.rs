use serde_json::json;

use super::*;

/// Edit and write in one step, as a caller does when it checks nothing in between (the
/// suite is the file's directory).
fn save(
    path: &Path,
    line: Option<usize>,
    expected: Option<&str>,
    change: impl FnOnce(&str, Format, Option<usize>) -> Result<String>,
) -> Result<String> {
    edit_file(path.parent().unwrap(), path, line, expected, change)?.write()
}

/// The common prefix and suffix lengths of two texts.
pub(super) fn common(before: &str, after: &str) -> (usize, usize) {
    let prefix = before
        .bytes()
        .zip(after.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = before[prefix..]
        .bytes()
        .rev()
        .zip(after[prefix..].bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (prefix, suffix)
}

/// The changed middle of `after` against `before` (common prefix and suffix removed).
fn changed<'a>(before: &'a str, after: &'a str) -> (&'a str, &'a str) {
    let (prefix, suffix) = common(before, after);
    (
        &before[prefix..before.len() - suffix],
        &after[prefix..after.len() - suffix],
    )
}

fn annotation(name: &str) -> Value {
    json!({"annotator": name, "requirements": [{"id": "REQ-001", "title": "no", "type": "functional",
        "actor": "1.0", "action": "say: \"hi\" # not a comment", "source_messages": [0, 2],
        "confidence": 0.5, "condition": null, "acceptance_criteria": []}]})
}

const YAML: &str = "\
# a sample
id: s-1   # the id
kind: any-kind
conversation:
  - role: user
    content: hi
labels: {}
annotations:
  - annotator: a1   # first
    requirements: []
  # between
  - annotator: a2
    requirements: []

# the end
";

#[test]
fn yaml_replace_keeps_comments_around_the_item() {
    let new = json!({"annotator": "a1", "requirements": [], "note": "yes"});
    let out = upsert_annotation(YAML, Format::Yaml, None, &new).unwrap();
    let (old, middle) = changed(YAML, &out);
    // The replaced item is the whole middle (its own comment goes with it).
    assert_eq!(old, "   # first\n    requirements: []");
    assert_eq!(middle, "\n    requirements: []\n    note: \"yes\"");
    assert!(out.contains("# between\n  - annotator: a2"));
    assert_eq!(
        upsert_annotation(&out, Format::Yaml, None, &new).unwrap(),
        out
    );
}

#[test]
fn yaml_append_goes_after_the_last_item_before_trailing_comments() {
    let out = upsert_annotation(YAML, Format::Yaml, None, &annotation("a3")).unwrap();
    assert!(out.ends_with("    requirements: []\n  - annotator: a3\n    requirements:\n      - id: REQ-001\n        title: \"no\"\n        type: functional\n        actor: \"1.0\"\n        action: \"say: \\\"hi\\\" # not a comment\"\n        source_messages: [0, 2]\n        confidence: 0.5\n        condition: null\n        acceptance_criteria: []\n\n# the end\n"), "{out}");
    let value = parse_yaml(&out).unwrap().value;
    assert_eq!(value["annotations"][2], annotation("a3"));
}

#[test]
fn yaml_creates_annotations_last_and_keeps_crlf_and_a_missing_final_newline() {
    let text = "id: s-1\r\nlabels:\r\n    requirements: []\r\n# tail";
    let out = upsert_annotation(text, Format::Yaml, None, &json!({"annotator": "b"})).unwrap();
    assert_eq!(
        out,
        "id: s-1\r\nlabels:\r\n    requirements: []\r\nannotations:\r\n  - annotator: b\r\n# tail"
    );
    let out = set_top_level(text, Format::Yaml, None, "labels", &json!({"pii": ["x"]})).unwrap();
    assert_eq!(out, "id: s-1\r\nlabels:\r\n    pii:\r\n      - x\r\n# tail");
}

#[test]
fn json_pretty_file_is_edited_in_its_own_indentation() {
    let text = "{\n    \"id\": \"s\",\n    \"annotations\": [\n        {\"annotator\": \"a1\"},\n        {\"annotator\": \"a2\"}\n    ]\n}\n";
    let out = upsert_annotation(
        text,
        Format::Json,
        None,
        &json!({"annotator": "a2", "x": [1]}),
    )
    .unwrap();
    assert_eq!(out, "{\n    \"id\": \"s\",\n    \"annotations\": [\n        {\"annotator\": \"a1\"},\n        {\n            \"annotator\": \"a2\",\n            \"x\": [\n                1\n            ]\n        }\n    ]\n}\n");
    let out = set_top_level(text, Format::Json, None, "labels", &json!({})).unwrap();
    assert!(out.ends_with("    ],\n    \"labels\": {}\n}\n"), "{out}");
}

#[test]
fn jsonl_middle_line_only_changes() {
    let text = "{\"id\": \"a\"}\n{\"id\": \"b\", \"annotations\": [{\"annotator\": \"x\"}]}\r\n\n{\"id\": \"c\"}";
    let out = upsert_annotation(
        text,
        Format::Jsonl,
        Some(2),
        &json!({"annotator": "y", "t": "a\nb"}),
    )
    .unwrap();
    assert_eq!(out, "{\"id\": \"a\"}\n{\"id\": \"b\", \"annotations\": [{\"annotator\": \"x\"}, {\"annotator\":\"y\",\"t\":\"a\\nb\"}]}\r\n\n{\"id\": \"c\"}");
    let out = upsert_annotation(text, Format::Jsonl, Some(4), &json!({"annotator": "y"})).unwrap();
    assert!(
        out.ends_with("{\"id\": \"c\", \"annotations\": [{\"annotator\":\"y\"}]}"),
        "{out}"
    );
    assert_eq!(
        upsert_annotation(text, Format::Jsonl, Some(3), &json!({"annotator": "y"})),
        Err(EditError::NoLine { line: 3 })
    );
}

#[test]
fn fingerprints_detect_a_changed_sample() {
    let text = "{\"id\": \"a\"}\n{\"id\": \"b\"}\n";
    let seen = fingerprint("{\"id\": \"b\"}");
    assert_eq!(check_unchanged(text, Format::Jsonl, Some(2), &seen), Ok(()));
    let err = check_unchanged(text, Format::Jsonl, Some(1), &seen).unwrap_err();
    assert!(matches!(err, EditError::Changed { .. }));
}

#[test]
fn refusals() {
    let ann = json!({"annotator": "a"});
    type Check = fn(&EditError) -> bool;
    let cases: &[(&str, Check)] = &[
        ("id: [", |e| matches!(e, EditError::Syntax { .. })),
        ("- a\n", |e| matches!(e, EditError::NotMapping)),
        ("annotations: 3\n", |e| {
            matches!(e, EditError::NotList { .. })
        }),
        ("annotations: [{annotator: b}]\n", |e| {
            matches!(e, EditError::Unsupported { .. })
        }),
        ("x: &a\n  annotator: b\nannotations:\n  - *a\n", |e| {
            matches!(e, EditError::Unsupported { .. })
        }),
        ("annotations: !!seq\n  - annotator: b\n", |e| {
            matches!(e, EditError::Unsupported { .. })
        }),
        ("{id: a, annotations: []}\n", |e| {
            matches!(e, EditError::Unsupported { .. })
        }),
        ("id: a\n---\nid: b\n", |e| {
            matches!(e, EditError::Syntax { .. } | EditError::Unsupported { .. })
        }),
    ];
    for (text, ok) in cases {
        let err = upsert_annotation(text, Format::Yaml, None, &ann).unwrap_err();
        assert!(ok(&err), "{text:?}: {err:?}");
    }
    assert_eq!(
        upsert_annotation("id: a\n", Format::Yaml, None, &json!({"x": 1})),
        Err(EditError::Annotation)
    );
}

#[test]
fn hostile_strings_survive_a_yaml_write() {
    let strings = [
        "\"q\" 'q'",
        "back\\slash",
        "# hash",
        "a: b",
        "line\nbreak\r\n",
        "ünï 😀 \u{2028}\u{85}\u{7f}\u{0}",
        "- item",
        "  lead",
        "null",
        "yes",
        "no",
        "1.0",
        "~",
        "",
        "@x",
        "`x`",
        "%x",
        "!x",
        "&x",
        "*x",
        "|",
        ">",
        "[x]",
        "{x}",
    ];
    let value = json!({"annotator": "a", "texts": strings, "hostile key: #": "v", "null": 1});
    let out = upsert_annotation("id: a\n", Format::Yaml, None, &value).unwrap();
    assert_eq!(parse_yaml(&out).unwrap().value["annotations"][0], value);
}

#[test]
fn save_writes_atomically_and_refuses_a_sample_changed_since_it_was_read() {
    let dir = std::env::temp_dir().join(format!("goldgate-edit-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    std::fs::write(&path, "{\"id\":\"a\"}\n{\"id\":\"b\"}\n").unwrap();
    let seen = fingerprint("{\"id\":\"b\"}");
    let ann = json!({"annotator": "x"});
    let upsert = |t: &str, f, l| upsert_annotation(t, f, l, &ann);
    let next = save(&path, Some(2), Some(&seen), upsert).unwrap();
    let written = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        written,
        "{\"id\":\"a\"}\n{\"id\":\"b\",\"annotations\":[{\"annotator\":\"x\"}]}\n"
    );
    assert_eq!(next, fingerprint(written.lines().nth(1).unwrap()));
    let err = save(&path, Some(2), Some(&seen), upsert).unwrap_err();
    assert!(matches!(err, EditError::Changed { .. }), "{err:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_save_keeps_the_files_permissions_and_writes_through_a_link() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.yaml");
    std::fs::write(&real, "id: s-1\nlabels: {}\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.yaml");
    symlink(&real, &link).unwrap();
    save(&link, None, None, |text, format, line| {
        upsert_annotation(text, format, line, &json!({"annotator": "a1"}))
    })
    .unwrap();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    assert!(std::fs::read_to_string(&real)
        .unwrap()
        .contains("annotator: a1"));
}

#[cfg(unix)]
#[test]
fn a_save_waits_for_another_process_saving_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.yaml");
    std::fs::write(&file, "id: s-1\nlabels: {}\n").unwrap();
    let add = |text: &str, format, line| {
        upsert_annotation(text, format, line, &json!({"annotator": "a1"}))
    };
    // A live process holds the file's lock for longer than a save waits.
    let mut holder = std::process::Command::new("sleep")
        .arg("10")
        .spawn()
        .unwrap();
    std::fs::write(lock_path(&file), format!("{}\n", holder.id())).unwrap();
    let refused = save(&file, None, None, add);
    assert!(
        matches!(refused, Err(EditError::Busy { .. })),
        "{refused:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "id: s-1\nlabels: {}\n"
    );
    // Once it is gone, its lock is stale: the save goes through and removes the lock.
    holder.kill().unwrap();
    holder.wait().unwrap();
    save(&file, None, None, add).unwrap();
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("annotator: a1"));
    assert!(!lock_path(&file).exists());
}
