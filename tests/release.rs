//! How goldgate is installed without a Rust toolchain, checked against what the release
//! workflow ships: `cargo binstall` metadata resolving to the tarballs the workflow's own
//! packaging step makes (run here on a stand-in binary, which is unpacked from the tarball
//! as binstall would and run), the Python package
//! (pyproject.toml: maturin's `bin` bindings, Cargo.toml's name, version and license, one
//! pinned maturin for the release and the wheel test, the platforms built, trusted
//! publishing only on a tag), and the README's install section. The wheel itself is built,
//! installed and run by `scripts/wheel-test.sh` (from `.ci/run`).

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::TempDir;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap()
}

fn toml_file(path: &str) -> toml::Table {
    read(path).parse().unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn release_workflow() -> Value {
    goldgate_core::document::parse_yaml(&read(".github/workflows/release.yml"))
        .unwrap()
        .value
}

/// The root package's manifest table, with the fields it inherits from the workspace
/// (`version.workspace = true`) filled in as Cargo fills them.
fn package() -> toml::Table {
    let manifest = toml_file("Cargo.toml");
    let workspace = manifest["workspace"]["package"].as_table().unwrap();
    let mut package = manifest["package"].as_table().unwrap().clone();
    for (key, value) in package.iter_mut() {
        if value.get("workspace").and_then(|w| w.as_bool()) == Some(true) {
            *value = workspace[key].clone();
        }
    }
    package
}

fn string<'a>(table: &'a toml::Table, key: &str) -> &'a str {
    table
        .get(key)
        .and_then(|v| v.as_str())
        .unwrap_or_else(|| panic!("no string `{key}` in {table:?}"))
}

/// The targets of one job's `strategy.matrix.include`.
fn matrix_targets(workflow: &Value, job: &str) -> Vec<String> {
    workflow["jobs"][job]["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap_or_else(|| panic!("release.yml: job {job} has no matrix"))
        .iter()
        .map(|entry| entry["target"].as_str().unwrap().to_string())
        .collect()
}

/// cargo-binstall's template syntax: `{ name }` (spaces optional) replaced from `vars`; an
/// unknown variable is a mistake in the metadata.
fn render(template: &str, vars: &HashMap<&str, String>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}').expect("unclosed { in template");
        let key = rest[open + 1..close].trim();
        out.push_str(
            vars.get(key)
                .unwrap_or_else(|| panic!("template {template}: unknown variable {key}")),
        );
        rest = &rest[close + 1..];
    }
    out + rest
}

