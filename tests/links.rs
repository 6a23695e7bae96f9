//! Links that resolve: every relative link and image in README.md and docs/ (and every link
//! into this repository's GitHub address) names a file or directory that exists, and every
//! `#anchor` names a heading of its Markdown target, by GitHub's heading slugs. The same
//! holds for the files `goldgate init` writes: their Markdown links (relative to the new
//! project) and the documentation addresses in their comments.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::support::TempDir;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Where this repository's files are on GitHub (`…/blob/main/docs/x.md`).
fn repository_prefixes() -> [String; 2] {
    let repo = env!("CARGO_PKG_REPOSITORY");
    [format!("{repo}/blob/main/"), format!("{repo}/tree/main/")]
}

/// GitHub's anchor for a heading: lowercased, every character but letters, digits, `-`, `_`
/// and spaces removed, spaces turned into `-`.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// A Markdown file's links (destination, line) and its anchors: each heading's slug (a
/// repeated one gets `-1`, `-2`, … as on GitHub) and explicit `id`/`name` attributes.
struct Markdown {
    links: Vec<(String, usize)>,
    anchors: BTreeSet<String>,
}

fn markdown(text: &str) -> Markdown {
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let (mut links, mut anchors, mut seen) = (Vec::new(), BTreeSet::new(), BTreeMap::new());
    let mut heading: Option<String> = None;
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let n: &mut usize = seen.entry(base.clone()).or_default();
                anchors.insert(match *n {
                    0 => base.clone(),
                    n => format!("{base}-{n}"),
                });
                *n += 1;
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push((dest_url.to_string(), line_of(range.start)));
            }
            _ => {}
        }
    }
    let explicit = regex::Regex::new(r#"<a\s+(?:id|name)="([^"]+)""#).unwrap();
    anchors.extend(explicit.captures_iter(text).map(|c| c[1].to_string()));
    Markdown { links, anchors }
}

/// `path` with `.` and `..` resolved, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Checks links against the files below `root` (this repository, or a new project, whose
/// links into the repository are checked against this repository).
struct Checker {
    anchors: BTreeMap<PathBuf, BTreeSet<String>>,
    problems: Vec<String>,
    checked: usize,
}

impl Checker {
    fn new() -> Self {
        Checker {
            anchors: BTreeMap::new(),
            problems: Vec::new(),
            checked: 0,
        }
    }

    fn anchors_of(&mut self, file: &Path) -> &BTreeSet<String> {
        self.anchors
            .entry(file.to_path_buf())
            .or_insert_with(|| markdown(&std::fs::read_to_string(file).unwrap()).anchors)
    }

    /// `dest`, linked from `from` (line `line`), whose relative paths start at `dir`.
    fn check(&mut self, dest: &str, from: &str, line: usize, dir: &Path) {
        let (target, anchor) = match dest.split_once('#') {
            Some((t, a)) => (t, Some(a)),
            None => (dest, None),
        };
        let target = match repository_prefixes()
            .iter()
            .find_map(|p| target.strip_prefix(p.as_str()))
        {
            Some(in_repo) => Path::new(ROOT).join(in_repo),
            None if target.contains(':') || target.starts_with("//") => return,
            None if target.is_empty() => PathBuf::from(from),
            None if target.starts_with('/') => return self.fail(from, line, dest, "is absolute"),
            None => dir.join(target),
        };
        let target = normalize(&target);
        self.checked += 1;
        if !target.exists() {
            return self.fail(from, line, dest, "names no file or directory");
        }
        let Some(anchor) = anchor else { return };
        if target.extension().is_some_and(|e| e == "md") {
            if !self.anchors_of(&target).contains(anchor) {
                let known = self.anchors_of(&target).iter().cloned().collect::<Vec<_>>();
                let why = format!(
                    "has no heading #{anchor} (its anchors: {})",
                    known.join(", ")
                );
                self.fail(from, line, dest, &why);
            }
        } else if !regex::Regex::new(r"^L\d+(-L\d+)?$")
            .unwrap()
            .is_match(anchor)
        {
            self.fail(from, line, dest, "has an anchor that is not a line (#L12)");
        }
    }

    fn fail(&mut self, from: &str, line: usize, dest: &str, why: &str) {
        self.problems.push(format!("{from}:{line}: {dest} {why}"));
    }

    /// Every link of the Markdown file `file` (shown as `name`).
    fn markdown_file(&mut self, file: &Path, name: &str) {
        let text = std::fs::read_to_string(file).unwrap();
        let dir = file.parent().unwrap().to_path_buf();
        for (dest, line) in markdown(&text).links {
            self.check(&dest, name, line, &dir);
        }
        self.anchors
            .entry(file.to_path_buf())
            .or_insert_with(|| markdown(&text).anchors);
    }

