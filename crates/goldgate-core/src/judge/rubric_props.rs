//! Properties of reading a judge's answer ([`super::rubric::read`]): any text is read without a
//! panic; an answer that is exactly one valid judgement (the whole text, or one fenced block
//! amid prose) gives its scores exactly; an answer holding several JSON objects, however
//! they are fenced and whatever they say, is never a judgement.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::rubric::{read, Scores};

fn unit() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(1.0), 0.0f64..=1.0]
}

fn category() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![Just(None), unit().prop_map(Some)]
}

fn scores() -> impl Strategy<Value = Scores> {
    (
        prop::array::uniform7(unit()),
        prop::array::uniform3(category()),
    )
        .prop_map(|(v, c)| Scores::new(v, c))
}

/// A judgement's JSON text, compact or indented, with or without a `reasoning` beside it
/// (whose text may hold braces and fences: it is inside a JSON string).
fn judgement(scores: &Scores, pretty: bool, reasoning: Option<&str>) -> String {
    let mut value = json!({ "metrics": scores });
    if let Some(r) = reasoning {
        value["reasoning"] = Value::from(r);
    }
    match pretty {
        true => serde_json::to_string_pretty(&value).unwrap(),
        false => value.to_string(),
    }
}

/// Prose without braces or backticks (so it holds no object and opens no fence).
fn prose() -> impl Strategy<Value = String> {
    "[^{}`]{0,40}"
}

/// How a judgement sits in the answer: alone, or in a fenced block amid prose.
#[derive(Clone, Debug)]
enum Wrap {
    Alone,
    Fenced {
        lang: String,
        before: String,
        after: String,
    },
}

fn wrap() -> impl Strategy<Value = Wrap> {
    prop_oneof![
        Just(Wrap::Alone),
        (
            prop::sample::select(vec!["", "json", "JSON", "text"]),
            prose(),
            prose()
        )
            .prop_map(|(lang, before, after)| Wrap::Fenced {
                lang: lang.to_string(),
                before,
                after,
            }),
    ]
}

fn wrapped(object: &str, wrap: &Wrap) -> String {
    match wrap {
        Wrap::Alone => object.to_string(),
        Wrap::Fenced {
            lang,
            before,
            after,
        } => format!("{before}\n```{lang}\n{object}\n```\n{after}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_text_is_read_without_a_panic(text in ".{0,400}") {
        let _ = read(&text);
    }

    #[test]
    fn text_built_of_braces_fences_and_judgements_is_read_without_a_panic(
        pieces in prop::collection::vec(
            prop_oneof![
                Just("{".to_string()), Just("}".to_string()), Just("```".to_string()),
                Just("```json\n".to_string()), Just("\"".to_string()), Just("\\".to_string()),
                Just("\n".to_string()), Just("{\"metrics\": ".to_string()),
                scores().prop_map(|s| judgement(&s, false, None)),
                "[a-z :,0-9.]{0,8}",
            ],
            0..24,
        )
    ) {
        let text: String = pieces.concat();
        if let Ok(scores) = read(&text) {
            // Whatever was read is a judgement: every value in [0, 1].
            prop_assert!(scores.values().iter().all(|v| (0.0..=1.0).contains(v)));
        }
    }

    #[test]
    fn exactly_one_judgement_is_read_as_it_is(
        scores in scores(),
        pretty in any::<bool>(),
        reasoning in prop::option::of("[a-z {}`\"\\\\]{0,30}"),
        wrap in wrap(),
        pad in "[ \n\t]{0,3}",
    ) {
        let object = judgement(&scores, pretty, reasoning.as_deref());
        let text = format!("{pad}{}{pad}", wrapped(&object, &wrap));
        prop_assert_eq!(read(&text), Ok(scores));
    }

    #[test]
    fn several_objects_are_never_a_judgement(
        judgements in prop::collection::vec((scores(), any::<bool>(), wrap()), 2..5),
        note in prop::option::of(Just("{\"note\": \"first pass\"}")),
        gaps in prop::collection::vec(prose(), 5),
    ) {
        let mut objects: Vec<String> = judgements
            .iter()
            .map(|(s, pretty, wrap)| wrapped(&judgement(s, *pretty, None), wrap))
            .collect();
        objects.extend(note.map(str::to_string));
        let n = objects.len();
        let text: String = objects
            .iter()
            .zip(gaps.iter().cycle())
            .map(|(o, gap)| format!("{o}\n{gap}\n"))
            .collect();
        let why = read(&text).unwrap_err();
        let expected = format!("the answer holds {n} JSON objects");
        prop_assert!(why.starts_with(&expected), "{}: {}", text, why);
    }
}
