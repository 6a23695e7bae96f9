//! `goldgate init`: ask what the flags left open (on a terminal: numbered choices, the
//! default in brackets) or take the defaults and say so, write the project's files, and list
//! them with the command to run next.

use std::io::BufRead;
use std::path::Path;

use crate::init::{Pipeline, Plan, Written};
use crate::output::Reporter;
use crate::settings::{defaults, InitSettings};
use goldgate_core::error::{Error, Exit, Result};
use goldgate_core::suite::Kind;

pub fn init(s: InitSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let below_root = s.below_git_root;
    let plan = if s.interactive {
        choose(s, &mut std::io::stdin().lock(), reporter)?
    } else {
        with_defaults(s, reporter)
    };
    let written = crate::init::init(&plan)?;
    reporter.out(&summary(&plan, &written, below_root));
    Ok(Exit::Ok)
}

/// Nobody to ask: the defaults for what the flags left open, named on stderr.
fn with_defaults(s: InitSettings, reporter: &mut Reporter<'_>) -> Plan {
    let mut used = Vec::new();
    let kinds = s.kinds.unwrap_or_else(|| {
        let kinds = defaults::INIT_KINDS.to_vec();
        used.push(format!("--kind {}", names(&kinds)));
        kinds
    });
    let pipeline = s.pipeline.unwrap_or_else(|| {
        used.push(format!("--pipeline {}", defaults::INIT_PIPELINE.as_str()));
        defaults::INIT_PIPELINE
    });
    if !used.is_empty() {
        reporter.note(&format!(
            "note: stdin is not a terminal, so nothing was asked: using the defaults {}\n",
            used.join(" ")
        ));
    }
    Plan {
        dir: s.dir,
        kinds,
        pipeline,
        force: s.force,
    }
}

/// Ask on stderr, read the answers from `input`, for what the flags left open.
fn choose(s: InitSettings, input: &mut dyn BufRead, reporter: &mut Reporter<'_>) -> Result<Plan> {
    let kinds = match s.kinds {
        Some(kinds) => kinds,
        None => {
            let choices: Vec<(&str, &str)> = Kind::ALL
                .iter()
                .map(|k| (k.as_str(), crate::init::about(*k)))
                .collect();
            let default: Vec<usize> = defaults::INIT_KINDS
                .iter()
                .filter_map(|d| Kind::ALL.iter().position(|k| k == d))
                .collect();
            let picked = ask(
                "Which task kinds does the pipeline do? (one example sample and its rules each)",
                &choices,
                &default,
                true,
                input,
                reporter,
            )?;
            picked.into_iter().map(|i| Kind::ALL[i]).collect()
        }
    };
    let pipeline = match s.pipeline {
        Some(pipeline) => pipeline,
        None => {
            let choices: Vec<(&str, &str)> = Pipeline::ALL
                .iter()
                .map(|p| (p.as_str(), p.about()))
                .collect();
            let default = Pipeline::ALL
                .iter()
                .position(|p| *p == defaults::INIT_PIPELINE)
                .into_iter()
                .collect::<Vec<_>>();
            let picked = ask(
                "How does goldgate call the pipeline?",
                &choices,
                &default,
                false,
                input,
                reporter,
            )?;
            Pipeline::ALL[picked[0]]
        }
    };
    Ok(Plan {
        dir: s.dir,
        kinds,
        pipeline,
        force: s.force,
    })
}

/// One numbered question; the indexes chosen (one unless `many`). An empty answer takes the
/// default, a wrong one is asked again, the end of input is an error.
fn ask(
    question: &str,
    choices: &[(&str, &str)],
    default: &[usize],
    many: bool,
    input: &mut dyn BufRead,
    reporter: &mut Reporter<'_>,
) -> Result<Vec<usize>> {
    let width = choices.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    let mut text = format!("{question}\n");
    for (i, (name, about)) in choices.iter().enumerate() {
        text.push_str(&format!("  {}. {name:width$}  {about}\n", i + 1));
    }
    let numbers: Vec<String> = default.iter().map(|i| (i + 1).to_string()).collect();
    let how = if many {
        "Numbers or names, separated by spaces or commas"
    } else {
        "A number or a name"
    };
    reporter.note(&text);
    loop {
        reporter.note(&format!("{how} [{}]: ", numbers.join(" ")));
        let mut line = String::new();
        let read = input.read_line(&mut line).map_err(|e| {
            Error::usage(
                format!("cannot read an answer from stdin: {e}"),
                "pass --kind and --pipeline instead",
            )
        })?;
        if read == 0 {
            reporter.note("\n");
            return Err(Error::usage(
                "stdin ended before the question was answered",
                "pass --kind and --pipeline to choose without being asked",
            ));
        }
        match parse_choice(&line, choices, many) {
            Ok(picked) if picked.is_empty() => return Ok(default.to_vec()),
            Ok(picked) => return Ok(picked),
            Err(why) => reporter.note(&format!("  {why}\n")),
        }
    }
}

/// The indexes an answer names (empty: none, so the default), each once, in choice order.
fn parse_choice(
    line: &str,
    choices: &[(&str, &str)],
    many: bool,
) -> std::result::Result<Vec<usize>, String> {
    let mut picked = Vec::new();
    for word in line.split(|c: char| c == ',' || c.is_whitespace()) {
        let word = word.trim();
        if word.is_empty() {
            continue;
        }
        let index = match word.parse::<usize>() {
            Ok(n) if (1..=choices.len()).contains(&n) => n - 1,
            _ => choices
                .iter()
                .position(|(name, _)| name.eq_ignore_ascii_case(word))
                .ok_or_else(|| {
                    format!(
                        "`{word}` is not one of the choices: answer 1 to {}, or a name",
                        choices.len()
                    )
                })?,
        };
        if !picked.contains(&index) {
            picked.push(index);
        }
    }
    if !many && picked.len() > 1 {
        return Err("choose one".to_string());
    }
    picked.sort_unstable();
    Ok(picked)
}