    /// Every address of this repository in a file that is not Markdown (comments of
    /// `thresholds.toml`, `goldgate.toml`, workflows, `pipeline.py`).
    fn addresses(&mut self, file: &Path, name: &str) {
        let text = std::fs::read_to_string(file).unwrap();
        let url = regex::Regex::new(&format!(
            r"{}/(?:blob|tree)/main/[^\s)`'\x22>]+",
            regex::escape(env!("CARGO_PKG_REPOSITORY"))
        ))
        .unwrap();
        // In Rust sources the address is `concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/…")`.
        let tail = regex::Regex::new(r#""(/(?:blob|tree)/main/[^"]+)""#).unwrap();
        let found = url
            .find_iter(&text)
            .map(|m| (m.start(), m.as_str().to_string()))
            .chain(tail.captures_iter(&text).map(|c| {
                let m = c.get(1).unwrap();
                let repo = env!("CARGO_PKG_REPOSITORY");
                (m.start(), format!("{repo}{}", m.as_str()))
            }));
        for (at, dest) in found.collect::<Vec<_>>() {
            let line = text[..at].matches('\n').count() + 1;
            let dest = dest.trim_end_matches(['.', ',', ';', ':']);
            self.check(dest, name, line, Path::new(ROOT));
        }
    }

    fn assert_clean(self, what: &str, at_least: usize) {
        assert!(
            self.problems.is_empty(),
            "{what}: {} broken link(s):\n{}",
            self.problems.len(),
            self.problems.join("\n")
        );
        assert!(
            self.checked >= at_least,
            "{what}: only {} links checked",
            self.checked
        );
    }
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

#[test]
fn every_link_and_anchor_in_the_readme_and_the_docs_resolves() {
    let mut files = vec![Path::new(ROOT).join("README.md")];
    markdown_files(&Path::new(ROOT).join("docs"), &mut files);
    files.sort();
    let mut checker = Checker::new();
    for file in &files {
        let name = file.strip_prefix(ROOT).unwrap().display().to_string();
        checker.markdown_file(file, &name);
    }
    checker.assert_clean("README.md and docs/", 200);
}

#[test]
fn every_link_in_the_files_init_writes_resolves() {
    let mut checker = Checker::new();
    // Every listed kind, as `--kind` takes them.
    let listed: Vec<&str> = goldgate_core::kinds::listed().map(|k| k.as_str()).collect();
    let listed = listed.join(",");
    for pipeline in ["command", "http", "chat"] {
        let work = TempDir::new(&format!("links-init-{pipeline}"));
        let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
            .args(["init", "project", "--pipeline", pipeline, "--kind"])
            .arg(&listed)
            .current_dir(&work.0)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let project = work.0.join("project");
        let mut files = Vec::new();
        all_files(&project, &mut files);
        assert!(files.len() >= 8, "init wrote {files:?}");
        for file in files {
            let name = format!(
                "init --pipeline {pipeline}: {}",
                file.strip_prefix(&project).unwrap().display()
            );
            if file.extension().is_some_and(|e| e == "md") {
                checker.markdown_file(&file, &name);
            } else {
                checker.addresses(&file, &name);
            }
        }
    }
    checker.assert_clean("the files goldgate init writes", 10);
}

fn all_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            all_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Links into the repository from goldgate's own messages (hints naming a document).
#[test]
fn every_documentation_address_in_the_sources_resolves() {
    let mut checker = Checker::new();
    let mut files = Vec::new();
    for dir in ["src", "templates"] {
        all_files(&Path::new(ROOT).join(dir), &mut files);
    }
    for file in files {
        let name = file.strip_prefix(ROOT).unwrap().display().to_string();
        checker.addresses(&file, &name);
    }
    checker.assert_clean("src/ and templates/", 1);
}

#[test]
fn slugs_follow_github() {
    assert_eq!(
        slug("Set up a project: goldgate init"),
        "set-up-a-project-goldgate-init"
    );
    assert_eq!(slug("What a pipeline prints"), "what-a-pipeline-prints");
    assert_eq!(slug("run_health — and more"), "run_health--and-more");
    let md = markdown("# A\n\n## A\n\n## `b.toml`\n\n[x](y.md#z)\n");
    assert_eq!(
        md.anchors.into_iter().collect::<Vec<_>>(),
        ["a", "a-1", "btoml"]
    );
    assert_eq!(md.links, [("y.md#z".to_string(), 7)]);
}
