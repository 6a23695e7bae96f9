use serde_json::json;

use super::*;
use crate::error::Location;
use crate::metrics::stats::Sums;
use crate::parse::ParseOutcome;
use crate::sample::task::parse_tasks;
use crate::sample::Difficulty;
use crate::sample::Written;

const ABSA: &str = r#"
[tasks.absa]
fields = [
  { name = "aspect_term", role = "span" },
  { name = "polarity", role = "label", values = ["positive", "negative", "neutral"], synonyms = { positive = ["pos", "+"] } },
]
stage1_paths = ["/stage1_tuples"]
cot = { enabled = true }
"#;

fn sample(toml: &str, task: &str, text: &str, gold: serde_json::Value) -> Sample {
    let tasks = parse_tasks(toml);
    Sample {
        id: "s".into(),
        kind: crate::kinds::kind_of(&super::Tuples),
        domain: "d".into(),
        difficulty: Difficulty::Medium,
        conversation: vec![],
        user_input: None,
        reference_srs: None,
        task: tasks.get(task).cloned(),
        text: Some(text.into()),
        tags: vec![],
        labels: crate::testkit::labels(serde_json::json!({"tuples": gold})),
        annotations: vec![],
        discussion: vec![],
        review: None,
        written: Written::default(),
        origin: Location::file(std::path::Path::new("s.yaml")),
    }
}

/// Score one answer text; the record's sums and primary score.
fn score_text(sample: &Sample, text: &str) -> (Stats, f64) {
    let record = crate::testkit::scored(&Tuples, sample, text);
    (record.stats, record.primary)
}

fn pizza() -> Sample {
    sample(
        ABSA,
        "absa",
        "The pizza was great but the service was slow.",
        json!([{"aspect_term": "pizza", "polarity": "pos"}, {"aspect_term": "service", "polarity": "negative"}]),
    )
}

#[test]
fn strict_matches_compare_keys_and_malformed_elements_only_count() {
    let answer = r#"{"final_tuples": [
        {"aspect_term": "Pizza", "polarity": "+"},
        {"aspect_term": "Pizza", "polarity": "positive", "confidence": 0.2},
        {"aspect_term": "service"},
        "not a tuple",
        {"aspect_term": "the service", "polarity": "negative"}
    ]}"#;
    let (s, primary) = score_text(&pizza(), answer);
    // Members: pizza/positive (repeated: counts once), the service/negative; 2 malformed.
    assert_eq!(
        (
            s.get("tuples.strict_tp"),
            s.get("tuples.strict_fp"),
            s.get("tuples.strict_fn")
        ),
        (1.0, 3.0, 1.0)
    );
    assert_eq!(primary, 2.0 / 6.0, "2·TP / (predicted 4 + gold 2)");
    assert_eq!(
        s.get("tuples.relaxed_tp"),
        2.0,
        "`the service` contains `service`"
    );
    assert_eq!(
        s.get("tuples.schema_ok"),
        0.0,
        "malformed elements fail schema_strict"
    );
    assert_eq!(s.get("tuples.pred_source[/final_tuples]"), 1.0);
    assert_eq!(s.get("tuples.pred_source_fallback"), 0.0);
}

#[test]
fn a_failed_parse_is_an_empty_prediction_counted_where_it_belongs() {
    let (s, primary) = score_text(&pizza(), "no json here");
    assert_eq!((s.get("tuples.strict_fn"), primary), (2.0, 0.0));
    assert_eq!(s.get("tuples.pred_source_none"), 1.0);
    assert_eq!(s.get("tuples.parsed"), 0.0);
    assert_eq!(s.get("tuples.cot_parse_fail"), 1.0);
    assert_eq!(
        s.get("tuples.halluc_checked"),
        0.0,
        "only parsed answers are checked"
    );
}

#[test]
fn spans_missing_from_the_text_are_hallucinations_unless_implicit() {
    let answer = r#"{"tuples": [
        {"aspect_term": "pizza", "polarity": "positive"},
        {"aspect_term": "price", "polarity": "negative", "implicit": true},
        {"aspect_term": "wine list", "polarity": "neutral"},
        {"aspect_term": "!!", "polarity": "neutral"}
    ]}"#;
    let (s, _) = score_text(&pizza(), answer);
    assert_eq!(s.get("tuples.halluc_checked"), 3.0);
    assert_eq!(
        s.get("tuples.halluc_unsupported"),
        2.0,
        "wine list, and an empty key"
    );
    assert_eq!(s.get("tuples.halluc_records"), 1.0);
    assert_eq!(s.get("tuples.pred_source[/tuples]"), 1.0);
    assert_eq!(s.get("tuples.pred_source_fallback"), 1.0);
}

