//! Command-line arguments (clap). Nothing outside this module and `main.rs` knows about
//! clap: arguments are converted into validated settings (`settings.rs`) with `TryFrom`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod format;
mod history;
mod init;
mod judge;
mod pipeline;
mod similarity;
pub use format::{BaselineFormat, GateFormat, PublishFormat, ScoreFormat, SuiteFormat};
pub use history::{BaselineRules, HistoryArgs, HistoryFormat, PinArgs};
pub use init::{InitArgs, PipelineArg};
pub use judge::JudgeArgs;
pub use pipeline::{ModeArg, PipelineArgs};
pub use similarity::SimilarityArgs;

const EXIT_CODES: &str = "\
Exit codes:
  0  pass (warnings included), or the command succeeded
  1  gate failed (or the check asked for did not hold, e.g. kappa below --min-kappa)
  2  usage, configuration or input error (bad suite, run or thresholds file)
  3  incomplete run (samples without an answer, pipeline unreachable, too many errors)
  101 internal error: a bug in goldgate (the message says where to report it)";

/// goldgate: a regression gate for LLM requirements-engineering pipelines.
#[derive(Debug, Parser)]
#[command(name = "goldgate", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Set up a project: goldgate.toml, a commented thresholds.toml, an example suite, a
    /// pipeline stub (or prompts), the GitHub workflows and GOLDGATE.md with the next steps
    Init(InitArgs),
    /// Send every suite sample through the pipeline under test -> run.jsonl
    Run(Box<RunArgs>),
    /// Join shard run files into one; refuses duplicates and mixed pipelines
    Merge(MergeArgs),
    /// Compare a score with its baseline under thresholds.toml -> verdict
    Compare(CompareArgs),
    /// Run, score and compare in one go: the gate (the GitHub Action's entry point)
    Check(Box<CheckArgs>),
    /// Post a saved verdict to its pull request (the `workflow_run` half for fork PRs)
    Publish(PublishArgs),
    /// Refresh, show or pin the stored baseline
    #[command(subcommand)]
    Baseline(BaselineCommand),
    /// Every committed version of the baseline, read from git: each gated metric over time
    History(HistoryArgs),
    /// Validate a thresholds file
    #[command(subcommand)]
    Thresholds(ThresholdsCommand),
    /// Score a run file (or an outputs file) against a gold suite -> score.json
    Score(ScoreArgs),
    /// Work with a gold suite: lint, stats, agreement
    #[command(subcommand)]
    Suite(SuiteCommand),
    /// Install or remove the pre-push hook that runs `goldgate check` before every push
    #[command(subcommand)]
    Hook(HookCommand),
    /// The cosine of two texts (or of JSON Lines pairs) under the configured similarity, and
    /// whether it clears the requirement and acceptance-criterion match thresholds
    Similarity(SimilarityArgs),
    /// Review a run file's e2e answers again with the LLM judge ([judge] in goldgate.toml)
    Judge(JudgeArgs),
    /// Label the suite in a local web page: each annotator's labels are saved as their
    /// `annotations` entry, with live agreement, a reviewer view and promotion to gold
    Annotate(AnnotateArgs),
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Write .git/hooks/pre-push (or into core.hooksPath): before every push, each pushed
    /// commit is checked out in a temporary worktree and gated there with `goldgate check
    /// --format brief --comment-on never [CHECK_ARGS]`; the push is blocked when the gate
    /// fails or the run is incomplete
    #[command(after_help = "Example: goldgate hook install -- --config ci/goldgate.toml --jobs 8")]
    Install(HookInstallArgs),
    /// What the installed hook runs: read the pushed refs from stdin (as git writes them),
    /// check each pushed commit in a temporary worktree (removed afterwards) with the
    /// repository's answer cache and output directory, and warn about uncommitted changes
    /// (they are not pushed, so not checked)
    Run(HookRunArgs),
    /// Remove goldgate's pre-push hook (and put back a hook it replaced)
    Uninstall {
        /// Also delete a pre-push hook goldgate did not write
        #[arg(long)]
        force: bool,
    },
}

