//! `goldgate.toml`: the project's settings, so a command line can stay short — `[pipeline]`
//! (which pipeline to call, and how; `[pipeline.agents]` for `srs-agents`), `[run]`, `[check]` (where `check` finds its inputs
//! and writes its outputs), `[suite]` (how suites are read) and `[judge]` (the LLM judge). Flags override the file (see `settings`). Every table denies
//! unknown keys; errors name the file, line and key, with a hint. Relative paths are
//! relative to the file's directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Deserializer};

use goldgate_core::error::{Error, Location, Problem, Result};
use goldgate_core::text::explain_serde;
use goldgate_run::agents::state::Ablation;

/// `[pipeline]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineTable {
    /// `command`, `http`, `replay`, `chat` or `srs-agents`.
    pub kind: Option<String>,
    pub command: Option<String>,
    /// `oneshot` or `jsonl`.
    pub mode: Option<String>,
    pub url: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Replay file.
    pub file: Option<PathBuf>,
    pub model: Option<String>,
    #[serde(default)]
    pub fingerprint_files: Vec<PathBuf>,
    /// Environment variables the answers depend on (`PREFIX_*` for a prefix): their values,
    /// hashed, are part of the cache key.
    #[serde(default)]
    pub fingerprint_env: Vec<String>,
    pub timeout_secs: Option<f64>,
    pub retries: Option<u32>,
    pub max_output_bytes: Option<usize>,
    pub rpm: Option<u32>,
    pub tpm: Option<u64>,
    /// Variables passed to a command pipeline even when withheld or cleared (`PREFIX_*`
    /// for a prefix).
    #[serde(default)]
    pub env_passthrough: Vec<String>,
    /// Start a command pipeline from an empty environment (plus `PATH`, `HOME` and
    /// `env_passthrough`).
    pub env_clear: Option<bool>,
    /// The directory a command from this file runs in (default: the file's directory).
    pub workdir: Option<PathBuf>,
    /// Cache the answers (`http` pipelines only when `true`; `false` turns it off for any).
    pub cache: Option<bool>,
    /// Cached answers older than this (`"30m"`, `"1h"`, `"2d"`) are not reused.
    #[serde(default, deserialize_with = "duration")]
    pub cache_ttl: Option<Duration>,
    /// `chat`, `srs-agents`: the API's root (default: `OPENAI_BASE_URL`, else the OpenAI
    /// API).
    pub base_url: Option<String>,
    /// `chat`, `srs-agents`: the environment variable holding the API key (default
    /// `OPENAI_API_KEY`).
    pub api_key_env: Option<String>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub seed: Option<i64>,
    /// `"json_object"`, `"text"`, or `{ schema = FILE or table, name, strict }`.
    pub response_format: Option<toml::Value>,
    /// Provider-specific fields added to every request body.
    pub extra_body: Option<toml::Table>,
    /// Stream answers (Server-Sent Events).
    pub stream: Option<bool>,
    /// The system prompt template (default: the built-in one).
    pub system: Option<PathBuf>,
    /// The user prompt template (default: the built-in one of the sample's kind).
    pub prompt: Option<PathBuf>,
    /// `[pipeline.prompts]`: each kind's own user prompt template (`extraction =
    /// "prompts/extraction.j2"`); a sample's cached answer depends on its kind's only.
    #[serde(default)]
    pub prompts: std::collections::BTreeMap<String, PathBuf>,
    /// The whole conversation as role/template pairs (replaces `system` and `prompt`).
    #[serde(default)]
    pub messages: Vec<MessageTemplate>,
    /// `[pipeline.pricing]`: USD per million tokens.
    pub pricing: Option<PricingTable>,
    /// `[pipeline.agents]`: the `srs-agents` pipeline's own settings.
    pub agents: Option<AgentsTable>,
}

/// `[pipeline.agents]`: the rounds, the ablation and the wait between attempts of the
/// `srs-agents` pipeline, and `[pipeline.agents.<agent>]` for each agent.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentsTable {
    #[serde(default, deserialize_with = "max_iterations")]
    pub max_iterations: Option<u32>,
    pub ablation: Option<Ablation>,
    #[serde(default, deserialize_with = "backoff_secs")]
    pub backoff_secs: Option<f64>,
    pub reqparse: Option<AgentTable>,
    pub reqexplore: Option<AgentTable>,
    pub reqclarify: Option<AgentTable>,
    pub docgenerate: Option<AgentTable>,
}

