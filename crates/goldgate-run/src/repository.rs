//! The content of the git repository a pipeline runs in, as its fingerprint sees it: where
//! the repository's root is, every tracked file as git stages it (path, mode and blob id),
//! the tracked files that differ in the work tree and the untracked files git does not ignore
//! (read from disk: a link's target, a submodule's commit, else the bytes and the executable
//! bit), goldgate's own files left out. Four `git` calls run side by side; anything that stops
//! them (no git, no repository, a repository git refuses, more untracked content than is
//! sensible to read) is a reason, never an error.

use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};

/// Where to look for the pipeline's repository, and with which program.
#[derive(Clone, Copy, Debug)]
pub struct Git<'a> {
    /// The directory the pipeline runs in, where its repository is looked for.
    pub dir: &'a Path,
    /// The git program.
    pub program: &'a str,
}

impl Default for Git<'_> {
    fn default() -> Self {
        Git {
            dir: Path::new("."),
            program: "git",
        }
    }
}

/// The content of the git repository around the working directory.
pub struct Repository {
    /// `sha256:` of every tracked file's `MODE BLOB STAGE\tPATH`, own files left out.
    pub index: String,
    /// `sha256:` of the changed tracked files' and the untracked (not ignored) files' paths
    /// and contents; `None` when there are none.
    pub worktree: Option<String>,
    /// Tracked files counted.
    pub files: usize,
    /// Own files left out, relative to the repository's root.
    pub excluded: Vec<String>,
}

/// Untracked files beyond these many, or bytes, turn the cache off rather than make every
/// run read them: a pipeline's own files are few; thousands are a build's or a download's.
pub const MAX_UNTRACKED_FILES: usize = 2_000;
pub const MAX_UNTRACKED_BYTES: u64 = 64 << 20;

/// The repository's content, or why there is none to read (git missing, not a repository,
/// git refusing it, too much untracked content): never an error, the cache is then off. Four
/// git calls run side by side: where the repository's root is, every tracked file as staged
/// (`ls-files --stage`), which differ in the work tree (`diff-files --name-status`), and the
/// untracked files git does not ignore (`ls-files --others --exclude-standard`: a pipeline
/// file not yet `git add`ed is still the pipeline); own files are left out here, and the
/// changed and untracked files are read from disk.
pub fn repository(own_files: &[PathBuf], git: Git<'_>) -> std::result::Result<Repository, String> {
    let unusable = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => "git is not installed".to_string(),
        _ => format!("git cannot be run ({e})"),
    };
    let spawn = |args: &[&str]| {
        Command::new(git.program)
            .arg("--no-optional-locks")
            .args(args)
            .current_dir(git.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(unusable)
    };
    let top = spawn(&["rev-parse", "--show-toplevel"])?;
    let listing = spawn(&["ls-files", "--stage", "-z", "--full-name", "--", ":(top)"]);
    let changes = spawn(&[
        "diff-files",
        "--name-status",
        "--no-renames",
        "-z",
        "--",
        ":(top)",
    ]);
    let untracked = spawn(&[
        "ls-files",
        "--others",
        "--exclude-standard",
        "-z",
        "--full-name",
        "--",
        ":(top)",
    ]);
    // Each is read to its end in turn; the others run on meanwhile.
    let top = top.wait_with_output().map_err(unusable)?;
    let (listing, changes, untracked) = (listing?, changes?, untracked?);
    let listing = listing.wait_with_output().map_err(unusable)?;
    let changes = changes.wait_with_output().map_err(unusable)?;
    let untracked = untracked.wait_with_output().map_err(unusable)?;
    if !top.status.success() {
        let stderr = String::from_utf8_lossy(&top.stderr);
        return Err(match stderr.contains("not a git repository") {
            true => "not inside a git repository".into(),
            false => format!("git cannot read this repository ({})", first_line(&stderr)),
        });
    }
    let top = String::from_utf8_lossy(&top.stdout)
        .trim_end_matches(['\n', '\r'])
        .to_string();
    if top.is_empty() {
        return Err("not inside a git work tree".into());
    }
    for out in [&listing, &changes, &untracked] {
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            return Err(format!(
                "git cannot list its files ({})",
                first_line(&stderr)
            ));
        }
    }
    let top = PathBuf::from(top);
    let root = top.canonicalize().unwrap_or_else(|_| top.clone());
    let excluded = excluded_within(&root, own_files);
    let is_own = |path: &[u8]| {
        excluded.iter().any(|own| {
            let own = own.as_bytes();
            path.starts_with(own) && (path.len() == own.len() || path[own.len()] == b'/')
        })
    };
    // `MODE BLOB STAGE\tPATH` per tracked file.
    let (mut index, mut files) = (Sha256::new(), 0);
    let mut staged: std::collections::HashMap<&[u8], (&[u8], &[u8])> = Default::default();
    for entry in listing.stdout.split(|&b| b == 0).filter(|e| !e.is_empty()) {
        let path = memchr::memchr(b'\t', entry).map_or(entry, |tab| &entry[tab + 1..]);
        if !is_own(path) {
            index.update(entry);
            index.update(b"\0");
            files += 1;
            let mut fields = entry.split(|&b| b == b' ');
            if let (Some(mode), Some(blob)) = (fields.next(), fields.next()) {
                staged.insert(path, (mode, blob));
            }
        }
    }
    // `STATUS\0PATH\0` per file that differs from the index.
    let mut fields = changes.stdout.split(|&b| b == 0);
    let mut worktree: Option<Sha256> = None;
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        if is_own(path) {
            continue;
        }
        // Without a refreshed index, a file whose stat data changed (a mode set and set
        // back, a touch) is listed too: it counts only when its content or mode differs.
        let file = top.join(bytes_path(path));
        if status == b"M"
            && staged
                .get(path)
                .is_some_and(|s| same_as_staged(&file, *s, git))
        {
            continue;
        }
        let h = worktree.get_or_insert_with(Sha256::new);
        h.update(path);
        h.update(b"\0");
        match status {
            b"D" => h.update(b"deleted"),
            _ => hash_worktree_file(&file, git, h),
        }
        h.update(b"\0");
    }
    // `PATH\0` per untracked file git does not ignore, sorted by git.
    let (mut count, mut bytes) = (0usize, 0u64);
    for path in untracked.stdout.split(|&b| b == 0) {
        if path.is_empty() || is_own(path) || is_derived(path) {
            continue;
        }
        let file = top.join(bytes_path(path));
        count += 1;
        bytes += std::fs::symlink_metadata(&file).map_or(0, |m| m.len());
        if count > MAX_UNTRACKED_FILES || bytes > MAX_UNTRACKED_BYTES {
            return Err(format!(
                "the repository has more untracked files than the cache key reads (over \
                 {MAX_UNTRACKED_FILES} files or {} MiB, not ignored by git); add the \
                 pipeline's files to git and ignore the rest, or list them in \
                 fingerprint_files",
                MAX_UNTRACKED_BYTES >> 20
            ));
        }
        let h = worktree.get_or_insert_with(Sha256::new);
        h.update(b"untracked\0");
        h.update(path);
        h.update(b"\0");
        hash_worktree_file(&file, git, h);
        h.update(b"\0");
    }
    Ok(Repository {
        index: goldgate_core::text::sha256_of(index),
        worktree: worktree.map(goldgate_core::text::sha256_of),
        files,
        excluded,
    })
}

