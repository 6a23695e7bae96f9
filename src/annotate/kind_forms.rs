//! The labelling page's forms of the task kinds, from the registry
//! ([`goldgate_core::kinds::ALL`]): each kind's own module ([`TaskKind::annotate_form`], the
//! `annotate.js` of its folder) served at `/js/kinds/<kind>.js`, the table `/js/kinds.js`
//! that imports them all and lists each by the name samples give its kind (the page looks a
//! sample's form up there), and index.html asking for each module at once. The page's own
//! modules name no kind: a kind's form reaches the page only through here.

use std::sync::LazyLock;

use goldgate_core::kinds::{TaskKind, ALL};

/// The page, before the kinds' modules are added to what it preloads.
const INDEX_HTML: &str = include_str!("assets/index.html");

/// The path of the table of the kinds' forms.
pub const TABLE: &str = "/js/kinds.js";

/// index.html's line that preloads the table: the kinds' modules are preloaded after it.
const TABLE_PRELOAD: &str = r#"<link rel="modulepreload" href="/js/kinds.js">"#;

/// The name of `kind`, as samples give it, in paths and in the table.
fn name(kind: &dyn TaskKind) -> &'static str {
    kind.name()
}

/// Where `kind`'s form is served.
pub fn path(kind: &dyn TaskKind) -> String {
    format!("/js/kinds/{}.js", name(kind))
}

/// Every module this serves, as (path, text): the table, then each kind's form in
/// registry order.
pub fn modules() -> &'static [(String, String)] {
    static MODULES: LazyLock<Vec<(String, String)>> = LazyLock::new(|| {
        let forms = ALL
            .iter()
            .map(|kind| (path(*kind), kind.annotate_form().to_string()));
        std::iter::once((TABLE.to_string(), table()))
            .chain(forms)
            .collect()
    });
    &MODULES
}

/// The table: an import of each kind's form and `KINDS`, a Map from each kind's name to it.
fn table() -> String {
    let mut out = String::from(
        "// goldgate annotate: the form of each task kind, by the name samples give the kind.\n\
         // The server makes this module from its registry of kinds; each form is the kind's own.\n\n",
    );
    for (i, kind) in ALL.iter().enumerate() {
        out.push_str(&format!("import k{i} from './kinds/{}.js';\n", name(*kind)));
    }
    out.push_str("\nexport const KINDS = new Map([\n");
    for (i, kind) in ALL.iter().enumerate() {
        let quoted = serde_json::Value::from(name(*kind)).to_string();
        out.push_str(&format!("  [{quoted}, k{i}],\n"));
    }
    out.push_str("]);\n");
    out
}

/// index.html, preloading every kind's form after the table.
pub fn index_html() -> &'static str {
    static INDEX: LazyLock<String> = LazyLock::new(|| {
        let preloads: String = ALL
            .iter()
            .map(|kind| format!("\n<link rel=\"modulepreload\" href=\"{}\">", path(*kind)))
            .collect();
        INDEX_HTML.replacen(TABLE_PRELOAD, &format!("{TABLE_PRELOAD}{preloads}"), 1)
    });
    &INDEX
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            match path.is_dir() {
                true => files(&path, out),
                false => out.push(path),
            }
        }
    }

    /// Where `word` stands in `text` as a word of its own (not inside a longer name such
    /// as `inference_type`), case-sensitive: the lines that hold it.
    fn lines_naming<'t>(text: &'t str, word: &str) -> Vec<&'t str> {
        let part = |c: char| c.is_ascii_alphanumeric() || c == '_';
        text.lines()
            .filter(|line| {
                line.match_indices(word).any(|(at, _)| {
                    let before = line[..at].chars().next_back();
                    let after = line[at + word.len()..].chars().next();
                    !before.is_some_and(part) && !after.is_some_and(part)
                })
            })
            .collect()
    }

    /// The page's own files (index.html, the style sheet, every module of `js/`) name no
    /// registered kind: what differs by kind comes from the kind's module.
    #[test]
    fn the_page_names_no_kind() {
        let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/annotate/assets");
        let mut all = Vec::new();
        files(&assets, &mut all);
        assert!(all.len() > 10, "the page's files were found: {all:?}");
        let mut found = Vec::new();
        for file in &all {
            let text = std::fs::read_to_string(file).unwrap();
            for &kind in ALL {
                for line in lines_naming(&text, name(kind)) {
                    found.push(format!("{}: {}: {line}", file.display(), name(kind)));
                }
            }
        }
        assert!(
            found.is_empty(),
            "the page names kinds:\n{}",
            found.join("\n")
        );
        // The reading itself: a name on its own is found, one inside a longer name is not.
        let kind = name(ALL[0]);
        let alone = format!("a '{kind}' b");
        assert_eq!(lines_naming(&alone, kind), [alone.as_str()]);
        assert!(lines_naming(&format!("{kind}_type, x{kind}"), kind).is_empty());
    }

    /// Each kind's form imports only modules that are served: the page's own (`../NAME.js`,
    /// a file of `js/`, each served as `annotate/tests.rs` checks) or another registered
    /// kind's form (`./KIND.js`); kind names are safe in a path and a module specifier.
    #[test]
    fn every_kinds_form_imports_only_served_modules() {
        let js = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/annotate/assets/js");
        let page: Vec<String> = std::fs::read_dir(js)
            .unwrap()
            .map(|e| format!("/js/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        let served: Vec<&str> = page
            .iter()
            .map(String::as_str)
            .chain(modules().iter().map(|(path, _)| path.as_str()))
            .collect();
        for &kind in ALL {
            let name = name(kind);
            assert!(
                !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{name}"
            );
            let form = kind.annotate_form();
            assert!(form.contains("export default"), "{name}: no default export");
            let imports: Vec<&str> = form
                .lines()
                .filter_map(|l| l.strip_prefix("import ")?.split_once(" from '"))
                .map(|(_, spec)| spec.trim_end_matches("';"))
                .collect();
            assert!(!imports.is_empty(), "{name}: imports nothing");
            for spec in imports {
                let path = match spec.strip_prefix("../") {
                    Some(module) => format!("/js/{module}"),
                    None => format!("/js/kinds/{}", spec.trim_start_matches("./")),
                };
                assert!(
                    served.contains(&path.as_str()),
                    "{name}: imports {spec}, not served"
                );
            }
        }
    }
}
