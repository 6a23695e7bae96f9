//! Loading and checking extraction samples through the suite reader: what it finds in one
//! document (and where), and what loading adds across files (formats, line numbers, ids
//! unique across the suite, notes and reviews, JSON lines read the fast way).

use std::path::Path;

use goldgate_core::suite::{Loaded, Suite};

const SAMPLE: &str = "\
id: ext-001
kind: extraction
domain: e-commerce
conversation:
  - role: user
    content: Customers need to track their orders.
labels:
  requirements:
    - id: REQ-001
      title: Track orders
      type: functional
      actor: customer
      action: track their orders
      acceptance_criteria: [Order page shows status, Status refreshes]
      priority: must
      source_messages: [0]
";

/// A suite of these files in a fresh directory, loaded document by document.
fn load(files: &[(&str, &str)]) -> Vec<Loaded> {
    let dir = tempfile::tempdir().unwrap();
    goldgate_core::testkit::load_documents(dir.path(), files)
}

/// Every problem as `file:line:col: severity: field: message`, file names only.
fn problems(loaded: &[Loaded]) -> Vec<String> {
    goldgate_core::testkit::problem_lines(loaded)
}

#[test]
fn a_valid_sample_loads_without_problems() {
    let loaded = load(&[("a.yaml", SAMPLE)]);
    assert_eq!(problems(&loaded), Vec::<String>::new());
    let sample = loaded[0].sample.as_ref().unwrap();
    assert_eq!(sample.id, "ext-001");
    assert_eq!(
        sample.labels.to_json_of("requirements")[0]["title"],
        "Track orders"
    );
}

#[test]
fn every_unknown_key_is_listed_at_once_with_did_you_mean() {
    let text = SAMPLE
        .replace("domain:", "domian:")
        .replace("      title:", "      titel:");
    let loaded = load(&[("a.yaml", &text)]);
    let found = problems(&loaded);
    assert!(loaded[0].sample.is_none());
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("a.yaml:3:1: error: domian: unknown field `domian`")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|p| p.contains("labels.requirements[0].titel: unknown field `titel`")),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|p| p.contains("missing field `title`")),
        "{found:#?}"
    );
    let hints: Vec<&str> = loaded[0]
        .problems
        .iter()
        .filter_map(|p| p.hint.as_deref())
        .collect();
    assert!(
        hints.contains(&"did you mean `domain`?") && hints.contains(&"did you mean `title`?"),
        "{hints:?}"
    );
}

#[test]
fn enums_are_checked_after_normalisation_and_indexes_against_the_conversation() {
    let ok = SAMPLE.replace("type: functional", "type: \" Functional \"");
    assert_eq!(problems(&load(&[("a.yaml", &ok)])), Vec::<String>::new());
    let typo = SAMPLE.replace("type: functional", "type: functonal");
    let found = problems(&load(&[("a.yaml", &typo)]));
    assert!(found.iter().any(|p| p.starts_with("a.yaml:11:7: error: labels.requirements[0].type: `functonal` is not a valid requirement type")), "{found:#?}");
    let out_of_range = SAMPLE.replace("source_messages: [0]", "source_messages: [0, 3]");
    let found = problems(&load(&[("a.yaml", &out_of_range)]));
    assert!(
        found.iter().any(|p| p.starts_with("a.yaml:16:28: error: labels.requirements[0].source_messages[1]: source_messages index 3 is out of range")),
        "{found:#?}"
    );
}

#[test]
fn labelling_guide_rules_are_warnings_that_do_not_block_the_sample() {
    let text = SAMPLE.replace(
        "acceptance_criteria: [Order page shows status, Status refreshes]",
        "acceptance_criteria: [Order page shows status]",
    );
    let loaded = load(&[("a.yaml", &text)]);
    assert!(loaded[0].sample.is_some());
    let found = problems(&loaded);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].contains("warning") && found[0].contains("1 acceptance criteria"),
        "{found:#?}"
    );
}

#[test]
fn ids_are_unique_across_files_and_jsonl_problems_have_their_line() {
    let json = serde_json::to_string(&serde_yaml_like(SAMPLE)).unwrap();
    let jsonl = format!(
        "{}\n{{\"id\": \"broken\",\n",
        json.replace("ext-001", "ext-002")
    );
    let loaded = load(&[("a.yaml", SAMPLE), ("b.yaml", SAMPLE), ("c.jsonl", &jsonl)]);
    let found = problems(&loaded);
    assert!(
        found.iter().any(
            |p| p.starts_with("b.yaml:1:1: error: id: duplicate sample id `ext-001`")
                && p.contains("a.yaml")
        ),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|p| p.starts_with("c.jsonl:2:")),
        "the JSONL line is named: {found:#?}"
    );
    assert_eq!(loaded.iter().filter(|l| l.sample.is_some()).count(), 2);
}

