//! Loading and checking suite documents, unit by unit: where a syntax error of a sample
//! or of `suite.toml` is, and how a task sample is read and fingerprinted. (Loading a
//! kind's samples — unknown keys, enums, ids across files, notes and reviews — is tested in
//! its folder, `kinds/<kind>/end_to_end/`.)

use super::{Loaded, Suite};

/// A suite of these files in a fresh directory, loaded document by document.
fn load(files: &[(&str, &str)]) -> Vec<Loaded> {
    let dir = tempfile::tempdir().unwrap();
    crate::testkit::load_documents(dir.path(), files)
}

/// Every problem as `file:line:col: severity: field: message`, file names only.
fn problems(loaded: &[Loaded]) -> Vec<String> {
    crate::testkit::problem_lines(loaded)
}

#[test]
fn yaml_syntax_errors_and_suite_toml_errors_have_their_place() {
    let found = problems(&load(&[(
        "a.yaml",
        &format!(
            "id: [unclosed\nkind: {}\n",
            crate::testkit::test_kind().name()
        ),
    )]));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("a.yaml:"), "{found:#?}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("suite.toml"),
        "name = \"s\"\nprotocl_version = \"1\"\n",
    )
    .unwrap();
    let error = match Suite::open(dir.path(), 16 << 20) {
        Ok(_) => panic!("an unknown key in suite.toml is an error"),
        Err(e) => e.to_string(),
    };
    assert!(error.contains("suite.toml:2"), "{error}");
    assert!(error.contains("protocol_version"), "did-you-mean: {error}");
}

/// The kind whose samples name a task of `suite.toml` and give a text (the one whose
/// `init` writes a part of `suite.toml`), and the label key of its tuples.
fn task_kind() -> (&'static str, &'static str) {
    let kind = crate::kinds::all()
        .map(crate::kinds::of)
        .find(|k| k.init_files().suite.is_some())
        .expect("a kind whose samples name a task");
    (kind.name(), kind.label_keys()[0])
}

#[test]
fn a_task_sample_is_sent_with_its_task_and_text_and_never_its_tags_or_labels() {
    let (kind, key) = task_kind();
    let toml = "[tasks.absa]\nfields = [{ name = \"aspect_term\", role = \"span\" }, { name = \"polarity\", role = \"label\", values = [\"positive\", \"negative\"] }]\n";
    let sample = format!("id: rv-1\nkind: {kind}\ntask: absa\ntext: Nice screen.\ntags: [explicit, explicit, short]\nlabels:\n  {key}:\n    - {{aspect_term: screen, polarity: positive, start: 5, end: 11}}\n");
    let loaded = load(&[("suite.toml", toml), ("rv-1.yaml", &sample)]);
    assert_eq!(problems(&loaded), Vec::<String>::new());
    let s = loaded[0].sample.as_ref().unwrap();
    assert_eq!(s.tags, ["explicit", "short"], "a repeated tag counts once");
    assert_eq!(s.task.as_ref().unwrap().name, "absa");
    assert_eq!(
        s.request(),
        serde_json::json!({"id": "rv-1", "kind": kind, "task": "absa", "text": "Nice screen."})
    );
}

#[test]
fn the_suite_fingerprint_covers_the_task_definitions() {
    let (kind, key) = task_kind();
    let sample = format!("{{\"id\": \"a\", \"kind\": \"{kind}\", \"task\": \"t\", \"text\": \"x y\", \"labels\": {{\"{key}\": []}}}}\n");
    let fingerprint = |toml: &str| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("suite.toml"), toml).unwrap();
        std::fs::write(dir.path().join("s.jsonl"), &sample).unwrap();
        Suite::open(dir.path(), 1 << 20)
            .unwrap()
            .each_sample(|_| ())
            .unwrap()
    };
    let a = fingerprint("[tasks.t]\nfields = [{ name = \"s\", role = \"span\" }]\n");
    let same =
        fingerprint("# a comment\n[tasks.t]\nfields = [ { name = \"s\",  role = \"span\" } ]\n");
    let other = fingerprint(
        "[tasks.t]\nfields = [{ name = \"s\", role = \"span\" }]\nschema = \"syntax_only\"\n",
    );
    assert_eq!(a, same, "layout and comments do not change what is scored");
    assert_ne!(a, other);
}
