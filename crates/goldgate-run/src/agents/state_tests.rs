//! Tests of the `srs-agents` state machine: every rule of ReqParse, ReqExplore and
//! ReqClarify, the order of the agents under each ablation, and the document.

use super::*;

fn state(ablation: Ablation, max_iterations: u32) -> State {
    State::new("input".into(), "reference".into(), max_iterations, ablation)
}

fn req(id: &str, content: &str) -> Req {
    Req {
        id: id.into(),
        content: content.into(),
        source_messages: Vec::new(),
    }
}

fn list(s: &State) -> Vec<(String, String)> {
    s.req_list
        .iter()
        .map(|r| (r.id.clone(), r.content.clone()))
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// A state after ReqParse kept FR-01, FR-02, NFR-01 and CON-01.
fn parsed(ablation: Ablation, max_iterations: u32) -> State {
    let mut s = state(ablation, max_iterations);
    s.apply_parse(&json!([
        {"id": "FR-01", "content": "a"},
        {"id": "FR-02", "content": "b"},
        {"id": "NFR-01", "content": "c"},
        {"id": "CON-01", "content": "d"},
    ]))
    .unwrap();
    s
}

#[test]
fn parse_numbers_three_sequences_and_drops_items_without_id_or_content() {
    let mut s = state(Ablation::None, 5);
    assert_eq!(s.next_agent(), Some(Agent::ReqParse));
    let effect = s
        .apply_parse(&json!([
            {"id": "FR-3", "content": " first  "},
            {"id": "nfr_1", "content": "second"},
            {"content": "no id"},
            {"id": "FR-09", "content": ""},
            {"id": "FR-09"},
            {"id": "CON-7", "content": "third", "source_messages": [0, 2, "x", 1.5]},
            {"id": "REQ-1", "content": "other scheme"},
            {"id": "SUG-01", "content": "a suggestion is not parsed"},
            "not an object",
            {"id": "fr-01", "content": "fourth"},
            {"id": 7, "content": "numeric id"},
        ]))
        .unwrap();
    assert_eq!(
        list(&s),
        pairs(&[
            ("FR-01", "first"),
            ("NFR-01", "second"),
            ("CON-01", "third"),
            ("FR-02", "fourth"),
        ])
    );
    assert_eq!(s.req_list[2].source_messages, vec![0, 2]);
    assert_eq!(effect["dropped"].as_array().unwrap().len(), 7, "{effect}");
    assert_eq!(effect["renamed"][0], json!({"from": "FR-3", "to": "FR-01"}));
    assert_eq!(s.next_agent(), Some(Agent::ReqExplore));
    assert_eq!(s.iteration, 0);
}

#[test]
fn parse_reads_a_wrapped_list_and_refuses_what_is_not_one() {
    let mut s = state(Ablation::None, 5);
    s.apply_parse(&json!({"requirements": [{"id": "FR-01", "content": "a"}]}))
        .unwrap();
    assert_eq!(list(&s), pairs(&[("FR-01", "a")]));
    for bad in [
        json!({"id": "FR-01", "content": "a"}),
        json!({"a": [], "b": []}),
        json!("text"),
        json!(3),
        json!([]),
        json!([{"id": "X", "content": "a"}, {"content": "b"}]),
    ] {
        let mut s = state(Ablation::None, 5);
        let before = s.clone();
        assert!(s.apply_parse(&bad).is_err(), "{bad}");
        assert_eq!(s, before, "an unusable answer changes nothing: {bad}");
    }
}

#[test]
fn explore_merges_in_the_previous_order_and_appends_new_ids_continuing_the_numbering() {
    let mut s = parsed(Ablation::None, 5);
    s.frozen.push(req("FR-02", "b"));
    s.removed.push(req("FR-03", "gone"));
    s.removed.push(req("SUG-04", "gone too"));
    let effect = s
        .apply_explore(&json!([
            {"id": "NFR-01", "content": "c refined"},
            {"id": "FR-02", "content": "frozen, changed"},
            {"id": "fr-3", "content": "removed, back"},
            {"id": "SUG-04", "content": "removed suggestion"},
            {"id": "SUG-01", "content": "a suggestion"},
            {"id": "FR-01", "content": "a refined"},
            {"id": "FR-01", "content": "a again"},
            {"id": "FR-10", "content": "new functional"},
            {"id": "NFR-01"},
            {"id": "XYZ-1", "content": "other scheme"},
            {"id": "CON-02", "content": "new constraint"},
        ]))
        .unwrap();
    assert_eq!(
        list(&s),
        pairs(&[
            ("FR-01", "a refined"),
            ("FR-02", "b"),
            ("NFR-01", "c refined"),
            ("CON-01", "d"),
            ("SUG-05", "a suggestion"),
            ("FR-04", "new functional"),
            ("CON-02", "new constraint"),
        ])
    );
    assert_eq!(effect["changed"], json!(["FR-01", "NFR-01"]));
    assert_eq!(effect["discarded"].as_array().unwrap().len(), 3, "{effect}");
    assert_eq!(effect["discarded"][0]["why"], "names a frozen item");
    assert_eq!(effect["discarded"][1]["why"], "names a removed item");
    assert_eq!(
        effect["added"][0],
        json!({"id": "SUG-05", "written": "SUG-01"})
    );
    assert_eq!(effect["dropped"].as_array().unwrap().len(), 3, "{effect}");
    assert_eq!(s.next_agent(), Some(Agent::ReqClarify));
}

#[test]
fn explore_keeps_old_content_and_sources_when_the_answer_has_none() {
    let mut s = state(Ablation::None, 5);
    s.apply_parse(&json!([
        {"id": "FR-01", "content": "a", "source_messages": [1]},
        {"id": "FR-02", "content": "b", "source_messages": [2]},
    ]))
    .unwrap();
    s.apply_explore(&json!([
        {"id": "FR-01", "content": "a2"},
        {"id": "FR-02", "content": "b2", "source_messages": [3]},
    ]))
    .unwrap();
    assert_eq!(list(&s), pairs(&[("FR-01", "a2"), ("FR-02", "b2")]));
    assert_eq!(s.req_list[0].source_messages, vec![1]);
    assert_eq!(s.req_list[1].source_messages, vec![3]);
    // An empty answer changes nothing but is a round all the same.
    let before = s.req_list.clone();
    s.apply_explore(&json!([])).unwrap();
    assert_eq!(s.req_list, before);
    assert!(s.apply_explore(&json!({"x": 1})).is_err());
}

#[test]
fn clarify_removes_minus_two_and_freezes_the_round_maximum() {
    let mut s = parsed(Ablation::None, 5);
    s.apply_explore(&json!([])).unwrap();
    let effect = s
        .apply_clarify(&json!([
            {"id": "FR-01", "score": 1, "reason": "r"},
            {"id": "FR-02", "score": -2, "reason": "r"},
            {"id": "NFR-01", "score": 1.0, "reason": "r"},
            {"id": "CON-01", "score": 0, "reason": "r"},
        ]))
        .unwrap();
    assert_eq!(
        list(&s),
        pairs(&[("FR-01", "a"), ("NFR-01", "c"), ("CON-01", "d")])
    );
    assert_eq!(
        s.frozen,
        vec![req("FR-01", "a"), req("NFR-01", "c")],
        "every item at the round's maximum (+1) is frozen"
    );
    assert_eq!(s.removed, vec![req("FR-02", "b")]);
    assert_eq!(
        s.scores,
        BTreeMap::from([
            ("FR-01".into(), 1),
            ("FR-02".into(), -2),
            ("NFR-01".into(), 1),
            ("CON-01".into(), 0),
        ])
    );
    assert_eq!(effect["frozen"], json!(["FR-01", "NFR-01"]));
    assert_eq!(effect["removed"], json!(["FR-02"]));
    assert_eq!(s.iteration, 1);
    assert_eq!(s.next_agent(), Some(Agent::ReqExplore));
    assert_eq!(
        s.unfrozen().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["CON-01"]
    );
}

#[test]
fn clarify_freezes_nothing_when_the_maximum_is_below_plus_one() {
    let mut s = parsed(Ablation::None, 5);
    s.apply_explore(&json!([])).unwrap();
    s.apply_clarify(&json!([
        {"id": "FR-01", "score": 0},
        {"id": "FR-02", "score": -1},
        {"id": "NFR-01", "score": -2},
    ]))
    .unwrap();
    assert!(s.frozen.is_empty());
    assert_eq!(s.removed, vec![req("NFR-01", "c")]);
    assert_eq!(list(&s).len(), 3);
}

#[test]
fn clarify_ignores_scores_it_cannot_use() {
    let mut s = parsed(Ablation::None, 5);
    s.frozen.push(req("FR-02", "b"));
    s.removed.push(req("FR-09", "gone"));
    s.apply_explore(&json!([])).unwrap();
    let effect = s
        .apply_clarify(&json!([
            {"id": "FR-01", "score": 1.5},
            {"id": "FR-01", "score": "2"},
            {"id": "NFR-01", "score": 3},
            {"id": "NFR-01", "score": -3},
            {"id": "FR-02", "score": -2},
            {"id": "FR-09", "score": 2},
            {"id": "FR-77", "score": 2},
            {"score": 2},
            {"id": "con-1", "score": 2},
            {"id": "CON-01", "score": -2},
            "junk",
        ]))
        .unwrap();
    let why: Vec<&str> = effect["ignored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["why"].as_str().unwrap())
        .collect();
    assert_eq!(
        why,
        [
            "score is not an integer",
            "score is not an integer",
            "score outside -2..+2",
            "score outside -2..+2",
            "names a frozen item",
            "names a removed item",
            "names no item of the list",
            "no id",
            "repeats an id of this answer",
            "no id",
        ]
    );
    assert_eq!(s.scores, BTreeMap::from([("CON-01".into(), 2)]));
    assert_eq!(s.frozen, vec![req("FR-02", "b"), req("CON-01", "d")]);
    assert_eq!(s.removed, vec![req("FR-09", "gone")]);
    // The round counts even when nothing usable was scored.
    s.apply_explore(&json!([])).unwrap();
    s.apply_clarify(&json!([])).unwrap();
    assert_eq!(s.iteration, 2);
}

#[test]
fn frozen_content_survives_later_rounds() {
    let mut s = parsed(Ablation::None, 5);
    s.apply_explore(&json!([{"id": "FR-01", "content": "a v2"}]))
        .unwrap();
    s.apply_clarify(&json!([{"id": "FR-01", "score": 2}, {"id": "FR-02", "score": 1}]))
        .unwrap();
    assert_eq!(s.frozen, vec![req("FR-01", "a v2")]);
    s.apply_explore(&json!([
        {"id": "FR-01", "content": "a v3"},
        {"id": "FR-02", "content": "b v2"},
    ]))
    .unwrap();
    assert_eq!(s.req_list[0], req("FR-01", "a v2"));
    assert_eq!(s.req_list[1], req("FR-02", "b v2"));
    // A frozen item is not scored again.
    s.apply_clarify(&json!([{"id": "FR-01", "score": -2}]))
        .unwrap();
    assert_eq!(s.req_list[0], req("FR-01", "a v2"));
    assert_eq!(s.scores["FR-01"], 2);
}

#[test]
fn rounds_stop_at_max_iterations() {
    let mut s = parsed(Ablation::None, 2);
    let mut agents = vec![];
    while let Some(agent) = s.next_agent() {
        agents.push(agent);
        match agent {
            Agent::ReqParse => unreachable!(),
            Agent::ReqExplore => s.apply_explore(&json!([])).map(drop).unwrap(),
            Agent::ReqClarify => s
                .apply_clarify(&json!([{"id": "FR-01", "score": 0}]))
                .map(drop)
                .unwrap(),
            Agent::DocGenerate => s.apply_document("# SRS").map(drop).unwrap(),
        }
    }
    use Agent::*;
    assert_eq!(
        agents,
        [ReqExplore, ReqClarify, ReqExplore, ReqClarify, DocGenerate]
    );
    assert_eq!(s.iteration, 2);
    assert_eq!(s.srs_markdown.as_deref(), Some("# SRS"));
}

#[test]
fn rounds_stop_when_everything_is_frozen_or_removed() {
    let mut s = parsed(Ablation::None, 5);
    s.apply_explore(&json!([])).unwrap();
    s.apply_clarify(&json!([
        {"id": "FR-01", "score": 2},
        {"id": "FR-02", "score": 2},
        {"id": "NFR-01", "score": 1},
        {"id": "CON-01", "score": -2},
    ]))
    .unwrap();
    assert_eq!(s.next_agent(), Some(Agent::ReqExplore));
    s.apply_explore(&json!([])).unwrap();
    s.apply_clarify(&json!([{"id": "NFR-01", "score": 1}]))
        .unwrap();
    assert_eq!(s.iteration, 2);
    assert_eq!(s.next_agent(), Some(Agent::DocGenerate));
    let summary = s.summary();
    assert_eq!(summary["frozen"], json!(["FR-01", "FR-02", "NFR-01"]));
    assert_eq!(summary["removed"], json!(["CON-01"]));
    assert_eq!(summary["iterations"], 2);
    assert_eq!(
        summary["scores"],
        json!({"CON-01": -2, "FR-01": 2, "FR-02": 2, "NFR-01": 1})
    );
}

#[test]
fn no_clarify_runs_explore_rounds_alone() {
    let mut s = parsed(Ablation::NoClarify, 3);
    let mut agents = vec![];
    while let Some(agent) = s.next_agent() {
        agents.push(agent);
        match agent {
            Agent::ReqExplore => s.apply_explore(&json!([])).map(drop).unwrap(),
            Agent::DocGenerate => s.apply_document("doc").map(drop).unwrap(),
            other => panic!("{other:?} runs under no-clarify"),
        }
    }
    use Agent::*;
    assert_eq!(agents, [ReqExplore, ReqExplore, ReqExplore, DocGenerate]);
    assert_eq!(s.iteration, 3);
    assert!(s.scores.is_empty() && s.frozen.is_empty() && s.removed.is_empty());
}

#[test]
fn no_explore_clarify_goes_from_parse_to_the_document() {
    let s = parsed(Ablation::NoExploreClarify, 5);
    assert_eq!(s.next_agent(), Some(Agent::DocGenerate));
    assert_eq!(s.iteration, 0);
}

#[test]
fn the_document_is_unfenced_and_must_not_be_empty() {
    let mut s = parsed(Ablation::NoExploreClarify, 5);
    assert!(s.apply_document("  \n").is_err());
    assert_eq!(s.next_agent(), Some(Agent::DocGenerate));
    assert!(s.apply_document("```markdown\n```").is_err());
    s.apply_document("```markdown\n# 1 Introduction\n```\n")
        .unwrap();
    assert_eq!(s.srs_markdown.as_deref(), Some("# 1 Introduction"));
    assert_eq!(s.next_agent(), None);
    let mut s = parsed(Ablation::NoExploreClarify, 5);
    s.apply_document("# A\n```json\n{}\n```\nend").unwrap();
    assert_eq!(
        s.srs_markdown.as_deref(),
        Some("# A\n```json\n{}\n```\nend"),
        "a fence inside the document stays"
    );
}

#[test]
fn ablation_names() {
    for name in Ablation::NAMES {
        assert_eq!(Ablation::parse(name).unwrap().as_str(), name);
    }
    assert_eq!(Ablation::parse("no_clarify"), None);
    assert_eq!(
        serde_json::to_value(Ablation::NoExploreClarify).unwrap(),
        "no-explore-clarify"
    );
}