/// `[pipeline.agents.reqparse]` and the like: one agent's temperature, token limit and
/// prompt files.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentTable {
    #[serde(default, deserialize_with = "temperature")]
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    /// A system prompt template file.
    pub system: Option<PathBuf>,
    /// A user prompt template file.
    pub prompt: Option<PathBuf>,
}

impl AgentsTable {
    /// Each agent's table, in `srs-agents` order (ReqParse, ReqExplore, ReqClarify,
    /// DocGenerate).
    pub fn each(&self) -> [&Option<AgentTable>; 4] {
        [
            &self.reqparse,
            &self.reqexplore,
            &self.reqclarify,
            &self.docgenerate,
        ]
    }
}

/// A sampling temperature: a number from 0 to 2.
fn temperature<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<f64>, D::Error> {
    let t = f64::deserialize(d)?;
    match (0.0..=2.0).contains(&t) {
        true => Ok(Some(t)),
        false => Err(serde::de::Error::custom(format!(
            "temperature = {t} is outside 0 to 2"
        ))),
    }
}

/// Rounds of ReqExplore and ReqClarify: 1 to 100.
fn max_iterations<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<u32>, D::Error> {
    let n = i64::deserialize(d)?;
    match (1..=100).contains(&n) {
        true => Ok(Some(n as u32)),
        false => Err(serde::de::Error::custom(format!(
            "max_iterations = {n} is outside 1 to 100"
        ))),
    }
}

/// The first wait between an agent's attempts: 0 to 600 seconds.
fn backoff_secs<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<f64>, D::Error> {
    let secs = f64::deserialize(d)?;
    match (0.0..=600.0).contains(&secs) {
        true => Ok(Some(secs)),
        false => Err(serde::de::Error::custom(format!(
            "backoff_secs = {secs} is outside 0 to 600 seconds"
        ))),
    }
}

/// One `[[pipeline.messages]]` entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageTemplate {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The template file.
    pub template: PathBuf,
}

/// `[pipeline.pricing]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PricingTable {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

fn duration<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<Duration>, D::Error> {
    let text = String::deserialize(d)?;
    parse_duration(&text)
        .map(Some)
        .map_err(|why| serde::de::Error::custom(format!("cache_ttl = \"{text}\" {why}")))
}

/// A duration as people write one in settings: a whole number and a unit, `s`, `m`, `h` or
/// `d` (`"30m"`, `"1h"`, `"2d"`). The error says what is wrong and how to write one.
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let unit = match unit.trim() {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => 0,
    };
    let how = "write a whole number and a unit (s, m, h or d), such as \"30m\", \"1h\" or \"2d\"";
    match number.parse::<u64>().ok().zip((unit > 0).then_some(unit)) {
        Some((0, _)) => Err(format!(
            "is no time at all: {how} (to ignore cached answers once, pass --refresh-cache)"
        )),
        Some((n, unit)) => n
            .checked_mul(unit)
            .map(Duration::from_secs)
            .ok_or_else(|| format!("is too long: {how}")),
        None => Err(format!("is not a duration: {how}")),
    }
}

/// `[run]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunTable {
    pub jobs: Option<usize>,
    pub repeat: Option<u32>,
    pub cache_dir: Option<PathBuf>,
    pub max_errors: Option<usize>,
    /// Stop starting calls once the run's calls have cost this much (USD).
    pub max_cost: Option<f64>,
}

/// `[check]`: where `goldgate check` finds its inputs and puts its outputs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckTable {
    pub suite: Option<PathBuf>,
    pub baseline: Option<PathBuf>,
    pub thresholds: Option<PathBuf>,
    pub out_dir: Option<PathBuf>,
    /// A `baseline` that does not exist yet is not an error: only absolute rules apply.
    pub allow_missing_baseline: Option<bool>,
    /// Stop starting calls once every rule is decided about the full suite (`--sequential`).
    pub sequential: Option<bool>,
    /// Samples answered between two tests of the rules in a sequential check (`--batch`).
    pub batch: Option<u32>,
}