/// Tools' caches of files that are themselves hashed (Python's bytecode, linters' and test
/// runners' caches): an untracked one appearing after the first run must not turn every
/// cached answer into a miss.
const DERIVED_DIRS: [&[u8]; 4] = [
    b"__pycache__",
    b".pytest_cache",
    b".mypy_cache",
    b".ruff_cache",
];

/// Whether an untracked path lies in a tool's cache of other files ([`DERIVED_DIRS`]).
fn is_derived(path: &[u8]) -> bool {
    path.split(|&b| b == b'/')
        .any(|name| DERIVED_DIRS.contains(&name))
}

/// Whether a regular file in the work tree is what the index holds: the same mode and the
/// same blob (`git hash-object` applies the clean filters `git add` would).
fn same_as_staged(file: &Path, (mode, blob): (&[u8], &[u8]), git: Git<'_>) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(file) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    let executable = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0;
    #[cfg(not(unix))]
    let executable = mode == b"100755";
    let expected_mode: &[u8] = if executable { b"100755" } else { b"100644" };
    if mode != expected_mode {
        return false;
    }
    let hashed = Command::new(git.program)
        .args(["hash-object", "--"])
        .arg(file)
        .current_dir(git.dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    hashed.is_ok_and(|o| o.status.success() && o.stdout.trim_ascii() == blob)
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("").trim()
}

/// A path as git lists it (bytes, `/` between names) as a path on this system.
fn bytes_path(path: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(path).into_owned())
    }
}

/// Feed a changed tracked file's state to `h`: a link's target, a submodule's checked-out
/// commit, else the file's bytes and whether it is executable.
fn hash_worktree_file(path: &Path, git: Git<'_>, h: &mut Sha256) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        h.update(b"unreadable");
        return;
    };
    if meta.file_type().is_symlink() {
        h.update(b"link ");
        h.update(
            std::fs::read_link(path)
                .unwrap_or_default()
                .as_os_str()
                .as_encoded_bytes(),
        );
    } else if meta.is_dir() {
        let head = Command::new(git.program)
            .args(["rev-parse", "HEAD"])
            .current_dir(path)
            .stdin(Stdio::null())
            .output();
        h.update(b"submodule ");
        h.update(head.map(|o| o.stdout).unwrap_or_default());
    } else {
        #[cfg(unix)]
        let executable = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0;
        #[cfg(not(unix))]
        let executable = false;
        h.update(if executable { b"x " } else { b"f " });
        match std::fs::File::open(path) {
            Ok(mut file) => {
                let mut buf = vec![0u8; 1 << 16];
                while let Ok(n) = file.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    h.update(&buf[..n]);
                }
            }
            Err(_) => h.update(b"unreadable"),
        }
    }
}

/// `own_files` (relative ones are relative to the working directory) that lie inside the
/// repository at `root`, relative to it with `/` between names (the repository's root itself
/// is never left out).
fn excluded_within(root: &Path, own_files: &[PathBuf]) -> Vec<String> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut out: Vec<String> = own_files
        .iter()
        .filter_map(|p| {
            let absolute = real_path(&cwd.join(p));
            let relative = absolute.strip_prefix(root).ok()?;
            let names: Vec<String> = relative
                .components()
                .filter_map(|c| match c {
                    Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect();
            (!names.is_empty()).then(|| names.join("/"))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `path` with its longest existing ancestor resolved (symbolic links, `..`), the rest kept:
/// a file that does not exist yet (an output) is still placed.
fn real_path(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut current = path;
    loop {
        if let Ok(real) = current.canonicalize() {
            return rest.iter().rev().fold(real, |p, name| p.join(name));
        }
        match (current.parent(), current.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                current = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}
