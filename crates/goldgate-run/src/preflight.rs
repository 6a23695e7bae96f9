//! Checking a command pipeline before the first call: the program its command starts must
//! be one `sh` can run from the command's directory (a builtin, an executable on the `PATH`
//! the command gets, or an executable file), and a script handed to a known interpreter (`python3 pipeline.py`,
//! `sh run.sh`, `node main.js`, …) must exist. A command that cannot start is a
//! configuration error naming the setting, instead of a run of failed calls.
//!
//! Only what can be known without running the pipeline is checked: the command's first
//! simple command, as `sh` would split it. A command that uses shell syntax there
//! (expansions, redirections, groups, several commands) is not second-guessed; neither are
//! an interpreter's options (`python3 -m pkg`).

use std::path::Path;

use super::config::{Mode, Origin};
use super::process::Launch;
use goldgate_core::error::{Error, Result};

/// Interpreters whose first argument, when it is not an option, is a script file.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "python", "python2", "python3", "node", "nodejs", "ruby",
    "perl", "php", "Rscript",
];

/// Check that `launch`'s command can start; `origin` names the setting in the error.
pub fn check(launch: &Launch, mode: Mode, origin: &Origin) -> Result<()> {
    if let Some(dir) = launch.workdir.as_deref().filter(|d| !d.is_dir()) {
        return Err(Error::usage(
            format!(
                "the pipeline command's directory {} does not exist",
                dir.display()
            ),
            "[pipeline] workdir is relative to its goldgate.toml; a command from goldgate.toml runs in that file's directory",
        ));
    }
    let Some(words) = leading_words(&launch.command) else {
        return Ok(());
    };
    let Some(program) = words.first() else {
        return Err(origin.error(
            "--command",
            "command",
            "the command is empty",
            "name the program that answers, e.g. python3 pipeline.py",
        ));
    };
    let dir = launch.workdir.as_deref().map_or_else(
        || "the working directory".to_string(),
        |d| d.display().to_string(),
    );
    let mode = match mode {
        Mode::Oneshot => "",
        Mode::Jsonl => " (--mode jsonl)",
    };
    if program.contains('/') {
        let path = launch
            .workdir
            .as_deref()
            .map_or_else(|| Path::new(program).to_path_buf(), |d| d.join(program));
        if !is_executable(&path) {
            let why = if path.is_file() {
                "is not executable"
            } else {
                "does not exist"
            };
            return Err(origin.error(
                "--command",
                "command",
                &format!("the pipeline command{mode} cannot start: `{program}` {why} (relative to {dir})"),
                &format!("check the path (the command runs in {dir}), or `chmod +x {program}`"),
            ));
        }
    } else if !sh_can_run(launch, program) {
        return Err(origin.error(
            "--command",
            "command",
            &format!("the pipeline command{mode} cannot start: `{program}` is not a command sh can find (a builtin, or a program on PATH)"),
            &format!("check the spelling, install it, or give its path; the command runs in {dir}"),
        ));
    }
    let base = program.rsplit('/').next().unwrap_or(program);
    let interpreter = INTERPRETERS.contains(&base)
        || base
            .strip_prefix("python")
            .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.'));
    if let (true, Some(script)) = (interpreter, words.get(1)) {
        let path = launch
            .workdir
            .as_deref()
            .map_or_else(|| Path::new(script).to_path_buf(), |d| d.join(script));
        if !script.starts_with('-') && !path.exists() {
            return Err(origin.error(
                "--command",
                "command",
                &format!("the pipeline command{mode} cannot start: `{program}` would run `{script}`, which does not exist in {dir}"),
                "check the script's path; with --config, a command from goldgate.toml runs in that file's directory (or in [pipeline] workdir)",
            ));
        }
    }
    Ok(())
}

/// Builtins and keywords of `sh` (dash) and of bash as `sh`: a command starting with one
/// needs nothing on `PATH`.
const BUILTINS: &[&str] = &[
    ".", ":", "[", "alias", "bg", "break", "builtin", "cd", "command", "continue", "declare",
    "echo", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "jobs",
    "kill", "let", "local", "printf", "pwd", "read", "readonly", "return", "set", "shift",
    "source", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias",
    "unset", "wait",
];

