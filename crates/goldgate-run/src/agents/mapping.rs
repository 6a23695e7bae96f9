//! From the `srs-agents` pipeline's final state to goldgate's answer for an e2e sample:
//! each requirement's type from its id's sequence (`FR-` functional, `NFR-` non-functional,
//! `CON-` constraint, `SUG-` functional), its actor and action from the content's "The
//! <actor> shall <action>" sentence (else the system and the whole content), a title from
//! the action, a confidence from ReqClarify's last score, and DocGenerate's document as
//! `srs_markdown`.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{json, Map, Value};

use super::ids::{Id, Prefix};
use super::state::{Req, State};

/// Longest title, in characters (cut on a word boundary).
pub const TITLE_CHARS: usize = 60;

/// The actor of a requirement whose content names none.
pub const DEFAULT_ACTOR: &str = "system";

/// The requirement type of a sequence.
pub fn requirement_type(prefix: Prefix) -> &'static str {
    match prefix {
        Prefix::Fr | Prefix::Sug => "functional",
        Prefix::Nfr => "non-functional",
        Prefix::Con => "constraint",
    }
}

/// "The <actor> shall <action>": an optional article, an actor of one to four words, a modal
/// verb (shall, must, should, will, can, may), an optional "be able to", then the action.
static SENTENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?i:(?:the|an?)\s+)?(?P<actor>[\p{L}\p{N}'/-]+(?:\s+[\p{L}\p{N}'/-]+){0,3}?)\s+(?i:shall|must|should|will|can|may)\s+(?:(?i:be\s+able\s+to)\s+)?(?P<action>\S.*)$",
    )
    .expect("the requirement sentence pattern is valid")
});

/// The actor and action of a requirement's content: from "The <actor> shall <action>"
/// (the actor lower-cased, without its article), else the system and the whole content.
/// The action loses a final full stop.
pub fn actor_and_action(content: &str) -> (String, String) {
    let content = content.split_whitespace().collect::<Vec<_>>().join(" ");
    let (actor, action) = match SENTENCE.captures(&content) {
        Some(c) => (c["actor"].to_lowercase(), c["action"].to_string()),
        None => (DEFAULT_ACTOR.to_string(), content.clone()),
    };
    let action = action.trim_end_matches(['.', ' ']).to_string();
    (actor, action)
}

/// A title from an action: its first sentence, cut to at most [`TITLE_CHARS`] characters on
/// a word boundary (a single longer word is cut inside), the first letter upper-cased.
pub fn title(action: &str) -> String {
    let sentence = action.split(". ").next().unwrap_or(action).trim();
    let mut cut = String::new();
    for word in sentence.split(' ') {
        let next = match cut.is_empty() {
            true => word.to_string(),
            false => format!("{cut} {word}"),
        };
        if next.chars().count() > TITLE_CHARS {
            if cut.is_empty() {
                cut = word.chars().take(TITLE_CHARS).collect();
            }
            break;
        }
        cut = next;
    }
    let mut chars = cut.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => cut,
    }
}

/// ReqClarify's score (−2…+2) as a confidence in [0, 1]: (score + 2) / 4.
pub fn confidence(score: i64) -> f64 {
    (score.clamp(-2, 2) + 2) as f64 / 4.0
}

/// One requirement of the answer.
pub fn requirement(req: &Req, score: Option<i64>) -> Value {
    let prefix = Id::parse(&req.id).map_or(Prefix::Fr, |id| id.prefix);
    let (actor, action) = actor_and_action(&req.content);
    let mut out = Map::new();
    out.insert("id".into(), json!(req.id));
    out.insert("type".into(), json!(requirement_type(prefix)));
    out.insert("title".into(), json!(title(&action)));
    out.insert("actor".into(), json!(actor));
    out.insert("action".into(), json!(action));
    out.insert("content".into(), json!(req.content));
    if !req.source_messages.is_empty() {
        out.insert("source_messages".into(), json!(req.source_messages));
    }
    if let Some(score) = score {
        out.insert("confidence".into(), json!(confidence(score)));
    }
    Value::Object(out)
}

