//! The command line's help states the defaults this module applies (they live here, not
//! in clap's attributes).

use clap::CommandFactory;

use super::defaults;
use crate::cli::Cli;

fn help(path: &[&str]) -> String {
    let mut command = Cli::command();
    let mut current = &mut command;
    for name in path {
        current = current.find_subcommand_mut(name).unwrap();
    }
    current.render_long_help().to_string()
}

/// The help states the defaults `settings` applies (they live there, not in clap).
#[test]
fn help_states_the_defaults_settings_applies() {
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["score"],
            format!("[default: {}]", defaults::SCORE_FILE),
        ),
        (vec!["score"], format!("[default: {}]", defaults::RESAMPLES)),
        (vec!["score"], format!("[default: {}]", defaults::SEED)),
        (vec!["run"], format!("[default: {}]", defaults::RUN_FILE)),
        (vec!["run"], format!("[default: {}]", defaults::JOBS)),
        (
            vec!["run"],
            format!("[default: {}]", defaults::TIMEOUT_SECS),
        ),
        (
            vec!["run"],
            format!("[default: {} MiB]", defaults::MAX_OUTPUT_BYTES >> 20),
        ),
        (
            vec!["run"],
            format!("[default: {} MiB", defaults::MAX_SAMPLE_BYTES >> 20),
        ),
        (
            vec!["score"],
            format!("[default: {} MiB]", defaults::MAX_SAMPLE_BYTES >> 20),
        ),
        (
            vec!["suite", "lint"],
            format!("[default: {} MiB", defaults::MAX_SAMPLE_BYTES >> 20),
        ),
        (vec!["run"], format!("[default: {}]", defaults::RETRIES)),
        (vec!["run"], format!("[default: {}]", defaults::REPEAT)),
        (vec!["run"], format!("[default: {}]", defaults::CACHE_DIR)),
        (vec!["merge"], format!("[default: {}]", defaults::RUN_FILE)),
        (vec!["check"], format!("[default: {}]", defaults::BASELINE)),
        (vec!["check"], format!("[default: {}]", defaults::OUT_DIR)),
        (vec!["check"], format!("[default: {}]", defaults::GATE_NAME)),
        (
            vec!["check"],
            format!("[default: {}", defaults::THRESHOLDS_FILE),
        ),
        (
            vec!["suite", "agreement"],
            format!("[default: {}]", defaults::MIN_KAPPA),
        ),
        (
            vec!["baseline", "show"],
            format!("[default: {}]", defaults::BASELINE),
        ),
        (
            vec!["baseline", "refresh"],
            format!("[default: {}]", defaults::BASELINE),
        ),
        (
            vec!["thresholds", "check"],
            format!("[default: {}]", defaults::THRESHOLDS_FILE),
        ),
        (vec!["init"], format!("[default: {}]", defaults::INIT_DIR)),
        (
            vec!["init"],
            format!("[default: {};", defaults::init_kinds()[0].as_str()),
        ),
        (
            vec!["init"],
            format!("[default: {};", defaults::INIT_PIPELINE.as_str()),
        ),
    ];
    for (path, expected) in cases {
        let text = help(&path).split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            text.contains(&expected),
            "`goldgate {}` --help lacks {expected}",
            path.join(" ")
        );
    }
    let run = help(&["run"]);
    assert!(
        run.contains(&format!("./{}", defaults::CONFIG_FILE)),
        "{run}"
    );
    for name in defaults::WITHHELD_ENV
        .iter()
        .chain(defaults::ENV_CLEAR_KEEPS)
    {
        assert!(run.contains(name), "`goldgate run --help` lacks {name}");
    }
}
