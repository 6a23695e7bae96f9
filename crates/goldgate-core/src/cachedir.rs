//! goldgate's cache directory as untrusted ground: every entry (a cached answer, a judge
//! review, a shard of vectors) is read only when it is goldgate's own — a regular file,
//! reached from the cache directory through real directories only, that git does not track,
//! no larger than its cache's cap (enforced while reading). Anything else (a committed entry,
//! a symbolic link, a FIFO or device, an oversized file, a file reached through a linked
//! directory) is ignored, never opened for reading when its type is wrong, and remembered
//! with the reason, so the command can say once what it ignored ([`Ignored`]). Which files
//! git tracks is asked once per [`CacheDir`] (`git ls-files -z` in the directory), when the
//! first entry is read; outside a git work tree nothing is tracked, and when git cannot say,
//! no entry is trusted.

use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// Paths of ignored entries kept to name them.
pub const EXAMPLES: usize = 3;

/// Why an entry was ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Refused {
    /// git tracks it: it came from a commit, not from goldgate.
    Tracked,
    /// It is a symbolic link.
    Symlink,
    /// It is a FIFO, socket, device or directory.
    NotRegular,
    /// It is larger than its cache's cap.
    TooLarge,
    /// A directory on its way from the cache directory is a symbolic link or not a directory.
    Outside,
    /// git could not say whether it is tracked.
    Unverified,
}

impl Refused {
    /// The reason, as the warning says it.
    pub fn describe(self) -> &'static str {
        match self {
            Refused::Tracked => "tracked by git",
            Refused::Symlink => "a symbolic link",
            Refused::NotRegular => "not a regular file",
            Refused::TooLarge => "too large",
            Refused::Outside => "outside the cache directory",
            Refused::Unverified => "not known to be untracked",
        }
    }
}

/// The entries a command ignored: how many, why, and the first few paths.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ignored {
    /// Entries ignored (each path once).
    pub entries: usize,
    /// Entries per reason.
    pub reasons: BTreeMap<Refused, usize>,
    /// The first [`EXAMPLES`] paths.
    pub examples: Vec<PathBuf>,
    /// Why git could not say which files it tracks, when it could not.
    pub git_error: Option<String>,
}

impl Ignored {
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Add another command step's ignored entries (the run's and the scoring's).
    pub fn merge(&mut self, other: &Ignored) {
        self.entries += other.entries;
        for (why, n) in &other.reasons {
            *self.reasons.entry(*why).or_default() += n;
        }
        for path in &other.examples {
            if self.examples.len() < EXAMPLES && !self.examples.contains(path) {
                self.examples.push(path.clone());
            }
        }
        if self.git_error.is_none() {
            self.git_error.clone_from(&other.git_error);
        }
    }
}

/// What git says of the cache directory's files.
#[derive(Debug)]
enum Tracked {
    /// These paths (relative to the cache directory) are tracked; nothing else is.
    Known(HashSet<PathBuf>),
    /// git could not say, for this reason: no entry is trusted.
    Unknown(String),
}

/// The cache directory, and what was ignored in it so far.
#[derive(Debug)]
pub struct CacheDir {
    root: PathBuf,
    tracked: OnceLock<Tracked>,
    ignored: Mutex<(HashSet<PathBuf>, Ignored)>,
    /// Directories below the root already found to be real ones by this command: each is
    /// looked at once, not once per entry (a thousand entries share a few hundred).
    real_dirs: Mutex<HashSet<PathBuf>>,
}

impl CacheDir {
    pub fn new(root: &Path) -> CacheDir {
        CacheDir {
            root: root.to_path_buf(),
            tracked: OnceLock::new(),
            ignored: Mutex::default(),
            real_dirs: Mutex::default(),
        }
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The entries ignored so far.
    pub fn ignored(&self) -> Ignored {
        self.ignored.lock().map(|i| i.1.clone()).unwrap_or_default()
    }

    /// The bytes of the entry at `path` (below the cache directory), at most `max_bytes`:
    /// `None` when there is no such file, or when it is not goldgate's own (then remembered
    /// with the reason). A file of the wrong type is never opened for reading.
    pub fn read(&self, path: &Path, max_bytes: u64) -> Option<Vec<u8>> {
        let rel = match self.walk(path) {
            Walk::Absent => return None,
            Walk::Refused(why) => return self.refuse(path, why),
            Walk::Found(rel) => rel,
        };
        let meta = std::fs::symlink_metadata(path).ok()?;
        if meta.file_type().is_symlink() {
            return self.refuse(path, Refused::Symlink);
        }
        if !meta.is_file() {
            return self.refuse(path, Refused::NotRegular);
        }
        if meta.len() > max_bytes {
            return self.refuse(path, Refused::TooLarge);
        }
        if let Some(why) = self.tracked(&rel) {
            return self.refuse(path, why);
        }
        let file = match open_no_follow(path) {
            Ok(file) => file,
            // Replaced by a link since it was looked at.
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return self.refuse(path, Refused::Symlink)
            }
            Err(_) => return None,
        };
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            return self.refuse(path, Refused::NotRegular);
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .ok()?;
        if bytes.len() as u64 > max_bytes {
            return self.refuse(path, Refused::TooLarge);
        }
        Some(bytes)
    }

