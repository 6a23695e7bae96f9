//! The `chat` pipeline's prompts: the messages sent for a sample, each rendered from a
//! minijinja template with the sample's request. Built in: one system prompt
//! (`prompts/chat/system.j2`) and, for each task kind that has one, the user prompt its
//! folder holds (`TaskKind::chat_prompts`), asking for the answer format the kind is scored
//! on. A project replaces them with its own files: `system` and `prompt`, or
//! a whole `messages` list of role/template pairs. What a template can use is
//! [`context`]'s variables; the templates' sources are part of the pipeline fingerprint.

use std::path::PathBuf;

use serde_json::{json, Value};

use goldgate_core::error::{Error, Result};
use goldgate_core::kinds;
use goldgate_core::llm::prompt::Template;
use goldgate_core::llm::Message;

/// Where a project's prompts come from (files relative to where they were configured).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptFiles {
    /// The system prompt (default: the built-in one).
    pub system: Option<PathBuf>,
    /// The user prompt, for every kind (default: the built-in one of the sample's kind).
    pub prompt: Option<PathBuf>,
    /// The whole conversation, as (role, template file); replaces `system` and `prompt`.
    pub messages: Vec<(String, PathBuf)>,
}

/// A template for every sample, or one per task kind.
enum PerKind {
    One(Box<Template>),
    ByKind(Vec<(&'static str, Template)>),
}

impl PerKind {
    fn for_kind(&self, kind: &str) -> Result<&Template> {
        match self {
            PerKind::One(t) => Ok(t),
            PerKind::ByKind(all) => all.iter().find(|(k, _)| *k == kind).map(|(_, t)| t).ok_or_else(|| {
                Error::usage(
                    format!("the chat pipeline has no built-in prompt for `{kind}` samples"),
                    "write one and name it with `prompt = \"FILE\"` under [pipeline] (or --prompt FILE)",
                )
            }),
        }
    }
}

/// The messages of one request, ready to render.
pub struct Prompts {
    messages: Vec<(String, PerKind)>,
}

/// The built-in system prompt.
pub const BUILT_IN_SYSTEM: &str = include_str!("../../prompts/chat/system.j2");

impl Prompts {
    /// Read the project's template files (a syntax error is an input error at its line),
    /// filling in the built-in ones where it has none.
    pub fn load(files: &PromptFiles) -> Result<Prompts> {
        if !files.messages.is_empty() {
            let messages = files
                .messages
                .iter()
                .map(|(role, path)| {
                    Ok((role.clone(), PerKind::One(Box::new(Template::file(path)?))))
                })
                .collect::<Result<_>>()?;
            return Ok(Prompts { messages });
        }
        let system = match &files.system {
            Some(path) => Template::file(path)?,
            None => Template::builtin("chat/system.j2", BUILT_IN_SYSTEM),
        };
        let user = match &files.prompt {
            Some(path) => PerKind::One(Box::new(Template::file(path)?)),
            None => PerKind::ByKind(
                kinds::ALL
                    .iter()
                    .filter_map(|k| {
                        let kind = k.name();
                        let source = k.chat_prompts().built_in?;
                        Some((kind, Template::builtin(&format!("chat/{kind}.j2"), source)))
                    })
                    .collect(),
            ),
        };
        Ok(Prompts {
            messages: vec![
                ("system".into(), PerKind::One(Box::new(system))),
                ("user".into(), user),
            ],
        })
    }

    /// The messages for one sample's request.
    pub fn render(&self, request: &Value) -> Result<Vec<Message>> {
        let context = context(request);
        let kind = request["kind"].as_str().unwrap_or_default();
        self.messages
            .iter()
            .map(|(role, t)| Ok(Message::new(role, t.for_kind(kind)?.render(&context)?)))
            .collect()
    }

    /// Each template's role, name and fingerprint, in order: what the pipeline fingerprint
    /// covers.
    pub fn fingerprints(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (role, t) in &self.messages {
            match t {
                PerKind::One(t) => out.push(format!("{role}\0{}", t.fingerprint())),
                PerKind::ByKind(all) => out.extend(
                    all.iter()
                        .map(|(kind, t)| format!("{role}\0{kind}\0{}", t.fingerprint())),
                ),
            }
        }
        out
    }
}

/// The variables a prompt template can use, from a sample's request: `sample` (the whole
/// request), `id`, `kind`, `domain`, `difficulty`, `conversation` (its messages with their
/// `index`), `transcript` (the conversation as `[i] role: content` lines, empty without
/// one), `user_input`, `reference_srs`, `requirements` (the base requirements) and
/// `requirements_json` (the same, as indented JSON), `task` and `text` (a tuples sample's
/// task name and input text), and `input` (the transcript, else the user input, else the
/// text). A field the sample does not have is absent, so `{% if domain %}` tests it.
pub fn context(request: &Value) -> Value {
    let conversation: Vec<Value> = request["conversation"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, m)| {
            let mut m = m.clone();
            if let Some(o) = m.as_object_mut() {
                o.insert("index".into(), json!(i));
            }
            m
        })
        .collect();
    let transcript = conversation
        .iter()
        .map(|m| {
            format!(
                "[{}] {}: {}",
                m["index"],
                m["role"].as_str().unwrap_or("?"),
                m["content"].as_str().unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut context = json!({
        "sample": request,
        "conversation": conversation,
        "transcript": transcript,
    });
    for key in [
        "id",
        "kind",
        "domain",
        "difficulty",
        "user_input",
        "reference_srs",
        "requirements",
        "task",
        "text",
    ] {
        if let Some(v) = request.get(key).filter(|v| !v.is_null()) {
            context[key] = v.clone();
        }
    }
    if let Some(r) = request.get("requirements").filter(|v| !v.is_null()) {
        context["requirements_json"] = json!(serde_json::to_string_pretty(r).unwrap_or_default());
    }
    let input = match transcript.is_empty() {
        false => Some(transcript),
        true => request["user_input"]
            .as_str()
            .or_else(|| request["text"].as_str())
            .map(str::to_string),
    };
    if let Some(input) = input {
        context["input"] = json!(input);
    }
    context
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_built_in_prompt_asking_for_its_answer_keys() {
        let prompts = Prompts::load(&PromptFiles::default()).unwrap();
        let conversation = json!([{"role": "user", "content": "We need order tracking"}, {"role": "analyst", "content": "Email too?"}]);
        for (kind, keys) in [
            ("extraction", vec!["\"requirements\""]),
            ("inference", vec!["\"inferred_requirements\""]),
            ("validation", vec!["\"issues\"", "\"pii\""]),
            ("e2e", vec!["\"requirements\"", "\"srs_markdown\""]),
        ] {
            let request = json!({"id": "s", "kind": kind, "domain": "retail", "conversation": conversation, "requirements": [{"id": "REQ-001"}]});
            let messages = prompts.render(&request).unwrap();
            assert_eq!(messages.len(), 2);
            assert_eq!(
                (messages[0].role.as_str(), messages[1].role.as_str()),
                ("system", "user")
            );
            for key in keys {
                assert!(messages[1].content.contains(key), "{kind}: {key}");
            }
            if kind != "e2e" || !messages[1].content.is_empty() {
                assert!(
                    messages[1].content.contains("[1] analyst: Email too?"),
                    "{kind}"
                );
            }
        }
        let e2e =
            json!({"id": "s", "kind": "e2e", "user_input": "A library app.", "reference_srs": "…"});
        let messages = prompts.render(&e2e).unwrap();
        assert!(messages[1].content.contains("A library app."));
        let e = prompts
            .render(&json!({"kind": "tuples"}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no built-in prompt for `tuples`"), "{e}");
    }

    #[test]
    fn the_context_numbers_messages_and_leaves_out_what_the_sample_lacks() {
        let c =
            context(&json!({"id": "x", "kind": "e2e", "user_input": "text", "conversation": []}));
        assert_eq!(c["input"], json!("text"));
        assert_eq!(c["transcript"], json!(""));
        assert!(c.get("domain").is_none() && c.get("requirements_json").is_none());
        let c = context(&json!({"conversation": [{"role": "user", "content": "a"}]}));
        assert_eq!(c["conversation"][0]["index"], json!(0));
        assert_eq!(c["input"], json!("[0] user: a"));
        let c = context(&json!({"kind": "tuples", "task": "absa", "text": "Nice screen."}));
        assert_eq!(
            (&c["task"], &c["text"]),
            (&json!("absa"), &json!("Nice screen."))
        );
        assert_eq!(c["input"], json!("Nice screen."));
    }
}
