//! The settings a pipeline's answers depend on, each by the name a user sets it under
//! (`[pipeline] command`, `[pipeline] temperature`, `[pipeline.agents.reqparse] prompt`, …)
//! with the `sha256:` of its value: recorded beside the pipeline fingerprint (which covers
//! the same settings) so that a change of pipeline can be named, never shown (a header
//! template may hold a token). Which prompt template a setting names (a file, or the
//! built-in one) is a setting; a file's content is one of the fingerprint's files.

use std::path::PathBuf;

use super::agents::state::Agent;
use super::chat::ChatSettings;
use super::config::Adapter;
use goldgate_core::runfile::record::MODEL_SETTING;

/// Each setting of `adapter` and the hash of its value, by name.
pub fn settings(adapter: &Adapter) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut add = |name: String, value: String| out.push((name, hash(&value)));
    let headers = |add: &mut dyn FnMut(String, String), headers: &[(String, String)]| {
        for (name, template) in headers {
            add(format!("[pipeline] headers.{name}"), template.clone());
        }
    };
    match adapter {
        Adapter::Command { command, mode } => {
            add("[pipeline] command".into(), command.clone());
            add("[pipeline] mode".into(), format!("{mode:?}"));
        }
        Adapter::Http { url, headers: h } => {
            add("[pipeline] url".into(), url.clone());
            headers(&mut add, h);
        }
        // The replay file's content is the adapter's whole setting (the parts' `config`).
        Adapter::Replay { .. } => {}
        Adapter::Chat(chat) => chat_settings(chat, &mut add),
        Adapter::SrsAgents(o) => {
            add("[pipeline] base_url".into(), super::agents::base_url(o));
            add(MODEL_SETTING.into(), o.model.clone());
            add(
                "[pipeline.agents] max_iterations".into(),
                o.max_iterations.to_string(),
            );
            add(
                "[pipeline.agents] ablation".into(),
                o.ablation.as_str().into(),
            );
            headers(&mut add, &o.endpoint.headers);
            for agent in Agent::ALL {
                let a = o.agent(agent);
                let key = |k: &str| format!("[pipeline.agents.{}] {k}", agent.key());
                add(key("temperature"), a.temperature.to_string());
                add(key("max_tokens"), format!("{:?}", a.max_tokens));
                add(key("system"), template(&a.system));
                add(key("prompt"), template(&a.prompt));
            }
        }
    }
    out
}

fn chat_settings(chat: &ChatSettings, add: &mut dyn FnMut(String, String)) {
    let json = |v: serde_json::Result<String>| v.unwrap_or_default();
    add("[pipeline] base_url".into(), chat.base_url());
    add(MODEL_SETTING.into(), chat.model.clone());
    add(
        "[pipeline] temperature".into(),
        format!("{:?}", chat.temperature),
    );
    add(
        "[pipeline] max_tokens".into(),
        format!("{:?}", chat.max_tokens),
    );
    add("[pipeline] seed".into(), format!("{:?}", chat.seed));
    add(
        "[pipeline] response_format".into(),
        json(serde_json::to_string(&chat.response_format)),
    );
    add(
        "[pipeline] extra_body".into(),
        json(serde_json::to_string(&chat.extra_body)),
    );
    for (name, template) in &chat.endpoint.headers {
        add(format!("[pipeline] headers.{name}"), template.clone());
    }
    let p = &chat.prompts;
    add("[pipeline] system".into(), template(&p.system));
    add("[pipeline] prompt".into(), template(&p.prompt));
    let messages: Vec<String> = p
        .messages
        .iter()
        .map(|(role, file)| format!("{role}={}", file.display()))
        .collect();
    add("[pipeline] messages".into(), messages.join("\0"));
}

/// Which template a prompt setting names: its file, or the built-in one.
fn template(file: &Option<PathBuf>) -> String {
    file.as_ref()
        .map_or_else(|| "built-in".into(), |f| f.display().to_string())
}

fn hash(value: &str) -> String {
    goldgate_core::text::sha256(value.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_setting_is_named_and_only_its_hash_is_kept() {
        let command = Adapter::Command {
            command: "sh pipeline.sh --token sk-SECRET".into(),
            mode: super::super::config::Mode::Oneshot,
        };
        let listed = settings(&command);
        let names: Vec<&str> = listed.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["[pipeline] command", "[pipeline] mode"]);
        assert!(listed.iter().all(|(_, v)| v.starts_with("sha256:")));
        assert!(!format!("{listed:?}").contains("SECRET"));
        let other = Adapter::Command {
            command: "sh other.sh".into(),
            mode: super::super::config::Mode::Oneshot,
        };
        let changed: Vec<bool> = settings(&other)
            .iter()
            .zip(&listed)
            .map(|(a, b)| a != b)
            .collect();
        assert_eq!(changed, [true, false]);
    }
}
