//! The GitHub Action's scripts, run as the runner runs them: `scripts/action-install.sh`
//! against a fake release server on 127.0.0.1 (prebuilt binary, checksum mismatch, missing
//! asset, local action, unsupported runner), and `scripts/action-run.sh` turning inputs into
//! a `goldgate check` / `publish` on the example suite, with step outputs and exit codes, and
//! `scripts/action-cache.sh` keying the answer cache on the check's pipeline fingerprint,
//! in the directory the check uses, and saying when the check wrote answers worth saving.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::mock_http::{MockServer, Response};
use crate::support::project::{commit_all, git, git_repo, run_lines, test_suite};
use crate::support::TempDir;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const GOLDGATE: &str = env!("CARGO_BIN_EXE_goldgate");

/// A static file server on 127.0.0.1 that answers 404 for anything it does not hold; it
/// lives as long as the test (the server is leaked: the process ends with the tests).
fn serve(files: HashMap<String, Vec<u8>>) -> String {
    let server = MockServer::start(move |request| match files.get(&request.target) {
        Some(body) => Response::new("200 OK", body.clone()),
        None => Response::new("404 Not Found", "not found"),
    });
    let url = server.url("");
    std::mem::forget(server);
    url
}

fn version() -> String {
    let cargo = std::fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).unwrap();
    cargo
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .unwrap()
        .trim_end_matches('"')
        .to_string()
}

/// A release tarball holding this build's binary, and its `.sha256` line.
fn release_asset(dir: &Path) -> (Vec<u8>, String) {
    let stage = dir.join("stage");
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::copy(GOLDGATE, stage.join("goldgate")).unwrap();
    let tarball = dir.join("asset.tar.gz");
    // gzip -1: the test binary is large, and the level does not matter here.
    let status = Command::new("sh")
        .arg("-c")
        .arg("tar -cf - -C \"$1\" goldgate | gzip -1 > \"$2\"")
        .arg("sh")
        .arg(&stage)
        .arg(&tarball)
        .status()
        .unwrap();
    assert!(status.success());
    let bytes = std::fs::read(&tarball).unwrap();
    let sum = Command::new("sha256sum").arg(&tarball).output().unwrap();
    let hash = String::from_utf8_lossy(&sum.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    (bytes, format!("{hash}  asset.tar.gz\n"))
}

/// Run the install script; returns its output and the step outputs it wrote.
fn install(dir: &Path, env: &[(&str, &str)]) -> (Output, HashMap<String, String>) {
    let outputs = dir.join("github_output");
    let _ = std::fs::remove_file(&outputs);
    let mut command = Command::new("bash");
    command
        .arg(Path::new(ROOT).join("scripts/action-install.sh"))
        .env("GOLDGATE_ACTION_PATH", ROOT)
        .env("GITHUB_OUTPUT", &outputs)
        .env("RUNNER_TOOL_CACHE", dir.join("toolcache"))
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64")
        .env_remove("GOLDGATE_VERSION")
        .env_remove("GOLDGATE_ACTION_REPOSITORY")
        .env_remove("GOLDGATE_RELEASE_BASE_URL");
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output().unwrap();
    (output, read_outputs(&outputs))
}

/// The step outputs in a `GITHUB_OUTPUT` file: `name=value` lines, and heredoc outputs
/// (`name<<DELIM`, value lines, `DELIM`).
fn read_outputs(path: &Path) -> HashMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut values = HashMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delim)) = line.split_once("<<") {
            let value: Vec<&str> = lines.by_ref().take_while(|l| *l != delim).collect();
            values.insert(name.to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            values.insert(name.to_string(), value.to_string());
        }
    }
    values
}

