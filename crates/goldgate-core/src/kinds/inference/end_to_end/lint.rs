//! `suite lint` on inference samples: a requirement id used twice among a sample's inferred
//! requirements is an error at the second, as among extraction's requirements (the
//! labelling page refuses to save it through the same rule).

use serde_json::json;

use crate::support::output::{assert_exit, text};
use crate::support::project::goldgate;
use crate::support::TempDir;

fn inferred(id: &str, title: &str) -> serde_json::Value {
    json!({"requirement": {"id": id, "title": title, "type": "security", "actor": "system",
        "action": format!("{title} for every login"), "source_messages": [0], "priority": "must",
        "acceptance_criteria": [format!("{title} is on"), format!("{title} is tested")]},
        "inference_type": "security", "necessity": "necessary"})
}

#[test]
fn an_inferred_requirement_id_used_twice_is_an_error() {
    let dir = TempDir::new("inference-lint");
    std::fs::create_dir_all(dir.0.join("suite")).unwrap();
    let sample = |ids: [&str; 2]| {
        json!({"id": "inf-001", "kind": "inference",
            "conversation": [{"role": "user", "content": "Customers log in to see their accounts."}],
            "requirements": [],
            "labels": {"inferred_requirements": [inferred(ids[0], "Audit log"), inferred(ids[1], "Two factor authentication")]}})
    };
    let write = |ids: [&str; 2]| {
        std::fs::write(dir.0.join("suite/s.jsonl"), format!("{}\n", sample(ids))).unwrap();
    };
    write(["REQ-101", "REQ-102"]);
    assert_exit(
        &goldgate(&dir.0, &["suite", "lint", "suite"], &[]),
        0,
        "distinct ids",
    );
    write(["REQ-101", "REQ-101"]);
    let out = goldgate(&dir.0, &["suite", "lint", "suite"], &[]);
    assert_exit(&out, 2, "a repeated id");
    let said = text(&out.stdout) + &text(&out.stderr);
    assert!(
        said.contains("labels.inferred_requirements[1].requirement.id")
            && said.contains("duplicate requirement id `REQ-101` in this sample"),
        "{said}"
    );
}
