//! Scoring extraction samples through the library: small suites and answers, and the
//! numbers a user relies on (matching, eligibility, calibration, hallucination, repeats,
//! groups) checked by hand. Its sample and requirement builders serve the kind's other
//! end-to-end tests.

use goldgate_core::metrics::bootstrap::BootstrapConfig;
use goldgate_core::metrics::ScoringConfig;
use goldgate_core::score::{score, ScoreRequest};
use goldgate_core::suite::Suite;
use serde_json::{json, Value};

use crate::support::scoring::{conversation, run, value, write_jsonl};
use crate::support::TempDir;

pub(crate) fn req(
    id: &str,
    title: &str,
    type_: &str,
    actor: &str,
    action: &str,
    sources: &[i64],
) -> Value {
    json!({"id": id, "title": title, "type": type_, "actor": actor, "action": action, "condition": null,
           "acceptance_criteria": ["criterion one is met", "criterion two is met"], "priority": "must",
           "source_messages": sources, "rationale": "r"})
}

pub(crate) fn extraction(id: &str, gold: Vec<Value>) -> Value {
    json!({"id": id, "kind": "extraction", "domain": "shop", "conversation": conversation(3), "labels": {"requirements": gold}})
}

/// A `jsonl` pipeline answering each request with its sample's prepared answer
/// (`$ANSWERS`, a JSON object of answers by id), and appending a line to `$COUNT_FILE` per
/// call when that is set. Its arguments only name it (a new name, a new fingerprint).
pub const ANSWERING_PIPELINE: &str = r#"import json, os, sys
answers = json.load(open(os.environ["ANSWERS"]))
count = open(os.environ["COUNT_FILE"], "a") if "COUNT_FILE" in os.environ else None
for line in sys.stdin:
    request = json.loads(line)
    if count:
        count.write("call\n")
        count.flush()
    out = {"id": request["id"], "output": answers[request["id"]]}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"#;

/// Words no two requirements of a sample share, so each matches only itself.
const STORE_WORDS: &[&str] = &[
    "invoices",
    "orders",
    "reports",
    "accounts",
    "refunds",
    "shipments",
    "coupons",
    "reviews",
    "alerts",
];

/// Gold requirement `j` (below 9) of store sample `i`: "Manage invoices 17", ….
pub fn store_requirement(i: usize, j: usize) -> Value {
    let word = STORE_WORDS[j];
    req(
        &format!("REQ-{:03}", j + 1),
        &format!("Manage {word} {i}"),
        "functional",
        "admin",
        &format!("manage the {word} of store {i}"),
        &[0],
    )
}

#[test]
fn empty_gold_and_empty_prediction_score_one() {
    let file = run(
        "empty",
        &[extraction("e1", vec![])],
        &[("e1", json!({"requirements": []}))],
    );
    assert_eq!(value(&file, "extraction.precision"), Some(1.0));
    assert_eq!(value(&file, "extraction.recall"), Some(1.0));
    assert_eq!(value(&file, "extraction.f1_macro"), Some(1.0));
    assert_eq!(file.samples[0].primary, 1.0);
    // No calibration data and no other kinds: null with n = 0, never 0 or 1.
    assert_eq!(file.metrics["extraction.ece"].value, None);
    assert_eq!(file.metrics["extraction.ece"].n, 0);
    assert_eq!(file.metrics["inference.relevance"].value, None);
    assert_eq!(file.metrics["inference.relevance"].ci, None);
}

#[test]
fn empty_prediction_against_gold_and_vice_versa() {
    let gold = vec![req(
        "REQ-001",
        "Track orders",
        "functional",
        "customer",
        "track orders",
        &[0],
    )];
    let samples = [extraction("a", gold), extraction("b", vec![])];
    let extra = req(
        "REQ-001",
        "Export reports",
        "functional",
        "admin",
        "export reports",
        &[1],
    );
    let file = run(
        "one-sided",
        &samples,
        &[("a", json!({"requirements": []})), ("b", json!([extra]))],
    );
    // a: TP 0, FN 1; b: TP 0, FP 1.
    assert_eq!(value(&file, "extraction.precision"), Some(0.0));
    assert_eq!(value(&file, "extraction.recall"), Some(0.0));
    assert_eq!(value(&file, "extraction.f1"), Some(0.0));
    assert_eq!(
        file.samples.iter().map(|s| s.primary).collect::<Vec<_>>(),
        vec![0.0, 0.0]
    );
}

#[test]
fn matching_is_one_to_one() {
    // Two near-identical gold items and one prediction: one match, not two.
    let gold = vec![
        req(
            "REQ-001",
            "Track orders",
            "functional",
            "customer",
            "track orders online",
            &[0],
        ),
        req(
            "REQ-002",
            "Track orders",
            "functional",
            "customer",
            "track the orders online",
            &[0],
        ),
    ];
    let pred = req(
        "REQ-001",
        "Track orders",
        "functional",
        "user",
        "track orders online",
        &[0],
    );
    let file = run(
        "one-to-one",
        &[extraction("s", gold)],
        &[("s", json!([pred]))],
    );
    let stats = &file.samples[0].stats;
    assert_eq!(serde_json::to_value(stats).unwrap()["ext.tp"], json!(1.0));
    assert_eq!(value(&file, "extraction.precision"), Some(1.0));
    assert_eq!(value(&file, "extraction.recall"), Some(0.5));
}

