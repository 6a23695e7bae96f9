//! Settings of a `chat` pipeline (`--chat` or `[pipeline] kind = "chat"`), flags over the
//! file over the defaults: the API (base URL from `OPENAI_BASE_URL`, key from
//! `OPENAI_API_KEY`, model from `OPENAI_MODEL`, else `gpt-4o-mini`), sampling, the answer
//! format, provider fields, streaming and the prompt templates; and the price table and
//! budget every adapter's calls are costed with.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::cli::PipelineArgs;
use crate::config::PipelineTable;
use goldgate_core::error::Error;
use goldgate_core::llm::EndpointSettings;
use goldgate_run::chat::prompts::PromptFiles;
use goldgate_run::chat::ChatSettings;
use goldgate_run::config::{Adapter, Origin};
use goldgate_run::cost::Pricing;

/// Defaults of OpenAI-compatible APIs.
pub mod defaults {
    /// The variable naming the API's root.
    pub const BASE_URL_ENV: &str = "OPENAI_BASE_URL";
    /// The variable holding the key.
    pub const API_KEY_ENV: &str = "OPENAI_API_KEY";
    /// The variable naming the model.
    pub const MODEL_ENV: &str = "OPENAI_MODEL";
    /// The model when nothing names one.
    pub const MODEL: &str = "gpt-4o-mini";
}

/// The chat settings from flags over `[pipeline]` (`headers` already read from either).
pub fn chat_settings(
    a: &PipelineArgs,
    p: &PipelineTable,
    headers: Vec<(String, String)>,
    timeout: Duration,
    max_output_bytes: usize,
    file: Option<&Path>,
) -> Result<ChatSettings, Error> {
    // An error names the flag when one was given, else the key and its line in the file.
    let at = |flag_given: bool| match (flag_given, file) {
        (false, Some(path)) => Origin::File(path.to_path_buf()),
        _ => Origin::Flags,
    };
    let model = model(a, p);
    let temperature = a.temperature.or(p.temperature);
    if let Some(t) = temperature.filter(|t| !(0.0..=2.0).contains(t)) {
        return Err(at(a.temperature.is_some()).error(
            "--temperature",
            "temperature",
            &format!("{t} is out of range"),
            "use a temperature from 0 to 2 (0.2 is usual for structured answers)",
        ));
    }
    if a.max_tokens.or(p.max_tokens) == Some(0) {
        return Err(at(a.max_tokens.is_some()).error(
            "--max-tokens",
            "max_tokens",
            "0 leaves the model no room to answer",
            "leave it out to use the model's own limit, or give a few thousand",
        ));
    }
    let response_format = match (&a.response_format, &p.response_format) {
        (Some(flag), _) => Some(flag_format(flag)?),
        (None, Some(value)) => Some(file_format(value).map_err(|(message, hint)| {
            at(false).error("--response-format", "response_format", &message, &hint)
        })?),
        (None, None) => None,
    };
    let extra_body = match (&a.extra_body, &p.extra_body) {
        (Some(text), _) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            _ => {
                return Err(Error::usage(
                    format!("--extra-body `{text}` is not a JSON object"),
                    "for example --extra-body '{\"top_k\": 40}'",
                ))
            }
        },
        (None, Some(table)) => to_json(&toml::Value::Table(table.clone()))
            .as_object()
            .cloned()
            .unwrap_or_default(),
        (None, None) => Map::new(),
    };
    let mut messages = Vec::new();
    for m in &p.messages {
        if !matches!(m.role.as_str(), "system" | "user" | "assistant") {
            return Err(at(false).error(
                "",
                "messages",
                &format!("role = \"{}\" is not a chat role", m.role),
                &goldgate_core::text::hint_for(&m.role, &["system", "user", "assistant"]),
            ));
        }
        messages.push((m.role.clone(), m.template.clone()));
    }
    let mut by_kind = Vec::new();
    for (kind, path) in &p.prompts {
        if goldgate_core::kinds::named(kind).is_none() {
            let known: Vec<&str> = goldgate_core::kinds::listed().map(|k| k.as_str()).collect();
            return Err(at(false).error(
                "",
                "prompts",
                &format!("`{kind}` is not a task kind"),
                &goldgate_core::text::hint_for(kind, &known),
            ));
        }
        by_kind.push((kind.clone(), path.clone()));
    }
    let prompts = PromptFiles {
        system: a.system.clone().or_else(|| p.system.clone()),
        prompt: a.prompt.clone().or_else(|| p.prompt.clone()),
        by_kind,
        messages,
    };
    let some_prompt = prompts.prompt.is_some() || !prompts.by_kind.is_empty();
    if !prompts.messages.is_empty() && (prompts.system.is_some() || some_prompt) {
        return Err(at(false).error(
            "",
            "messages",
            "is given with `system`, `prompt` or `prompts`",
            "`messages` lists the whole conversation: put the system and user templates in it, or drop it",
        ));
    }
    let named = [
        (
            "--system",
            "system",
            a.system.is_some(),
            prompts.system.as_ref(),
        ),
        (
            "--prompt",
            "prompt",
            a.prompt.is_some(),
            prompts.prompt.as_ref(),
        ),
    ];
    let listed = prompts
        .messages
        .iter()
        .map(|(_, f)| ("", "messages", false, Some(f)))
        .chain(
            prompts
                .by_kind
                .iter()
                .map(|(_, f)| ("", "prompts", false, Some(f))),
        );
    for (flag, key, given, path) in named.into_iter().chain(listed) {
        if let Some(path) = path.filter(|p| !p.is_file()) {
            return Err(at(given).error(
                flag,
                key,
                &format!("the prompt template {} does not exist", path.display()),
                "name a minijinja template file (relative to goldgate.toml in the file, to the working directory on the command line)",
            ));
        }
    }
    Ok(ChatSettings {
        endpoint: endpoint(a, p, headers, timeout, max_output_bytes, "the chat API"),
        model,
        temperature,
        max_tokens: a.max_tokens.or(p.max_tokens),
        seed: a.chat_seed.or(p.seed),
        response_format,
        extra_body,
        stream: a.stream || p.stream.unwrap_or(false),
        prompts,
    })
}

