//! The `srs-agents` pipeline's test project: a scripted OpenAI-compatible server that
//! answers each agent of each sample from a script (the agent is told by its system prompt,
//! the sample by a `SAMPLE-…` marker in its input and reference SRS), e2e samples carrying
//! those markers, a `goldgate.toml` for the pipeline, and `goldgate run` with none of the
//! environment that would change the pipeline.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;

use serde_json::Value;

use crate::support::openai::{ChatCall, FakeOpenAi, Reply};
use crate::support::pipelines::{records, run_args};

const AGENTS: [&str; 4] = ["ReqParse", "ReqExplore", "ReqClarify", "DocGenerate"];

/// Which agent a request is from: its system prompt says "You are <agent>".
fn agent_of(call: &ChatCall) -> &'static str {
    let system = call.message("system");
    AGENTS
        .into_iter()
        .find(|a| system.contains(&format!("You are {a}")))
        .unwrap_or_else(|| panic!("no agent in {system}"))
}

/// Which sample a request is for: the `SAMPLE-…` marker its messages carry.
fn sample_of(call: &ChatCall) -> String {
    let text = call.text();
    let at = text.find("SAMPLE-").expect("a sample marker");
    text[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect()
}

/// Replies per (sample, agent), in order; when a script runs out, `fallback` answers.
pub type Scripts = HashMap<(String, &'static str), VecDeque<Reply>>;

/// A server answering from `scripts`.
pub fn server(scripts: Scripts, fallback: fn(&str) -> Reply) -> FakeOpenAi {
    let scripts = Mutex::new(scripts);
    FakeOpenAi::start(move |call| {
        let key = (sample_of(call), agent_of(call));
        let next = scripts
            .lock()
            .unwrap()
            .get_mut(&key)
            .and_then(VecDeque::pop_front);
        next.unwrap_or_else(|| fallback(key.1))
    })
}

/// Scripts from (sample, agent, replies) entries.
pub fn script(entries: Vec<(&str, &'static str, Vec<Reply>)>) -> Scripts {
    entries
        .into_iter()
        .map(|(sample, agent, replies)| ((sample.to_string(), agent), replies.into()))
        .collect()
}

/// ReqParse's good answer: four requirements and one without content.
pub const PARSE: &str = "Here is the list:\n```json\n[\n  {\"id\": \"FR-01\", \"content\": \"The user shall set heating schedules from the phone.\"},\n  {\"id\": \"FR-02\", \"content\": \"The thermostat shall report the temperature.\"},\n  {\"id\": \"NFR-01\", \"content\": \"The system shall answer within 2 seconds.\"},\n  {\"id\": \"CON-01\", \"content\": \"The app shall run on Android.\"},\n  {\"id\": \"FR-03\"}\n]\n```\nDone.";

/// DocGenerate's good answer.
pub const DOC: &str = "# 1 Introduction\n\n## 1.1 Purpose\n\nThermostat.\n\n# 3 Specific requirements\n\n- FR-01 The user shall set heating schedules from the phone.\n";

/// What an agent answers when its script has nothing more: a good, empty-handed answer.
pub fn quiet(agent: &str) -> Reply {
    match agent {
        "ReqParse" => Reply::content(PARSE),
        "DocGenerate" => Reply::content(DOC),
        _ => Reply::content("[]"),
    }
}

/// An e2e sample whose input and reference SRS carry `marker`.
pub fn sample(id: &str, marker: &str, conversation: bool) -> String {
    let input = match conversation {
        true => format!(
            "conversation:\n  - role: client\n    content: \"We need a thermostat app ({marker}).\"\n  - role: analyst\n    content: \"Which phones?\"\n  - role: client\n    content: \"Android only.\"\n"
        ),
        false => format!(
            "user_input: \"A smart thermostat app ({marker}): users set schedules from their phone.\"\n"
        ),
    };
    format!(
        "id: {id}\nkind: e2e\ndomain: iot\n{input}reference_srs: |\n  # Reference ({marker})\n  The user sets heating schedules from the phone.\nlabels:\n  requirements:\n    - id: FR-01\n      title: Set heating schedules\n      type: functional\n      actor: user\n      action: set heating schedules from the phone\n"
    )
}

/// A project in `dir`: the samples, and a goldgate.toml for srs-agents at `base_url` with
/// `agents` as its `[pipeline.agents]` lines and `pipeline` as more `[pipeline]` lines.
pub fn project(
    dir: &Path,
    samples: &[(&str, &str, bool)],
    base_url: &str,
    pipeline: &str,
    agents: &str,
) {
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    for (id, marker, conversation) in samples {
        std::fs::write(
            suite.join(format!("{id}.yaml")),
            sample(id, marker, *conversation),
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("goldgate.toml"),
        format!(
            "[pipeline]\nkind = \"srs-agents\"\nbase_url = \"{base_url}\"\nmodel = \"scripted-model\"\n{pipeline}\n[pipeline.agents]\n{agents}\n"
        ),
    )
    .unwrap();
}

/// Environment that would change the pipeline, removed; `GOLDGATE_TEST_BACKOFF_MS` unset so
/// `backoff_secs` decides.
const CLEAN_ENV: [&str; 8] = [
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "OPENAI_API_KEY",
    "OPENAI_TEMP_REQPARSE",
    "OPENAI_TEMP_REQEXPLORE",
    "OPENAI_TEMP_REQCLARIFY",
    "OPENAI_TEMP_DOCGENERATE",
    "GOLDGATE_TEST_BACKOFF_MS",
];

/// `goldgate ARGS` in `dir` with `env`, and nothing else of the environment that would
/// change the pipeline.
pub fn goldgate(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    command.args(args);
    for var in CLEAN_ENV
        .iter()
        .filter(|v| !env.iter().any(|(k, _)| k == *v))
    {
        command.env_remove(var);
    }
    crate::support::project::output(command, dir, env)
}

/// `goldgate run` of the project in `dir` into `run.jsonl`, and its records by sample.
pub fn run(dir: &Path, env: &[(&str, &str)]) -> (Output, BTreeMap<String, Value>) {
    let out = goldgate(dir, &run_args(&[]), env);
    let records = match dir.join("run.jsonl").exists() {
        true => records(&dir.join("run.jsonl")),
        false => BTreeMap::new(),
    };
    (out, records)
}

/// The `id`s of a list of items.
pub fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// The agents a record's trace called, in order.
pub fn agents_called(record: &Value) -> Vec<String> {
    record["trace"]["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["agent"].as_str().unwrap().to_string())
        .collect()
}