#[derive(Debug, Args)]
pub struct HookInstallArgs {
    /// Replace a pre-push hook goldgate did not write (it is kept as
    /// pre-push.goldgate-backup and restored by `hook uninstall`)
    #[arg(long)]
    pub force: bool,
    /// Arguments for `goldgate check`, after `--` (default: none: ./goldgate.toml decides)
    #[arg(last = true, value_name = "CHECK_ARGS")]
    pub check_args: Vec<String>,
}

#[derive(Debug, Args)]
pub struct HookRunArgs {
    /// The name of the remote pushed to (git passes it)
    #[arg(value_name = "REMOTE")]
    pub remote: Option<String>,
    /// The URL of the remote (git passes it)
    #[arg(value_name = "URL")]
    pub url: Option<String>,
    /// Arguments for `goldgate check`, after `--`
    #[arg(last = true, value_name = "CHECK_ARGS")]
    pub check_args: Vec<String>,
}

/// Whether `args` are valid `goldgate check` arguments (the hook would fail on every push
/// otherwise); the error is clap's message.
pub fn validate_check_args(args: &[String]) -> Result<(), String> {
    match parse_check_args(args)?.print_fingerprint {
        true => Err(
            "--print-fingerprint prints the fingerprint and stops: the hook would never check a push"
                .to_string(),
        ),
        false => Ok(()),
    }
}

/// `args` read as `goldgate check` arguments (after the hook's own `--format brief
/// --comment-on never`); the error is clap's message.
pub fn parse_check_args(args: &[String]) -> Result<CheckArgs, String> {
    use clap::Parser;
    let argv = [
        "goldgate",
        "check",
        "--format",
        "brief",
        "--comment-on",
        "never",
    ]
    .into_iter()
    .map(String::from)
    .chain(args.iter().cloned());
    let message = |e: clap::Error| {
        let text = e.render().to_string();
        text.lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("error: ")
            .to_string()
    };
    match Cli::try_parse_from(argv).map_err(message)?.command {
        Command::Check(args) => Ok(*args),
        _ => Err("not a `goldgate check` command line".to_string()),
    }
}

#[derive(Debug, Args)]
#[command(after_help = EXIT_CODES)]
pub struct ScoreArgs {
    /// The gold suite directory [default: [check] suite in goldgate.toml]
    #[arg(long, env = "GOLDGATE_SUITE", value_name = "DIR")]
    pub suite: Option<PathBuf>,
    /// Settings file ([check] suite and thresholds, [suite], [run] cache_dir); default:
    /// ./goldgate.toml when it exists. Flags win
    #[arg(long, env = "GOLDGATE_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The run file: run.jsonl records, or {"id": ..., "output": ...} lines
    #[arg(long, env = "GOLDGATE_RUN", value_name = "RUN.jsonl")]
    pub run: PathBuf,
    /// Where to write the score file [default: score.json]
    #[arg(long, short, env = "GOLDGATE_SCORE", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// thresholds.toml whose [matching] and [rd_score] tables shape the metrics [default:
    /// [check] thresholds in goldgate.toml, else thresholds.toml when it exists]
    #[arg(long, env = "GOLDGATE_THRESHOLDS", value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    /// Where embedding vectors are cached (with an embedding similarity) [default: .goldgate/cache]
    #[arg(long, env = "GOLDGATE_CACHE_DIR", value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Bootstrap resamples for the confidence intervals (0 disables them) [default: 1000]
    #[arg(long, env = "GOLDGATE_RESAMPLES")]
    pub resamples: Option<usize>,
    /// Bootstrap seed (a fixed seed makes reports reproducible) [default: 20240601]
    #[arg(long, env = "GOLDGATE_SEED")]
    pub seed: Option<u64>,
    /// Exit 0 even when some suite samples have no answer in the run (they are excluded)
    #[arg(long)]
    pub allow_missing: bool,
    /// Largest suite sample read, in bytes (a YAML or JSON file, or one JSONL line); a bigger
    /// one is an input error [default: 16 MiB]
    #[arg(long, value_name = "BYTES")]
    pub max_sample_bytes: Option<u64>,
    /// Summary format on stdout [default: text]
    #[arg(long, value_enum)]
    pub format: Option<ScoreFormat>,
}

