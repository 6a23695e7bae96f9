//! The environment a pipeline's answers are keyed on: the variables `fingerprint_env` lists
//! (a name, or `PREFIX_*` for every set variable starting with `PREFIX_`) and those the
//! pipeline's own settings name — `$NAME` and `${NAME}` in a command, `${NAME}` in an HTTP
//! pipeline's URL and header values and in a chat API's base URL and header values. Each
//! value goes into the pipeline fingerprint as a hash; only the names are ever written.
//! Other variables are not seen.

use sha2::{Digest, Sha256};

use super::config::{Adapter, PipelineConfig};
use goldgate_core::llm::EndpointSettings;

/// The names of the variables the answers are keyed on, sorted, each once.
pub fn names(config: &PipelineConfig) -> Vec<String> {
    let (prefixes, mut names): (Vec<&String>, Vec<String>) = (
        config
            .fingerprint_env
            .iter()
            .filter(|p| p.ends_with('*'))
            .collect(),
        (config.fingerprint_env.iter())
            .filter(|p| !p.ends_with('*'))
            .cloned()
            .collect(),
    );
    if !prefixes.is_empty() {
        let set = std::env::vars_os().filter_map(|(name, _)| name.into_string().ok());
        names.extend(set.filter(|name| {
            prefixes
                .iter()
                .any(|p| goldgate_core::env::matches(p, name))
        }));
    }
    let in_endpoint = |e: &EndpointSettings| {
        let templates = std::iter::once(&e.base_url).chain(e.headers.iter().map(|(_, v)| v));
        templates
            .flat_map(|t| goldgate_core::env::names_in(t))
            .collect::<Vec<_>>()
    };
    match &config.adapter {
        Adapter::Command { command, .. } => {
            names.extend(goldgate_core::env::shell_names_in(command))
        }
        Adapter::Http { url, headers } => {
            let templates = std::iter::once(url).chain(headers.iter().map(|(_, v)| v));
            names.extend(templates.flat_map(|t| goldgate_core::env::names_in(t)));
        }
        Adapter::Chat(chat) => names.extend(in_endpoint(&chat.endpoint)),
        Adapter::SrsAgents(agents) => names.extend(in_endpoint(&agents.endpoint)),
        Adapter::Replay { .. } => {}
    }
    names.sort();
    names.dedup();
    names
}

/// Feed each variable's name and the SHA-256 of its value (or that it is not set) to `h`.
pub fn hash(names: &[String], h: &mut Sha256) {
    for name in names {
        h.update(format!("\0env={name}\0").as_bytes());
        match std::env::var_os(name) {
            Some(value) => h.update(Sha256::digest(value.as_encoded_bytes())),
            None => h.update(b"unset"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{EnvPolicy, Mode, Origin};

    fn pipeline(adapter: Adapter, listed: &[&str]) -> PipelineConfig {
        PipelineConfig {
            adapter,
            timeout: std::time::Duration::from_secs(1),
            max_output_bytes: 1,
            retries: 0,
            model: None,
            fingerprint_files: Vec::new(),
            fingerprint_env: listed.iter().map(|s| s.to_string()).collect(),
            origin: Origin::Flags,
            workdir: None,
            env: EnvPolicy::default(),
        }
    }

    #[test]
    fn listed_prefixed_and_named_variables_each_once_and_values_hashed() {
        std::env::set_var("GOLDGATE_ENVKEY_TEST_A", "1");
        std::env::set_var("GOLDGATE_ENVKEY_TEST_B", "2");
        let command = Adapter::Command {
            command: "MODE=${GOLDGATE_ENVKEY_MODE} python3 p.py $GOLDGATE_ENVKEY_FLAG".into(),
            mode: Mode::Oneshot,
        };
        let config = pipeline(command, &["GOLDGATE_ENVKEY_TEST_*", "LISTED", "LISTED"]);
        assert_eq!(
            names(&config),
            [
                "GOLDGATE_ENVKEY_FLAG",
                "GOLDGATE_ENVKEY_MODE",
                "GOLDGATE_ENVKEY_TEST_A",
                "GOLDGATE_ENVKEY_TEST_B",
                "LISTED"
            ]
        );
        let http = Adapter::Http {
            url: "http://h/x?k=${GOLDGATE_ENVKEY_Q}".into(),
            headers: vec![("X-Mode".into(), "${GOLDGATE_ENVKEY_H}".into())],
        };
        assert_eq!(
            names(&pipeline(http, &[])),
            ["GOLDGATE_ENVKEY_H", "GOLDGATE_ENVKEY_Q"]
        );
        let replay = Adapter::Replay {
            file: "run.jsonl".into(),
        };
        assert!(names(&pipeline(replay, &[])).is_empty());

        let digest = |names: &[String]| {
            let mut h = Sha256::new();
            hash(names, &mut h);
            h.finalize()
        };
        let listed = ["GOLDGATE_ENVKEY_TEST_A".to_string()];
        let one = digest(&listed);
        std::env::set_var("GOLDGATE_ENVKEY_TEST_A", "3");
        assert_ne!(digest(&listed), one, "another value, another key");
        std::env::remove_var("GOLDGATE_ENVKEY_TEST_A");
        let unset = digest(&listed);
        std::env::set_var("GOLDGATE_ENVKEY_TEST_A", "");
        assert_ne!(digest(&listed), unset, "set to nothing is not unset");
        std::env::remove_var("GOLDGATE_ENVKEY_TEST_B");
    }
}
