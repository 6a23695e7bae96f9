//! The GitHub Action's scripts, run as the runner runs them: `scripts/action-install.sh`
//! against a fake release server on 127.0.0.1 (prebuilt binary, checksum mismatch, missing
//! asset, local action, unsupported runner), and `scripts/action-run.sh` turning inputs into
//! a `goldgate check` / `publish` on the example suite, with step outputs and exit codes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::mock_http::{MockServer, Response};
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
    let outputs = dir.join("github_output");
    let _ = std::fs::remove_file(&outputs);
    let mut command = Command::new("bash");
    command
        .arg(Path::new(ROOT).join("scripts/action-run.sh"))
        .current_dir(dir)
        .env("GOLDGATE_BIN", GOLDGATE)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .env("SOURCE_DATE_EPOCH", "0")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_TOKEN")
        .env_remove("GITHUB_SHA");
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
    assert!(String::from_utf8_lossy(&out.stdout).contains("extraction.f1"));
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
