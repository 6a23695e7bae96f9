//! `goldgate init`: ask what the flags left open (on a terminal: numbered choices, the
//! default in brackets) or take the defaults and say so, write the project's files, and list
//! them with the command to run next.

use std::io::BufRead;
use std::path::Path;

use crate::init::{ask, names, Place, Plan};
use crate::output::Reporter;
use crate::settings::{defaults, InitSettings};
use goldgate_core::error::{Exit, Result};

pub fn init(s: InitSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    let below_git_root = s.below_git_root;
    let plan = if s.interactive {
        choose(s, &mut std::io::stdin().lock(), reporter)?
    } else {
        with_defaults(s, reporter)
    };
    let written = crate::init::init(&plan)?;
    let place = Place {
        here: plan.dir == Path::new(defaults::INIT_DIR),
        below_git_root,
    };
    reporter.out(&crate::init::summary(&plan, &written, place));
    Ok(Exit::Ok)
}

/// Nobody to ask: the defaults for what the flags left open, named on stderr.
fn with_defaults(s: InitSettings, reporter: &mut Reporter<'_>) -> Plan {
    let mut used = Vec::new();
    let kinds = s.kinds.unwrap_or_else(|| {
        let kinds = defaults::init_kinds();
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
    let mut say = |text: &str| reporter.note(text);
    let kinds = match s.kinds {
        Some(kinds) => kinds,
        None => ask::kinds(&defaults::init_kinds(), input, &mut say)?,
    };
    let pipeline = match s.pipeline {
        Some(pipeline) => pipeline,
        None => ask::pipeline(defaults::INIT_PIPELINE, input, &mut say)?,
    };
    Ok(Plan {
        dir: s.dir,
        kinds,
        pipeline,
        force: s.force,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::init::Pipeline;
    use goldgate_core::kinds::ALL;
    use goldgate_core::sample::Kind;

    /// The kind at `i` in the registry's order (the order the question lists them in).
    fn kind(i: usize) -> Kind {
        goldgate_core::kinds::kind_of(ALL[i])
    }

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
        assert_eq!(plan.kinds, defaults::init_kinds());
        assert_eq!(plan.pipeline, defaults::INIT_PIPELINE);
        for (i, k) in goldgate_core::kinds::listed().enumerate() {
            let choice = format!("  {}. {}  ", i + 1, k.as_str());
            assert!(said.contains(&choice), "{choice}: {said}");
        }
        assert!(said.contains("[1]: "), "{said}");
        assert!(said.contains("  3. chat  "), "{said}");
    }

    #[test]
    fn numbers_and_names_choose_and_a_wrong_answer_is_asked_again() {
        // A number, a name in capitals and the first number again: two kinds.
        let answers = format!(
            "2,{} 2\n0\nhttp chat\nhttp\n",
            kind(3).as_str().to_uppercase()
        );
        let (plan, said) = asked(settings(None, None), &answers);
        let plan = plan.unwrap();
        assert_eq!(plan.kinds, [kind(1), kind(3)]);
        assert_eq!(plan.pipeline, Pipeline::Http);
        assert!(
            said.contains("`0` is not one of the choices: answer 1 to 3"),
            "{said}"
        );
        assert!(said.contains("choose one"), "{said}");
    }

    #[test]
    fn only_what_the_flags_left_open_is_asked() {
        let last = kind(ALL.len() - 1);
        let (plan, said) = asked(settings(Some(vec![last]), None), "3\n");
        let plan = plan.unwrap();
        assert_eq!((plan.kinds, plan.pipeline), (vec![last], Pipeline::Chat));
        assert!(!said.contains("task kinds"), "{said}");
        let (plan, said) = asked(settings(Some(vec![kind(3)]), Some(Pipeline::Http)), "");
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
        assert_eq!(plan.kinds, defaults::init_kinds());
        let said = String::from_utf8(err).unwrap();
        let default = format!("--kind {}", kind(0).as_str());
        assert!(
            said.contains(&default) && !said.contains("--pipeline"),
            "{said}"
        );
    }
}