#[test]
fn install_downloads_a_checked_release_binary_or_falls_back_to_building() {
    let dir = TempDir::new("action-install");
    let v = version();
    let (tarball, sha) = release_asset(&dir.0);
    let asset = format!("/v{v}/goldgate-v{v}-x86_64-unknown-linux-gnu.tar.gz");
    let mut files = HashMap::new();
    files.insert(asset.clone(), tarball.clone());
    files.insert(format!("{asset}.sha256"), sha.clone().into_bytes());
    // A release whose checksum does not match its tarball.
    let bad = "/v9.9.9/goldgate-v9.9.9-x86_64-unknown-linux-gnu.tar.gz".to_string();
    files.insert(bad.clone(), tarball.clone());
    files.insert(
        format!("{bad}.sha256"),
        format!("{}  x\n", "0".repeat(64)).into_bytes(),
    );
    let base = serve(files);

    // The prebuilt binary for this runner: downloaded, checked, unpacked, runnable.
    let (out, o) = install(&dir.0, &[("GOLDGATE_RELEASE_BASE_URL", &base)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(o["build"], "false", "{o:?}");
    assert_eq!(o["version"], v);
    let bin = PathBuf::from(&o["bin"]);
    let ran = Command::new(&bin).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&ran.stdout).contains(&v), "{ran:?}");

    // `uses: owner/goldgate@v1`: the repository comes from where the runner put the action
    // (github.action_repository is empty in composite actions), the release from the server.
    let actions = dir.0.join("work/_actions/goldgate/goldgate/v1");
    std::fs::create_dir_all(&actions).unwrap();
    std::fs::copy(
        Path::new(ROOT).join("Cargo.toml"),
        actions.join("Cargo.toml"),
    )
    .unwrap();
    let mut remote = HashMap::new();
    remote.insert(
        format!("/goldgate/goldgate/releases/download{asset}"),
        tarball.clone(),
    );
    remote.insert(
        format!("/goldgate/goldgate/releases/download{asset}.sha256"),
        sha.clone().into_bytes(),
    );
    let server = serve(remote);
    let other_cache = dir.0.join("remote-toolcache");
    let (out, o) = install(
        &dir.0,
        &[
            ("GOLDGATE_ACTION_PATH", actions.to_str().unwrap()),
            ("GITHUB_SERVER_URL", &server),
            ("RUNNER_TOOL_CACHE", other_cache.to_str().unwrap()),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        o["build"], "false",
        "downloaded from the action's own releases: {out:?}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!(
        "{server}/goldgate/goldgate/releases/download/v{v}/"
    )));

    // Installed already: nothing is downloaded again.
    let (out, o) = install(
        &dir.0,
        &[("GOLDGATE_RELEASE_BASE_URL", "http://127.0.0.1:9")],
    );
    assert!(out.status.success() && o["build"] == "false", "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("already installed"));

    // A checksum mismatch stops the action (exit 2), never installs.
    let (out, _) = install(
        &dir.0,
        &[
            ("GOLDGATE_RELEASE_BASE_URL", &base),
            ("GOLDGATE_VERSION", "v9.9.9"),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("checksum mismatch"));
    assert!(!dir
        .0
        .join("toolcache/goldgate/9.9.9")
        .join("x86_64-unknown-linux-gnu/bin/goldgate")
        .exists());

    // No asset for this version, a local action, `version: source`, an unknown platform:
    // build from the action's source, with a cache key over that source.
    let fresh = dir.0.join("fresh-toolcache");
    let fresh = fresh.to_str().unwrap();
    for mut env in [
        vec![
            ("GOLDGATE_RELEASE_BASE_URL", base.as_str()),
            ("GOLDGATE_VERSION", "0.0.1"),
        ],
        vec![],
        vec![
            ("GOLDGATE_ACTION_REPOSITORY", "goldgate/goldgate"),
            ("GOLDGATE_VERSION", "source"),
        ],
        vec![
            ("GOLDGATE_RELEASE_BASE_URL", base.as_str()),
            ("RUNNER_ARCH", "S390X"),
        ],
    ] {
        env.push(("RUNNER_TOOL_CACHE", fresh));
        let (out, o) = install(&dir.0, &env);
        assert!(out.status.success(), "{env:?}: {out:?}");
        assert_eq!(o["build"], "true", "{env:?}: {o:?}");
        assert!(o["cache-key"].starts_with("goldgate-Linux-"), "{o:?}");
    }

    // Windows runners are refused with a clear annotation.
    let (out, _) = install(&dir.0, &[("RUNNER_OS", "Windows")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("::error title=goldgate::"));
}

/// Run `scripts/action-run.sh` in a copy of the example project, as inside GitHub Actions.
fn action_run(dir: &Path, inputs: &[(&str, &str)]) -> (Output, HashMap<String, String>) {
    action_script(dir, &["action-run.sh"], inputs)
}

/// Run `scripts/SCRIPT ARGS` (`script[0]`, then its arguments) in `dir` as a step of the
/// action: inside GitHub Actions, run 42 (first attempt) on Linux, with `inputs` as its
/// environment; returns its output and the step outputs it wrote.
fn action_script(
    dir: &Path,
    script: &[&str],
    inputs: &[(&str, &str)],
) -> (Output, HashMap<String, String>) {
    let outputs = dir.join("github_output");
    let _ = std::fs::remove_file(&outputs);
    let temp = dir.join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let mut command = Command::new("bash");
    command
        .arg(Path::new(ROOT).join("scripts").join(script[0]))
        .args(&script[1..])
        .current_dir(dir)
        .env("GOLDGATE_BIN", GOLDGATE)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .env("GITHUB_RUN_ID", "42")
        .env("GITHUB_RUN_ATTEMPT", "1")
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_TEMP", &temp)
        .env("SOURCE_DATE_EPOCH", "0")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_TOKEN")
        .env_remove("GITHUB_SHA")
        .env_remove("INPUT_CACHE")
        .env_remove("INPUT_ARGS")
        .env_remove("INPUT_CONFIG");
    for (k, v) in inputs {
        command.env(k, v);
    }
    let output = command.output().unwrap();
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    (output, read_outputs(&outputs))
}

#[test]
fn the_action_gates_the_example_suite_and_sets_its_outputs() {
    let dir = TempDir::new("action-run");
    let example = Path::new(ROOT).join("examples/requirements");
    let config = example.join("goldgate.toml");
    let config = config.to_str().unwrap();

    let (out, o) = action_run(
        &dir.0,
        &[
            ("INPUT_CONFIG", config),
            ("INPUT_GATE_NAME", "example"),
            ("INPUT_ARGS", "--jobs 4"),
        ],
    );
    let log = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "main answers pass: {out:?}");
    assert!(
        log.contains("goldgate check --config") && log.contains("--jobs 4"),
        "{log}"
    );
    assert_eq!(o["verdict"], "pass", "{o:?}");
    assert_eq!(o["exit-code"], "0");
    for key in ["score", "verdict-file", "report", "run"] {
        assert!(
            dir.0.join(&o[key]).is_file(),
            "{key} = {} was not written",
            o[key]
        );
    }
    let report = std::fs::read_to_string(dir.0.join(&o["report"])).unwrap();
    assert!(report.contains("<!-- goldgate:example -->"), "{report}");
    let summary = std::fs::read_to_string(dir.0.join("summary.md")).unwrap();
    assert!(summary.contains("example: **pass**"), "{summary}");

    let candidate = example.join("answers/candidate.jsonl");
    let (out, o) = action_run(
        &dir.0,
        &[
            ("INPUT_CONFIG", config),
            ("INPUT_REPLAY", candidate.to_str().unwrap()),
            ("INPUT_FORMAT", "brief"),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "the candidate fails the gate: {out:?}"
    );
    assert_eq!(o["verdict"], "fail");
    // The brief verdict names the rules the candidate broke, as its verdict file holds them.
    let verdict: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.join(&o["verdict-file"])).unwrap())
            .unwrap();
    let failed: Vec<&str> = verdict["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == "fail")
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(!failed.is_empty(), "{verdict}");
    for name in failed {
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(name),
            "{name}"
        );
    }
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("::error"),
        "annotations for broken rules"
    );

    // publish judges the saved verdict again under the config's rules and baseline (it
    // fails), and without a PR says it has no comment to post.
    let verdict = dir.0.join(&o["verdict-file"]);
    let (out, _) = action_run(
        &dir.0,
        &[
            ("INPUT_COMMAND", "publish"),
            ("INPUT_CONFIG", config),
            ("INPUT_VERDICT", verdict.to_str().unwrap()),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("goldgate publish: fail"),
        "{out:?}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no PR comment"),
        "{out:?}"
    );

    // Bad inputs are input errors (exit 2) with an annotation.
    for inputs in [
        vec![("INPUT_COMMAND", "publish")],
        vec![("INPUT_COMMAND", "chek")],
        vec![("INPUT_CONFIG", config), ("INPUT_CHECK_RUN", "yes")],
    ] {
        let (out, _) = action_run(&dir.0, &inputs);
        assert_eq!(out.status.code(), Some(2), "{inputs:?}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("::error title=goldgate::"));
    }
}

