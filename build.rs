//! A task kind keeps its end-to-end tests in its folder: every
//! `crates/goldgate-core/src/kinds/<kind>/end_to_end/<topic>.rs` is compiled into the
//! integration-test binary (`tests/main.rs`) as the module `kinds::<kind>::<topic>`, so
//! adding a kind's test is adding a file there. A kind whose folder has
//! `end_to_end/answer_corpus.rs` (the corpus of its published answer schema) or
//! `end_to_end/schema_defs.rs` (what its code defines in the published schemas) joins
//! `kinds::answer_corpora()` or `kinds::schema_defs()`, which the tests that go over every
//! schema read. This script writes both to `$OUT_DIR/kind_end_to_end.rs`; it writes empty
//! lists where the kinds are not beside the package (a packaged crate), and the product's
//! binary and library never include it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The hooks: a file's stem, the function gathering them, and what each gives.
const HOOKS: &[(&str, &str, &str)] = &[
    (
        "answer_corpus",
        "answer_corpora",
        "crate::support::corpus::AnswerCorpus",
    ),
    (
        "schema_defs",
        "schema_defs",
        "crate::support::schema::KindDefs",
    ),
];

fn main() {
    let kinds = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/goldgate-core/src/kinds");
    println!("cargo:rerun-if-changed={}", kinds.display());
    let kinds = end_to_end(&kinds);
    let mut out = String::new();
    for (kind, files) in &kinds {
        writeln!(out, "pub mod {kind} {{").unwrap();
        for file in files {
            let topic = file.file_stem().unwrap().to_string_lossy();
            writeln!(
                out,
                "    #[path = {:?}]\n    pub(crate) mod {topic};",
                file.display().to_string()
            )
            .unwrap();
        }
        writeln!(out, "}}").unwrap();
    }
    // What a kind's folder gives the tests that go over every kind: each `end_to_end/STEM.rs`
    // of the table below defines `hook()`, gathered into the function `NAME()`.
    for (stem, name, item) in HOOKS {
        writeln!(out, "\n/// Each kind's `end_to_end/{stem}.rs` hook.").unwrap();
        writeln!(out, "pub(crate) fn {name}() -> Vec<{item}> {{\n    vec![").unwrap();
        for (kind, files) in &kinds {
            if files
                .iter()
                .any(|f| f.file_stem().is_some_and(|s| s == *stem))
            {
                writeln!(out, "        {kind}::{stem}::hook(),").unwrap();
            }
        }
        out.push_str("    ]\n}\n");
    }
    let target = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(target.join("kind_end_to_end.rs"), out).expect("OUT_DIR is writable");
}

/// Each kind folder that has an `end_to_end/` directory, with its `.rs` files, in name
/// order.
fn end_to_end(kinds: &Path) -> Vec<(String, Vec<PathBuf>)> {
    let Ok(entries) = std::fs::read_dir(kinds) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<PathBuf>)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let dir = e.path().join("end_to_end");
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .ok()?
                .filter_map(Result::ok)
                .map(|f| f.path())
                .filter(|f| f.extension().is_some_and(|x| x == "rs"))
                .collect();
            files.sort();
            Some((e.file_name().to_string_lossy().into_owned(), files))
        })
        .collect();
    out.sort();
    out
}
