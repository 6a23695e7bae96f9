//! `goldgate annotate` on a kind it knows only through the registry: the kind the test
//! build registers and lists nowhere.

use serde_json::json;

use super::tests::{fingerprint, reopen, unlabelled};

/// A kind only test builds register (the one the registry does not list) is annotated like any other: its
/// samples are queued, its labels saved under its own key in its own field order, read back
/// by its label shape, and promoted to gold.
#[test]
fn a_kind_registered_by_its_folder_alone_is_annotated_and_promoted() {
    let kind = goldgate_core::kinds::ALL
        .iter()
        .find(|k| !k.listed())
        .expect("the test build registers a kind it does not list");
    let key = kind.label_keys()[0];
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    let sample = format!(
        "id: p-1\nkind: {}\nconversation:\n  - role: user\n    content: alpha and beta\nlabels:\n  {key}: []\n",
        kind.name()
    );
    std::fs::write(suite.join("p-1.yaml"), &sample).unwrap();
    let mut w = reopen(dir.path(), "carol", None);
    assert_eq!(unlabelled(&w, kind.name()), "p-1");
    let fp = fingerprint(&mut w, "p-1");
    w.save_annotation("p-1", &fp, &json!({ key: ["alpha", "beta"] }))
        .unwrap();
    let w = reopen(dir.path(), "carol", None);
    let saved = &w.entries[w.index("p-1").unwrap()].sample.annotations[0];
    assert_eq!(saved.labels.to_json_of(key), json!(["alpha", "beta"]));
    let mut lead = reopen(dir.path(), "lead", None);
    let fp = fingerprint(&mut lead, "p-1");
    lead.promote(
        "p-1",
        &fp,
        &["carol".to_string()],
        &json!({ key: ["alpha", "beta"] }),
        "2026-11-29T10:00:00Z".into(),
    )
    .unwrap();
    let w = reopen(dir.path(), "lead", None);
    let gold = &w.entries[w.index("p-1").unwrap()].sample.labels;
    assert_eq!(gold.to_json_of(key), json!(["alpha", "beta"]));
}