#[test]
fn the_thought_block_must_name_the_answers_types_and_spans() {
    let faithful = "<thought>pizza is positive; the service is negative</thought>\n\
        {\"final_tuples\": [{\"aspect_term\": \"pizza\", \"polarity\": \"positive\"}, {\"aspect_term\": \"service\", \"polarity\": \"negative\"}]}";
    let (s, _) = score_text(&pizza(), faithful);
    assert_eq!(
        (s.get("tuples.cot_checked"), s.get("tuples.cot_faithful")),
        (1.0, 1.0)
    );
    let unfaithful = faithful.replace("the service is negative", "service bad");
    let (s, _) = score_text(&pizza(), &unfaithful);
    assert_eq!(
        (s.get("tuples.cot_types"), s.get("tuples.cot_arguments")),
        (0.0, 1.0)
    );
    let missing = "{\"final_tuples\": []}";
    let (s, _) = score_text(&pizza(), missing);
    assert_eq!(
        s.get("tuples.cot_skipped"),
        1.0,
        "a block is required by default"
    );
}

#[test]
fn without_a_required_block_the_thought_is_the_answer_without_its_json() {
    let toml = ABSA.replace(
        "cot = { enabled = true }",
        "cot = { enabled = true, require_thought_block = false }",
    );
    let s1 = sample(
        &toml,
        "absa",
        "Nice screen.",
        json!([{"aspect_term": "screen", "polarity": "positive"}]),
    );
    let fenced = "The screen is positive.\n```json\n{\"final_tuples\": [{\"aspect_term\": \"screen\", \"polarity\": \"positive\"}]}\n```\n";
    let (s, _) = score_text(&s1, fenced);
    assert_eq!(s.get("tuples.cot_faithful"), 1.0);
    // The JSON itself names the tuple, but it is cut out of the thought.
    let bare = "{\"final_tuples\": [{\"aspect_term\": \"screen\", \"polarity\": \"positive\"}]}";
    let (s, _) = score_text(&s1, bare);
    assert_eq!(
        (s.get("tuples.cot_checked"), s.get("tuples.cot_faithful")),
        (1.0, 0.0)
    );
}

#[test]
fn stages_compare_the_first_and_final_answers_against_gold() {
    let fixed = r#"{"stage1_tuples": [{"aspect_term": "pizza", "polarity": "positive"}],
        "final_tuples": [{"aspect_term": "service", "polarity": "negative"}, {"aspect_term": "pizza", "polarity": "pos"}],
        "analysis_flags": {"review_actions": [{"action": "add"}], "arb_actions": []}}"#;
    let (s, _) = score_text(&pizza(), fixed);
    assert_eq!(s.get("tuples.stage_fix"), 1.0);
    assert_eq!(
        (
            s.get("tuples.stage_changed"),
            s.get("tuples.stage_improved")
        ),
        (1.0, 1.0)
    );
    assert_eq!(
        (s.get("tuples.review"), s.get("tuples.arbitration")),
        (1.0, 0.0),
        "an empty list is no action"
    );
    assert_eq!(s.get("tuples.stage_guided"), 1.0);
    let reordered = r#"{"stage1_tuples": [{"aspect_term": "service", "polarity": "negative"}, {"aspect_term": "pizza", "polarity": "positive"}],
        "final_tuples": [{"aspect_term": "pizza", "polarity": "positive"}, {"aspect_term": "service", "polarity": "negative"}]}"#;
    let (s, _) = score_text(&pizza(), reordered);
    assert_eq!(
        (s.get("tuples.stage_keep"), s.get("tuples.stage_changed")),
        (1.0, 0.0)
    );
    let unstaged = r#"{"final_tuples": []}"#;
    assert_eq!(
        score_text(&pizza(), unstaged).0.get("tuples.stage_records"),
        0.0
    );
}