/// A project whose pipeline is a command in git (so its answers are cached): an extraction
/// suite, `pipeline.sh` (it counts its calls in calls.log), `goldgate.toml` (the cache in
/// the default directory) and `ci/goldgate.toml` (the cache in `answers/`, relative to the
/// file, and the pipeline run from the project's root).
fn cached_project(dir: &Path) {
    test_suite(dir, 3);
    std::fs::write(
        dir.join("pipeline.sh"),
        "cat >/dev/null\necho call >> calls.log\nprintf '{\"marks\": []}\\n'\n",
    )
    .unwrap();
    let pipeline = "[pipeline]\nkind = \"command\"\ncommand = \"sh pipeline.sh\"\n";
    std::fs::write(
        dir.join("goldgate.toml"),
        format!("{pipeline}\n[check]\nsuite = \"suite\"\n"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("ci")).unwrap();
    std::fs::write(
        dir.join("ci/goldgate.toml"),
        format!("{pipeline}workdir = \"..\"\n\n[check]\nsuite = \"../suite\"\n\n[run]\ncache_dir = \"../answers\"\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join(".gitignore"),
        "calls.log\n.goldgate/\nanswers/\nrunner-temp/\ngithub_output\nsummary.md\n",
    )
    .unwrap();
    git_repo(dir);
}

fn calls(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("calls.log")).map_or(0, |t| t.lines().count())
}

/// The fingerprint in a key `goldgate-answers-Linux-<gate>-<fingerprint>-42-1`.
fn keyed_fingerprint<'a>(key: &'a str, gate: &str) -> &'a str {
    key.strip_prefix(&format!("goldgate-answers-Linux-{gate}-"))
        .and_then(|k| k.strip_suffix("-42-1"))
        .unwrap_or_else(|| panic!("{key}"))
}

