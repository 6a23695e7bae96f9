//! Reading a crate's imports the way the compiler sees them, for tests/layers.rs: every
//! file parsed with `syn`; `use` trees with their groups, renames and globs; paths in code
//! and types; paths inside macro calls; `crate::`, `super::`, `self::` and child-module
//! paths resolved from the module the text is in (inline modules such as `mod tests`
//! included), with `#[path = "…"]` declarations honoured.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// One file of a crate: where it is and the module path it defines.
pub struct Source {
    pub path: PathBuf,
    pub module: Vec<String>,
    pub syntax: syn::File,
}

pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
pub fn module_of(src: &Path, file: &Path) -> Vec<String> {
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
pub fn sources(src: &Path) -> Vec<Source> {
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
pub struct Names<'m> {
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
pub fn names(source: &Source, modules: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let mut names = Names {
        modules,
        here: source.module.clone(),
        found: BTreeSet::new(),
    };
    names.visit_file(&source.syntax);
    names.found
}

/// The top-level module of a module path (`lib` for the crate root).
pub fn top(module: &[String]) -> String {
    module.first().cloned().unwrap_or_else(|| "lib".into())
}
