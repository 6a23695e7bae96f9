//! The workspace against copies of the example suites: what a save writes (and nothing
//! else), what it refuses, conflicts, discussion notes, promotion, the queue, progress and
//! drafts.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::{json, Value};

use super::refusal::Refusal;
use super::views::{Order, Show};
use super::{Options, Workspace};
use goldgate_core::kinds::{self, TaskKind};
use goldgate_core::metrics::scoring::DEFAULT_ID_PATTERN;
use goldgate_core::suite::agreement::AgreementBuilder;
use goldgate_core::suite::Suite;

pub(super) fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        match path.is_dir() {
            true => copy(&path, &target),
            false => drop(std::fs::copy(&path, &target).unwrap()),
        }
    }
}

/// A copy of an example suite, opened for `annotator`.
fn open(example: &str, annotator: &str) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(example);
    copy(&root, dir.path());
    let workspace = reopen(dir.path(), annotator, None);
    (dir, workspace)
}

pub(super) fn reopen(dir: &Path, annotator: &str, prefill: Option<PathBuf>) -> Workspace {
    Workspace::open(Options {
        suite: dir.join("suite"),
        annotator: annotator.into(),
        id_pattern: Regex::new(DEFAULT_ID_PATTERN).unwrap(),
        min_kappa: 0.75,
        max_sample_bytes: 16 << 20,
        prefill,
    })
    .unwrap()
}

fn requirement(id: &str, sources: &[i64]) -> Value {
    json!({
        "id": id, "title": "Track orders", "type": "functional", "actor": "customer",
        "action": "see the status of an order", "condition": null,
        "acceptance_criteria": ["The status shows", "It refreshes within 5 minutes"],
        "priority": "must", "source_messages": sources, "rationale": "", "confidence": null,
    })
}

/// The kind [`requirement`]'s items label: the one whose samples are labelled, and whose
/// answers are read, with a list of requirements and nothing else.
fn requirements_kind() -> &'static dyn TaskKind {
    *kinds::ALL
        .iter()
        .find(|k| k.label_keys() == ["requirements"] && k.answer_keys() == ["requirements"])
        .expect("a kind labelled with requirements alone")
}

/// The first sample of [`requirements_kind`] that `w`'s annotator has not labelled.
fn unlabelled_requirements(w: &Workspace) -> String {
    unlabelled(w, requirements_kind().name())
}

/// The first sample, of any kind, that `w`'s annotator has not labelled.
fn first_unlabelled(w: &Workspace) -> String {
    w.queue(Order::Suite, Show::Todo, 1, 1).items[0].id.clone()
}

fn path_of(w: &Workspace, id: &str) -> PathBuf {
    w.entries[w.index(id).unwrap()].path.clone()
}

pub(super) fn fingerprint(w: &mut Workspace, id: &str) -> String {
    let index = w.index(id).unwrap();
    w.refresh(index).unwrap().fingerprint.clone()
}

/// The first sample of `kind` that `w`'s annotator has not labelled.
pub(super) fn unlabelled(w: &Workspace, kind: &str) -> String {
    let page = w.queue(Order::Suite, Show::Todo, 1, 200);
    page.items
        .iter()
        .find(|i| i.kind == kind)
        .unwrap()
        .id
        .clone()
}