/// `[suite]`: how suite files are read.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteTable {
    /// The largest sample read, in bytes: a YAML or JSON file, or one JSONL line.
    pub max_sample_bytes: Option<u64>,
}

/// `[judge]`: the LLM judge that reviews e2e samples' SRS documents (docs/judge.md).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeTable {
    /// The judge model (else `OPENAI_EVALUATION_MODEL`, else `OPENAI_MODEL`, else the default).
    pub model: Option<String>,
    /// The API root (else `OPENAI_BASE_URL`, else OpenAI's).
    pub base_url: Option<String>,
    /// The environment variable holding the API key.
    pub api_key_env: Option<String>,
    pub temperature: Option<f64>,
    /// Judgements per record; the metrics take their mean.
    pub judge_repeats: Option<u32>,
    /// Prompt template files replacing the built-in ones.
    pub system: Option<PathBuf>,
    pub prompt: Option<PathBuf>,
    /// Seconds one judge call may take.
    pub timeout_secs: Option<f64>,
    /// Extra headers; values may use `${NAME}`.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The judge's prices, for its own cost.
    pub pricing: Option<PricingTable>,
}

/// A whole `goldgate.toml`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    #[serde(default)]
    pub pipeline: PipelineTable,
    #[serde(default)]
    pub run: RunTable,
    #[serde(default)]
    pub check: CheckTable,
    #[serde(default)]
    pub suite: SuiteTable,
    /// `None`: no judge is configured.
    #[serde(default)]
    pub judge: Option<JudgeTable>,
    /// The file this was read from (`None`: no file, every setting from flags and defaults).
    #[serde(skip)]
    pub path: Option<PathBuf>,
}

