use super::*;
use crate::error::Location;
use toml::Spanned;

/// Resolve the tasks of a suite.toml text; problems as "line: field: message".
fn tasks(text: &str) -> Result<Tasks, Vec<String>> {
    #[derive(Deserialize)]
    struct File {
        tasks: BTreeMap<String, Spanned<RawTask>>,
    }
    let at = |offset: usize| {
        let line = text[..offset.min(text.len())].matches('\n').count() + 1;
        Location::new(std::path::Path::new("suite.toml"), line, 0)
    };
    let file: File = toml::from_str(text).map_err(|e| vec![e.message().to_string()])?;
    resolve(file.tasks, &at).map_err(|problems| {
        problems
            .iter()
            .map(|p| {
                format!(
                    "{}: {}: {}",
                    p.location.line,
                    p.field.clone().unwrap_or_default(),
                    p.message
                )
            })
            .collect()
    })
}

const ABSA: &str = r#"
[tasks.absa]
fields = [
  { name = "aspect_term", role = "span" },
  { name = "polarity", role = "label", values = ["positive", "negative", "neutral"], synonyms = { positive = ["pos", "+"], negative = ["neg", "-"] } },
]
"#;

#[test]
fn a_task_takes_the_documented_defaults() {
    let tasks = tasks(ABSA).unwrap();
    let t = tasks.get("absa").unwrap();
    assert_eq!(t.type_field, Some(1), "the first label field");
    assert_eq!(t.relaxed.match_mode, MatchMode::IncludeOrCharOverlap);
    assert_eq!(
        (
            t.relaxed.char_overlap_threshold,
            t.relaxed.span_iou_threshold
        ),
        (0.5, 0.5)
    );
    assert_eq!(t.hallucination, SupportMode::NormalizedSubstring);
    assert_eq!(t.schema, SchemaMode::Strict);
    assert_eq!((t.cot.enabled, t.cot.require_thought_block), (false, true));
    assert_eq!(t.final_paths, ["/final_tuples", "/tuples"]);
    assert!(t.stage1_paths.is_empty());
    assert!(t.label_conflicts, "on with exactly one label field");
}

#[test]
fn labels_map_exactly_then_by_norm_and_unmapped_labels_keep_their_norm() {
    let tasks = tasks(ABSA).unwrap();
    let t = tasks.get("absa").unwrap();
    let key = |v: &str| {
        let k = t.label_key(1, v);
        (k.key, k.mapped)
    };
    assert_eq!(key("positive"), ("positive".into(), true));
    assert_eq!(key("+"), ("positive".into(), true), "a synonym");
    assert_eq!(key(" POS."), ("positive".into(), true), "a synonym by norm");
    assert_eq!(
        key("Negative!"),
        ("negative".into(), true),
        "a value by norm"
    );
    assert_eq!(key("Mixed Feelings"), ("mixed feelings".into(), false));
    assert_eq!(
        key("?"),
        (String::new(), false),
        "an empty norm maps to nothing"
    );
    assert_eq!(
        t.label_key(0, "The Pizza").key,
        "the pizza",
        "a span keeps its norm"
    );
    assert_eq!(t.canonical_value(1, "neg"), Some("negative"));
}

#[test]
fn every_problem_of_a_task_is_named_at_its_line() {
    let text = r#"
[tasks.bad]
fields = [
  { name = "term", role = "span", values = ["x"] },
  { name = "polarity", role = "label", values = ["positive", "negative"], synonyms = { positive = ["good"], negative = ["Good"], mixed = ["m"] } },
  { name = "start", role = "label" },
  { name = "term", role = "label" },
]
type_field = "aspect"
relaxed = { char_overlap_threshold = 1.5 }
final_paths = ["final_tuples", "/ok~2"]
"#;
    let problems = tasks(text).unwrap_err();
    let expect = [
        "4: tasks.bad.fields: span field `term` cannot have `values`",
        "5: tasks.bad.fields: synonyms of `mixed`, which is not a value of field `polarity`",
        "5: tasks.bad.fields: `good` in field `polarity` would map to both `positive` and `negative`",
        "6: tasks.bad.fields: `start` cannot be a field: tuples use it for their own member",
        "7: tasks.bad.fields: field `term` is listed twice",
        "9: tasks.bad.type_field: `aspect` is not a label field of this task",
        "10: tasks.bad.relaxed.char_overlap_threshold: 1.5 is outside [0, 1]",
        "11: tasks.bad.final_paths: `final_tuples` is not a JSON pointer: it must be empty or start with `/`",
        "11: tasks.bad.final_paths: `/ok~2` is not a JSON pointer: `~` must be followed by 0 or 1",
    ];
    for e in expect {
        assert!(problems.iter().any(|p| p == e), "{e}\nin {problems:#?}");
    }
    assert_eq!(problems.len(), expect.len(), "{problems:#?}");
}

#[test]
fn a_task_without_a_label_field_has_no_type_and_no_conflicts() {
    let text = "[tasks.spans]\nfields = [{ name = \"term\", role = \"span\" }]\n";
    let tasks = tasks(text).unwrap();
    let t = tasks.get("spans").unwrap();
    assert_eq!((t.type_field, t.label_conflicts), (None, false));
    let on = format!("{text}label_conflicts = true\n");
    let problems = tasks_err(&on);
    assert!(
        problems[0].contains("label conflicts need a label field"),
        "{problems:?}"
    );
    let empty = "[tasks.none]\nfields = []\n";
    assert!(tasks_err(empty)[0].contains("a task needs at least one field"));
    let unknown = "[tasks.x]\nfields = [{ name = \"a\", role = \"span\" }]\nstage_paths = []\n";
    assert!(tasks_err(unknown)[0].contains("unknown field `stage_paths`"));
}

fn tasks_err(text: &str) -> Vec<String> {
    tasks(text).unwrap_err()
}

#[test]
fn the_canonical_text_changes_with_what_scores_and_not_with_layout() {
    let a = tasks(ABSA).unwrap();
    let spaced = ABSA.replace(", role", ",   role");
    let b = tasks(&spaced).unwrap();
    assert_eq!(
        a.get("absa").unwrap().canonical(),
        b.get("absa").unwrap().canonical()
    );
    let other = tasks(&format!("{ABSA}schema = \"syntax_only\"\n")).unwrap();
    assert_ne!(
        a.get("absa").unwrap().canonical(),
        other.get("absa").unwrap().canonical()
    );
}
