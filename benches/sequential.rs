//! How often a sequential check's verdict differs from the full check's, how often it
//! fails a change the full check passes or passes one it fails, and the share of calls it
//! makes (docs/thresholds.md, "The sequential gate"): a simulation through the gate's own
//! code. The full check is `gate::compare::compare` (the paired bootstrap with 1,000
//! resamples, as `check` draws it); the sequential one is `gate::sequential`, fed the
//! samples one at a time in a random order until every question is decided.
//!
//!   cargo bench --bench sequential              # 1,000 repetitions per scenario
//!   cargo bench --bench sequential -- --reps 200 --sizes 100,400
//!   cargo bench --bench sequential -- --drift   # with a drift budget against a pinned reference
//!
//! Each repetition draws a suite of n samples of the test kind (micro F1 over marks, like
//! extraction's requirements): sample i has 3–8 gold marks and a difficulty p_i, uniform in
//! [0.6, 1]; a run finds each mark with probability p_i and names Binomial(2, 0.25) marks
//! that are not gold, so each sample's answers differ from run to run. The baseline and
//! the candidate are two such runs, and then:
//!
//! - no change: nothing else (the runs differ by chance alone);
//! - clear drop: in 30% of the samples the candidate keeps a third of its marks (F1 falls
//!   by about 0.10);
//! - clear improvement: the same, applied to the baseline instead;
//! - at the margin: the drop applied to 6% of the samples (F1 falls by about 0.02, the
//!   allowed regression).
//!
//! The rules: F1 `min = 0.5`, `max_regression = 0.02`, `require_significance = true`,
//! `confidence = 0.95`, and the built-in ceiling of 10% failed calls; answers hold at most
//! `max_items = 20` marks. Deterministic (fixed seeds).

use goldgate_core::gate::compare::{compare, CompareOptions};
use goldgate_core::gate::drift::Reference;
use goldgate_core::gate::sequential::decide::{Decisions, Outcome, Planned};
use goldgate_core::gate::sequential::questions::{keys, questions, DriftBasis};
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::gate::verdict::Outcome as Verdict;
use goldgate_core::metrics::bootstrap::BootstrapConfig;
use goldgate_core::rng::Rng;
use goldgate_core::score::ScoreFile;
use goldgate_core::testkit::{parsed_test_kind_file, planned_test_kind};

const MAX_ITEMS: usize = 20;
const SCENARIOS: [(&str, Change); 4] = [
    ("no change", Change::None),
    ("clear drop", Change::Candidate(0.30)),
    ("clear improvement", Change::Baseline(0.30)),
    ("at the margin", Change::Candidate(0.06)),
];

#[derive(Clone, Copy)]
enum Change {
    None,
    /// The share of samples in which the candidate keeps a third of its marks.
    Candidate(f64),
    /// The same, in the baseline.
    Baseline(f64),
}