/// The cache step asks goldgate for the fingerprint the check then keys every answer on (the
/// one its records carry), and for the cache directory the check writes to: from
/// `[run] cache_dir` (relative to goldgate.toml), `--cache-dir` in `args`, or the default,
/// as an absolute path. The key restores the newest cache of the same pipeline and gate;
/// the cache is saved only when the check wrote answers the restored cache did not hold.
#[test]
fn the_cache_step_keys_the_answer_cache_on_the_check_s_fingerprint() {
    let dir = TempDir::new("action-cache");
    let d = &dir.0;
    cached_project(d);
    let config = [
        ("INPUT_CONFIG", "ci/goldgate.toml"),
        ("INPUT_GATE_NAME", "pr gate,1"),
    ];

    let (out, plan) = action_script(d, &["action-cache.sh", "plan"], &config);
    let log = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(calls(d), 0, "nothing runs before the check: {log}");
    assert_eq!(
        (plan["enabled"].as_str(), plan["restore"].as_str()),
        ("true", "true"),
        "{plan:?}"
    );
    assert_eq!(Path::new(&plan["path"]), d.join("answers"), "{plan:?}");
    assert!(d.join("answers").is_dir());
    let gate = "pr_gate_1";
    let fingerprint = keyed_fingerprint(&plan["key"], gate).to_string();
    assert!(fingerprint.starts_with("sha256:"), "{plan:?}");
    assert_eq!(
        plan["restore-key"],
        format!("goldgate-answers-Linux-{gate}-{fingerprint}-")
    );
    assert!(Path::new(&plan["marker"]).is_file());
    assert!(log.contains("--print-fingerprint"), "{log}");

    // The check keys its answers on that fingerprint and writes them where the plan said.
    let (out, o) = action_script(d, &["action-run.sh"], &config);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(calls(d), 3);
    let records = run_lines(&d.join(&o["run"]));
    let keys: Vec<&str> = records
        .iter()
        .filter_map(|r| r["pipeline_fingerprint"].as_str())
        .collect();
    assert_eq!(keys, vec![fingerprint.as_str(); 3], "{records:?}");
    let saved = |plan: &HashMap<String, String>| {
        let env = [
            ("GOLDGATE_CACHE_PATH", plan["path"].as_str()),
            ("GOLDGATE_CACHE_MARKER", plan["marker"].as_str()),
        ];
        let (out, o) = action_script(d, &["action-cache.sh", "new"], &env);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        o["save"].clone()
    };
    assert_eq!(saved(&plan), "true", "three new answers");

    // The next run (a pull request restoring its base branch's cache): the same key, every
    // answer from the cache, nothing new to save.
    let (_, again) = action_script(d, &["action-cache.sh", "plan"], &config);
    assert_eq!(again["key"], plan["key"]);
    let (out, _) = action_script(d, &["action-run.sh"], &config);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(calls(d), 3, "answered from the cache");
    assert_eq!(saved(&again), "false");

    // The directory in effect: --cache-dir in args wins; without [run] cache_dir, the default.
    let (_, flag) = action_script(
        d,
        &["action-cache.sh", "plan"],
        &[config[0], ("INPUT_ARGS", "--jobs 2 --cache-dir elsewhere")],
    );
    assert_eq!(Path::new(&flag["path"]), d.join("elsewhere"), "{flag:?}");
    assert_eq!(keyed_fingerprint(&flag["key"], "goldgate"), fingerprint);
    let (_, default) = action_script(d, &["action-cache.sh", "plan"], &[]);
    assert_eq!(
        Path::new(&default["path"]),
        d.join(".goldgate/cache"),
        "{default:?}"
    );

    // No cache: asked for, turned off for the check, or a replayed run (nothing to cache).
    let example = format!("{ROOT}/examples/requirements/goldgate.toml");
    for inputs in [
        vec![
            config[0],
            ("INPUT_CACHE", "false"),
            ("GOLDGATE_BIN", "/nonexistent"),
        ],
        vec![config[0], ("INPUT_ARGS", "--no-cache")],
        vec![("INPUT_CONFIG", example.as_str())],
        vec![("INPUT_COMMAND", "publish")],
    ] {
        let (out, o) = action_script(d, &["action-cache.sh", "plan"], &inputs);
        assert_eq!(out.status.code(), Some(0), "{inputs:?}: {out:?}");
        assert_eq!(o["enabled"], "false", "{inputs:?}: {o:?}");
        assert_eq!(o["restore"], "false", "{inputs:?}: {o:?}");
    }
    // Settings goldgate refuses: no cache, and the check step reports the error itself.
    let (out, o) = action_script(
        d,
        &["action-cache.sh", "plan"],
        &[("INPUT_CONFIG", "missing.toml")],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(o["enabled"], "false");
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(
        log.contains("::notice title=goldgate::") && !log.contains("::error"),
        "{log}"
    );
    // A `cache` input that is neither true nor false is an input error.
    let (out, _) = action_script(d, &["action-cache.sh", "plan"], &[("INPUT_CACHE", "yes")]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("::error title=goldgate::cache must be true or false"));
}

/// A cache directory holding files git tracks (entries a pull request committed) is never
/// saved: goldgate does not use them, and a saved cache would carry them on to later runs,
/// where they could outlive their removal from git.
#[test]
fn a_cache_directory_holding_tracked_files_is_never_saved() {
    let dir = TempDir::new("action-cache-tracked");
    let d = &dir.0;
    cached_project(d);
    let config = [("INPUT_CONFIG", "ci/goldgate.toml")];
    let (_, plan) = action_script(d, &["action-cache.sh", "plan"], &config);
    let (out, _) = action_script(d, &["action-run.sh"], &config);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Committed, then the next run writes answers again (another pipeline version).
    git(d, &["add", "-f", "answers"]);
    commit_all(d, "keep the answers");
    std::fs::write(
        d.join("pipeline.sh"),
        "cat >/dev/null\necho call >> calls.log\nprintf '{\"marks\": [], \"v\": 2}\\n'\n",
    )
    .unwrap();
    let (_, plan2) = action_script(d, &["action-cache.sh", "plan"], &config);
    assert_ne!(plan2["key"], plan["key"]);
    let (out, _) = action_script(d, &["action-run.sh"], &config);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let env = [
        ("GOLDGATE_CACHE_PATH", plan2["path"].as_str()),
        ("GOLDGATE_CACHE_MARKER", plan2["marker"].as_str()),
    ];
    let (out, o) = action_script(d, &["action-cache.sh", "new"], &env);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(o["save"], "false", "{out:?}");
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(
        log.contains("::warning title=goldgate::") && log.contains("git tracks 3 files"),
        "{log}"
    );
    // Once they are out of git, the cache is saved again.
    git(d, &["rm", "-r", "-q", "--cached", "answers"]);
    commit_all(d, "drop the answers");
    let (_, plan3) = action_script(d, &["action-cache.sh", "plan"], &config);
    let (out, _) = action_script(d, &["action-run.sh"], &config);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let env = [
        ("GOLDGATE_CACHE_PATH", plan3["path"].as_str()),
        ("GOLDGATE_CACHE_MARKER", plan3["marker"].as_str()),
    ];
    let (_, o) = action_script(d, &["action-cache.sh", "new"], &env);
    assert_eq!(o["save"], "true");
}
