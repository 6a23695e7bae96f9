//! The architecture inside each crate, checked. Cargo already refuses an import from a
//! crate above (goldgate-core → goldgate-client → goldgate-embed, goldgate-run → goldgate);
//! this test holds the rules Cargo cannot see:
//!
//! - every top-level module of a crate imports only the modules [`ALLOWED`] lists for it,
//!   that table is a graph without cycles (so the modules form layers, in a partial order),
//!   and it lists no import the code does not make;
//! - within a directory, no two sibling files import each other, directly or through
//!   others (a parent `mod.rs` and its children may: that is a module's structure).
//!
//! Imports are read by parsing every file with `syn` (`support::imports`): grouped imports,
//! paths in code and inside macro calls, `mod.rs` files and test code count like everything
//! else.
//! `cargo test --test main layers` runs just this.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::imports::{names, sources, top, Source};

/// Per crate (its `src/` directory from the repository root), each top-level module and the
/// modules of the same crate it may import. `lib` is the crate root.
type Table = &'static [(&'static str, &'static [&'static str])];

const ALLOWED: &[(&str, Table)] = &[
    (
        "crates/goldgate-core/src",
        &[
            ("escape", &[]),
            ("number", &[]),
            ("hash", &[]),
            ("rng", &[]),
            ("text", &[]),
            ("quantity", &[]),
            ("parse", &[]),
            ("cachedir", &[]),
            ("lockfile", &[]),
            ("document", &[]),
            ("error", &["escape"]),
            ("retry", &["rng"]),
            ("secrets", &["escape"]),
            ("io", &["error"]),
            ("env", &["error", "secrets"]),
            ("llm", &["error", "io", "quantity", "secrets", "text"]),
            ("judge", &["document", "llm", "metrics", "text"]),
            ("metrics", &["hash", "rng", "text"]),
            ("sample", &["document", "error", "metrics", "text"]),
            (
                "kinds",
                &[
                    "error", "hash", "judge", "metrics", "parse", "rng", "sample", "text",
                ],
            ),
            (
                "suite",
                &[
                    "document", "error", "io", "kinds", "lockfile", "metrics", "sample", "text",
                ],
            ),
            ("embed", &["cachedir", "error", "io", "metrics", "text"]),
            (
                "runfile",
                &[
                    "document", "error", "io", "judge", "llm", "lockfile", "quantity", "text",
                ],
            ),
            (
                "score",
                &[
                    "cachedir", "document", "embed", "error", "io", "judge", "kinds", "metrics",
                    "parse", "quantity", "runfile", "sample", "suite", "text",
                ],
            ),
            (
                "gate",
                &[
                    "document", "error", "escape", "io", "judge", "kinds", "metrics", "number",
                    "parse", "rng", "runfile", "sample", "score", "text",
                ],
            ),
            (
                "testkit",
                &[
                    "error", "gate", "kinds", "metrics", "parse", "sample", "score", "suite",
                ],
            ),
            ("lib", &["error"]),
        ],
    ),
    (
        "crates/goldgate-client/src",
        &[
            ("runtime", &[]),
            ("limits", &[]),
            ("endpoint", &[]),
            ("client", &["endpoint"]),
            ("lib", &["client"]),
        ],
    ),
    (
        "crates/goldgate-embed/src",
        &[
            ("openai", &[]),
            ("minilm", &[]),
            ("lib", &["minilm", "openai"]),
        ],
    ),
    (
        "crates/goldgate-run/src",
        &[
            ("call", &[]),
            ("usage", &["cost"]),
            ("cost", &[]),
            ("repository", &[]),
            ("jsonl_protocol", &[]),
            ("replay", &["call"]),
            ("cache", &["call"]),
            ("chat", &["call"]),
            ("agents", &["call"]),
            ("config", &["agents", "chat"]),
            ("envkey", &["config"]),
            ("settings_hashes", &["agents", "chat", "config"]),
            ("process", &["call", "config"]),
            ("preflight", &["config", "process"]),
            ("oneshot", &["call", "config", "process"]),
            ("jsonl", &["call", "config", "jsonl_protocol", "process"]),
            ("http", &["call", "config"]),
            (
                "fingerprint",
                &[
                    "agents",
                    "chat",
                    "config",
                    "envkey",
                    "repository",
                    "settings_hashes",
                ],
            ),
            ("judge", &["cost"]),
            (
                "adapter",
                &[
                    "agents",
                    "call",
                    "chat",
                    "config",
                    "http",
                    "jsonl",
                    "oneshot",
                    "preflight",
                    "process",
                    "replay",
                ],
            ),
            ("resume", &[]),
            ("summary", &[]),
            (
                "runner",
                &[
                    "adapter", "agents", "cache", "call", "cost", "judge", "summary", "usage",
                ],
            ),
            (
                "plan",
                &[
                    "adapter",
                    "cache",
                    "config",
                    "cost",
                    "fingerprint",
                    "judge",
                    "resume",
                    "runner",
                ],
            ),
            ("lib", &[]),
        ],
    ),
    (
        "src",
        &[
            ("output", &[]),
            ("cli", &[]),
            ("hook", &[]),
            ("config", &[]),
            ("history", &[]),
            ("report", &["history"]),
            ("publish", &["report"]),
            ("baseline", &[]),
            ("check", &["history", "report"]),
            ("init", &[]),
            ("annotate", &[]),
            (
                "settings",
                &[
                    "annotate", "baseline", "check", "cli", "config", "history", "hook", "init",
                    "publish",
                ],
            ),
            (
                "commands",
                &[
                    "annotate", "baseline", "check", "cli", "history", "hook", "init", "output",
                    "publish", "report", "settings",
                ],
            ),
            ("lib", &["cli", "commands", "output"]),
            ("main", &[]),
        ],
    ),
];

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// goldgate-core's helpers for tests (compiled only for tests and the `test-support`
/// feature): outside the layers, usable from any module's tests.
const TEST_SUPPORT: &str = "testkit";