#[derive(Debug, Args)]
#[command(after_help = EXIT_CODES)]
pub struct RunArgs {
    /// The gold suite directory (labels and annotations are never sent to the pipeline)
    /// [default: [check] suite in goldgate.toml]
    #[arg(long, env = "GOLDGATE_SUITE", value_name = "DIR")]
    pub suite: Option<PathBuf>,
    /// Where to write the records [default: run.jsonl]
    #[arg(long, short, env = "GOLDGATE_RUN", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The rules whose `run.error_rate` decides when failed calls make the run incomplete
    /// (exit 3) [default: [check] thresholds in goldgate.toml, else thresholds.toml when it
    /// exists, else at most 10% of calls may fail]
    #[arg(long, env = "GOLDGATE_THRESHOLDS", value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Run files to join (for example the outputs of `run --shard i/N`)
    #[arg(required = true, value_name = "RUN.jsonl")]
    pub inputs: Vec<PathBuf>,
    /// Where to write the merged run [default: run.jsonl]
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum SuiteCommand {
    /// Check every sample file; list every problem (exit 2 when there is any)
    Lint(SuiteArgs),
    /// Counts per kind, difficulty and domain against the suite-size targets; with
    /// --flaky, the samples whose outcome varied under an unchanged pipeline, flakiest first
    Stats(StatsArgs),
    /// Inter-annotator agreement (Cohen's and Fleiss' kappa); exit 1 below --min-kappa
    Agreement(AgreementArgs),
}

#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// The suite directory, or a project directory whose goldgate.toml names the suite
    /// under [check] suite [default: .]
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Output format [default: text]
    #[arg(long, value_enum)]
    pub format: Option<SuiteFormat>,
    /// Largest sample read, in bytes (a YAML or JSON file, or one JSONL line); a bigger one
    /// is a problem [default: 16 MiB, or [suite] max_sample_bytes of the project's
    /// goldgate.toml]
    #[arg(long, value_name = "BYTES")]
    pub max_sample_bytes: Option<u64>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// List the flaky samples of the baseline instead: those that passed in some runs
    /// (repeats, and the earlier runs baseline refresh kept) and failed in others
    #[arg(long)]
    pub flaky: bool,
    /// The baseline --flaky reads [default: [check] baseline in the project's goldgate.toml,
    /// else baselines/main.json]
    #[arg(long, value_name = "FILE", requires = "flaky")]
    pub baseline: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct AgreementArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// The kappa the suite must reach before it is used [default: 0.75]
    #[arg(long)]
    pub min_kappa: Option<f64>,
}

#[derive(Debug, Args)]
#[command(after_help = "Example: goldgate annotate examples/requirements --annotator alice")]
pub struct AnnotateArgs {
    /// The suite directory, or a project directory whose goldgate.toml names the suite
    /// under [check] suite [default: .]
    #[arg(value_name = "SUITE")]
    pub dir: Option<PathBuf>,
    /// Your name: what you label is saved as your entry of each sample's `annotations`
    #[arg(long, env = "GOLDGATE_ANNOTATOR", value_name = "NAME")]
    pub annotator: String,
    /// The port to listen on; 0 picks a free one [default: 8741]
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,
    /// Listen on this address to share the page on a network (prints a warning; every
    /// request then needs the random access token printed in the URL) [default: 127.0.0.1]
    #[arg(long, value_name = "ADDR")]
    pub host: Option<std::net::IpAddr>,
    /// A run file whose answers are shown as machine-made drafts to correct; a draft is
    /// saved only when you save it
    #[arg(long, value_name = "RUN_FILE")]
    pub prefill: Option<PathBuf>,
    /// The rules whose [matching] id_pattern requirement ids must match [default: [check]
    /// thresholds of the project's goldgate.toml, else thresholds.toml when it exists]
    #[arg(long, value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    /// The kappa the suite must reach before it is used [default: 0.75]
    #[arg(long)]
    pub min_kappa: Option<f64>,
    /// Largest sample read, in bytes [default: 16 MiB, or [suite] max_sample_bytes of the
    /// project's goldgate.toml]
    #[arg(long, value_name = "BYTES")]
    pub max_sample_bytes: Option<u64>,
}