/// Where the pipeline's OpenAI-compatible API is (`chat` and `srs-agents`): `--base-url`,
/// else `base_url`, else `OPENAI_BASE_URL`, else OpenAI's; the key's variable from
/// `--api-key-env`, else `api_key_env`, else `OPENAI_API_KEY`. `what` names it in messages.
pub(super) fn endpoint(
    a: &PipelineArgs,
    p: &PipelineTable,
    headers: Vec<(String, String)>,
    timeout: Duration,
    max_output_bytes: usize,
    what: &str,
) -> EndpointSettings {
    EndpointSettings {
        base_url: a
            .base_url
            .clone()
            .or_else(|| p.base_url.clone())
            .or_else(|| env(defaults::BASE_URL_ENV))
            .unwrap_or_else(|| goldgate_client::endpoint::OPENAI_API.to_string()),
        api_key_env: a
            .api_key_env
            .clone()
            .or_else(|| p.api_key_env.clone())
            .unwrap_or_else(|| defaults::API_KEY_ENV.to_string()),
        headers,
        timeout,
        max_answer_bytes: max_output_bytes,
        what: what.into(),
        base_url_setting: "`--base-url`, `[pipeline] base_url` or `OPENAI_BASE_URL`".into(),
    }
}

/// The pipeline's model: `--model`, else `model`, else `OPENAI_MODEL`, else the default.
pub(super) fn model(a: &PipelineArgs, p: &PipelineTable) -> String {
    a.model
        .clone()
        .or_else(|| p.model.clone())
        .or_else(|| env(defaults::MODEL_ENV))
        .unwrap_or_else(|| defaults::MODEL.to_string())
}

/// Refuse a chat setting given to a pipeline it does not apply to (a `--temperature` for a
/// command, `system` for srs-agents), rather than ignore it: a flag always, a
/// `[pipeline]` key when the pipeline came from the file.
pub fn refuse_unused(
    a: &PipelineArgs,
    p: &PipelineTable,
    adapter: &Adapter,
    from_file: bool,
    file: Option<&Path>,
) -> Result<(), Error> {
    let kind = adapter.kind();
    let (llm, chat) = (matches!(kind, "chat" | "srs-agents"), kind == "chat");
    let settings = [
        (
            "--base-url",
            a.base_url.is_some(),
            "base_url",
            p.base_url.is_some(),
            llm,
        ),
        (
            "--api-key-env",
            a.api_key_env.is_some(),
            "api_key_env",
            p.api_key_env.is_some(),
            llm,
        ),
        (
            "--temperature",
            a.temperature.is_some(),
            "temperature",
            p.temperature.is_some(),
            chat,
        ),
        (
            "--max-tokens",
            a.max_tokens.is_some(),
            "max_tokens",
            p.max_tokens.is_some(),
            chat,
        ),
        (
            "--chat-seed",
            a.chat_seed.is_some(),
            "seed",
            p.seed.is_some(),
            chat,
        ),
        (
            "--system",
            a.system.is_some(),
            "system",
            p.system.is_some(),
            chat,
        ),
        (
            "--prompt",
            a.prompt.is_some(),
            "prompt",
            p.prompt.is_some(),
            chat,
        ),
        (
            "--response-format",
            a.response_format.is_some(),
            "response_format",
            p.response_format.is_some(),
            chat,
        ),
        (
            "--extra-body",
            a.extra_body.is_some(),
            "extra_body",
            p.extra_body.is_some(),
            chat,
        ),
        ("--stream", a.stream, "stream", p.stream.is_some(), chat),
        ("", false, "messages", !p.messages.is_empty(), chat),
        ("", false, "prompts", !p.prompts.is_empty(), chat),
    ];
    let hint = match kind {
        "srs-agents" => "srs-agents sets temperatures, token limits and prompts per agent, under [pipeline.agents.<agent>]; see docs/srs-agents.md",
        _ => "it applies to the chat adapter (--chat, or kind = \"chat\" under [pipeline]): remove it",
    };
    for (flag, flag_given, key, key_given, applies) in settings {
        if applies {
            continue;
        }
        let an = if matches!(kind, "http" | "srs-agents") {
            "an"
        } else {
            "a"
        };
        let message = |what: &str| format!("{what} does not apply to {an} {kind} pipeline");
        if flag_given {
            return Err(Error::usage(message(flag), hint));
        }
        if let (true, true, Some(path)) = (key_given, from_file, file) {
            return Err(Origin::File(path.to_path_buf()).error(flag, key, &message("it"), hint));
        }
    }
    Ok(())
}