#[test]
fn a_save_adds_the_annotators_entry_and_leaves_every_other_byte() {
    let (_dir, mut w) = open("requirements", "carol");
    let id = unlabelled_requirements(&w);
    let path = path_of(&w, &id);
    let before = std::fs::read_to_string(&path).unwrap();
    let fp = fingerprint(&mut w, &id);
    let sent = json!({"requirements": [requirement("REQ-001", &[1, 0])], "annotator": "mallory"});
    w.save_annotation(&id, &fp, &sent).unwrap();
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(
        after.starts_with(&before),
        "the original text is kept as it was"
    );
    let head = match before.contains("\nannotations:") {
        true => "",
        false => "annotations:\n",
    };
    assert_eq!(
        after[before.len()..].strip_prefix(head).unwrap(),
        "  - annotator: carol\n    requirements:\n      - id: REQ-001\n        title: Track orders\n        type: functional\n        actor: customer\n        action: see the status of an order\n        acceptance_criteria:\n          - The status shows\n          - It refreshes within 5 minutes\n        priority: must\n        source_messages: [1, 0]\n"
    );
    // Read back: the sample now has the annotation, and the queue says so.
    let mut w = reopen(_dir.path(), "carol", None);
    let index = w.index(&id).unwrap();
    let view = w.sample_view(index);
    assert_eq!(view.mine.unwrap()["requirements"][0]["id"], "REQ-001");
    assert_eq!(w.queue(Order::Suite, Show::Labelled, 1, 200).items.len(), 1);
    // Saving again replaces the entry in place.
    let fp = fingerprint(&mut w, &id);
    let sent = json!({"requirements": [requirement("REQ-002", &[1])]});
    w.save_annotation(&id, &fp, &sent).unwrap();
    let again = std::fs::read_to_string(&path).unwrap();
    assert!(
        again.starts_with(&before) && again.contains("REQ-002") && !again.contains("REQ-001\"")
    );
}

#[test]
fn an_annotation_that_breaks_the_labelling_schema_is_refused_with_every_problem() {
    let (_dir, mut w) = open("requirements", "carol");
    let id = unlabelled_requirements(&w);
    let path = path_of(&w, &id);
    let before = std::fs::read(&path).unwrap();
    let fp = fingerprint(&mut w, &id);
    let mut bad = requirement("REQ-1", &[0, 99]);
    bad["acceptance_criteria"] = json!(["only one"]);
    bad["priority"] = json!("urgent");
    let twin = requirement("REQ-002", &[0]);
    let sent = json!({"requirements": [bad, twin.clone(), twin]});
    let Err(Refusal::Invalid { problems, .. }) = w.save_annotation(&id, &fp, &sent) else {
        panic!("saved an invalid annotation")
    };
    let mut got: Vec<(String, String)> = problems
        .into_iter()
        .map(|p| (p.pointer, p.message))
        .collect();
    got.sort();
    let pointers: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/requirements/0/acceptance_criteria",
            "/requirements/0/id",
            "/requirements/0/priority",
            "/requirements/0/source_messages/1",
            "/requirements/2/id",
        ],
        "{got:#?}"
    );
    assert!(
        got[1].1.contains("does not match the id pattern"),
        "{got:#?}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing was written");
}

#[test]
fn a_sample_changed_on_disk_since_the_page_read_it_is_not_overwritten() {
    let (_dir, mut w) = open("requirements", "carol");
    let id = unlabelled_requirements(&w);
    let path = path_of(&w, &id);
    let fp = fingerprint(&mut w, &id);
    let edited = std::fs::read_to_string(&path).unwrap() + "# a colleague's comment\n";
    std::fs::write(&path, &edited).unwrap();
    let sent = json!({"requirements": [requirement("REQ-001", &[0])]});
    assert!(matches!(
        w.save_annotation(&id, &fp, &sent),
        Err(Refusal::Changed(_))
    ));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    // Reading the sample again gives the new fingerprint, and the save goes through.
    let fp = fingerprint(&mut w, &id);
    w.save_annotation(&id, &fp, &sent).unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.contains("# a colleague's comment\n") && saved.contains("annotator: carol"));
}

