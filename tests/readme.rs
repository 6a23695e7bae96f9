//! The README's commands cannot rot: every `goldgate …` (or `cargo run --release -- …`)
//! line in its `sh` blocks must parse with the real command line, and every one that works on
//! the shipped example project (read-only) is run, from a directory that sees the
//! repository's `examples/`, with the exit code the README promises.

use std::path::Path;
use std::process::Command;

use clap::Parser;

use crate::support::TempDir;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Command lines of the README's ```sh blocks, comments removed.
fn readme_commands() -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = !in_sh && line.trim() == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let line = match line.find("  #") {
            Some(i) => &line[..i],
            None => line,
        }
        .trim();
        if !line.is_empty() && !line.starts_with('#') {
            commands.push(line.to_string());
        }
    }
    commands
}

/// Split a command line as a POSIX shell would (quotes; no expansions).
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => (quote, any) = (Some(c), true),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (_, c) => (word, any) = (word + &c.to_string(), true),
        }
    }
    if any {
        words.push(word);
    }
    words
}

/// `goldgate` arguments of a README line, or `None` for other commands (`cargo test`).
fn goldgate_args(line: &str) -> Option<Vec<String>> {
    let words = shell_words(line);
    let rest = match words.first().map(String::as_str) {
        Some("goldgate") => &words[1..],
        Some("cargo")
            if words.get(1..4) == Some(&["run".into(), "--release".into(), "--".into()]) =>
        {
            &words[4..]
        }
        _ => return None,
    };
    Some(rest.to_vec())
}

#[test]
fn every_readme_command_parses_and_the_example_ones_run() {
    let commands = readme_commands();
    assert!(
        commands.iter().any(|c| c == "cargo test"),
        "the README gives the test command"
    );
    let work = TempDir::new("readme");
    std::os::unix::fs::symlink(Path::new(ROOT).join("examples"), work.0.join("examples")).unwrap();
    let (mut parsed, mut ran) = (0, 0);
    for line in &commands {
        let Some(args) = goldgate_args(line) else {
            continue;
        };
        let argv = std::iter::once("goldgate".to_string()).chain(args.iter().cloned());
        if let Err(e) = goldgate::cli::Cli::try_parse_from(argv) {
            panic!("README command does not parse: {line}\n{e}");
        }
        parsed += 1;
        // Run what works on the example projects without writing into them (and without a
        // hosted model: `--chat` lines call one).
        let runnable = line.contains("examples/")
            && !args
                .iter()
                .any(|a| a == "refresh" || a == "hook" || a == "--chat");
        if !runnable {
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
            .args(&args)
            .current_dir(&work.0)
            .env_remove("GITHUB_ACTIONS")
            .output()
            .unwrap();
        // The candidate answers fail the gate; everything else on the example succeeds.
        let expected = if line.contains("candidate.jsonl") {
            1
        } else {
            0
        };
        assert_eq!(
            out.status.code(),
            Some(expected),
            "README command: {line}\nstdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stdout.is_empty(), "{line} printed nothing");
        ran += 1;
    }
    assert!(
        parsed >= 10,
        "only {parsed} goldgate commands found in the README"
    );
    assert!(ran >= 5, "only {ran} README commands ran on the example");
}

#[test]
fn shell_words_splits_like_a_shell() {
    assert_eq!(
        shell_words(r#"goldgate check --command 'python -m p' --header "A: ${T}" x"#),
        [
            "goldgate",
            "check",
            "--command",
            "python -m p",
            "--header",
            "A: ${T}",
            "x"
        ]
    );
    assert_eq!(shell_words("a '' b"), ["a", "", "b"]);
}

/// The README names the example's steps by number ("The fifth step shows …"): each such
/// paragraph speaks of what the step with that number does (they share a word), so a step
/// added or moved cannot leave the prose pointing at another one.
#[test]
fn the_example_steps_the_readme_talks_about_are_the_steps_it_numbers() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let words = |s: &str| -> std::collections::BTreeSet<String> {
        s.split(|c: char| !c.is_alphanumeric() && c != '-')
            .filter(|w| w.len() >= 6)
            .map(str::to_lowercase)
            .collect()
    };
    let ordinals = ["first", "second", "third", "fourth", "fifth", "sixth"];
    let mut talked = 0;
    for paragraph in text.split("\n\n") {
        let Some(rest) = paragraph.strip_prefix("The ") else {
            continue;
        };
        let Some(n) = ordinals
            .iter()
            .position(|o| rest.starts_with(&format!("{o} step ")))
        else {
            continue;
        };
        let marker = format!("# {}. ", n + 1);
        let step = text
            .lines()
            .find_map(|l| l.strip_prefix(&marker))
            .unwrap_or_else(|| panic!("the README talks of step {} but has none", n + 1));
        let shared: Vec<_> = words(step)
            .intersection(&words(paragraph))
            .cloned()
            .collect();
        assert!(
            !shared.is_empty(),
            "\"The {} step …\" does not speak of step {}, `{step}`:\n{paragraph}",
            ordinals[n],
            n + 1
        );
        talked += 1;
    }
    assert!(talked >= 2, "only {talked} step paragraphs found");
}

/// The shipped `thresholds.toml` says which rules make a run incomplete rather than failed:
/// exactly the run-health metrics, no wildcard that takes in cost or latency.
#[test]
fn the_shipped_rules_name_the_run_health_metrics_exactly() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("thresholds.toml")).unwrap();
    let start = text
        .find("# Run health (")
        .expect("thresholds.toml explains run health");
    let list = &text[start + "# Run health (".len()..];
    let list = &list[..list.find(')').unwrap()];
    let said: std::collections::BTreeSet<&str> = list.split(", ").collect();
    let health: std::collections::BTreeSet<&str> = goldgate_core::kinds::metrics()
        .iter()
        .filter(|m| m.is_run_health())
        .map(|m| m.name)
        .collect();
    assert_eq!(said, health, "thresholds.toml: # Run health ({list})");
}