/// The sample as a JSON value (JSONL lines are JSON).
fn serde_yaml_like(text: &str) -> serde_json::Value {
    goldgate_core::document::parse_yaml(text).unwrap().value
}

#[test]
fn the_fingerprint_follows_the_bytes_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.yaml"), SAMPLE).unwrap();
    let fingerprint = |root: &Path| {
        let suite = Suite::open(root, 16 << 20).unwrap();
        let mut reader = suite.reader();
        reader.by_ref().for_each(drop);
        reader.fingerprint()
    };
    let before = fingerprint(dir.path());
    assert_eq!(before, fingerprint(dir.path()));
    std::fs::write(dir.path().join("a.yaml"), SAMPLE.replace("must", "should")).unwrap();
    assert_ne!(before, fingerprint(dir.path()));
}

#[test]
fn discussion_notes_and_reviews_are_read_and_checked() {
    let good = format!(
        "{SAMPLE}discussion:\n  - annotator: a2\n    note: Is REQ-001 one requirement or two?\nreview:\n  promoted_by: lead\n  from: [a1, a2]\n  at: 2026-11-26T10:00:00Z\n"
    );
    let loaded = load(&[("a.yaml", &good)]);
    assert_eq!(problems(&loaded), Vec::<String>::new());
    let sample = loaded[0].sample.as_ref().unwrap();
    assert_eq!(sample.discussion[0].annotator, "a2");
    assert_eq!(sample.review.as_ref().unwrap().from, ["a1", "a2"]);
    let request = sample.request();
    assert!(request.get("discussion").is_none() && request.get("review").is_none());

    let bad = format!(
        "{SAMPLE}discussion:\n  - annotator: a2\n    note: ' '\n  - annotator: a2\n    note: again\n    by: x\nreview:\n  promoted_by: ''\n  at: yesterday\n"
    );
    assert_eq!(
        problems(&load(&[("a.yaml", &bad)])),
        [
            "a.yaml:22:5: error: discussion[1].by: unknown field `by`",
            "a.yaml:19:5: error: discussion[0].note: empty discussion note",
            "a.yaml:20:5: error: discussion[1].annotator: annotator `a2` has two discussion notes",
            "a.yaml:24:3: error: review.promoted_by: empty `promoted_by`",
            "a.yaml:25:3: error: review.at: `yesterday` is not an RFC 3339 timestamp",
        ]
    );
}

/// A JSON line read the fast way (straight from its text) is held to what the slow way
/// checks: a label key or a field of an item written twice is an error at its line, never
/// a silent last-one-wins; a valid line loads with its labels read by their kinds.
#[test]
fn a_json_line_with_a_repeated_key_is_refused_and_a_valid_one_loads() {
    // A line of SAMPLE's kind, labelled with a requirement like SAMPLE's.
    let kind = serde_yaml_like(SAMPLE)["kind"].clone();
    let requirement = r#"{"id": "R-1", "title": "T", "type": "functional", "actor": "a", "action": "b", "acceptance_criteria": ["x", "y"], "priority": "must"}"#;
    let line = |labels: &str| {
        format!(
            r#"{{"id": "j-1", "kind": {kind}, "conversation": [{{"role": "user", "content": "c"}}], "labels": {labels}}}"#
        )
    };
    let valid = line(&format!(r#"{{"requirements": [{requirement}]}}"#));
    let loaded = load(&[("a.jsonl", &valid)]);
    assert_eq!(problems(&loaded), Vec::<String>::new());
    let sample = loaded[0].sample.as_ref().unwrap();
    assert_eq!(sample.labels.len("requirements"), 1);
    for labels in [
        format!(r#"{{"requirements": [], "requirements": [{requirement}]}}"#),
        format!(
            r#"{{"requirements": [{}]}}"#,
            requirement.replace(r#""title": "T""#, r#""title": "T", "title": "U""#)
        ),
    ] {
        let loaded = load(&[("a.jsonl", &line(&labels))]);
        let found = problems(&loaded);
        assert!(loaded[0].sample.is_none(), "{labels}: {found:?}");
        assert!(
            found
                .iter()
                .any(|p| p.starts_with("a.jsonl:1:") && p.contains("duplicate")),
            "{labels}: {found:?}"
        );
    }
}