/// Whether `sh` would find `program`: a builtin, or an executable file in a directory of
/// the `PATH` the command gets (relative entries are relative to its directory). Looked up
/// here rather than by starting a shell, so the check costs a few `stat`s.
fn sh_can_run(launch: &Launch, program: &str) -> bool {
    if BUILTINS.contains(&program) {
        return true;
    }
    // sh's own default when PATH is not set at all.
    let path = launch
        .path_var()
        .unwrap_or_else(|| "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".into());
    std::env::split_paths(&path).any(|dir| {
        let dir = match (&launch.workdir, dir.is_relative()) {
            (Some(workdir), true) => workdir.join(dir),
            _ => dir,
        };
        is_executable(&dir.join(program))
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The words of the command's first simple command as `sh` splits them, without leading
/// `NAME=value` assignments and `exec`; `None` when shell syntax there (expansions,
/// redirections, globs, groups, keywords, several commands) makes the program unknowable
/// without running it. At most the first two words are returned.
fn leading_words(command: &str) -> Option<Vec<String>> {
    let mut words: Vec<String> = Vec::new();
    let mut chars = command.chars().peekable();
    let mut word = String::new();
    let mut in_word = false;
    // Where in the word its first quoted part starts (a quote in an assignment's value keeps
    // it an assignment; one in its name does not).
    let mut quoted: Option<usize> = None;
    loop {
        let c = chars.next();
        match c {
            None | Some(' ' | '\t') => {
                if in_word {
                    let w = std::mem::take(&mut word);
                    let first = words.is_empty();
                    let assignment = w
                        .find('=')
                        .is_some_and(|eq| quoted.is_none_or(|q| eq < q) && is_assignment(&w));
                    let plain = quoted.is_none();
                    if first && assignment && w.starts_with("PATH=") {
                        // The program is then looked up on another PATH.
                        return None;
                    }
                    if !(first && (assignment || (plain && w == "exec"))) {
                        if first && plain && is_keyword(&w) {
                            return None;
                        }
                        words.push(w);
                        if words.len() == 2 {
                            return Some(words);
                        }
                    }
                    in_word = false;
                    quoted = None;
                }
                if c.is_none() {
                    return Some(words);
                }
            }
            Some('\'') => {
                in_word = true;
                quoted.get_or_insert(word.len());
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            Some('"') => {
                in_word = true;
                quoted.get_or_insert(word.len());
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' | '\\' => return None,
                        c => word.push(c),
                    }
                }
            }
            Some('\\') => {
                in_word = true;
                quoted.get_or_insert(word.len());
                word.push(chars.next()?);
            }
            Some(
                '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' | '$' | '`' | '*' | '?' | '[' | '#'
                | '~' | '{' | '}',
            ) => return None,
            Some(c) => {
                in_word = true;
                word.push(c);
            }
        }
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        name.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "if" | "then"
            | "else"
            | "elif"
            | "fi"
            | "do"
            | "done"
            | "case"
            | "esac"
            | "while"
            | "until"
            | "for"
            | "in"
            | "!"
            | "function"
            | "select"
            | "time"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(c: &str) -> Option<Vec<String>> {
        leading_words(c)
    }

    #[test]
    fn the_first_simple_command_is_split_like_sh_or_not_at_all() {
        assert_eq!(
            words("python3 pipeline.py --x"),
            Some(vec!["python3".into(), "pipeline.py".into()])
        );
        assert_eq!(
            words("FOO=1 BAR='a b' exec ./run.sh"),
            Some(vec!["./run.sh".into()])
        );
        assert_eq!(
            words("'my prog' \"arg 1\""),
            Some(vec!["my prog".into(), "arg 1".into()])
        );
        assert_eq!(words("a\\ b c"), Some(vec!["a b".into(), "c".into()]));
        assert_eq!(words("   "), Some(vec![]));
        assert_eq!(words("exit 7"), Some(vec!["exit".into(), "7".into()]));
        assert_eq!(words("PATH=/opt/bin:$PATH prog"), None);
        assert_eq!(words("PATH=/opt/bin prog"), None);
        // Only the first two words matter: what follows them does not change them.
        assert_eq!(
            words("cd sub && python3 p.py"),
            Some(vec!["cd".into(), "sub".into()])
        );
        for unknowable in [
            "$HOME/bin/p",
            "if true; then x; fi",
            "(cd x; y)",
            "p > out",
            "python3 \"$SCRIPT\"",
            "{ x; }",
            "ls *.py",
            "~/bin/p",
        ] {
            assert_eq!(words(unknowable), None, "{unknowable}");
        }
    }
}
