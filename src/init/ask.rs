//! The questions `goldgate init` asks on a terminal for what the flags left open: numbered
//! choices with the default in brackets, answered by numbers or names. An empty answer
//! takes the default, a wrong one is asked again, the end of input is an error. The text
//! goes to the caller's `say` (the command shows it on stderr); nothing is printed here.

use std::io::BufRead;

use super::Pipeline;
use goldgate_core::error::{Error, Result};
use goldgate_core::sample::Kind;

/// The task kinds the pipeline does, asked with `default` preselected.
pub fn kinds(
    default: &[Kind],
    input: &mut dyn BufRead,
    say: &mut dyn FnMut(&str),
) -> Result<Vec<Kind>> {
    let all: Vec<Kind> = goldgate_core::kinds::listed().collect();
    let choices: Vec<(&str, &str)> = all
        .iter()
        .map(|k| (k.as_str(), goldgate_core::kinds::of(*k).about()))
        .collect();
    let default: Vec<usize> = default
        .iter()
        .filter_map(|d| all.iter().position(|k| k == d))
        .collect();
    let picked = ask(
        "Which task kinds does the pipeline do? (one example sample and its rules each)",
        &choices,
        &default,
        true,
        input,
        say,
    )?;
    Ok(picked.into_iter().map(|i| all[i]).collect())
}

/// How goldgate calls the pipeline, asked with `default` preselected.
pub fn pipeline(
    default: Pipeline,
    input: &mut dyn BufRead,
    say: &mut dyn FnMut(&str),
) -> Result<Pipeline> {
    let choices: Vec<(&str, &str)> = Pipeline::ALL
        .iter()
        .map(|p| (p.as_str(), p.about()))
        .collect();
    let default = Pipeline::ALL
        .iter()
        .position(|p| *p == default)
        .into_iter()
        .collect::<Vec<_>>();
    let picked = ask(
        "How does goldgate call the pipeline?",
        &choices,
        &default,
        false,
        input,
        say,
    )?;
    Ok(Pipeline::ALL[picked[0]])
}

/// One numbered question; the indexes chosen (one unless `many`). An empty answer takes the
/// default, a wrong one is asked again, the end of input is an error.
fn ask(
    question: &str,
    choices: &[(&str, &str)],
    default: &[usize],
    many: bool,
    input: &mut dyn BufRead,
    say: &mut dyn FnMut(&str),
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
    say(&text);
    loop {
        say(&format!("{how} [{}]: ", numbers.join(" ")));
        let mut line = String::new();
        let read = input.read_line(&mut line).map_err(|e| {
            Error::usage(
                format!("cannot read an answer from stdin: {e}"),
                "pass --kind and --pipeline instead",
            )
        })?;
        if read == 0 {
            say("\n");
            return Err(Error::usage(
                "stdin ended before the question was answered",
                "pass --kind and --pipeline to choose without being asked",
            ));
        }
        match parse_choice(&line, choices, many) {
            Ok(picked) if picked.is_empty() => return Ok(default.to_vec()),
            Ok(picked) => return Ok(picked),
            Err(why) => say(&format!("  {why}\n")),
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
