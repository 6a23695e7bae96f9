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
    /// The user prompt, for every kind not in `by_kind` (default: the built-in one of the
    /// sample's kind).
    pub prompt: Option<PathBuf>,
    /// The user prompt of each kind named (`[pipeline.prompts]`): a sample's cached answer
    /// depends on its own kind's template only.
    pub by_kind: Vec<(String, PathBuf)>,
    /// The whole conversation, as (role, template file); replaces `system` and `prompt`.
    pub messages: Vec<(String, PathBuf)>,
}

/// A template for every sample, or one per task kind.
enum PerKind {
    One(Box<Template>),
    ByKind(Vec<(String, Template)>),
}

impl PerKind {
    fn for_kind(&self, kind: &str) -> Result<&Template> {
        match self {
            PerKind::One(t) => Ok(t),
            PerKind::ByKind(all) => all.iter().find(|(k, _)| *k == kind).map(|(_, t)| t).ok_or_else(|| {
                Error::usage(
                    format!("the chat pipeline has no built-in prompt for `{kind}` samples"),
                    format!("write one and name it under [pipeline.prompts] (`{kind} = \"FILE\"`), or with `prompt = \"FILE\"` under [pipeline] (or --prompt FILE) for every kind"),
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
        let user = match (&files.prompt, files.by_kind.is_empty()) {
            (Some(path), true) => PerKind::One(Box::new(Template::file(path)?)),
            // Each kind's own file, else the project's prompt for every kind, else the
            // kind's built-in one.
            (every, _) => {
                let mut all = Vec::new();
                for k in kinds::ALL {
                    let kind = k.name();
                    let own = files.by_kind.iter().find(|(name, _)| name == kind);
                    let template = match (own, every, k.chat_prompts().built_in) {
                        (Some((_, path)), _, _) | (None, Some(path), _) => Template::file(path)?,
                        (None, None, Some(source)) => {
                            Template::builtin(&format!("chat/{kind}.j2"), source)
                        }
                        (None, None, None) => continue,
                    };
                    all.push((kind.to_string(), template));
                }
                PerKind::ByKind(all)
            }
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

    /// The fingerprints of the templates a sample of each kind is rendered with, by kind,
    /// when the user prompt is chosen by kind (`None`: every sample uses the same ones).
    pub fn fingerprints_by_kind(&self) -> Option<Vec<(String, Vec<String>)>> {
        let kinds: Vec<&String> = self.messages.iter().find_map(|(_, t)| match t {
            PerKind::ByKind(all) => Some(all.iter().map(|(k, _)| k).collect()),
            PerKind::One(_) => None,
        })?;
        let of = |kind: &str| {
            self.messages
                .iter()
                .filter_map(|(role, t)| {
                    let t = t.for_kind(kind).ok()?;
                    Some(format!("{role}\0{}", t.fingerprint()))
                })
                .collect()
        };
        Some(kinds.into_iter().map(|k| (k.clone(), of(k))).collect())
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
        let prompted = kinds::ALL
            .iter()
            .filter(|k| k.chat_prompts().built_in.is_some());
        assert!(prompted.clone().count() > 1);
        for k in prompted {
            let kind = k.name();
            let request = json!({"id": "s", "kind": kind, "domain": "retail", "conversation": conversation, "requirements": [{"id": "REQ-001"}]});
            let messages = prompts.render(&request).unwrap();
            assert_eq!(messages.len(), 2);
            assert_eq!(
                (messages[0].role.as_str(), messages[1].role.as_str()),
                ("system", "user")
            );
            for key in k.answer_keys() {
                let key = format!("\"{key}\"");
                assert!(messages[1].content.contains(&key), "{kind}: {key}");
            }
            assert!(
                messages[1].content.contains("[1] analyst: Email too?"),
                "{kind}"
            );
        }
        // A kind whose samples may give a statement instead of a conversation (the judge
        // compares its answer's document with the sample's reference).
        let judged = kinds::ALL
            .iter()
            .find_map(|k| Some((k.name(), k.judged_document()?)))
            .expect("a kind with a judged document");
        let (kind, document) = judged;
        let statement = json!({"id": "s", "kind": kind, "user_input": "A library app.", document.reference: "…"});
        let messages = prompts.render(&statement).unwrap();
        assert!(messages[1].content.contains("A library app."));
        let unprompted: Vec<&str> = kinds::ALL
            .iter()
            .filter(|k| k.chat_prompts().built_in.is_none())
            .map(|k| k.name())
            .collect();
        assert!(
            !unprompted.is_empty(),
            "a kind whose projects write their own prompt"
        );
        for kind in unprompted {
            let e = prompts
                .render(&json!({ "kind": kind }))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("no built-in prompt for `{kind}`")),
                "{e}"
            );
        }
    }

    #[test]
    fn the_context_numbers_messages_and_leaves_out_what_the_sample_lacks() {
        // A kind whose samples may give a statement (see above) and one whose samples give
        // a task's text.
        let judged = kinds::ALL
            .iter()
            .find(|k| k.judged_document().is_some())
            .expect("a kind with a judged document")
            .name();
        let tasked = kinds::ALL
            .iter()
            .find(|k| matches!(k.reads(), kinds::keys::Reads::TaskPointers))
            .expect("a kind whose answers are read at a task's pointers")
            .name();
        let c =
            context(&json!({"id": "x", "kind": judged, "user_input": "text", "conversation": []}));
        assert_eq!(c["input"], json!("text"));
        assert_eq!(c["transcript"], json!(""));
        assert!(c.get("domain").is_none() && c.get("requirements_json").is_none());
        let c = context(&json!({"conversation": [{"role": "user", "content": "a"}]}));
        assert_eq!(c["conversation"][0]["index"], json!(0));
        assert_eq!(c["input"], json!("[0] user: a"));
        let c = context(&json!({"kind": tasked, "task": "absa", "text": "Nice screen."}));
        assert_eq!(
            (&c["task"], &c["text"]),
            (&json!("absa"), &json!("Nice screen."))
        );
        assert_eq!(c["input"], json!("Nice screen."));
    }
}