#[test]
fn progress_shows_the_kappas_of_suite_agreement_and_moves_with_each_save() {
    let (dir, mut w) = open("requirements", "carol");
    let suite_agreement = |dir: &Path| {
        let suite = Suite::open(&dir.join("suite"), 16 << 20).unwrap();
        let mut builder = AgreementBuilder::default();
        suite.each_sample(|s| builder.add(s)).unwrap();
        serde_json::to_value(builder.finish()).unwrap()
    };
    let progress = w.progress();
    assert_eq!(
        serde_json::to_value(&progress.agreement).unwrap(),
        suite_agreement(dir.path())
    );
    let carol = progress
        .annotators
        .iter()
        .find(|a| a.name == "carol")
        .unwrap();
    assert_eq!((carol.labelled, carol.todo), (0, w.entries.len()));
    // carol labels a sample a1 labelled: the pairs gain (a1, carol), as `suite agreement`'s.
    let id = w
        .entries
        .iter()
        .find(|e| {
            e.sample.annotations.len() >= 2 && e.sample.kind.as_str() == requirements_kind().name()
        })
        .unwrap()
        .sample
        .id
        .clone();
    let fp = fingerprint(&mut w, &id);
    w.save_annotation(
        &id,
        &fp,
        &json!({"requirements": [requirement("REQ-001", &[0])]}),
    )
    .unwrap();
    let progress = w.progress();
    assert!(progress.agreement.pairs.iter().any(|p| p.b == "carol"));
    assert_eq!(
        serde_json::to_value(&progress.agreement).unwrap(),
        suite_agreement(dir.path())
    );
    w.skipped.insert(first_unlabelled(&w));
    let carol = w
        .progress()
        .annotators
        .into_iter()
        .find(|a| a.name == "carol")
        .unwrap();
    assert_eq!(
        (carol.labelled, carol.skipped, carol.todo),
        (1, 1, w.entries.len() - 2)
    );
}

#[test]
fn the_queue_pages_filters_and_puts_the_most_disagreed_samples_first() {
    let (_dir, w) = open("requirements", "a1");
    let all = w.queue(Order::Suite, Show::All, 1, 7);
    assert_eq!(
        (all.total, all.pages, all.items.len()),
        (w.entries.len(), w.entries.len().div_ceil(7), 7)
    );
    let last = w.queue(Order::Suite, Show::All, 99, 7);
    assert_eq!(
        last.page, last.pages,
        "a page past the end is the last page"
    );
    let ordered = w.queue(Order::Disagreement, Show::All, 1, 200).items;
    let values: Vec<f64> = ordered.iter().map_while(|i| i.disagreement).collect();
    assert!(
        values.len() >= 2 && values.windows(2).all(|p| p[0] >= p[1]),
        "{values:?}"
    );
    assert!(ordered[values.len()..]
        .iter()
        .all(|i| i.disagreement.is_none()));
    let todo = w.queue(Order::Todo, Show::All, 1, 200).items;
    assert_eq!(todo[0].status, "todo");
    assert_eq!(todo.last().unwrap().status, "labelled");
}

#[test]
fn discussion_notes_are_set_replaced_and_removed() {
    let (_dir, mut w) = open("requirements", "carol");
    let id = unlabelled_requirements(&w);
    let path = path_of(&w, &id);
    let before = std::fs::read_to_string(&path).unwrap();
    let fp = fingerprint(&mut w, &id);
    w.set_discussion(&id, &fp, "Is this what the customer meant?")
        .unwrap();
    let fp = fingerprint(&mut w, &id);
    w.set_discussion(&id, &fp, "<script>alert(1)</script>")
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        &text[before.len()..],
        "discussion:\n  - annotator: carol\n    note: \"<script>alert(1)</script>\"\n"
    );
    assert_eq!(
        w.queue(Order::Suite, Show::Discussion, 1, 200).items[0].id,
        id
    );
    let fp = fingerprint(&mut w, &id);
    w.set_discussion(&id, &fp, "  ").unwrap();
    assert!(w
        .queue(Order::Suite, Show::Discussion, 1, 200)
        .items
        .is_empty());
}