#[test]
fn conflicts_are_resolved_by_rank_and_ties_remain() {
    let conflict = |a: &str, b: &str| {
        let answer = format!(
            r#"{{"final_tuples": [{{"aspect_term": "pizza", "polarity": "positive", {a}}}, {{"aspect_term": "Pizza!", "polarity": "negative", {b}}}]}}"#
        );
        let (s, _) = score_text(&pizza(), &answer);
        (s.get("tuples.conflict_raw"), s.get("tuples.conflict"))
    };
    assert_eq!(
        conflict(r#""confidence": 0.9"#, r#""confidence": 0.4"#),
        (1.0, 0.0)
    );
    assert_eq!(
        conflict(r#""confidence": 0.5"#, r#""confidence": 0.5"#),
        (1.0, 1.0),
        "a tie keeps both"
    );
    assert_eq!(
        conflict(r#""drop_reason": null"#, r#""drop_reason": "dup""#),
        (1.0, 0.0)
    );
    assert_eq!(
        conflict(r#""implicit": true"#, r#""implicit": false"#),
        (1.0, 0.0)
    );
    assert_eq!(
        conflict(r#""confidence": "0.9""#, r#""confidence": 0.1"#),
        (1.0, 0.0),
        "a string ranks below a number"
    );
    assert_eq!(
        conflict(r#""confidence": 1.5"#, r#""confidence": 7"#),
        (1.0, 1.0),
        "both out of range: a tie"
    );
}

#[test]
fn the_diff_lines_up_predictions_with_the_gold_they_match() {
    use crate::kinds::aligned::Paired;
    let sample = pizza();
    let answer = Json::parse_owned(r#"{"final_tuples": [{"aspect_term": "the wine", "polarity": "positive"},
        {"aspect_term": "the service", "polarity": "Negative"}, {"aspect_term": "PIZZA", "polarity": "+"}, 3]}"#).unwrap();
    let aligned = Tuples.aligned(&sample, Some(&answer), &[]);
    let texts = |items: &[crate::kinds::aligned::Item]| -> Vec<String> {
        items.iter().map(|i| i.text.clone()).collect()
    };
    assert_eq!(
        texts(&aligned.gold),
        [
            "aspect_term: pizza | polarity: positive",
            "aspect_term: service | polarity: negative"
        ]
    );
    assert_eq!(
        texts(&aligned.predicted),
        [
            "aspect_term: the wine | polarity: positive",
            "aspect_term: the service | polarity: negative",
            "aspect_term: PIZZA | polarity: positive",
        ]
    );
    assert_eq!(
        aligned.pairs,
        [
            Paired::exact(0, 2),
            Paired {
                how: Some("loose match"),
                ..Paired::exact(1, 1)
            }
        ]
    );
    assert_eq!(
        aligned.extra,
        ["(an element that is not a well-formed tuple)"]
    );
    let _ = ParseOutcome::Raw;
}

mod any_answer {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::*;

    const KEYS: &[&str] = &[
        "final_tuples",
        "tuples",
        "stage1_tuples",
        "analysis_flags",
        "review_actions",
        "arb_actions",
        "aspect_term",
        "polarity",
        "implicit",
        "start",
        "end",
        "confidence",
        "drop_reason",
    ];

    const WORDS: &[&str] = &[
        "pizza",
        "positive",
        "neg",
        "",
        "the service",
        "ピザ",
        "<thought>",
    ];

    fn json_value() -> impl Strategy<Value = Value> {
        crate::parse::arbitrary::json_value(KEYS, WORDS, "[a-zA-Z +-]{0,12}")
    }

    /// Task variants covering every mode.
    fn task_toml(variant: usize) -> String {
        let extra = [
            "stage1_paths = [\"/stage1_tuples\"]\ncot = { enabled = true, require_thought_block = false }",
            "relaxed = { match_mode = \"span_iou\", span_iou_threshold = 0.3 }\nhallucination = { match_mode = \"exact_span\" }\nschema = \"syntax_only\"\nfinal_paths = [\"\", \"/tuples/0\"]",
            "cot = { enabled = true }\nlabel_conflicts = false",
        ][variant];
        format!("{ABSA}{extra}\n").replace(
            "stage1_paths = [\"/stage1_tuples\"]\ncot = { enabled = true }\n",
            "",
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]

        /// Any answer, of any shape, against any kind of task, scores without panicking
        /// into finite values within each metric's range.
        #[test]
        fn any_answer_scores_in_range(value in json_value(), wrap in 0..4usize, variant in 0..3usize) {
            let body = value.to_string();
            let text = match wrap {
                0 => body,
                1 => format!("<thought>pizza positive</thought>\n```json\n{body}\n```"),
                2 => format!("Sure: {body} — done"),
                _ => format!("{{{body},}}"),
            };
            let s = sample(&task_toml(variant), "absa", "The pizza was great but the service was slow. ピザ", json!([
                {"aspect_term": "pizza", "polarity": "pos", "start": 4, "end": 9},
                {"aspect_term": "service", "polarity": "negative"},
                {"aspect_term": "price", "polarity": "neutral", "implicit": true},
            ]));
            let (stats, primary) = score_text(&s, &text);
            prop_assert!((0.0..=1.0).contains(&primary), "primary {}", primary);
            let family: Vec<&crate::metrics::registry::Metric> = stats
                .iter()
                .filter_map(|(k, _)| metrics::source(k))
                .collect();
            for metric in metrics::METRICS.iter().chain(family) {
                if let Some(v) = metric.value(&stats) {
                    prop_assert!(v.is_finite() && metric.range.contains(v), "{} = {}", metric.name, v);
                }
            }
        }
    }
}
