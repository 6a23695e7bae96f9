//! Settings from the command line and goldgate.toml: every default, the precedence of flags
//! over the file, and a usage error (exit 2, with a hint) for every value out of range.

use clap::Parser;
use goldgate::cli::{Cli, Command};
use goldgate::settings::{defaults, AgreementSettings, CheckCommand, ScoreSettings};
use goldgate::Exit;
use goldgate_run::plan::RunSettings;

use crate::support::TempDir;

fn cli(args: &[&str]) -> Command {
    Cli::try_parse_from(std::iter::once("goldgate").chain(args.iter().copied()))
        .unwrap_or_else(|e| panic!("{args:?} does not parse: {e}"))
        .command
}

fn run_settings(args: &[&str]) -> Result<RunSettings, goldgate::Error> {
    let mut all = vec!["run", "--suite", "suite"];
    all.extend_from_slice(args);
    match cli(&all) {
        Command::Run(a) => RunSettings::try_from(*a),
        _ => unreachable!(),
    }
}

/// The usage error for `args`, as text; it must map to exit 2 and carry a hint.
fn usage_error(args: &[&str]) -> String {
    let e = run_settings(args).expect_err("a usage error");
    assert_eq!(e.exit(), Exit::Input, "{e}");
    let text = e.to_string();
    assert!(text.contains("hint:"), "{text}");
    text
}

#[test]
fn a_run_gets_every_default_from_settings() {
    let s = run_settings(&["--command", "cat"]).unwrap();
    assert_eq!(s.output, std::path::PathBuf::from(defaults::RUN_FILE));
    assert_eq!(s.jobs, defaults::JOBS);
    assert_eq!(s.repeat, defaults::REPEAT);
    assert_eq!(s.pipeline.timeout.as_secs(), defaults::TIMEOUT_SECS);
    assert_eq!(s.pipeline.max_output_bytes, defaults::MAX_OUTPUT_BYTES);
    assert_eq!(s.pipeline.retries, defaults::RETRIES);
    assert_eq!(s.cache_dir, std::path::PathBuf::from(defaults::CACHE_DIR));
    assert!(s.shard.is_none() && s.max_errors.is_none() && !s.resume);
    // A command from a flag runs here, with goldgate's environment minus the CI's tokens.
    assert_eq!(s.pipeline.workdir, None);
    assert_eq!(s.pipeline.origin, goldgate_run::config::Origin::Flags);
    assert!(!s.pipeline.env.clear && s.pipeline.env.passthrough.is_empty());
    assert_eq!(s.pipeline.env.withheld, defaults::WITHHELD_ENV);
    assert_eq!(s.pipeline.env.kept_when_clear, defaults::ENV_CLEAR_KEEPS);
}

#[test]
fn a_command_from_goldgate_toml_runs_in_its_directory() {
    let dir = TempDir::new("settings-workdir");
    let config = dir.0.join("goldgate.toml");
    std::fs::write(
        &config,
        "[pipeline]\nkind = \"command\"\ncommand = \"python3 pipeline.py\"\nenv_passthrough = [\"OPENAI_*\"]\n",
    )
    .unwrap();
    let path = config.to_str().unwrap();
    let s = run_settings(&["--config", path]).unwrap();
    assert_eq!(s.pipeline.workdir.as_deref(), Some(dir.0.as_path()));
    assert_eq!(
        s.pipeline.origin,
        goldgate_run::config::Origin::File(config.clone())
    );
    assert_eq!(s.pipeline.env.passthrough, ["OPENAI_*"]);
    // A flag's command runs in the working directory; flags replace the passthrough list.
    let s = run_settings(&[
        "--config",
        path,
        "--command",
        "cat",
        "--env-passthrough",
        "X",
        "--env-clear",
    ])
    .unwrap();
    assert_eq!(s.pipeline.workdir, None);
    assert_eq!(s.pipeline.env.passthrough, ["X"]);
    assert!(s.pipeline.env.clear);
    assert!(
        usage_error(&["--command", "cat", "--env-passthrough", "A=B"])
            .contains("is not an environment variable name")
    );
}