impl ConfigFile {
    /// Read and validate a `goldgate.toml`; relative paths in it become relative to its
    /// directory.
    pub fn load(path: &Path) -> Result<ConfigFile> {
        let text = goldgate_core::io::read(path)?;
        let mut config: ConfigFile = toml::from_str(&text).map_err(|e| {
            let line = e.span().map_or(0, |s| {
                text[..s.start.min(text.len())].matches('\n').count() + 1
            });
            let (message, hint) = explain_serde(e.message().trim());
            let mut problem = Problem::new(Location::new(path, line, 0), None, message);
            problem.hint =
                hint.or_else(|| Some("see README.md for the goldgate.toml keys".to_string()));
            Error::invalid("config file", problem)
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let resolve = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        config.path = Some(path.to_path_buf());
        config.pipeline.file.as_mut().map(resolve);
        config.pipeline.workdir.as_mut().map(resolve);
        config.pipeline.system.as_mut().map(resolve);
        config.pipeline.prompt.as_mut().map(resolve);
        config.pipeline.prompts.values_mut().for_each(resolve);
        if let Some(agents) = config.pipeline.agents.as_mut() {
            for table in [
                &mut agents.reqparse,
                &mut agents.reqexplore,
                &mut agents.reqclarify,
                &mut agents.docgenerate,
            ]
            .into_iter()
            .flatten()
            {
                table.system.as_mut().map(resolve);
                table.prompt.as_mut().map(resolve);
            }
        }
        for m in &mut config.pipeline.messages {
            resolve(&mut m.template);
        }
        if let Some(toml::Value::Table(format)) = &mut config.pipeline.response_format {
            if let Some(toml::Value::String(schema)) = format.get_mut("schema") {
                let mut path = PathBuf::from(&*schema);
                resolve(&mut path);
                *schema = path.display().to_string();
            }
        }
        config
            .pipeline
            .fingerprint_files
            .iter_mut()
            .for_each(resolve);
        config.run.cache_dir.as_mut().map(resolve);
        if let Some(judge) = config.judge.as_mut() {
            judge.system.as_mut().map(resolve);
            judge.prompt.as_mut().map(resolve);
        }
        let check = &mut config.check;
        for p in [
            &mut check.suite,
            &mut check.baseline,
            &mut check.thresholds,
            &mut check.out_dir,
        ]
        .into_iter()
        .flatten()
        {
            resolve(p);
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tables_resolves_paths_and_rejects_typos() {
        let dir = std::env::temp_dir().join(format!("goldgate-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("goldgate.toml");
        std::fs::write(&path, "[pipeline]\nkind = \"command\"\ncommand = \"python3 p.py\"\nmode = \"jsonl\"\nfingerprint_files = [\"prompts\"]\n\n[run]\njobs = 8\n").unwrap();
        let config = ConfigFile::load(&path).unwrap();
        assert_eq!(config.pipeline.command.as_deref(), Some("python3 p.py"));
        assert_eq!(config.pipeline.fingerprint_files, vec![dir.join("prompts")]);
        assert_eq!(config.run.jobs, Some(8));
        std::fs::write(&path, "[pipeline]\nkind = \"command\"\ncomand = \"x\"\n").unwrap();
        let e = ConfigFile::load(&path).unwrap_err().to_string();
        assert!(
            e.contains("goldgate.toml:3") && e.contains("did you mean `command`?"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_pipeline_environment_and_directory_keys() {
        let dir = std::env::temp_dir().join(format!("goldgate-config-env-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("goldgate.toml");
        std::fs::write(&path, "[pipeline]\nkind = \"command\"\ncommand = \"x\"\nenv_passthrough = [\"GH_TOKEN\", \"OPENAI_*\"]\nenv_clear = true\nworkdir = \"..\"\n").unwrap();
        let config = ConfigFile::load(&path).unwrap();
        assert_eq!(config.pipeline.env_passthrough, ["GH_TOKEN", "OPENAI_*"]);
        assert_eq!(config.pipeline.env_clear, Some(true));
        assert_eq!(config.pipeline.workdir, Some(dir.join("..")));
        assert_eq!(config.path, Some(path.clone()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_judge_table() {
        let dir =
            std::env::temp_dir().join(format!("goldgate-config-judge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("goldgate.toml");
        std::fs::write(&path, "[pipeline]\nkind = \"replay\"\nfile = \"run.jsonl\"\n\n[judge]\nmodel = \"gpt-4o\"\njudge_repeats = 3\nprompt = \"prompts/judge.j2\"\n\n[judge.pricing]\ninput_per_mtok = 2.5\noutput_per_mtok = 10\n").unwrap();
        let config = ConfigFile::load(&path).unwrap();
        let judge = config.judge.unwrap();
        assert_eq!(judge.model.as_deref(), Some("gpt-4o"));
        assert_eq!(judge.judge_repeats, Some(3));
        assert_eq!(judge.prompt, Some(dir.join("prompts/judge.j2")));
        assert_eq!(judge.pricing.unwrap().output_per_mtok, 10.0);
        std::fs::write(&path, "[pipeline]\nkind = \"replay\"\n").unwrap();
        assert!(
            ConfigFile::load(&path).unwrap().judge.is_none(),
            "no table: no judge"
        );
        std::fs::write(&path, "[judge]\nmodel = \"m\"\njudge_repeat = 3\n").unwrap();
        let e = ConfigFile::load(&path).unwrap_err().to_string();
        assert!(
            e.contains("goldgate.toml:3") && e.contains("did you mean `judge_repeats`?"),
            "{e}"
        );
        std::fs::write(
            &path,
            "[judge]\n[judge.pricing]\ninput_per_mtok = 1\noutput_per_mtk = 2\n",
        )
        .unwrap();
        let e = ConfigFile::load(&path).unwrap_err().to_string();
        assert!(
            e.contains("goldgate.toml:4") && e.contains("output_per_mtok"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn durations_are_a_number_and_a_unit() {
        let secs = |t: &str| parse_duration(t).map(|d| d.as_secs());
        assert_eq!(secs("30s"), Ok(30));
        assert_eq!(secs("30m"), Ok(1800));
        assert_eq!(secs(" 1h "), Ok(3600));
        assert_eq!(secs("2d"), Ok(172_800));
        for bad in ["", "1", "h", "1.5h", "-1h", "1w", "soon", "1 h x"] {
            assert!(
                secs(bad).unwrap_err().contains("is not a duration"),
                "{bad}"
            );
        }
        assert!(secs("0h").unwrap_err().contains("no time at all"));
        assert!(secs("99999999999999999d").unwrap_err().contains("too long"));
    }
}