/// The kinds' names, comma-separated (as `--kind` takes them).
fn names(kinds: &[Kind]) -> String {
    kinds
        .iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// What was written, and the command to run next; below a git repository's root, that GitHub
/// reads workflows only there.
fn summary(plan: &Plan, written: &[Written], below_root: bool) -> String {
    let here = plan.dir == Path::new(defaults::INIT_DIR);
    let mut out = format!(
        "goldgate init wrote {} files{} (task kinds: {}; pipeline: {}):\n",
        written.len(),
        if here {
            String::new()
        } else {
            format!(" in {}", plan.dir.display())
        },
        names(&plan.kinds).replace(',', ", "),
        plan.pipeline.as_str(),
    );
    for w in written {
        let note = match (w.overwrote, w.note) {
            (true, _) => "  (overwrote)".to_string(),
            (false, Some(note)) => format!("  ({note})"),
            (false, None) => String::new(),
        };
        out.push_str(&format!("  {}{note}\n", w.path.display()));
    }
    if below_root {
        out.push_str(
            "\nGitHub reads workflows only from .github/workflows at the repository's root: move them there (GOLDGATE.md says how)\n",
        );
    }
    let cd = if here {
        String::new()
    } else {
        format!("cd {} && ", shell_word(&plan.dir.display().to_string()))
    };
    let env = match plan.pipeline {
        Pipeline::Command => "",
        Pipeline::Http => "export PIPELINE_URL=<your service's URL> && ",
        Pipeline::Chat => "export OPENAI_API_KEY=<your key> && ",
    };
    out.push_str(&format!(
        "\nnext: {cd}{env}goldgate check\nthen GOLDGATE.md: wire in your pipeline, grow the suite, store a baseline, gate pull requests\n"
    ));
    out
}

/// `word` as one shell word: as it is when it is plain, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/+:@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(kinds: Option<Vec<Kind>>, pipeline: Option<Pipeline>) -> InitSettings {
        InitSettings {
            dir: "proj".into(),
            kinds,
            pipeline,
            force: false,
            interactive: true,
            below_git_root: false,
        }
    }

    fn asked(s: InitSettings, answers: &str) -> (Result<Plan>, String) {
        let mut err = Vec::new();
        let plan = {
            let mut reporter = Reporter::new(std::io::sink(), &mut err);
            choose(s, &mut answers.as_bytes(), &mut reporter)
        };
        (plan, String::from_utf8(err).unwrap())
    }

    #[test]
    fn an_empty_answer_takes_the_default() {
        let (plan, said) = asked(settings(None, None), "\n\n");
        let plan = plan.unwrap();
        assert_eq!(plan.kinds, defaults::INIT_KINDS);
        assert_eq!(plan.pipeline, defaults::INIT_PIPELINE);
        assert!(said.contains("  1. extraction  "), "{said}");
        assert!(said.contains("  5. tuples  "), "{said}");
        assert!(said.contains("[1]: "), "{said}");
        assert!(said.contains("  3. chat  "), "{said}");
    }

    #[test]
    fn numbers_and_names_choose_and_a_wrong_answer_is_asked_again() {
        let (plan, said) = asked(settings(None, None), "2,E2E 2\n0\nhttp chat\nhttp\n");
        let plan = plan.unwrap();
        assert_eq!(plan.kinds, [Kind::Inference, Kind::E2e]);
        assert_eq!(plan.pipeline, Pipeline::Http);
        assert!(
            said.contains("`0` is not one of the choices: answer 1 to 3"),
            "{said}"
        );
        assert!(said.contains("choose one"), "{said}");
    }

    #[test]
    fn only_what_the_flags_left_open_is_asked() {
        let (plan, said) = asked(settings(Some(vec![Kind::Tuples]), None), "3\n");
        let plan = plan.unwrap();
        assert_eq!(
            (plan.kinds, plan.pipeline),
            (vec![Kind::Tuples], Pipeline::Chat)
        );
        assert!(!said.contains("task kinds"), "{said}");
        let (plan, said) = asked(settings(Some(vec![Kind::E2e]), Some(Pipeline::Http)), "");
        assert!(plan.is_ok() && said.is_empty(), "{said}");
    }

    #[test]
    fn the_end_of_input_is_an_error_not_a_default() {
        let (plan, _) = asked(settings(None, None), "");
        let e = plan.unwrap_err().to_string();
        assert!(e.contains("stdin ended") && e.contains("--kind"), "{e}");
    }

    #[test]
    fn without_a_terminal_the_defaults_are_named() {
        let mut err = Vec::new();
        let plan = {
            let mut reporter = Reporter::new(std::io::sink(), &mut err);
            let mut s = settings(None, Some(Pipeline::Chat));
            s.interactive = false;
            with_defaults(s, &mut reporter)
        };
        assert_eq!(plan.kinds, defaults::INIT_KINDS);
        let said = String::from_utf8(err).unwrap();
        assert!(
            said.contains("--kind extraction") && !said.contains("--pipeline"),
            "{said}"
        );
    }

    #[test]
    fn a_directory_with_spaces_is_quoted_in_the_next_command() {
        assert_eq!(shell_word("gate/project"), "gate/project");
        assert_eq!(shell_word("my gate"), "'my gate'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}