/// The first sample of [`requirements_kind`] two or more annotators labelled.
fn annotated_by_two(w: &Workspace) -> usize {
    w.entries
        .iter()
        .position(|e| {
            e.sample.annotations.len() >= 2 && e.sample.kind.as_str() == requirements_kind().name()
        })
        .unwrap()
}

#[test]
fn promotion_writes_the_gold_labels_and_who_promoted_them_from_whom() {
    let (dir, mut w) = open("requirements", "lead");
    let index = annotated_by_two(&w);
    let id = w.entries[index].sample.id.clone();
    let a1 = serde_json::to_value(&w.entries[index].sample.annotations[0]).unwrap();
    let name = a1["annotator"].as_str().unwrap().to_string();
    let fp = fingerprint(&mut w, &id);
    let unknown = w.promote(
        &id,
        &fp,
        &["nobody".into()],
        &a1,
        "2026-11-26T10:00:00Z".into(),
    );
    assert!(matches!(unknown, Err(Refusal::BadRequest(_))));
    w.promote(
        &id,
        &fp,
        std::slice::from_ref(&name),
        &a1,
        "2026-11-26T10:00:00Z".into(),
    )
    .unwrap();
    let w = reopen(dir.path(), "lead", None);
    let sample = &w.entries[w.index(&id).unwrap()].sample;
    assert_eq!(sample.labels, sample.annotations[0].labels);
    let review = sample.review.as_ref().unwrap();
    assert_eq!(
        (review.promoted_by.as_str(), review.from.clone()),
        ("lead", vec![name])
    );
}

#[test]
fn a_promotion_holds_only_items_of_the_annotators_it_names() {
    let (dir, mut w) = open("requirements", "lead");
    let index = annotated_by_two(&w);
    let id = w.entries[index].sample.id.clone();
    let path = path_of(&w, &id);
    let before = std::fs::read_to_string(&path).unwrap();
    let a1 = serde_json::to_value(&w.entries[index].sample.annotations[0]).unwrap();
    let name = a1["annotator"].as_str().unwrap().to_string();
    let fp = fingerprint(&mut w, &id);
    let at = || "2026-11-26T10:00:00Z".to_string();
    // An item no annotator wrote, next to a1's own items.
    let mut forged = a1.clone();
    let items = forged["requirements"].as_array_mut().unwrap();
    items.push(requirement("REQ-999", &[0]));
    let pushed = items.len() - 1;
    let refused = w.promote(&id, &fp, std::slice::from_ref(&name), &forged, at());
    let Err(Refusal::Invalid { problems, .. }) = &refused else {
        panic!("{refused:?}");
    };
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].pointer, format!("/requirements/{pushed}"));
    assert!(problems[0].message.contains(&name), "{problems:?}");
    // One of a1's items with a field changed is not a1's item either.
    let mut edited = a1.clone();
    edited["requirements"][0]["title"] = json!("Something a1 never wrote");
    let refused = w.promote(&id, &fp, std::slice::from_ref(&name), &edited, at());
    assert!(
        matches!(&refused, Err(Refusal::Invalid { problems, .. }) if problems[0].pointer == "/requirements/0"),
        "{refused:?}"
    );
    // Items of an annotator the promotion does not name are refused too.
    let other = w.entries[index].sample.annotations[1].annotator.clone();
    let a2 = serde_json::to_value(&w.entries[index].sample.annotations[1]).unwrap();
    let mut mixed = a1.clone();
    mixed["requirements"] = a2["requirements"].clone();
    if a2["requirements"] != a1["requirements"] {
        let refused = w.promote(&id, &fp, std::slice::from_ref(&name), &mixed, at());
        assert!(
            matches!(refused, Err(Refusal::Invalid { .. })),
            "{refused:?}"
        );
        w.promote(&id, &fp, &[name.clone(), other], &mixed, at())
            .unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap() == before,
        a2["requirements"] == a1["requirements"],
        "only the promotion naming both annotators was written"
    );
    let _ = dir;
}

