//! A task kind is its folder: outside `crates/goldgate-core/src/kinds/`, no code of any
//! crate names a registered kind. Every file is parsed with `syn`; in code that is not a
//! test (items under `#[cfg(test)]`, test-module files and the test kit are skipped),
//! every string literal — in macro calls too — and every path is read: a literal that is a
//! kind's name or starts with `KIND.` (a metric of it), or a path through `kinds::KIND`,
//! names a kind. The names are the registry's, so a new kind is held to it at once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use crate::support::imports::{sources, Source};

/// What names a kind in one file.
struct Finder<'k> {
    kinds: &'k [String],
    found: BTreeSet<String>,
}

impl Finder<'_> {
    fn literal(&mut self, value: &str) {
        for kind in self.kinds {
            if value == kind || value.starts_with(&format!("{kind}.")) {
                self.found.insert(format!("\"{value}\""));
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

/// Whether attributes make an item test-only (`#[cfg(test)]`, `#[cfg(any(test, …))]`).
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| match &a.meta {
        syn::Meta::List(list) if a.path().is_ident("cfg") => {
            let tokens = list.tokens.to_string();
            tokens
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|t| t == "test")
                && !tokens.starts_with("not")
        }
        _ => false,
    })
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            _ => &[],
        };
        if !is_test(attrs) {
            syn::visit::visit_item(self, item);
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

/// The modules of a crate declared as tests (`#[cfg(test)] mod NAME;`), as module paths.
fn test_modules(sources: &[Source]) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    for source in sources {
        for item in &source.syntax.items {
            if let syn::Item::Mod(m) = item {
                if m.content.is_none() && is_test(&m.attrs) {
                    let mut path = source.module.clone();
                    path.push(m.ident.to_string());
                    out.insert(path);
                }
            }
        }
    }
    out
}

/// Every file of every crate outside the kinds that names a kind in code that is not a
/// test, with what it names.
fn naming(root: &Path, kinds: &[String]) -> Vec<(PathBuf, BTreeSet<String>)> {
    let mut crates: Vec<PathBuf> = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        crates.push(entry.unwrap().path().join("src"));
    }
    let kinds_dir = root.join("crates/goldgate-core/src/kinds");
    let mut out = Vec::new();
    for src in crates {
        let sources = sources(&src);
        let tests = test_modules(&sources);
        for source in &sources {
            let in_test = (1..=source.module.len()).any(|n| tests.contains(&source.module[..n]));
            if source.path.starts_with(&kinds_dir) || in_test || source.module == ["testkit"] {
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

/// The finder itself: a literal, a metric name, a path and a macro's literal are found; a
/// kind's name inside a longer text and test code are not.
#[test]
fn the_finder_reads_literals_metrics_paths_and_macros_outside_tests() {
    let kinds = vec!["summary".to_string()];
    let file: syn::File = syn::parse_str(
        r#"
        fn a() { let k = "summary"; }
        fn b() { let m = "summary.f1"; }
        fn c() { crate::kinds::summary::Summary; }
        fn d() { format!("{}", "summary"); }
        fn e() { let prose = "a summary of it"; }
        #[cfg(test)]
        mod tests { fn f() { let k = "summary"; } }
        "#,
    )
    .unwrap();
    let mut finder = Finder {
        kinds: &kinds,
        found: BTreeSet::new(),
    };
    finder.visit_file(&file);
    let found: Vec<&str> = finder.found.iter().map(String::as_str).collect();
    assert_eq!(
        found,
        [
            "\"summary\"",
            "\"summary.f1\"",
            "crate::kinds::summary::Summary"
        ]
    );
}
