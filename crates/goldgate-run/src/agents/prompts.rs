//! The agents' prompts: each agent's system and user templates (built in under
//! `templates/prompts/srs-agents/`, or files a project names instead), their fingerprints,
//! and the variables they are rendered with — the input, the reference SRS, the round, and
//! the requirement lists the agent may see.

use serde_json::{json, Value};

use super::options::AgentsOptions;
use super::state::{Agent, Req, State};
use goldgate_core::error::Result;
use goldgate_core::llm::prompt::Template;
use goldgate_core::llm::Message;

/// The built-in (system, user) templates of an agent.
pub fn builtin(agent: Agent) -> (&'static str, &'static str) {
    match agent {
        Agent::ReqParse => (
            include_str!("../../prompts/srs-agents/reqparse.system.j2"),
            include_str!("../../prompts/srs-agents/reqparse.user.j2"),
        ),
        Agent::ReqExplore => (
            include_str!("../../prompts/srs-agents/reqexplore.system.j2"),
            include_str!("../../prompts/srs-agents/reqexplore.user.j2"),
        ),
        Agent::ReqClarify => (
            include_str!("../../prompts/srs-agents/reqclarify.system.j2"),
            include_str!("../../prompts/srs-agents/reqclarify.user.j2"),
        ),
        Agent::DocGenerate => (
            include_str!("../../prompts/srs-agents/docgenerate.system.j2"),
            include_str!("../../prompts/srs-agents/docgenerate.user.j2"),
        ),
    }
}

/// Every agent's (system, user) templates, in [`Agent::ALL`] order.
#[derive(Debug)]
pub struct Prompts {
    templates: Vec<(Template, Template)>,
}

impl Prompts {
    /// The built-in templates, with the files `options` names instead (a file that cannot be
    /// read or does not parse is an input error).
    pub fn load(options: &AgentsOptions) -> Result<Prompts> {
        let mut templates = Vec::new();
        for agent in Agent::ALL {
            let (system, user) = builtin(agent);
            let o = options.agent(agent);
            let pick =
                |file: &Option<std::path::PathBuf>, part: &str, source: &'static str| match file {
                    Some(path) => Template::file(path),
                    None => Ok(Template::builtin(
                        &format!("srs-agents/{}.{part}.j2", agent.key()),
                        source,
                    )),
                };
            templates.push((
                pick(&o.system, "system", system)?,
                pick(&o.prompt, "user", user)?,
            ));
        }
        Ok(Prompts { templates })
    }

    /// The messages of one agent call.
    pub fn render(&self, agent: Agent, context: &Value) -> Result<Vec<Message>> {
        let (system, user) = &self.templates[agent as usize];
        Ok(vec![
            Message::new("system", system.render(context)?),
            Message::new("user", user.render(context)?),
        ])
    }

    /// Each template's name and `sha256:` fingerprint, in agent order (system, then user).
    pub fn fingerprints(&self) -> Vec<(String, String)> {
        self.templates
            .iter()
            .flat_map(|(s, u)| [s, u])
            .map(|t| (t.name().to_string(), t.fingerprint().to_string()))
            .collect()
    }
}

/// What a prompt can use besides the requirement lists: the input as text, whether it is a
/// conversation, the reference SRS and the sample's domain.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    pub user_input: String,
    pub input_is_conversation: bool,
    pub reference_srs: String,
    pub domain: String,
}

impl Input {
    /// The input of a sample's request: its conversation as `[i] role: text` lines when it
    /// has one, else its `user_input`; `None` when it has neither.
    pub fn of(request: &Value) -> Option<Input> {
        let text = |key: &str| request.get(key).and_then(Value::as_str).unwrap_or_default();
        let messages = request
            .get("conversation")
            .and_then(Value::as_array)
            .filter(|m| !m.is_empty());
        let (user_input, input_is_conversation) = match messages {
            Some(messages) => (conversation_text(messages), true),
            None => (text("user_input").trim().to_string(), false),
        };
        (!user_input.is_empty()).then(|| Input {
            user_input,
            input_is_conversation,
            reference_srs: text("reference_srs").to_string(),
            domain: text("domain").to_string(),
        })
    }
}

