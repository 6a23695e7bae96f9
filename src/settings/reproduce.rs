//! The commands that give a verdict again, for the PR comment's footer and the job summary:
//! `goldgate check` with every flag of this one that changes what runs or how it is judged
//! (`--config`, the suite, baseline, rules, pipeline and bootstrap), and `goldgate compare`
//! on the files it wrote. Flags that only change where output goes or how fast the run
//! goes are left out, and so are headers and provider fields, which may hold secrets (a
//! URL's password shows as `***`).

use std::path::Path;

use crate::cli::{CheckArgs, GateArgs, ModeArg};
use goldgate_core::secrets::url_without_password;
use goldgate_core::text::shell_quote;

/// Command words, each added shell-quoted.
#[derive(Default)]
struct Words(Vec<String>);

impl Words {
    fn new(command: &str) -> Self {
        Words(vec!["goldgate".into(), command.into()])
    }

    fn flag(&mut self, name: &str, on: bool) {
        if on {
            self.0.push(name.into());
        }
    }

    fn value(&mut self, name: &str, value: Option<impl ToString>) {
        if let Some(v) = value {
            self.0.push(name.into());
            self.0.push(shell_quote(&v.to_string()));
        }
    }

    fn path(&mut self, name: &str, path: Option<&Path>) {
        self.value(name, path.map(|p| p.display()));
    }
}

/// The rules and bootstrap flags of a gate.
fn gate_flags(w: &mut Words, g: &GateArgs) {
    w.path("--thresholds", g.thresholds.as_deref());
    w.path("--base-thresholds", g.base_thresholds.as_deref());
    w.value("--base-ref", g.base_ref.as_deref());
    w.flag("--allow-version-change", g.allow_version_change);
    w.value("--resamples", g.resamples);
    w.value("--seed", g.seed);
}

/// `goldgate check` as this one was given.
pub fn check(a: &CheckArgs) -> String {
    let mut w = Words::new("check");
    let p = &a.pipeline;
    w.path("--config", p.config.as_deref());
    w.path("--suite", a.suite.as_deref());
    w.path("--baseline", a.baseline.as_deref());
    w.flag("--allow-missing-baseline", a.allow_missing_baseline);
    w.flag("--sequential", a.sequential);
    w.flag("--full", a.full);
    w.value("--batch", a.batch);
    gate_flags(&mut w, &a.gate);
    w.value("--command", p.command.as_deref());
    w.value(
        "--mode",
        p.mode.map(|m| match m {
            ModeArg::Oneshot => "oneshot",
            ModeArg::Jsonl => "jsonl",
        }),
    );
    let shown = |url: &Option<String>| url.as_deref().map(|u| url_without_password(u).into_owned());
    w.value("--http", shown(&p.http));
    w.path("--replay", p.replay.as_deref());
    w.flag("--chat", p.chat);
    w.value("--base-url", shown(&p.base_url));
    w.value("--api-key-env", p.api_key_env.as_deref());
    w.value("--model", p.model.as_deref());
    w.value("--temperature", p.temperature);
    w.value("--max-tokens", p.max_tokens);
    w.value("--chat-seed", p.chat_seed);
    w.path("--system", p.system.as_deref());
    w.path("--prompt", p.prompt.as_deref());
    w.value("--response-format", p.response_format.as_deref());
    w.value("--repeat", p.repeat);
    w.value("--shard", p.shard.as_deref());
    w.0.join(" ")
}

/// `goldgate compare` on a score file (and the baseline it was compared with) under the
/// rules file.
pub fn compare(score: &Path, baseline: Option<&Path>, thresholds: Option<&Path>) -> String {
    let mut w = Words::new("compare");
    w.path("--score", Some(score));
    w.path("--baseline", baseline);
    w.path("--thresholds", thresholds);
    w.0.join(" ")
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    fn check(args: &[&str]) -> String {
        let cli =
            crate::cli::Cli::try_parse_from(["goldgate", "check"].iter().chain(args)).unwrap();
        match cli.command {
            crate::cli::Command::Check(a) => super::check(&a),
            _ => unreachable!(),
        }
    }

    #[test]
    fn the_check_command_keeps_what_changes_the_verdict() {
        assert_eq!(check(&[]), "goldgate check");
        assert_eq!(
            check(&[
                "--config",
                "ci/gate config.toml",
                "--format",
                "json",
                "--jobs",
                "4",
                "--header",
                "Authorization: Bearer sk-x",
                "--replay",
                "answers.jsonl",
                "--resamples",
                "2000",
                "--out-dir",
                "out",
            ]),
            "goldgate check --config 'ci/gate config.toml' --resamples 2000 --replay answers.jsonl"
        );
        assert_eq!(
            check(&[
                "--http",
                "https://bot:hunter2@example.com/v1",
                "--repeat",
                "3"
            ]),
            "goldgate check --http 'https://bot:***@example.com/v1' --repeat 3"
        );
        assert_eq!(
            super::compare(
                Path::new("out/score.json"),
                Some(Path::new("baselines/main.json")),
                None
            ),
            "goldgate compare --score out/score.json --baseline baselines/main.json"
        );
    }

    use std::path::Path;
}