#[test]
fn type_and_actor_rules_gate_eligibility() {
    let gold = vec![req(
        "REQ-001",
        "Export reports",
        "functional",
        "admin",
        "export monthly reports",
        &[0],
    )];
    let wrong_type = req(
        "REQ-001",
        "Export reports",
        "data",
        "admin",
        "export monthly reports",
        &[0],
    );
    let synonym = req(
        "REQ-001",
        "Export reports",
        "Functional",
        "Administrator",
        "export monthly reports",
        &[0],
    );
    let file = run(
        "rules",
        &[extraction("t", gold.clone()), extraction("u", gold)],
        &[("t", json!([wrong_type])), ("u", json!([synonym]))],
    );
    let f1: Vec<f64> = file.samples.iter().map(|s| s.primary).collect();
    assert_eq!(f1, vec![0.0, 1.0]);
    // With the type rule off the type-blind pair still feeds type kappa.
    assert!(file.metrics["extraction.type_kappa"].n >= 1);
}

#[test]
fn failed_parse_is_an_empty_prediction_with_primary_zero() {
    let gold = vec![req(
        "REQ-001",
        "Track orders",
        "functional",
        "customer",
        "track orders",
        &[0],
    )];
    let file = run(
        "garbage",
        &[extraction("g", gold)],
        &[("g", json!("I could not do it {"))],
    );
    let s = &file.samples[0];
    assert_eq!(s.primary, 0.0);
    assert_eq!(serde_json::to_value(&s.parse).unwrap(), json!(["error"]));
    assert_eq!(value(&file, "extraction.recall"), Some(0.0));
    assert_eq!(value(&file, "extraction.schema_compliance"), Some(0.0));
    assert_eq!(value(&file, "parse.error_rate"), Some(1.0));
}

#[test]
fn confidences_at_bin_edges_and_out_of_range() {
    let gold = vec![
        req(
            "REQ-001",
            "Track orders",
            "functional",
            "customer",
            "track orders",
            &[0],
        ),
        req(
            "REQ-002",
            "Export reports",
            "functional",
            "admin",
            "export reports",
            &[1],
        ),
    ];
    let mut a = req(
        "REQ-001",
        "Track orders",
        "functional",
        "customer",
        "track orders",
        &[0],
    );
    a["confidence"] = json!(1.0);
    let mut b = req(
        "REQ-002",
        "Export reports",
        "functional",
        "admin",
        "export reports",
        &[1],
    );
    b["confidence"] = json!(0.1);
    let mut c = req(
        "REQ-003",
        "Delete everything",
        "functional",
        "admin",
        "delete all data",
        &[2],
    );
    c["confidence"] = json!(0.0);
    let mut d = req(
        "REQ-004",
        "Something else",
        "functional",
        "admin",
        "do other things",
        &[2],
    );
    d["confidence"] = json!(1.5); // left out of calibration, fails the schema
    let file = run(
        "conf",
        &[extraction("c", gold)],
        &[("c", json!([a, b, c, d]))],
    );
    // Bins: 9 -> (1.0, correct), 1 -> (0.1, correct), 0 -> (0.0, wrong).
    let ece = (1.0 / 3.0) * 0.0 + (1.0 / 3.0) * 0.9 + (1.0 / 3.0) * 0.0;
    assert!((value(&file, "extraction.ece").unwrap() - ece).abs() < 1e-12);
    assert!((value(&file, "extraction.mce").unwrap() - 0.9).abs() < 1e-12);
    assert!((value(&file, "extraction.brier").unwrap() - 0.81 / 3.0).abs() < 1e-12);
    assert_eq!(value(&file, "extraction.schema_compliance"), Some(0.0));
}

#[test]
fn hallucinated_actor_and_out_of_range_source() {
    let gold = vec![req(
        "REQ-001",
        "Track orders",
        "functional",
        "customer",
        "track orders",
        &[0],
    )];
    let ok = req(
        "REQ-001",
        "Track orders",
        "functional",
        "client",
        "track orders",
        &[0],
    ); // synonym of customer
    let generic = req(
        "REQ-002",
        "Log events",
        "functional",
        "system",
        "log events",
        &[1],
    );
    let invented = req(
        "REQ-003",
        "Approve refunds",
        "functional",
        "warehouse robot",
        "approve refunds",
        &[1],
    );
    let out_of_range = req(
        "REQ-004",
        "Track orders",
        "functional",
        "customer",
        "track orders again",
        &[7],
    );
    let file = run(
        "halluc",
        &[extraction("h", gold)],
        &[("h", json!([ok, generic, invented, out_of_range]))],
    );
    assert_eq!(value(&file, "extraction.hallucination_rate"), Some(1.0));
    assert_eq!(
        value(&file, "extraction.hallucination_entity_rate"),
        Some(0.5)
    );
}