#[cfg(unix)]
#[test]
fn a_sample_file_replaced_by_a_link_out_of_the_suite_is_neither_read_nor_written() {
    let (dir, mut w) = open("requirements", "carol");
    let id = unlabelled_requirements(&w);
    let path = path_of(&w, &id);
    let fp = fingerprint(&mut w, &id);
    // While the server runs, the sample file becomes a link to a file outside the suite
    // with the very same text (so the fingerprint the page holds still matches).
    let outside = dir.path().join("outside.yaml");
    std::fs::copy(&path, &outside).unwrap();
    let original = std::fs::read_to_string(&outside).unwrap();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&outside, &path).unwrap();
    let sent = json!({"requirements": [requirement("REQ-001", &[1])]});
    let refused = w.save_annotation(&id, &fp, &sent);
    assert!(
        matches!(&refused, Err(Refusal::NotInSuite(m)) if m.contains("outside the suite")),
        "{refused:?}"
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), original);
    assert!(std::fs::symlink_metadata(&path)
        .unwrap()
        .file_type()
        .is_symlink());
    let index = w.index(&id).unwrap();
    let read = w.refresh(index).map(|_| ());
    assert!(matches!(read, Err(Refusal::NotInSuite(_))), "{read:?}");
    // A FIFO in its place is refused too, without blocking on it.
    std::fs::remove_file(&path).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    let refused = w.save_annotation(&id, &fp, &sent);
    assert!(
        matches!(&refused, Err(Refusal::NotInSuite(m)) if m.contains("no longer a regular file")),
        "{refused:?}"
    );
}

