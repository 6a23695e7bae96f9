//! A task kind is its folder: outside `crates/goldgate-core/src/kinds/`, no code names a
//! registered kind — not a crate's sources, their tests, the integration tests or the
//! benchmarks. Every file is parsed with `syn`, and every string literal (in macro calls
//! too) and every path is read: a literal that is a kind's name, or holds it as a metric
//! (`KIND.f1`), quoted (JSON in a string) or last on a line (`kind: KIND`), or a path
//! through `kinds::KIND`, names a kind; documentation (`///`, `//!`) is prose and is not
//! read. The names are the registry's (the test kind's too), so a new kind is held to it at
//! once. A kind's own tests live in its folder.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use crate::support::imports::sources;

/// What names a kind in one file.
struct Finder<'k> {
    kinds: &'k [String],
    found: BTreeSet<String>,
}

impl Finder<'_> {
    fn literal(&mut self, value: &str) {
        for kind in self.kinds {
            if names(value, kind) {
                let shown: String = value.chars().take(60).collect();
                self.found.insert(format!("{shown:?}"));
            }
        }
    }

    fn tokens(&mut self, tokens: TokenStream) {
        for token in tokens {
            match token {
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Literal(literal) => {
                    if let Ok(syn::Lit::Str(s)) = syn::parse_str::<syn::Lit>(&literal.to_string()) {
                        self.literal(&s.value());
                    }
                }
                TokenTree::Ident(_) | TokenTree::Punct(_) => {}
            }
        }
    }
}

/// Whether a string names `kind`: the kind itself, or the kind as a word inside it that is
/// a metric (`KIND.f1`), quoted (`"KIND"`, JSON in a string), or last on its line
/// (`kind: KIND` in YAML, `--kind KIND`); a metric or a file after a slash too
/// (`/metrics/KIND.f1/value`, `prompts/KIND.j2`). As a directory (`suite/KIND/…`), a
/// pointer's key (`/KIND`), inside a longer word (`answer-KIND.schema.json`) or in prose
/// (`an KIND suite`) it is not a name.
fn names(value: &str, kind: &str) -> bool {
    if value == kind {
        return true;
    }
    value.match_indices(kind).any(|(at, _)| {
        let before = value[..at].chars().next_back();
        let after = &value[at + kind.len()..];
        let word_start = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'));
        let mut rest = after.chars();
        let ends = match rest.next() {
            // A directory or a JSON pointer's key (`tests/KIND`, `/KIND`) is not the kind.
            None | Some('"' | '\'' | '\n') => before != Some('/'),
            Some('.') => rest
                .next()
                .is_some_and(|c| c.is_ascii_lowercase() || c == '_'),
            Some(_) => false,
        };
        word_start && ends
    })
}

impl<'ast> Visit<'ast> for Finder<'_> {
    /// Documentation is prose about the code, not code: `///` and `//!` are skipped.
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if !attr.path().is_ident("doc") {
            syn::visit::visit_attribute(self, attr);
        }
    }

    fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
        self.literal(&lit.value());
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        for pair in segments.windows(2) {
            if pair[0] == "kinds" && self.kinds.contains(&pair[1]) {
                self.found.insert(segments.join("::"));
            }
        }
        syn::visit::visit_path(self, path);
    }
}

/// Every Rust file outside the kinds that names a kind — each crate's sources, their tests
/// included, the integration tests and the benchmarks — with what it names.
fn naming(root: &Path, kinds: &[String]) -> Vec<(PathBuf, BTreeSet<String>)> {
    let mut dirs: Vec<PathBuf> = vec![root.join("src"), root.join("tests"), root.join("benches")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        dirs.push(entry.unwrap().path().join("src"));
    }
    let kinds_dir = root.join("crates/goldgate-core/src/kinds");
    let mut out = Vec::new();
    for dir in dirs.into_iter().filter(|d| d.is_dir()) {
        for source in sources(&dir) {
            if source.path.starts_with(&kinds_dir) {
                continue;
            }
            let mut finder = Finder {
                kinds,
                found: BTreeSet::new(),
            };
            finder.visit_file(&source.syntax);
            if !finder.found.is_empty() {
                out.push((source.path.clone(), finder.found));
            }
        }
    }
    out
}

fn registered() -> Vec<String> {
    goldgate_core::kinds::all()
        .map(|k| k.as_str().to_string())
        .collect()
}

#[test]
fn no_code_outside_the_kinds_names_a_kind() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = naming(root, &registered());
    assert!(
        found.is_empty(),
        "code outside crates/goldgate-core/src/kinds/ names a kind; ask the registry \
         (kinds::of, a TaskKind method) instead:\n{}",
        found
            .iter()
            .map(|(path, names)| format!("  {}: {names:?}", path.display()))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The finder itself: a literal, a metric name, a path, a macro's literal, a kind quoted
/// or last on a line inside a longer text, and test code are found; a kind's name in a path,
/// a file name or prose is not.
#[test]
fn the_finder_reads_literals_metrics_paths_macros_and_texts() {
    let kinds = vec!["summary".to_string()];
    let file: syn::File = syn::parse_str(
        r##"
        fn a() { let k = "summary"; }
        fn b() { let m = "summary.f1"; }
        fn c() { crate::kinds::summary::Summary; }
        fn d() { format!("{}", "summary.recall"); }
        fn e() { let prose = "a summary of it. Then suite/summary/s.yaml, answer-summary.schema.json"; }
        fn j() { let pointer = "/metrics/summary.kappa/value"; }
        fn k() { let dir = "tests/summary"; let key = "/summary"; }
        fn f() { let json = r#"{"kind": "summary"}"#; }
        fn g() { let yaml = "id: s\nkind: summary\n"; }
        fn h() { let rules = "[metrics.\"summary.precision\"]\nmin = 1"; }
        #[cfg(test)]
        mod tests { fn i() { let k = "--kind summary"; } }
        "##,
    )
    .unwrap();
    let mut finder = Finder {
        kinds: &kinds,
        found: BTreeSet::new(),
    };
    finder.visit_file(&file);
    let mut expected: BTreeSet<String> = [
        "summary",
        "summary.f1",
        "summary.recall",
        r#"{"kind": "summary"}"#,
        "id: s\nkind: summary\n",
        "[metrics.\"summary.precision\"]\nmin = 1",
        "--kind summary",
        "/metrics/summary.kappa/value",
    ]
    .iter()
    .map(|v| format!("{v:?}"))
    .collect();
    expected.insert("crate::kinds::summary::Summary".into());
    assert_eq!(finder.found, expected);
}