    /// The files of the directory `dir` (below the cache directory), when every directory on
    /// the way is a real one (else none, and `dir` is remembered as ignored).
    pub fn list(&self, dir: &Path) -> Vec<PathBuf> {
        match self.walk(&dir.join("x")) {
            Walk::Absent => Vec::new(),
            Walk::Refused(why) => {
                self.refuse::<()>(dir, why);
                Vec::new()
            }
            Walk::Found(_) => std::fs::read_dir(dir)
                .map(|entries| entries.flatten().map(|e| e.path()).collect())
                .unwrap_or_default(),
        }
    }

    /// Whether goldgate may write its entry at `path`: every directory on the way (those
    /// that exist) is a real one inside the cache directory, and what is there now, if
    /// anything, is a regular file git does not track. Writing never goes through a link and
    /// never replaces a tracked file.
    pub fn writable(&self, path: &Path) -> bool {
        let rel = match self.walk(path) {
            Walk::Refused(_) => return false,
            Walk::Absent => return true,
            Walk::Found(rel) => rel,
        };
        match std::fs::symlink_metadata(path) {
            Err(_) => true,
            Ok(meta) => meta.is_file() && self.tracked(&rel).is_none(),
        }
    }

    /// `path` relative to the cache directory, when every directory between them is a real
    /// directory.
    fn walk(&self, path: &Path) -> Walk {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return Walk::Refused(Refused::Outside);
        };
        let names: Vec<&std::ffi::OsStr> = rel
            .components()
            .map(|c| match c {
                Component::Normal(name) => Some(name),
                _ => None,
            })
            .collect::<Option<_>>()
            .unwrap_or_default();
        if names.is_empty() {
            return Walk::Refused(Refused::Outside);
        }
        let mut at = self.root.clone();
        for name in &names[..names.len() - 1] {
            at.push(name);
            if self.real_dirs.lock().is_ok_and(|seen| seen.contains(&at)) {
                continue;
            }
            match std::fs::symlink_metadata(&at) {
                Err(_) => return Walk::Absent,
                Ok(meta) if meta.is_dir() => {
                    if let Ok(mut seen) = self.real_dirs.lock() {
                        seen.insert(at.clone());
                    }
                }
                Ok(_) => return Walk::Refused(Refused::Outside),
            }
        }
        Walk::Found(rel.to_path_buf())
    }

    /// Why the entry at `rel` is not trusted as far as git goes: tracked, or git could not
    /// say. An entry inside a tracked directory (a submodule) is tracked too.
    fn tracked(&self, rel: &Path) -> Option<Refused> {
        match self.tracked.get_or_init(|| tracked_files(&self.root)) {
            Tracked::Unknown(_) => Some(Refused::Unverified),
            Tracked::Known(set) if set.is_empty() => None,
            Tracked::Known(set) => rel
                .ancestors()
                .filter(|a| !a.as_os_str().is_empty())
                .any(|a| set.contains(a))
                .then_some(Refused::Tracked),
        }
    }

    /// Remember an ignored entry (each path once); `None`, for the caller to return.
    fn refuse<T>(&self, path: &Path, why: Refused) -> Option<T> {
        if let Ok(mut ignored) = self.ignored.lock() {
            let (seen, ignored) = &mut *ignored;
            if seen.insert(path.to_path_buf()) {
                ignored.entries += 1;
                *ignored.reasons.entry(why).or_default() += 1;
                if ignored.examples.len() < EXAMPLES {
                    ignored.examples.push(path.to_path_buf());
                }
                if let (Refused::Unverified, Some(Tracked::Unknown(e))) = (why, self.tracked.get())
                {
                    ignored.git_error.get_or_insert_with(|| e.clone());
                }
            }
        }
        None
    }
}

enum Walk {
    /// A directory on the way does not exist.
    Absent,
    Refused(Refused),
    /// The path relative to the cache directory.
    Found(PathBuf),
}

/// Open for reading without following a final symbolic link and without blocking on a
/// FIFO.
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

/// Which files below `root` git tracks: one `git ls-files -z` there. Not a git work tree
/// (or git not installed and no `.git` above): nothing. git failing otherwise (a repository
/// it refuses, say, for its owner): unknown, with git's reason.
fn tracked_files(root: &Path) -> Tracked {
    let output = Command::new("git")
        .args(["--no-optional-locks", "ls-files", "-z"])
        .current_dir(root)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output();
    let output = match output {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return match inside_git_checkout(root) {
                true => Tracked::Unknown(
                    "git is not installed, and the cache is inside a git checkout".into(),
                ),
                false => Tracked::Known(HashSet::new()),
            };
        }
        Err(e) => return Tracked::Unknown(format!("git cannot be run: {e}")),
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        if stderr.contains("not a git repository") || stderr.contains("must be run in a work tree")
        {
            return Tracked::Known(HashSet::new());
        }
        let first = stderr.lines().next().unwrap_or("").trim();
        return Tracked::Unknown(format!("git ls-files failed: {first}"));
    }
    Tracked::Known(
        output
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(bytes_path)
            .collect(),
    )
}