#[test]
fn samples_of_a_text_and_json_lines_samples_are_annotated_in_place() {
    let (dir, mut w) = open("events", "carol");
    let index = 0;
    let id = w.entries[index].sample.id.clone();
    let text = w.entries[index].sample.text.clone().unwrap();
    let key = kinds::of(w.entries[index].sample.kind).label_keys()[0];
    let item = w.entries[index].sample.labels.to_json_of(key)[0].clone();
    let fp = fingerprint(&mut w, &id);
    w.save_annotation(&id, &fp, &json!({ key: [item] }))
        .unwrap();
    let w2 = reopen(dir.path(), "carol", None);
    assert_eq!(w2.entries[index].sample.annotations[0].labels.len(key), 1);
    assert!(!text.is_empty());

    // A JSONL suite: only the sample's line changes.
    let jsonl = dir.path().join("suite").join("more.jsonl");
    let kind = requirements_kind().name();
    let line = |id: &str| {
        format!(
            r#"{{"id":"{id}","kind":"{kind}","conversation":[{{"role":"user","content":"Customers track orders."}}],"labels":{{}}}}"#
        )
    };
    std::fs::write(&jsonl, format!("{}\r\n{}\r\n", line("j-1"), line("j-2"))).unwrap();
    let mut w = reopen(dir.path(), "carol", None);
    // The fingerprint taken when the suite was opened (what the page is sent) is the one a
    // save checks against the file: a CRLF line ending is not part of it.
    let fp = w.entries[w.index("j-2").unwrap()].fingerprint.clone();
    w.save_annotation(
        "j-2",
        &fp,
        &json!({"requirements": [requirement("REQ-001", &[0])]}),
    )
    .unwrap();
    let saved = std::fs::read_to_string(&jsonl).unwrap();
    assert_eq!(saved.matches("\r\n").count(), 2, "{saved}");
    let lines: Vec<String> = saved.lines().map(String::from).collect();
    assert_eq!(lines[0], line("j-1"));
    assert!(
        lines[1].starts_with(&line("j-2")[..line("j-2").len() - 1])
            && lines[1].contains(r#""annotations":[{"annotator":"carol""#),
        "{}",
        lines[1]
    );
}

#[test]
fn prefill_turns_a_run_files_answers_into_drafts() {
    let (dir, _) = open("requirements", "carol");
    let run = dir.path().join("answers").join("main.jsonl");
    let w = reopen(dir.path(), "carol", Some(run));
    let id = unlabelled_requirements(&w);
    let view = w.sample_view(w.index(&id).unwrap());
    let draft = view.draft.unwrap();
    assert!(draft.problem.is_none(), "{draft:?}");
    assert!(!draft.labels["requirements"].as_array().unwrap().is_empty());
    assert!(w
        .queue(Order::Suite, Show::All, 1, 200)
        .items
        .iter()
        .all(|i| i.has_draft));
    // An answer that holds none of the kind's keys says so.
    let sample = &w.entries[w.index(&id).unwrap()].sample;
    let odd = super::prefill::draft(sample, "run.jsonl", r#"{"extracted_requirements": []}"#);
    let expected = format!(
        "the answer holds none of the keys {} reads (requirements); found: extracted_requirements",
        requirements_kind().name()
    );
    assert_eq!(odd.problem.as_deref(), Some(expected.as_str()));
}

#[test]
fn the_queue_and_progress_see_what_another_annotators_server_saved() {
    let (dir, mut carol) = open("requirements", "carol");
    let mut dave = reopen(dir.path(), "dave", None);
    let id = unlabelled_requirements(&dave);
    let fp = fingerprint(&mut dave, &id);
    dave.save_annotation(
        &id,
        &fp,
        &json!({"requirements": [requirement("REQ-001", &[0])]}),
    )
    .unwrap();
    carol.sync();
    let progress = carol.progress();
    let dave_row = progress.annotators.iter().find(|a| a.name == "dave");
    assert_eq!(dave_row.map(|a| a.labelled), Some(1));
    let item = carol
        .queue(Order::Suite, Show::All, 1, 200)
        .items
        .into_iter()
        .find(|i| i.id == id)
        .unwrap();
    assert!(item.annotators.contains(&"dave".to_string()));
}

#[test]
fn a_layout_the_editor_cannot_rewrite_is_refused_as_unsupported_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    // The last value is a block scalar that keeps its trailing blank line: appending after
    // it would change the string, which the read-back check catches.
    let text = format!("id: k-1\nkind: {}\nconversation:\n  - role: user\n    content: Track orders.\nlabels:\n  requirements:\n    - id: REQ-001\n      title: Track\n      type: functional\n      actor: customer\n      action: track orders\n      acceptance_criteria: [a, b]\n      priority: must\n      source_messages: [0]\n      rationale: |+\n        kept\n\n", requirements_kind().name());
    std::fs::write(suite.join("k.yaml"), &text).unwrap();
    let mut w = reopen(dir.path(), "carol", None);
    let fp = fingerprint(&mut w, "k-1");
    let result = w.save_annotation("k-1", &fp, &json!({"requirements": []}));
    assert!(matches!(result, Err(Refusal::Unsupported(_))), "{result:?}");
    assert_eq!(std::fs::read_to_string(suite.join("k.yaml")).unwrap(), text);
}

/// Every script module of the page is in the server's table of embedded files, and the
/// table names no module that is not there: a module left out would be a 404 in the page.
#[test]
fn every_page_module_is_served() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/annotate/assets/js");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".js"))
        .map(|name| format!("/js/{name}"))
        .collect();
    on_disk.sort();
    let mut served: Vec<String> = super::server::ASSETS
        .iter()
        .map(|(path, _, _)| path.to_string())
        .filter(|path| path.starts_with("/js/"))
        .collect();
    served.sort();
    assert_eq!(served, on_disk);
    // index.html asks for every module at once (the page's load waits for the slowest).
    let index = include_str!("assets/index.html");
    for module in on_disk.iter().filter(|m| !m.ends_with("/main.js")) {
        assert!(
            index.contains(&format!(r#"<link rel="modulepreload" href="{module}">"#)),
            "index.html does not preload {module}"
        );
    }
}