/// goldgate's answer for the finished state: `{"requirements": [...], "srs_markdown": ...}`.
pub fn answer(state: &State) -> Value {
    let requirements: Vec<Value> = state
        .req_list
        .iter()
        .map(|r| requirement(r, state.scores.get(&r.id).copied()))
        .collect();
    json!({
        "requirements": requirements,
        "srs_markdown": state.srs_markdown.as_deref().unwrap_or(""),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::state::Ablation;

    #[test]
    fn actor_and_action_come_from_the_shall_sentence() {
        let split = |c: &str| {
            let (a, b) = actor_and_action(c);
            (a, b)
        };
        assert_eq!(
            split("The user shall set heating schedules from the phone app."),
            (
                "user".into(),
                "set heating schedules from the phone app".into()
            )
        );
        assert_eq!(
            split("The  Driver App  must be able to   finish a delivery offline"),
            ("driver app".into(), "finish a delivery offline".into())
        );
        assert_eq!(
            split("An administrator can export the audit log."),
            ("administrator".into(), "export the audit log".into())
        );
        assert_eq!(
            split("Users should receive a text two stops before delivery"),
            (
                "users".into(),
                "receive a text two stops before delivery".into()
            )
        );
        assert_eq!(
            split("The system shall not keep photos longer than 90 days."),
            (
                "system".into(),
                "not keep photos longer than 90 days".into()
            )
        );
        // The first modal verb counts.
        assert_eq!(
            split("The app will show what the user may change."),
            ("app".into(), "show what the user may change".into())
        );
        // No such sentence: the system, the whole content.
        assert_eq!(
            split("Response time under 2 seconds."),
            ("system".into(), "Response time under 2 seconds".into())
        );
        assert_eq!(
            split("The mobile app on the phone of the dispatcher shall refresh"),
            (
                "system".into(),
                "The mobile app on the phone of the dispatcher shall refresh".into()
            ),
            "an actor of more than four words is not one"
        );
        assert_eq!(split("shall work"), ("system".into(), "shall work".into()));
    }

    #[test]
    fn titles_are_the_first_sentence_cut_on_a_word() {
        assert_eq!(title("set heating schedules"), "Set heating schedules");
        assert_eq!(title("do this. Then that"), "Do this");
        let long =
            "keep every signature for one year so that disputes about deliveries can be settled";
        let t = title(long);
        assert_eq!(
            t,
            "Keep every signature for one year so that disputes about"
        );
        assert!(t.chars().count() <= TITLE_CHARS);
        assert_eq!(title(&"x".repeat(100)).chars().count(), TITLE_CHARS);
        assert_eq!(title(""), "");
        assert_eq!(title("élan vital"), "Élan vital");
    }

    #[test]
    fn types_and_confidences() {
        assert_eq!(requirement_type(Prefix::Fr), "functional");
        assert_eq!(requirement_type(Prefix::Nfr), "non-functional");
        assert_eq!(requirement_type(Prefix::Con), "constraint");
        assert_eq!(requirement_type(Prefix::Sug), "functional");
        let c: Vec<f64> = (-3..=3).map(confidence).collect();
        assert_eq!(c, [0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0]);
    }

    #[test]
    fn the_answer_holds_every_item_of_the_list_and_the_document() {
        let mut s = State::new(String::new(), String::new(), 1, Ablation::None);
        s.req_list = vec![
            Req {
                id: "NFR-01".into(),
                content: "The system shall answer within 2 s.".into(),
                source_messages: vec![0, 3],
            },
            Req {
                id: "SUG-01".into(),
                content: "Export reports as CSV".into(),
                source_messages: vec![],
            },
        ];
        s.scores.insert("NFR-01".into(), 1);
        s.srs_markdown = Some("# SRS".into());
        assert_eq!(
            answer(&s),
            json!({
                "requirements": [
                    {"id": "NFR-01", "type": "non-functional", "title": "Answer within 2 s",
                     "actor": "system", "action": "answer within 2 s",
                     "content": "The system shall answer within 2 s.",
                     "source_messages": [0, 3], "confidence": 0.75},
                    {"id": "SUG-01", "type": "functional", "title": "Export reports as CSV",
                     "actor": "system", "action": "Export reports as CSV",
                     "content": "Export reports as CSV"},
                ],
                "srs_markdown": "# SRS",
            })
        );
    }
}
