//! The architecture, checked: every top-level module of `src/` imports only modules of a
//! lower layer (so the steps run one way, suite → runfile → run → score → gate → report →
//! publish, and no two modules import each other), and within a module no two files import
//! each other. `cargo test --test main layers` runs just this.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules, lowest layer first. A module may import only modules listed before
/// it. Modules on one line are peers that must not import each other.
const LAYERS: &[&[&str]] = &[
    &["escape"],
    &["error", "rng"],
    &[
        "io", "output", "text", "secrets", "number", "rng", "retry", "limits", "runtime",
        "document", "hash", "lockfile", "cachedir", "quantity",
    ],
    &["parse", "env"],
    &["llm"],
    &["judge"],
    &["metrics"],
    &["embed"],
    &["suite"],
    &["kinds"],
    &["runfile"],
    &["run"],
    &["score"],
    &["gate"],
    &["report"],
    &["publish"],
    &["check", "baseline", "hook", "config", "annotate", "init"],
    &["cli"],
    &["settings"],
    &["commands"],
    &["lib"],
];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its `#[cfg(test)]` module and comments.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Paths named after `prefix` (`crate::`, `super::`) in `code`: their first segments.
fn named(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices(prefix) {
        if code[..i]
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

#[test]
fn modules_import_only_lower_layers_and_files_never_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    // Sibling files of one directory: file → siblings it names.
    let mut siblings: BTreeMap<PathBuf, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "main" {
            continue;
        }
        let Some(own) = rank(&top) else {
            problems.push(format!(
                "src/{top}: not in the layer table of tests/layers.rs"
            ));
            continue;
        };
        let text = code(&std::fs::read_to_string(file).unwrap());
        for used in named(&text, "crate::") {
            if used == top {
                continue;
            }
            match rank(&used) {
                Some(r) if r < own => {}
                Some(_) => problems.push(format!(
                    "{} imports crate::{used}, which is not in a lower layer than {top}",
                    rel.display()
                )),
                None => {}
            }
        }
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        if rel.components().count() > 1 && stem != "mod" {
            let dir = file.parent().unwrap().to_path_buf();
            let mut uses = named(&text, "super::");
            let prefix = format!("crate::{top}::");
            uses.extend(named(&text, &prefix));
            uses.remove(&stem);
            siblings.entry(dir).or_default().insert(stem, uses);
        }
    }
    for (dir, graph) in &siblings {
        for (a, uses) in graph {
            for b in uses {
                if graph.get(b).is_some_and(|back| reaches(graph, back, a)) {
                    problems.push(format!(
                        "{}: {a}.rs and {b}.rs import each other (directly or through others)",
                        dir.strip_prefix(&src).unwrap().display()
                    ));
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Whether any of `from` leads to `target` in `graph`.
fn reaches(
    graph: &BTreeMap<String, BTreeSet<String>>,
    from: &BTreeSet<String>,
    target: &str,
) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<&String> = from.iter().collect();
    while let Some(next) = stack.pop() {
        if next == target {
            return true;
        }
        if seen.insert(next.clone()) {
            if let Some(more) = graph.get(next) {
                stack.extend(more.iter());
            }
        }
    }
    false
}