fn uniform(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// One run's (tp, fp, fn) per sample; `keep_third` marks the samples that keep a third.
fn run(
    rng: &mut Rng,
    gold: &[usize],
    p: &[f64],
    keep_third: &[bool],
) -> Vec<(f64, f64, f64, bool)> {
    gold.iter()
        .zip(p)
        .zip(keep_third)
        .map(|((&g, &p), &cut)| {
            let mut tp = (0..g).filter(|_| uniform(rng) < p).count();
            if cut {
                tp /= 3;
            }
            let fp = (0..2).filter(|_| uniform(rng) < 0.25).count();
            (tp as f64, fp as f64, (g - tp) as f64, false)
        })
        .collect()
}

struct Outcomes {
    full_fail: bool,
    seq_fail: bool,
    sent: usize,
    drop: f64,
}

fn one(
    rng: &mut Rng,
    n: usize,
    change: Change,
    rules: &Thresholds,
    options: &CompareOptions,
) -> Outcomes {
    let gold: Vec<usize> = (0..n).map(|_| 3 + rng.below(6)).collect();
    let p: Vec<f64> = (0..n).map(|_| 0.6 + 0.4 * uniform(rng)).collect();
    let share = match change {
        Change::None => 0.0,
        Change::Candidate(s) | Change::Baseline(s) => s,
    };
    let cut: Vec<bool> = (0..n).map(|_| uniform(rng) < share).collect();
    let none = vec![false; n];
    let (base_cut, cand_cut) = match change {
        Change::Baseline(_) => (&cut, &none),
        _ => (&none, &cut),
    };
    let baseline = parsed_test_kind_file(&run(rng, &gold, &p, base_cut));
    let candidate = parsed_test_kind_file(&run(rng, &gold, &p, cand_cut));
    // With a drift budget, the pinned reference: another run of the unchanged pipeline.
    let reference = rules
        .drift
        .is_some()
        .then(|| parsed_test_kind_file(&run(rng, &gold, &p, &none)));
    let options = CompareOptions {
        reference: reference.clone().map(|file| {
            std::sync::Arc::new(Reference {
                file,
                path: "reference.json".into(),
                refreshes: None,
            })
        }),
        ..options.clone()
    };
    let verdict = compare(&candidate, Some(&baseline), rules, &options).expect("comparable");
    let full_fail = verdict.verdict == Verdict::Fail;
    let f1 = |f: &ScoreFile| {
        f.metrics[&goldgate_core::testkit::metric("f1")]
            .value
            .unwrap_or(0.0)
    };
    let against = (&baseline, reference.as_ref());
    let (seq_fail, sent) = sequential(rng, &candidate, against, &gold, rules, full_fail);
    Outcomes {
        full_fail,
        seq_fail,
        sent,
        drop: f1(&baseline) - f1(&candidate),
    }
}

/// The sequential verdict (failed?) and the samples it sent: the candidate's samples in a
/// random order until every question is decided (the full verdict when they never are).
fn sequential(
    rng: &mut Rng,
    candidate: &ScoreFile,
    (baseline, reference): (&ScoreFile, Option<&ScoreFile>),
    gold: &[usize],
    rules: &Thresholds,
    full_fail: bool,
) -> (bool, usize) {
    let kind = goldgate_core::kinds::kind_of(goldgate_core::testkit::test_kind());
    let suite: std::collections::HashSet<String> =
        candidate.samples.iter().map(|s| s.id.clone()).collect();
    let drift = reference.map(|reference| DriftBasis {
        reference,
        suite: &suite,
    });
    let asked = questions(rules, Some(baseline), drift, &[kind]);
    let keys = keys(&asked);
    let mut order: Vec<usize> = (0..candidate.samples.len()).collect();
    rng.shuffle(&mut order);
    let planned: Vec<Planned> = order
        .iter()
        .map(|&i| {
            let id = &candidate.samples[i].id;
            planned_test_kind(id, "", gold[i] as f64, MAX_ITEMS as f64, &keys)
        })
        .collect();
    let mut decisions = Decisions::new(asked, keys, planned, &[], (Some(baseline), reference));
    for (sent, &i) in order.iter().enumerate() {
        if decisions.all_decided() {
            let fails = decisions
                .tracked()
                .iter()
                .any(|t| t.outcome == Outcome::Breaks);
            return (fails, sent);
        }
        decisions.observe(&candidate.samples[i]);
    }
    (full_fail, order.len())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let reps: usize = arg("--reps").and_then(|r| r.parse().ok()).unwrap_or(1000);
    let sizes: Vec<usize> = arg("--sizes")
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![100, 400, 2000]);
    let f1 = goldgate_core::testkit::metric("f1");
    // `--drift`: the rules also hold F1 against a pinned reference (another run of the
    // unchanged pipeline) within a budget of 0.05.
    let drift = match args.iter().any(|a| a == "--drift") {
        true => "[drift]\nreference = \"reference.json\"\n",
        false => "",
    };
    let rules = Thresholds::parse(
        &format!("version = 1\n{drift}[metrics.\"{f1}\"]\nmin = 0.5\nmax_regression = 0.02\nrequire_significance = true\nconfidence = 0.95\n"),
        std::path::Path::new("thresholds.toml"),
    )
    .expect("the rules parse");
    let options = CompareOptions {
        bootstrap: BootstrapConfig::default(),
        allow_version_change: false,
        ratchet: Vec::new(),
        reference: None,
    };
    let budget = match drift.is_empty() {
        true => "",
        false => ", a drift budget of 0.05 against a pinned reference (another run of the unchanged pipeline)",
    };
    println!("{reps} repetitions per scenario; F1 min 0.5, max_regression 0.02 (significant at 95%){budget}, failed calls ≤ 10%\n");
    println!("| scenario | n | F1 change | full check fails | sequential fails | differs from full | false fails | missed fails | calls made |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (name, change) in SCENARIOS {
        for &n in &sizes {
            let results: Vec<Outcomes> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        let (rules, options) = (&rules, &options);
                        scope.spawn(move || {
                            (t..reps)
                                .step_by(threads)
                                .map(|rep| {
                                    let mut rng =
                                        Rng::new(0x5E90_0000 ^ ((n as u64) << 20) ^ rep as u64);
                                    one(&mut rng, n, change, rules, options)
                                })
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("a simulation thread"))
                    .collect()
            });
            let share = |pick: &dyn Fn(&Outcomes) -> bool| {
                let k = results.iter().filter(|o| pick(o)).count();
                format!("{:.1}%", 100.0 * k as f64 / reps as f64)
            };
            let drop = results.iter().map(|o| o.drop).sum::<f64>() / reps as f64;
            let calls = results.iter().map(|o| o.sent).sum::<usize>() as f64 / (reps * n) as f64;
            println!(
                "| {name} | {n} | {:+.3} | {} | {} | {} | {} | {} | {:.0}% |",
                -drop,
                share(&|o| o.full_fail),
                share(&|o| o.seq_fail),
                share(&|o| o.full_fail != o.seq_fail),
                share(&|o| o.seq_fail && !o.full_fail),
                share(&|o| o.full_fail && !o.seq_fail),
                100.0 * calls
            );
        }
    }
}
