//! `goldgate init` and the files around it: refusing to overwrite without `--force`,
//! creating a missing directory, running a changed stub inside git before it is added,
//! ignoring goldgate's own directory in `.gitignore` (never through a link out of the
//! project), where workflows belong in a subdirectory of a repository, the defaults when
//! nobody can be asked and the questions on a terminal.

use std::process::{Command, Stdio};

use crate::init::files;
use crate::support::output::{assert_exit, text};
use crate::support::project::{git, goldgate};
use crate::support::{test_kind, TempDir};

/// The file `init --kind KIND` writes first for `kind`'s example samples
/// (`suite/KIND/ID.yaml`), and that sample's id.
fn first_example(kind: &str) -> (String, String) {
    let examples =
        goldgate_core::kinds::of(goldgate_core::kinds::named(kind).unwrap()).example_samples();
    let id = examples
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("the example samples have ids")
        .trim()
        .to_string();
    (format!("suite/{kind}/{id}.yaml"), id)
}

#[test]
fn existing_files_are_refused_without_force_and_overwritten_with_it() {
    let tmp = TempDir::new("init-refuse");
    let dir = &tmp.0;
    let kind = test_kind::name();
    let (example, id) = first_example(kind);
    std::fs::create_dir_all(dir.join("suite").join(kind)).unwrap();
    std::fs::write(dir.join("goldgate.toml"), "# mine\n").unwrap();
    std::fs::write(dir.join(&example), "# mine too\n").unwrap();
    let before = files(dir);

    let out = goldgate(dir, &["init", "--kind", kind, "--pipeline", "http"], &[]);
    assert_exit(&out, 2, "init over existing files");
    let said = text(&out.stderr);
    assert!(said.contains("goldgate.toml"), "{said}");
    assert!(said.contains(&example), "{said}");
    assert!(said.contains("--force"), "{said}");
    assert!(
        !said.contains("thresholds.toml"),
        "only existing files are listed: {said}"
    );
    assert_eq!(files(dir), before, "nothing was written");

    let out = goldgate(
        dir,
        &["init", "--kind", kind, "--pipeline", "http", "--force"],
        &[],
    );
    assert_exit(&out, 0, "init --force");
    let said = text(&out.stdout);
    assert!(said.contains("overwrote"), "{said}");
    let now = files(dir);
    assert!(now["goldgate.toml"].contains("kind = \"http\""));
    assert!(now[&example].contains(&format!("id: {id}")));
    assert!(now.contains_key("thresholds.toml"));
}

/// `DIR` is created when it does not exist, and the next command says to go there.
#[test]
fn a_missing_directory_is_created() {
    let tmp = TempDir::new("init-dir");
    let kind = test_kind::name();
    let out = goldgate(&tmp.0, &["init", "gate/project", "--kind", kind], &[]);
    assert_exit(&out, 0, "init into a new directory");
    let project = tmp.0.join("gate/project");
    assert!(project.join(first_example(kind).0).is_file());
    let said = text(&out.stdout);
    assert!(said.contains("cd gate/project && goldgate check"), "{said}");
    assert_exit(
        &goldgate(&project, &["check"], &[]),
        0,
        "check in the new directory",
    );
}

/// Inside git, a command pipeline's answers are cached by the repository's content, untracked
/// files git does not ignore included: a worse stub not yet `git add`ed is not answered from
/// the cache, and fails.
#[test]
fn inside_git_a_changed_stub_is_run_before_it_is_added() {
    let tmp = TempDir::new("init-git");
    let dir = &tmp.0;
    git(dir, &["init", "-q", "-b", "main"]);
    let init = goldgate(dir, &["init", "--kind", test_kind::name()], &[]);
    assert_exit(&init, 0, "init in a git repository");
    assert_exit(&goldgate(dir, &["check"], &[]), 0, "the first check");
    let stub = std::fs::read_to_string(dir.join("pipeline.py")).unwrap();
    // The stub answers each example's gold: the worse one answers none of it.
    let key = test_kind::key();
    let answered = format!("example.get(\"{key}\", [])}}");
    let worse = stub.replace(&answered, &format!("example.get(\"{key}\", [])[:0]}}"));
    assert_ne!(
        worse, stub,
        "the stub's answer is where the test expects it"
    );
    std::fs::write(dir.join("pipeline.py"), worse).unwrap();
    let check = goldgate(dir, &["check"], &[]);
    assert_exit(&check, 1, "a worse stub, untracked");
    assert!(
        text(&check.stderr).contains("0 from the cache"),
        "{}",
        text(&check.stderr)
    );
}