/// A conversation as text, one message per line: `[i] role: content` (line breaks inside a
/// message kept, indented).
pub fn conversation_text(messages: &[Value]) -> String {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("unknown");
            let content = m.get("content").and_then(Value::as_str).unwrap_or_default();
            format!("[{i}] {role}: {}", content.trim().replace('\n', "\n    "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn item(r: &Req) -> Value {
    json!({"id": r.id, "content": r.content})
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// The variables of an agent's prompts: `user_input`, `input_is_conversation`,
/// `reference_srs`, `domain`, `round` (1-based), `iteration` (rounds done),
/// `max_iterations`, and the lists the agent sees, each also as JSON text (`…_json`):
/// `requirements` (ReqExplore: the open items with their last `score`, or null; ReqClarify:
/// the open items; DocGenerate: the final list; ReqParse: none), `frozen` and `removed`.
pub fn context(input: &Input, state: &State, agent: Agent) -> Value {
    let requirements: Vec<Value> = match agent {
        Agent::ReqParse => Vec::new(),
        Agent::ReqExplore => state
            .unfrozen()
            .map(|r| json!({"id": r.id, "content": r.content, "score": state.scores.get(&r.id)}))
            .collect(),
        Agent::ReqClarify => state.unfrozen().map(item).collect(),
        Agent::DocGenerate => state.req_list.iter().map(item).collect(),
    };
    let requirements = Value::Array(requirements);
    let frozen = Value::Array(state.frozen.iter().map(item).collect());
    let removed = Value::Array(state.removed.iter().map(item).collect());
    json!({
        "user_input": input.user_input,
        "input_is_conversation": input.input_is_conversation,
        "reference_srs": input.reference_srs,
        "domain": input.domain,
        "round": state.iteration + 1,
        "iteration": state.iteration,
        "max_iterations": state.max_iterations,
        "requirements_json": pretty(&requirements),
        "frozen_json": pretty(&frozen),
        "removed_json": pretty(&removed),
        "requirements": requirements,
        "frozen": frozen,
        "removed": removed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::state::Ablation;

    fn options() -> AgentsOptions {
        let agent = crate::agents::options::AgentOptions {
            temperature: 0.2,
            max_tokens: None,
            attempts: 3,
            system: None,
            prompt: None,
        };
        AgentsOptions {
            endpoint: goldgate_core::llm::EndpointSettings {
                base_url: "http://127.0.0.1:9/v1".into(),
                api_key_env: "OPENAI_API_KEY".into(),
                headers: vec![],
                timeout: std::time::Duration::from_secs(1),
                max_answer_bytes: 1 << 20,
                what: "the srs-agents API".into(),
                base_url_setting: "base_url".into(),
            },
            model: "m".into(),
            max_iterations: 5,
            ablation: Ablation::None,
            backoff: std::time::Duration::ZERO,
            agents: [agent.clone(), agent.clone(), agent.clone(), agent],
        }
    }

    #[test]
    fn the_input_is_the_conversation_with_indexes_else_the_user_input() {
        let request = json!({
            "user_input": "ignored",
            "reference_srs": "# SRS",
            "conversation": [
                {"role": "client", "content": "We need a portal.\nFast."},
                {"role": "analyst", "content": " For whom? "},
            ],
        });
        let input = Input::of(&request).unwrap();
        assert_eq!(
            input.user_input,
            "[0] client: We need a portal.\n    Fast.\n[1] analyst: For whom?"
        );
        assert!(input.input_is_conversation);
        assert_eq!(input.reference_srs, "# SRS");
        let input = Input::of(&json!({"user_input": " A thermostat app. "})).unwrap();
        assert_eq!(
            (input.user_input.as_str(), input.input_is_conversation),
            ("A thermostat app.", false)
        );
        assert_eq!(
            Input::of(&json!({"conversation": [], "user_input": ""})),
            None
        );
        assert_eq!(Input::of(&json!({"requirements": []})), None);
    }

    #[test]
    fn every_built_in_prompt_renders_for_every_agent() {
        let prompts = Prompts::load(&options()).unwrap();
        let mut state = State::new("in".into(), "ref".into(), 5, Ablation::None);
        state
            .apply_parse(&json!([{"id": "FR-01", "content": "The user shall log in."}]))
            .unwrap();
        state.scores.insert("FR-01".into(), 1);
        for conversation in [false, true] {
            let input = Input {
                user_input: "[0] client: hello".into(),
                input_is_conversation: conversation,
                reference_srs: "# Reference".into(),
                domain: String::new(),
            };
            for agent in Agent::ALL {
                let messages = prompts
                    .render(agent, &context(&input, &state, agent))
                    .unwrap();
                assert_eq!(messages[0].role, "system");
                assert!(messages[0].content.contains(agent.name()), "{agent:?}");
                assert!(
                    messages[1].content.contains("[0] client: hello") || agent == Agent::ReqClarify
                );
                let sources = messages[0].content.contains("source_messages");
                assert_eq!(
                    sources,
                    conversation && agent == Agent::ReqParse,
                    "{agent:?}"
                );
            }
        }
        let explore = context(
            &Input::of(&json!({"user_input": "x"})).unwrap(),
            &state,
            Agent::ReqExplore,
        );
        assert_eq!(
            explore["requirements"],
            json!([{"id": "FR-01", "content": "The user shall log in.", "score": 1}])
        );
        assert_eq!(explore["round"], 1);
        let clarify = prompts
            .render(
                Agent::ReqClarify,
                &context(
                    &Input::of(&json!({"user_input": "x", "reference_srs": "REF TEXT"})).unwrap(),
                    &state,
                    Agent::ReqClarify,
                ),
            )
            .unwrap();
        assert!(
            clarify[1].content.contains("REF TEXT") && clarify[1].content.contains("\"FR-01\"")
        );
    }

    #[test]
    fn a_prompt_file_replaces_the_built_in_one_and_its_fingerprint() {
        let dir =
            std::env::temp_dir().join(format!("goldgate-agents-prompts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("clarify.j2");
        std::fs::write(
            &path,
            "Score {{ requirements_json }} against {{ reference_srs }}",
        )
        .unwrap();
        let builtin = Prompts::load(&options()).unwrap().fingerprints();
        let mut o = options();
        o.agents[Agent::ReqClarify as usize].prompt = Some(path.clone());
        let custom = Prompts::load(&o).unwrap();
        let fingerprints = custom.fingerprints();
        assert_eq!(fingerprints.len(), 8);
        let changed: Vec<usize> = (0..8).filter(|&i| fingerprints[i] != builtin[i]).collect();
        assert_eq!(changed, [5], "only ReqClarify's user prompt changed");
        std::fs::write(&path, "{{ oops ").unwrap();
        let e = Prompts::load(&o).unwrap_err().to_string();
        assert!(
            e.contains("clarify.j2") && e.contains("does not parse"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
