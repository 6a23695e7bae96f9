//! File sizes, checked: every Rust file of the library, the binary, the benches and the
//! tests is under 600 lines, and every command in `src/commands/` (settings in, a library
//! call, the report out) under 200. `cargo test --test main sizes` runs just this.

use std::path::{Path, PathBuf};

/// The longest a file may be, in lines: under this.
const MAX_LINES: usize = 600;
/// The longest a command may be, in lines: under this.
const MAX_COMMAND_LINES: usize = 200;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).unwrap().lines().count()
}

#[test]
fn files_are_under_600_lines_and_commands_under_200() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests", "benches"] {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() > 100, "the sources were found: {files:?}");
    let commands = root.join("src/commands");
    let mut problems = Vec::new();
    for file in &files {
        let max = match file.parent() == Some(commands.as_path()) {
            true => MAX_COMMAND_LINES,
            false => MAX_LINES,
        };
        let n = lines(file);
        if n >= max {
            problems.push(format!(
                "{}: {n} lines, not under {max}",
                file.strip_prefix(root).unwrap().display()
            ));
        }
    }
    assert!(problems.is_empty(), "split them:\n{}", problems.join("\n"));
}