/// Where the rules come from, and the base branch's rules for the ratchet.
#[derive(Debug, Args)]
pub struct GateArgs {
    /// The rules [default: thresholds.toml when it exists]
    #[arg(long, env = "GOLDGATE_THRESHOLDS", value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    /// The base branch's thresholds file: a rule loosened since then is reported
    #[arg(long, value_name = "FILE", conflicts_with = "base_ref")]
    pub base_thresholds: Option<PathBuf>,
    /// Read the base branch's thresholds file with git (e.g. origin/main)
    #[arg(long, env = "GOLDGATE_BASE_REF", value_name = "REF")]
    pub base_ref: Option<String>,
    /// Compare even when the baseline was scored with another metrics_version, similarity
    /// or embedding model
    #[arg(long)]
    pub allow_version_change: bool,
    /// Bootstrap resamples for the paired intervals of the deltas [default: 1000]
    #[arg(long, env = "GOLDGATE_RESAMPLES")]
    pub resamples: Option<usize>,
    /// Bootstrap seed [default: 20240601]
    #[arg(long, env = "GOLDGATE_SEED")]
    pub seed: Option<u64>,
    /// The gate's name: several gates in one repository keep one sticky comment each
    /// [default: goldgate]
    #[arg(long, env = "GOLDGATE_GATE_NAME")]
    pub gate_name: Option<String>,
    /// A directory whose comment.md.j2 replaces the built-in comment template
    #[arg(long, env = "GOLDGATE_TEMPLATES", value_name = "DIR")]
    pub templates: Option<PathBuf>,
    /// When to post the sticky PR comment inside GitHub Actions (an existing comment is
    /// always updated, so a PR that recovers shows it) [default: always]
    #[arg(long, env = "GOLDGATE_COMMENT_ON", value_enum)]
    pub comment_on: Option<CommentOn>,
    /// The pull request (default: from GITHUB_EVENT_PATH)
    #[arg(long, env = "GOLDGATE_PR", value_name = "N")]
    pub pr: Option<u64>,
    /// Also create a check run on the head commit (needs `permissions: checks: write`)
    #[arg(long, env = "GOLDGATE_CHECK_RUN")]
    pub check_run: bool,
    /// Seconds to wait at most for GitHub's API rate limit to reset before publishing fails
    /// with a rate-limit error [default: 60]
    #[arg(long, env = "GOLDGATE_GITHUB_MAX_WAIT", value_name = "SECS")]
    pub github_max_wait: Option<u64>,
}

/// When to post the PR comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CommentOn {
    Always,
    /// Only when the verdict is not a plain pass
    Regression,
    Never,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// A verdict saved by `check` or `compare --output` (e.g. downloaded from a fork PR's
    /// run). It is not trusted: its values are judged again under the rules here
    #[arg(long, value_name = "FILE")]
    pub verdict: PathBuf,
    /// The trusted baseline score file the verdict's values are compared with [default:
    /// [check] baseline in goldgate.toml, else baselines/main.json, when it exists; else
    /// the verdict file's own baseline values]
    #[arg(long, env = "GOLDGATE_BASELINE", value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Settings file ([check] thresholds and baseline); default: ./goldgate.toml when it
    /// exists. Flags win
    #[arg(long, env = "GOLDGATE_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// How stdout shows the verdict it publishes [default: text]
    #[arg(long, value_enum)]
    pub format: Option<PublishFormat>,
    #[command(flatten)]
    pub gate: GateArgs,
}

#[derive(Debug, Args)]
#[command(after_help = EXIT_CODES)]
pub struct CompareArgs {
    /// The candidate's score file
    #[arg(long, env = "GOLDGATE_SCORE", value_name = "FILE")]
    pub score: PathBuf,
    /// The baseline score file; without one only absolute rules apply
    #[arg(long, env = "GOLDGATE_BASELINE", value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Also write the verdict as JSON here
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Report format on stdout [default: text]
    #[arg(long, value_enum)]
    pub format: Option<GateFormat>,
    #[command(flatten)]
    pub gate: GateArgs,
}

