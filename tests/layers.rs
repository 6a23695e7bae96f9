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
//! Imports are read by parsing every file with `syn`: `use` trees with their groups,
//! renames and globs; paths in code and types; paths inside macro calls; `crate::`,
//! `super::` and `self::` resolved from the module the text is in (inline modules such as
//! `mod tests` included); `mod.rs` files and test code count like everything else.
//! `cargo test --test main layers` runs just this.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

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
            ("judge", &["document", "llm", "metrics", "parse", "text"]),
            ("metrics", &["hash", "rng", "text"]),
            (
                "suite",
                &["document", "error", "io", "lockfile", "metrics", "text"],
            ),
            (
                "kinds",
                &[
                    "error", "hash", "judge", "metrics", "parse", "suite", "text",
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
                    "parse", "quantity", "runfile", "suite", "text",
                ],
            ),
            (
                "gate",
                &[
                    "document", "error", "escape", "io", "judge", "kinds", "metrics", "number",
                    "parse", "rng", "runfile", "score", "suite", "text",
                ],
            ),
            ("testkit", &["gate", "kinds", "metrics", "score", "suite"]),
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
            (
                "runner",
                &[
                    "adapter", "agents", "cache", "call", "cost", "judge", "usage",
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
            ("report", &[]),
            ("publish", &["report"]),
            ("baseline", &[]),
            ("check", &["report"]),
            ("init", &[]),
            ("annotate", &[]),
            (
                "settings",
                &[
                    "annotate", "baseline", "check", "cli", "config", "hook", "init", "publish",
                ],
            ),
            (
                "commands",
                &[
                    "annotate", "baseline", "check", "cli", "hook", "init", "output", "publish",
                    "report", "settings",
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

/// One file of a crate: where it is and the module path it defines.
struct Source {
    path: PathBuf,
    module: Vec<String>,
    syntax: syn::File,
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

/// The module path a file defines by its place: `lib.rs` `[]`, `a.rs` and `a/mod.rs`
/// `[a]`, `a/b.rs` `[a, b]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        let last = parts.pop().unwrap();
        if parts.is_empty() && last == "main" {
            parts.push("main".into());
        }
    }
    parts
}

/// Every file of a crate, parsed, with `#[path = "…"]` declarations honoured.
fn sources(src: &Path) -> Vec<Source> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut out: Vec<Source> = files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let syntax = syn::parse_file(&text)
                .unwrap_or_else(|e| panic!("{}: does not parse: {e}", path.display()));
            let module = module_of(src, &path);
            Source {
                path,
                module,
                syntax,
            }
        })
        .collect();
    // `#[path = "x.rs"] mod name;` in a file of module M: x.rs is M::name.
    let mut renamed = Vec::new();
    for source in &out {
        for item in &source.syntax.items {
            let syn::Item::Mod(m) = item else { continue };
            for attr in &m.attrs {
                if !attr.path().is_ident("path") {
                    continue;
                }
                let syn::Meta::NameValue(nv) = &attr.meta else {
                    continue;
                };
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
                else {
                    continue;
                };
                let target = source.path.parent().unwrap().join(s.value());
                let mut module = source.module.clone();
                module.push(m.ident.to_string());
                renamed.push((target, module));
            }
        }
    }
    for (target, module) in renamed {
        if let Some(s) = out.iter_mut().find(|s| s.path == target) {
            s.module = module;
        }
    }
    out
}

/// The absolute module paths (within the crate) a file names.
struct Names<'m> {
    /// Every module of the crate: a path may start with a child module of where it is.
    modules: &'m BTreeSet<Vec<String>>,
    /// The module the visitor is in (the file's, plus inline modules entered).
    here: Vec<String>,
    found: BTreeSet<Vec<String>>,
}

impl Names<'_> {
    /// Resolve a path whose first segment is `crate`, `super` or `self`.
    fn resolve(&mut self, segments: &[String]) {
        let mut base: Vec<String>;
        let mut rest = segments;
        match segments.first().map(String::as_str) {
            Some("crate") => {
                base = Vec::new();
                rest = &segments[1..];
            }
            Some("super") => {
                base = self.here.clone();
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop();
                    rest = &rest[1..];
                }
            }
            Some("self") => {
                base = self.here.clone();
                rest = &segments[1..];
            }
            Some(first) => {
                let mut child = self.here.clone();
                child.push(first.to_string());
                if !self.modules.contains(&child) {
                    return;
                }
                base = self.here.clone();
            }
            None => return,
        }
        base.extend(rest.iter().cloned());
        self.found.insert(base);
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                if n.ident != "self" {
                    full.push(n.ident.to_string());
                }
                self.resolve(&full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                self.resolve(&full);
            }
            syn::UseTree::Glob(_) => {
                let full = prefix.clone();
                self.resolve(&full);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// Paths in a macro call's tokens: `crate::a::b`, `super::x`, `self::y`.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(id)
                    if ["crate", "super", "self"].contains(&id.to_string().as_str()) =>
                {
                    let mut path = vec![id.to_string()];
                    let mut j = i + 1;
                    while j + 2 < trees.len() + 1 {
                        let colons = matches!((&trees.get(j), &trees.get(j + 1)),
                            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':');
                        match (colons, trees.get(j + 2)) {
                            (true, Some(TokenTree::Ident(next))) => {
                                path.push(next.to_string());
                                j += 3;
                            }
                            _ => break,
                        }
                    }
                    if path.len() > 1 {
                        self.resolve(&path);
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Names<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.resolve(&segments);
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.here.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.here.pop();
        }
    }
}

/// Every module path a file names, resolved.
fn names(source: &Source, modules: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let mut names = Names {
        modules,
        here: source.module.clone(),
        found: BTreeSet::new(),
    };
    names.visit_file(&source.syntax);
    names.found
}

/// The top-level module of a module path (`lib` for the crate root).
fn top(module: &[String]) -> String {
    module.first().cloned().unwrap_or_else(|| "lib".into())
}

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
    let sources = sources(&src);
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