#[test]
fn values_out_of_range_are_usage_errors_with_hints() {
    assert!(usage_error(&["--command", "cat", "--jobs", "0"]).contains("jobs = 0 is out of range"));
    assert!(
        usage_error(&["--command", "cat", "--repeat", "0"]).contains("repeat 0 is out of range")
    );
    assert!(usage_error(&["--command", "cat", "--timeout=-1"]).contains("not a positive number"));
    assert!(usage_error(&["--command", "cat", "--shard", "3"]).contains("not of the form i/N"));
    let header = usage_error(&["--http", "http://127.0.0.1:9", "--header", "no colon"]);
    assert!(header.contains("not of the form 'Name: value'"), "{header}");
    assert!(usage_error(&[]).contains("no pipeline to run"));
}

#[test]
fn flags_win_over_goldgate_toml_which_wins_over_defaults() {
    let dir = TempDir::new("settings-precedence");
    let config = dir.0.join("goldgate.toml");
    std::fs::write(
        &config,
        "[pipeline]\nkind = \"command\"\ncommand = \"python3 pipeline.py\"\nmode = \"jsonl\"\ntimeout_secs = 30\n\n[run]\njobs = 4\nrepeat = 3\n",
    )
    .unwrap();
    let path = config.to_str().unwrap();
    let from_file = run_settings(&["--config", path]).unwrap();
    assert_eq!((from_file.jobs, from_file.repeat), (4, 3));
    assert_eq!(from_file.pipeline.timeout.as_secs(), 30);
    let text = format!("{:?}", from_file.pipeline.adapter);
    assert!(
        text.contains("python3 pipeline.py") && text.contains("Jsonl"),
        "{text}"
    );
    let flags = run_settings(&["--config", path, "--jobs", "2", "--command", "cat"]).unwrap();
    assert_eq!((flags.jobs, flags.repeat), (2, 3));
    let text = format!("{:?}", flags.pipeline.adapter);
    assert!(text.contains("\"cat\"") && text.contains("Jsonl"), "{text}");
    std::fs::write(&config, "[pipeline]\nkind = \"comand\"\n").unwrap();
    let typo = run_settings(&["--config", path]).unwrap_err().to_string();
    assert!(
        typo.contains("did you mean") || typo.contains("is not an adapter"),
        "{typo}"
    );
}

#[test]
fn score_check_and_agreement_settings_apply_their_defaults_and_limits() {
    let Command::Score(a) = cli(&["score", "--suite", "s", "--run", "r.jsonl"]) else {
        unreachable!()
    };
    let s = ScoreSettings::try_from(a).unwrap();
    assert_eq!(s.output, std::path::PathBuf::from(defaults::SCORE_FILE));
    assert_eq!(
        (s.bootstrap.resamples, s.bootstrap.seed),
        (defaults::RESAMPLES, defaults::SEED)
    );
    let Command::Score(a) = cli(&[
        "score",
        "--suite",
        "s",
        "--run",
        "r",
        "--resamples",
        "100001",
    ]) else {
        unreachable!()
    };
    let e = ScoreSettings::try_from(a).unwrap_err();
    assert!(
        e.to_string().contains("too many") && e.exit() == Exit::Input,
        "{e}"
    );

    let Command::Check(a) = cli(&["check", "--suite", "s", "--command", "cat"]) else {
        unreachable!()
    };
    let c = CheckCommand::try_from(*a).unwrap();
    assert_eq!(c.check.out_dir, std::path::PathBuf::from(defaults::OUT_DIR));
    assert_eq!(
        c.check.baseline,
        std::path::PathBuf::from(defaults::BASELINE)
    );
    assert_eq!(
        c.check.baseline_run,
        std::path::PathBuf::from("baselines/main.run.jsonl")
    );
    assert_eq!(c.check.run.output, c.check.out_dir.join(defaults::RUN_FILE));
    assert_eq!(c.gate.report.gate_name, defaults::GATE_NAME);

    let Command::Suite(goldgate::cli::SuiteCommand::Agreement(a)) =
        cli(&["suite", "agreement", "s", "--min-kappa", "1.5"])
    else {
        unreachable!()
    };
    let e = AgreementSettings::try_from(a).unwrap_err();
    assert!(e.to_string().contains("outside [-1, 1]"), "{e}");
}