/// The price table from flags over `[pipeline.pricing]` (both prices, or neither).
pub fn pricing(a: &PipelineArgs, p: &PipelineTable) -> Result<Option<Pricing>, Error> {
    let file = p.pricing.as_ref();
    let input = a.input_per_mtok.or(file.map(|f| f.input_per_mtok));
    let output = a.output_per_mtok.or(file.map(|f| f.output_per_mtok));
    match (input, output) {
        (None, None) => Ok(None),
        (Some(i), Some(o)) if i >= 0.0 && o >= 0.0 && i.is_finite() && o.is_finite() => {
            Ok(Some(Pricing {
                input_per_mtok: i,
                output_per_mtok: o,
            }))
        }
        (Some(_), Some(_)) => Err(Error::usage(
            "a token price is negative or not a number",
            "give prices in USD per million tokens, such as input_per_mtok = 0.15",
        )),
        _ => Err(Error::usage(
            "only one of the input and output token prices is given",
            "give both: --input-per-mtok and --output-per-mtok, or input_per_mtok and output_per_mtok under [pipeline.pricing]",
        )),
    }
}

/// `--max-cost` (else `[run] max_cost`), checked.
pub fn max_cost(flag: Option<f64>, file: Option<f64>) -> Result<Option<f64>, Error> {
    match flag.or(file) {
        Some(usd) if !(usd > 0.0 && usd.is_finite()) => Err(Error::usage(
            format!("max_cost {usd} is not a positive amount"),
            "give the most this run may spend, in USD, such as --max-cost 5",
        )),
        other => Ok(other),
    }
}

/// A variable's value, unless unset or blank.
pub(super) fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// `--response-format`: `json_object`, `text`, or a JSON Schema file.
fn flag_format(text: &str) -> Result<Value, Error> {
    match text {
        "json_object" | "text" => Ok(json!({"type": text})),
        path => schema_format(Path::new(path), "answer", true),
    }
}

/// `response_format` in `[pipeline]`: `"json_object"`, `"text"`, or a table with a
/// `schema` (a file or an inline table), and optionally `name` and `strict`. `Err`: what is
/// wrong and the hint.
fn file_format(value: &toml::Value) -> Result<Value, (String, String)> {
    let hint = "write response_format = \"json_object\", or { schema = \"answer.schema.json\" } for structured outputs".to_string();
    match value {
        toml::Value::String(s) if s == "json_object" || s == "text" => Ok(json!({"type": s})),
        toml::Value::Table(t) => {
            if let Some(bad) = t
                .keys()
                .find(|k| !["schema", "name", "strict"].contains(&k.as_str()))
            {
                return Err((
                    format!("has an unknown key `{bad}`"),
                    goldgate_core::text::hint_for(bad, &["schema", "name", "strict"]),
                ));
            }
            let name = t
                .get("name")
                .and_then(toml::Value::as_str)
                .unwrap_or("answer");
            let strict = t
                .get("strict")
                .and_then(toml::Value::as_bool)
                .unwrap_or(true);
            match t.get("schema") {
                Some(toml::Value::String(path)) => schema_format(Path::new(path), name, strict)
                    .map_err(|e| (e.to_string(), hint.clone())),
                Some(table @ toml::Value::Table(_)) => Ok(json!({"type": "json_schema",
                    "json_schema": {"name": name, "schema": to_json(table), "strict": strict}})),
                _ => Err(("has no `schema`".to_string(), hint)),
            }
        }
        other => Err((format!("{other} is not an answer format"), hint)),
    }
}

fn schema_format(path: &Path, name: &str, strict: bool) -> Result<Value, Error> {
    let text = goldgate_core::io::read(path)?;
    let schema: Value = serde_json::from_str(&text).map_err(|e| {
        Error::usage(
            format!("the JSON Schema {} is not JSON: {e}", path.display()),
            "response_format names a JSON Schema file (or json_object)",
        )
    })?;
    Ok(
        json!({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}}),
    )
}

/// A TOML value as JSON (dates become strings).
fn to_json(value: &toml::Value) -> Value {
    match value {
        toml::Value::String(s) => json!(s),
        toml::Value::Integer(i) => json!(i),
        toml::Value::Float(f) => json!(f),
        toml::Value::Boolean(b) => json!(b),
        toml::Value::Datetime(d) => json!(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.iter().map(|(k, v)| (k.clone(), to_json(v))).collect())
        }
    }
}