#[derive(Debug, Args)]
#[command(after_help = EXIT_CODES)]
pub struct CheckArgs {
    /// The gold suite directory [default: [check] suite in goldgate.toml]
    #[arg(long, env = "GOLDGATE_SUITE", value_name = "DIR")]
    pub suite: Option<PathBuf>,
    /// The baseline score file; one named here or in goldgate.toml must exist, the default
    /// need not (a first run: absolute rules only) [default: baselines/main.json]
    #[arg(long, env = "GOLDGATE_BASELINE", value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// A named baseline that does not exist is not an error: apply the absolute rules only
    #[arg(long)]
    pub allow_missing_baseline: bool,
    /// Where run.jsonl, score.json, verdict.json and report.md (the PR comment) are written
    /// [default: .goldgate/out]
    #[arg(long, env = "GOLDGATE_OUT_DIR", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Report format on stdout [default: text]
    #[arg(long, value_enum)]
    pub format: Option<GateFormat>,
    /// Print what the run would key its cached answers on, and exit without running:
    /// `pipeline_fingerprint=…`, `cache=read-write|write-only|off`, `cache_dir=…` and
    /// `gate_name=…`, one `name=value` line each (the GitHub Action keys its cache on them)
    #[arg(long)]
    pub print_fingerprint: bool,
    /// Make no call: print, per kind, the calls the cache answers and those to make with
    /// the tokens and cost to expect from the baseline's, and how many samples a sequential
    /// check would send
    #[arg(long, conflicts_with = "print_fingerprint")]
    pub plan: bool,
    /// Send the samples the cache does not answer in a random order (seeded by the pipeline
    /// fingerprint) and stop starting calls once every rule is decided about the full suite
    /// at its confidence [default: [check] sequential in goldgate.toml]
    #[arg(long, conflicts_with = "full")]
    pub sequential: bool,
    /// Send every sample, even when goldgate.toml asks for a sequential check
    #[arg(long)]
    pub full: bool,
    /// With --sequential: test the rules again after this many more samples are answered
    /// [default: [check] batch in goldgate.toml, else the larger of --jobs and 1% of the
    /// suite]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub batch: Option<u32>,
    #[command(flatten)]
    pub gate: GateArgs,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

#[derive(Debug, Subcommand)]
pub enum BaselineCommand {
    /// Run the suite and store the result as the new baseline (atomically)
    Refresh(Box<RefreshArgs>),
    /// Show a stored baseline: its metrics and provenance
    Show(ShowArgs),
    /// Make the current baseline the pinned reference that [drift] measures cumulative drift
    /// against (a copy at the path [drift] reference names, written atomically)
    Pin(PinArgs),
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The baseline file [default: baselines/main.json]
    #[arg(long, env = "GOLDGATE_BASELINE", value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Output format [default: text]
    #[arg(long, value_enum)]
    pub format: Option<BaselineFormat>,
}

#[derive(Debug, Args)]
pub struct RefreshArgs {
    /// The gold suite directory [default: [check] suite in goldgate.toml]
    #[arg(long, env = "GOLDGATE_SUITE", value_name = "DIR")]
    pub suite: Option<PathBuf>,
    /// Where to store the baseline [default: baselines/main.json]
    #[arg(long, env = "GOLDGATE_BASELINE", value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// thresholds.toml ([matching] and [rd_score] shape the scores)
    #[arg(long, env = "GOLDGATE_THRESHOLDS", value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    /// Write the baseline even though it drifted beyond a budget of [drift]: say why (who
    /// and why are kept in its provenance and shown by `goldgate history`)
    #[arg(long, value_name = "REASON")]
    pub accept_drift: Option<String>,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

#[derive(Debug, Subcommand)]
pub enum ThresholdsCommand {
    /// Check a thresholds file: keys, metric names, weights
    Check {
        /// The rules file [default: thresholds.toml]
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
    },
}

#[cfg(test)]
mod tests {
    /// The hook refuses check arguments that would never check a push.
    #[test]
    fn the_hook_refuses_print_fingerprint() {
        assert!(super::validate_check_args(&["--jobs".into(), "4".into()]).is_ok());
        let why = super::validate_check_args(&["--print-fingerprint".into()]).unwrap_err();
        assert!(why.contains("would never check"), "{why}");
    }
}