/// Whether `dir` or a directory above it holds `.git`.
fn inside_git_checkout(dir: &Path) -> bool {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors()
        .any(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
}

fn bytes_path(path: &[u8]) -> PathBuf {
    PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::git;

    #[test]
    fn own_files_are_read_and_everything_else_is_ignored_with_its_reason() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("cache");
        std::fs::create_dir_all(root.join("ab")).unwrap();
        std::fs::write(root.join("ab/own.json"), "own").unwrap();
        std::fs::write(root.join("ab/big.json"), "0123456789").unwrap();
        std::os::unix::fs::symlink("/dev/zero", root.join("ab/zero.json")).unwrap();
        std::fs::create_dir_all(tmp.path().join("elsewhere")).unwrap();
        std::fs::write(tmp.path().join("elsewhere/x.json"), "forged").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("elsewhere"), root.join("cd")).unwrap();
        std::fs::create_dir_all(root.join("ab/dir.json")).unwrap();
        let cache = CacheDir::new(&root);
        assert_eq!(cache.read(&root.join("ab/own.json"), 3).unwrap(), b"own");
        assert_eq!(cache.read(&root.join("ab/missing.json"), 3), None);
        assert_eq!(cache.read(&root.join("ef/missing.json"), 3), None);
        assert!(cache.ignored().is_empty(), "a missing entry is a miss");
        assert_eq!(cache.read(&root.join("ab/big.json"), 9), None);
        assert_eq!(cache.read(&root.join("ab/zero.json"), 1 << 30), None);
        assert_eq!(cache.read(&root.join("cd/x.json"), 1 << 30), None);
        assert_eq!(cache.read(&root.join("ab/dir.json"), 1 << 30), None);
        assert_eq!(cache.read(&root.join("ab/zero.json"), 1 << 30), None);
        let ignored = cache.ignored();
        assert_eq!(ignored.entries, 4, "each path once: {ignored:?}");
        let reasons: Vec<(Refused, usize)> = ignored.reasons.into_iter().collect();
        assert_eq!(
            reasons,
            [
                (Refused::Symlink, 1),
                (Refused::NotRegular, 1),
                (Refused::TooLarge, 1),
                (Refused::Outside, 1),
            ]
        );
        assert_eq!(ignored.examples.len(), EXAMPLES);
        assert!(cache.list(&root.join("cd")).is_empty());
        assert!(cache.writable(&root.join("ab/own.json")));
        assert!(cache.writable(&root.join("ab/new.json")));
        assert!(cache.writable(&root.join("ef/new.json")));
        assert!(!cache.writable(&root.join("ab/zero.json")));
        assert!(!cache.writable(&root.join("cd/new.json")));
    }

    #[test]
    fn tracked_entries_are_ignored_and_never_overwritten() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::create_dir_all(d.join(".goldgate/cache/ab")).unwrap();
        std::fs::write(d.join(".goldgate/cache/ab/planted.json"), "planted").unwrap();
        git(d, &["init", "-q"]);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "plant"]);
        std::fs::write(d.join(".goldgate/cache/ab/own.json"), "own").unwrap();
        let root = d.join(".goldgate/cache");
        let cache = CacheDir::new(&root);
        assert_eq!(cache.read(&root.join("ab/planted.json"), 100), None);
        assert_eq!(cache.read(&root.join("ab/own.json"), 100).unwrap(), b"own");
        assert!(!cache.writable(&root.join("ab/planted.json")));
        assert!(cache.writable(&root.join("ab/own.json")));
        let ignored = cache.ignored();
        assert_eq!(ignored.reasons.get(&Refused::Tracked), Some(&1));
        assert_eq!(ignored.examples, [root.join("ab/planted.json")]);
        // Reached through a link to the directory: git still knows the files.
        std::os::unix::fs::symlink(&root, d.join("linked")).unwrap();
        let linked = CacheDir::new(&d.join("linked"));
        assert_eq!(linked.read(&d.join("linked/ab/planted.json"), 100), None);
        assert_eq!(linked.ignored().reasons.get(&Refused::Tracked), Some(&1));
    }

    #[test]
    fn merged_reports_add_up_and_keep_a_few_paths() {
        let mut a = Ignored {
            entries: 2,
            reasons: [(Refused::Tracked, 2)].into(),
            examples: vec!["a".into(), "b".into()],
            git_error: None,
        };
        let b = Ignored {
            entries: 3,
            reasons: [(Refused::Tracked, 1), (Refused::Symlink, 2)].into(),
            examples: vec!["c".into(), "d".into()],
            git_error: None,
        };
        a.merge(&b);
        assert_eq!(a.entries, 5);
        assert_eq!(a.reasons[&Refused::Tracked], 3);
        assert_eq!(a.examples.len(), EXAMPLES);
    }
}