#[test]
fn cargo_binstall_finds_the_binary_the_release_workflow_packages() {
    let package = package();
    let (name, version) = (string(&package, "name"), string(&package, "version"));
    let repo = string(&package, "repository");
    let binstall = package
        .get("metadata")
        .and_then(|m| m.get("binstall"))
        .and_then(|b| b.as_table())
        .expect("Cargo.toml has no [package.metadata.binstall]");
    assert_eq!(
        string(binstall, "pkg-fmt"),
        "tgz",
        "the release assets are gzipped tarballs"
    );

    let workflow = release_workflow();
    let targets = matrix_targets(&workflow, "binaries");
    assert!(
        targets.len() >= 4,
        "release.yml builds binaries for {targets:?}"
    );
    let vars = |target: &str| {
        HashMap::from([
            ("name", name.to_string()),
            ("version", version.to_string()),
            ("repo", repo.to_string()),
            ("target", target.to_string()),
            ("bin", "goldgate".to_string()),
            ("binary-ext", String::new()),
            ("archive-suffix", ".tgz".to_string()),
        ])
    };
    // The GitHub release's download URL of each asset the workflow attaches (the same one
    // scripts/action-install.sh downloads).
    for target in &targets {
        assert_eq!(
            render(string(binstall, "pkg-url"), &vars(target)),
            format!("{repo}/releases/download/v{version}/goldgate-v{version}-{target}.tar.gz"),
            "binstall's pkg-url for {target}"
        );
    }

    // The workflow's own packaging step, run on a stand-in for the release build (a script:
    // gzipping the debug binary would take the test seconds).
    let steps = workflow["jobs"]["binaries"]["steps"].as_array().unwrap();
    let package_step = steps
        .iter()
        .find(|s| s["name"] == "Package")
        .expect("release.yml: the binaries job has no Package step");
    let script = package_step["run"].as_str().unwrap();
    let dir = TempDir::new("release-package");
    let target = &targets[0];
    let built = dir.0.join("target").join(target).join("release");
    std::fs::create_dir_all(&built).unwrap();
    let stand_in = format!("#!/bin/sh\necho 'goldgate {version}'\n");
    std::fs::write(built.join("goldgate"), &stand_in).unwrap();
    std::fs::set_permissions(
        built.join("goldgate"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(&dir.0)
        .env("VERSION", version)
        .env("TARGET", target)
        .output()
        .unwrap();
    assert!(out.status.success(), "Package step: {out:?}");

    // What binstall downloads is that file; it unpacks it and takes the binary at bin-dir.
    let url = render(string(binstall, "pkg-url"), &vars(target));
    let asset = dir.0.join(url.rsplit('/').next().unwrap());
    assert!(
        asset.is_file(),
        "the Package step made no {}",
        asset.display()
    );
    let unpacked = dir.0.join("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    let tar = Command::new("tar")
        .arg("-xzf")
        .arg(&asset)
        .arg("-C")
        .arg(&unpacked)
        .status()
        .unwrap();
    assert!(tar.success());
    let binary = unpacked.join(render(string(binstall, "bin-dir"), &vars(target)));
    assert_eq!(
        std::fs::read_to_string(&binary).ok().as_deref(),
        Some(stand_in.as_str()),
        "bin-dir {} is not the packaged binary",
        binary.display()
    );
    let run = Command::new(&binary).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&run.stdout).trim(),
        format!("goldgate {version}"),
        "{} --version",
        binary.display()
    );
}

#[test]
fn the_python_package_is_the_binary_with_cargo_metadata_built_for_each_platform() {
    let package = package();
    let pyproject = toml_file("pyproject.toml");
    let build = pyproject["build-system"].as_table().unwrap();
    assert_eq!(string(build, "build-backend"), "maturin");
    let maturin = read("scripts/wheel-test.sh")
        .lines()
        .find_map(|l| l.strip_prefix("MATURIN_VERSION="))
        .expect("scripts/wheel-test.sh pins MATURIN_VERSION")
        .to_string();
    assert_eq!(
        build["requires"].as_array().unwrap()[0].as_str(),
        Some(format!("maturin>={maturin},<2").as_str()),
        "an sdist builds with at least the maturin the wheels are built with"
    );
    let maturin_config = pyproject["tool"]["maturin"].as_table().unwrap();
    assert_eq!(
        string(maturin_config, "bindings"),
        "bin",
        "the wheel holds the binary"
    );

    let project = pyproject["project"].as_table().unwrap();
    assert_eq!(string(project, "name"), string(&package, "name"));
    assert_eq!(string(project, "license"), string(&package, "license"));
    assert!(
        !project.contains_key("version"),
        "the version is Cargo.toml's, not a second copy"
    );
    let dynamic: Vec<&str> = project["dynamic"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(dynamic.contains(&"version"), "dynamic: {dynamic:?}");
    assert_eq!(string(project, "readme"), "README.md");

    let workflow = release_workflow();
    let jobs = workflow["jobs"].as_object().unwrap();
    // One maturin: the release's wheels and sdist are built by the one the test builds with.
    let mut pinned = 0;
    for (job, spec) in jobs {
        for step in spec["steps"].as_array().into_iter().flatten() {
            let uses = step["uses"].as_str().unwrap_or("");
            if uses.starts_with("PyO3/maturin-action@") {
                assert!(
                    uses.starts_with("PyO3/maturin-action@v1."),
                    "{job}: maturin-action pinned by version, not {uses}"
                );
                assert_eq!(
                    step["with"]["maturin-version"].as_str(),
                    Some(format!("v{maturin}").as_str()),
                    "{job}: maturin-version"
                );
                pinned += 1;
            }
        }
    }
    assert_eq!(pinned, 2, "the wheels and the sdist are built with maturin");

    let wheels = matrix_targets(&workflow, "wheels");
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
    ] {
        assert!(
            wheels.iter().any(|t| t == target),
            "no wheel for {target}: {wheels:?}"
        );
    }
    // Each wheel is installed and run on its platform before anything is published.
    let installed: Vec<&str> = jobs["wheel-install"]["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["tag"].as_str().unwrap())
        .collect();
    assert_eq!(
        installed.len(),
        wheels.len(),
        "install checks: {installed:?}"
    );

    let publish = &jobs["python-index"];
    assert_eq!(publish["if"], "github.ref_type == 'tag'");
    assert_eq!(publish["permissions"]["id-token"], "write");
    assert!(
        publish["permissions"].get("contents").is_none(),
        "trusted publishing needs no other permission"
    );
    let needs: Vec<&str> = publish["needs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(needs.contains(&"wheel-install") && needs.contains(&"sdist"));
    let steps = publish["steps"].as_array().unwrap();
    let upload = steps.last().unwrap();
    assert!(upload["uses"]
        .as_str()
        .unwrap()
        .starts_with("pypa/gh-action-pypi-publish@v1."));
    assert!(
        upload.get("with").is_none(),
        "no token, no repository URL: the action's defaults"
    );
    // The workflow's default token reads; only the release job writes.
    assert_eq!(workflow["permissions"]["contents"], "read");
}

#[test]
fn the_readme_says_how_to_install_without_rust() {
    let readme = read("README.md");
    let start = readme
        .find("\n## Install")
        .expect("README has an Install section");
    let end = readme[start + 1..]
        .find("\n## ")
        .map_or(readme.len(), |i| start + 1 + i);
    let section = &readme[start..end];
    for way in [
        "pip install goldgate",
        "uvx goldgate",
        "pipx install goldgate",
        "cargo binstall",
        "cargo install",
        "goldgate/goldgate@v1",
    ] {
        assert!(
            section.contains(way),
            "the Install section does not mention `{way}`"
        );
    }
}

/// Nothing is published yet, so the README's first install lines work from a clone (`pip
/// install .`, which `scripts/wheel-test.sh` runs as written, and `cargo install --locked
/// --path .`), and every line of the README that installs a published package or release
/// says "once published".
#[test]
fn the_readme_installs_from_a_clone_first_and_marks_the_published_routes() {
    let readme = read("README.md");
    let start = readme.find("\n## Install").unwrap();
    let first_block = readme[start..]
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("the Install section has a sh block");
    let commands: Vec<&str> = first_block
        .lines()
        .map(|l| l.split("  #").next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .collect();
    let pip = commands
        .iter()
        .find(|c| c.starts_with("pip install"))
        .expect("the first install block has a pip install line");
    assert_eq!(*pip, "pip install .", "the line wheel-test.sh runs");
    assert!(
        commands.contains(&"cargo install --locked --path ."),
        "{commands:?}"
    );
    let published = [
        "pip install goldgate",
        "pipx install goldgate",
        "uvx goldgate",
        "uv tool install goldgate",
        "cargo binstall",
        "cargo install --locked --git",
    ];
    let mut in_sh = false;
    let mut marked = 0;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = !in_sh && line.trim() == "```sh";
            continue;
        }
        let command = line.split("  #").next().unwrap();
        if in_sh && published.iter().any(|p| command.contains(p)) {
            assert!(
                line.contains("# once published"),
                "a published route without `# once published`: {line}"
            );
            marked += 1;
        }
    }
    assert!(marked >= 5, "only {marked} published routes marked");
}