#[test]
fn repeats_pool_records_and_keep_per_sample_spread() {
    let gold = vec![req(
        "REQ-001",
        "Track orders",
        "functional",
        "customer",
        "track orders",
        &[0],
    )];
    let good = json!([req(
        "REQ-001",
        "Track orders",
        "functional",
        "customer",
        "track orders",
        &[0]
    )]);
    let dir = TempDir::new("repeats");
    std::fs::create_dir_all(dir.0.join("suite")).unwrap();
    write_jsonl(&dir.0.join("suite/s.jsonl"), &[extraction("r", gold)]);
    let lines = vec![
        json!({"sample_id": "r", "repeat": 0, "raw_output": good.to_string(), "latency_ms": 100.0, "cached": true}),
        json!({"sample_id": "r", "repeat": 1, "raw_output": "", "error": {"kind": "timeout", "message": "timed out after 60s"}, "latency_ms": 60000.0}),
    ];
    write_jsonl(&dir.0.join("run.jsonl"), &lines);
    let suite = Suite::open(
        &dir.0.join("suite"),
        goldgate::settings::defaults::MAX_SAMPLE_BYTES,
    )
    .unwrap();
    let req = ScoreRequest {
        suite: &suite,
        run: &dir.0.join("run.jsonl"),
        scoring: &ScoringConfig::default(),
        bootstrap: BootstrapConfig::default(),
        facts: &goldgate_core::score::Facts::default(),
        keep_view: None,
        embedding: None,
    };
    let file = score(&req).unwrap().file;
    let s = &file.samples[0];
    assert_eq!((s.repeats, s.failed), (2, 1));
    assert_eq!(s.primary_runs, vec![1.0, 0.0]);
    assert_eq!((s.primary, s.primary_std), (0.5, 0.5));
    assert_eq!(value(&file, "extraction.recall"), Some(0.5));
    assert_eq!(value(&file, "run.error_rate"), Some(0.5));
    assert_eq!(value(&file, "run.cache_hit_rate"), Some(0.5));
    assert_eq!(value(&file, "run.latency_p50_ms"), Some(30050.0));
    // One sample: n counts samples, not records, and the interval cannot narrow below it.
    assert_eq!(file.metrics["extraction.recall"].n, 1);
    assert_eq!(file.metrics["extraction.recall"].ci, Some([0.5, 0.5]));
}

#[test]
fn groups_and_reproducible_intervals() {
    let gold = |n: usize| {
        (0..n)
            .map(|i| {
                req(
                    &format!("REQ-00{i}"),
                    &format!("Feature {i} for orders"),
                    "functional",
                    "customer",
                    &format!("use feature {i}"),
                    &[0],
                )
            })
            .collect::<Vec<_>>()
    };
    let mut samples = Vec::new();
    let mut outputs = Vec::new();
    for i in 0..12 {
        let mut s = extraction(&format!("s{i}"), gold(3));
        s["difficulty"] = json!(if i % 2 == 0 { "easy" } else { "hard" });
        samples.push(s);
        outputs.push((format!("s{i}"), json!({"requirements": gold(i % 4)})));
    }
    let outputs: Vec<(&str, Value)> = outputs
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    let a = run("groups-a", &samples, &outputs);
    let b = run("groups-b", &samples, &outputs);
    assert_eq!(a.metrics, b.metrics);
    assert_eq!(a.groups, b.groups);
    let easy = &a.groups["difficulty"]["easy"]["extraction.f1"];
    assert_eq!(easy.n, 6);
    let all = &a.metrics["extraction.f1"];
    let [lo, hi] = all.ci.unwrap();
    assert!(lo < all.value.unwrap() && all.value.unwrap() < hi);
    assert!(a.groups["kind"].contains_key("extraction"));
    // Every metric is reported per group; one without data is null with n = 0.
    let absent = &a.groups["kind"]["extraction"]["validation.f1"];
    assert_eq!((absent.value, absent.n, absent.ci), (None, 0, None));
}

/// A rule on the type kappa of a run where no requirement was matched has no value, and
/// the verdict says why in the words of what it counts.
#[test]
fn a_type_kappa_without_matches_says_why_it_has_no_value() {
    let gold = vec![req(
        "REQ-001",
        "Track orders",
        "functional",
        "customer",
        "track orders",
        &[0],
    )];
    let file = run(
        "no-types",
        &[extraction("s", gold)],
        &[("s", json!({"requirements": []}))],
    );
    let rules = goldgate_core::testkit::rules("[metrics.\"extraction.type_kappa\"]\nmin = 0.5\n");
    let options = goldgate_core::testkit::options();
    let verdict = goldgate_core::gate::compare::compare(&file, None, &rules, &options).unwrap();
    assert_eq!(
        goldgate_core::gate::verdict::by_name(&verdict)["extraction.type_kappa"].reasons,
        ["no data in this run: no requirement was matched, so no types were compared"]
    );
}