/// Whether `graph` has a cycle; the modules on one if so.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let start = stack.iter().position(|n| n == next).unwrap();
                    let mut c = stack[start..].to_vec();
                    c.push(next.clone());
                    return Some(c);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if !state.contains_key(node) {
            if let Some(c) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

/// The problems of one crate: imports outside its table, a table with a cycle or with
/// imports nobody makes, and sibling files that import each other.
fn problems(src_rel: &str, table: Table) -> Vec<String> {
    let src = Path::new(ROOT).join(src_rel);
    // A kind's `end_to_end/` files sit in its folder but are modules of the integration
    // tests (build.rs), not of the crate: they are not its layers.
    let sources: Vec<_> = sources(&src)
        .into_iter()
        .filter(|s| !s.module.iter().any(|m| m == "end_to_end"))
        .collect();
    let mut problems = Vec::new();
    let allowed: BTreeMap<String, BTreeSet<String>> = table
        .iter()
        .map(|(m, deps)| (m.to_string(), deps.iter().map(|d| d.to_string()).collect()))
        .collect();
    if let Some(c) = cycle(&allowed) {
        problems.push(format!(
            "{src_rel}: the table has a cycle: {}",
            c.join(" → ")
        ));
    }
    let modules: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
    let mut used: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Sibling files of one directory: file → siblings it names.
    let mut siblings: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for source in &sources {
        let own = top(&source.module);
        if !allowed.contains_key(&own) {
            problems.push(format!(
                "{}: module `{own}` is not in tests/layers.rs's table for {src_rel}",
                source.path.display()
            ));
        }
        for name in names(source, &modules) {
            // The file (module) the name lives in: its longest prefix that is a file.
            let Some(target) = (0..=name.len())
                .rev()
                .map(|n| name[..n].to_vec())
                .find(|prefix| modules.contains(prefix))
            else {
                continue;
            };
            let to = top(&target);
            // The shared test helpers are compiled for tests only: any module's tests may
            // use them.
            if to != own && !target.is_empty() && to != TEST_SUPPORT {
                used.entry(own.clone()).or_default().insert(to.clone());
                if !allowed.get(&own).is_some_and(|a| a.contains(&to)) {
                    problems.push(format!(
                        "{}: `{own}` imports `{}`, which tests/layers.rs does not allow `{own}` to import",
                        source.path.strip_prefix(ROOT).unwrap().display(),
                        name.join("::")
                    ));
                }
            }
            // Siblings: same parent module, neither the parent itself.
            let me = &source.module;
            if !me.is_empty()
                && target.len() == me.len()
                && target[..target.len() - 1] == me[..me.len() - 1]
                && target != *me
            {
                siblings
                    .entry(me[..me.len() - 1].to_vec())
                    .or_default()
                    .entry(me.last().unwrap().clone())
                    .or_default()
                    .insert(target.last().unwrap().clone());
            }
        }
    }
    for (module, deps) in &allowed {
        for dep in deps {
            if !used.get(module).is_some_and(|u| u.contains(dep)) {
                problems.push(format!(
                    "{src_rel}: the table lets `{module}` import `{dep}`, which it does not: remove it"
                ));
            }
        }
    }
    if !problems.is_empty() {
        let listed: Vec<String> = used
            .iter()
            .map(|(m, deps)| format!("  (\"{m}\", &{deps:?}),"))
            .collect();
        problems.push(format!(
            "{src_rel}: the imports its code makes between modules:\n{}",
            listed.join("\n")
        ));
    }
    for (parent, graph) in &siblings {
        if let Some(c) = cycle(graph) {
            problems.push(format!(
                "{src_rel}/{}: sibling files import each other: {}",
                parent.join("/"),
                c.iter()
                    .map(|f| format!("{f}.rs"))
                    .collect::<Vec<_>>()
                    .join(" → ")
            ));
        }
    }
    problems
}

#[test]
fn modules_import_only_what_their_layer_allows_and_files_never_import_each_other() {
    let mut all = Vec::new();
    let crates: BTreeSet<&str> = ALLOWED.iter().map(|(c, _)| *c).collect();
    for dir in std::fs::read_dir(Path::new(ROOT).join("crates")).unwrap() {
        let src = format!("crates/{}/src", dir.unwrap().file_name().to_string_lossy());
        assert!(
            crates.contains(src.as_str()),
            "{src}: not in tests/layers.rs"
        );
    }
    for (src, table) in ALLOWED {
        all.extend(problems(src, table));
    }
    all.sort();
    all.dedup();
    assert!(all.is_empty(), "{}", all.join("\n"));
}

/// The checker sees what a grep would miss: a grouped import, one in `mod.rs`, one after a
/// test module, and one inside a macro call.
#[test]
fn the_checker_reads_grouped_imports_mod_rs_test_code_and_macros() {
    let source = |module: &[&str], text: &str| Source {
        path: PathBuf::from("x.rs"),
        module: module.iter().map(|s| s.to_string()).collect(),
        syntax: syn::parse_file(text).unwrap(),
    };
    let modules: BTreeSet<Vec<String>> = [
        vec!["gate".to_string()],
        vec!["gate".into(), "rules".into()],
    ]
    .into();
    let found = names(
        &source(
            &["gate"],
            "#[cfg(test)] mod tests { use super::super::{report::x, suite}; }\n\
         fn f() { let _ = format!(\"{}\", crate::run::go()); }\n\
         use crate::{a::{b, c as d}, e::*};\n\
         use rules::Rule;",
        ),
        &modules,
    );
    let tops: BTreeSet<String> = found.iter().map(|p| p[0].clone()).collect();
    assert_eq!(
        tops,
        ["a", "e", "gate", "report", "run", "suite"]
            .map(String::from)
            .into(),
        "{found:?}"
    );
}

/// goldgate-core is plain synchronous data: nothing in its dependency tree (as Cargo.lock
/// resolves it) is an async runtime, an HTTP client or a command-line parser.
#[test]
fn core_depends_on_no_runtime_client_or_cli() {
    let lock: toml::Table = std::fs::read_to_string(Path::new(ROOT).join("Cargo.lock"))
        .unwrap()
        .parse()
        .unwrap();
    let packages = lock["package"].as_array().unwrap();
    let deps = |name: &str| -> Vec<String> {
        let package = packages
            .iter()
            .find(|p| p["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("{name} is not in Cargo.lock"));
        package
            .get("dependencies")
            .and_then(|d| d.as_array())
            .map(|d| {
                d.iter()
                    .map(|v| v.as_str().unwrap().split(' ').next().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    // Cargo.lock lists dev-dependencies too: core's own (for its tests) are left out.
    let manifest: toml::Table =
        std::fs::read_to_string(Path::new(ROOT).join("crates/goldgate-core/Cargo.toml"))
            .unwrap()
            .parse()
            .unwrap();
    let dev = manifest["dev-dependencies"].as_table().unwrap();
    let mut seen = BTreeSet::new();
    let mut stack: Vec<String> = deps("goldgate-core")
        .into_iter()
        .filter(|d| !dev.contains_key(d))
        .collect();
    while let Some(name) = stack.pop() {
        if seen.insert(name.clone()) {
            stack.extend(deps(&name));
        }
    }
    let forbidden: Vec<&str> = ["tokio", "reqwest", "hyper", "clap", "axum", "octocrab"]
        .into_iter()
        .filter(|f| seen.contains(*f))
        .collect();
    assert!(
        forbidden.is_empty(),
        "goldgate-core depends (directly or through others) on {forbidden:?}"
    );
    assert!(
        seen.contains("serde_json"),
        "the walk found core's dependencies"
    );
}