/// init ignores goldgate's own directory: `.goldgate/` (the answer cache and the outputs)
/// goes into `.gitignore` — created when missing, appended once to one that exists (its
/// lines kept as they are), left alone when a line already ignores it or when it is not a
/// regular file — so `git add -A` never commits the cache.
#[test]
fn init_ignores_goldgate_s_own_directory_in_gitignore() {
    let tmp = TempDir::new("init-gitignore");
    let dir = &tmp.0;
    git(dir, &["init", "-q", "-b", "main"]);
    let out = goldgate(dir, &["init", "--kind", test_kind::name()], &[]);
    assert_exit(&out, 0, "init");
    let ignore = std::fs::read_to_string(dir.join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == ".goldgate/"), "{ignore}");
    assert!(
        text(&out.stdout).contains("\n  .gitignore\n"),
        "{}",
        text(&out.stdout)
    );
    assert_exit(&goldgate(dir, &["check"], &[]), 0, "the first check");
    assert!(dir.join(".goldgate/cache").is_dir());
    git(dir, &["add", "-A"]);
    let staged = git(dir, &["diff", "--cached", "--name-only"]);
    assert!(!staged.contains(".goldgate"), "{staged}");
    assert!(staged.contains(".gitignore"), "{staged}");

    // A .gitignore of the user's, without a final newline: appended to, once.
    std::fs::write(dir.join(".gitignore"), "# mine\n.env\nnode_modules").unwrap();
    let again = ["init", "--kind", test_kind::name(), "--force"];
    let out = goldgate(dir, &again, &[]);
    assert_exit(&out, 0, "init --force");
    assert!(
        text(&out.stdout).contains(".gitignore  (added .goldgate/)"),
        "{}",
        text(&out.stdout)
    );
    let ignore = std::fs::read_to_string(dir.join(".gitignore")).unwrap();
    assert!(
        ignore.starts_with("# mine\n.env\nnode_modules\n"),
        "{ignore}"
    );
    assert_eq!(ignore.matches(".goldgate/").count(), 1, "{ignore}");
    assert_exit(&goldgate(dir, &again, &[]), 0, "init --force again");
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitignore")).unwrap(),
        ignore,
        "never twice"
    );
    // Already ignored another way: left as it is, and not listed.
    std::fs::write(dir.join(".gitignore"), "/.goldgate\n").unwrap();
    let out = goldgate(dir, &again, &[]);
    assert_exit(&out, 0, "init --force");
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitignore")).unwrap(),
        "/.goldgate\n"
    );
    assert!(
        !text(&out.stdout).contains(".gitignore"),
        "{}",
        text(&out.stdout)
    );
    // A link is never written through.
    let elsewhere = TempDir::new("init-gitignore-elsewhere");
    std::fs::write(elsewhere.0.join("shared"), "shared\n").unwrap();
    std::fs::remove_file(dir.join(".gitignore")).unwrap();
    std::os::unix::fs::symlink(elsewhere.0.join("shared"), dir.join(".gitignore")).unwrap();
    assert_exit(&goldgate(dir, &again, &[]), 0, "init --force");
    assert_eq!(
        std::fs::read_to_string(elsewhere.0.join("shared")).unwrap(),
        "shared\n"
    );
}

/// GitHub reads workflows only at a repository's root: init into a subdirectory says so.
#[test]
fn in_a_subdirectory_of_a_repository_init_says_where_workflows_belong() {
    let tmp = TempDir::new("init-git-sub");
    git(&tmp.0, &["init", "-q", "-b", "main"]);
    let out = goldgate(&tmp.0, &["init", "ci/gate", "--pipeline", "http"], &[]);
    assert_exit(&out, 0, "init into a subdirectory");
    let said = text(&out.stdout);
    assert!(said.contains("GitHub reads workflows only from"), "{said}");
    let root = goldgate(&tmp.0, &["init", "--pipeline", "http"], &[]);
    assert_exit(&root, 0, "init at the root");
    assert!(
        !text(&root.stdout).contains("GitHub reads workflows"),
        "{}",
        text(&root.stdout)
    );
}

/// Without a terminal nothing is asked: the defaults are used, and stderr says which.
#[test]
fn without_a_terminal_the_defaults_are_used_and_named() {
    let tmp = TempDir::new("init-defaults");
    let out = goldgate(&tmp.0, &["init", "--pipeline", "chat"], &[]);
    assert_exit(&out, 0, "init without --kind");
    let note = text(&out.stderr);
    let kind = goldgate::settings::defaults::init_kinds()[0].as_str();
    assert!(note.contains(&format!("--kind {kind}")), "{note}");
    assert!(
        !note.contains("--pipeline"),
        "the pipeline was given: {note}"
    );
    assert!(tmp.0.join(first_example(kind).0).is_file());
    assert!(files(&tmp.0)["goldgate.toml"].contains("kind = \"chat\""));
}

/// On a terminal, what the flags leave open is asked: numbered choices, the default in
/// brackets, a wrong answer asked again. Needs `script` (util-linux) for the terminal.
#[test]
fn on_a_terminal_the_missing_choices_are_asked() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` is not installed");
        return;
    }
    let tmp = TempDir::new("init-ask");
    let bin = env!("CARGO_BIN_EXE_goldgate");
    let mut child = Command::new("script")
        .args(["-qec", &format!("'{bin}' init project"), "/dev/null"])
        .current_dir(&tmp.0)
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        // Kinds: 9 is no choice (asked again), then the third and the fifth; pipeline: the
        // default.
        stdin.write_all(b"9\n3 5\n\n").unwrap();
    }
    let listed: Vec<&str> = goldgate_core::kinds::listed().map(|k| k.as_str()).collect();
    assert!((5..9).contains(&listed.len()), "the answers fit {listed:?}");
    let out = child.wait_with_output().unwrap();
    let said = text(&out.stdout);
    assert_exit(&out, 0, &said);
    assert!(said.contains(&format!("1. {}", listed[0])), "{said}");
    assert!(said.contains("[1]"), "{said}");
    assert!(said.contains("9"), "{said}");
    let project = tmp.0.join("project");
    for chosen in [listed[2], listed[4]] {
        assert!(
            project.join(first_example(chosen).0).is_file(),
            "{chosen}: {said}"
        );
    }
    assert!(!project.join("suite").join(listed[0]).exists(), "{said}");
    assert!(
        project.join("pipeline.py").is_file(),
        "the default pipeline: {said}"
    );
}
