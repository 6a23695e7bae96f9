//! How often the fix/break analysis counts a flip of a flaky sample, and how often it still
//! counts a real break (docs/metrics.md, "Repeats, flaky samples and the verdict"): a
//! simulation through the analysis's own code (`gate::samples::analyse_primaries`, which
//! leaves a flip within the sample's observed spread uncounted, `gate::flaky`).
//!
//!   cargo bench --bench flaky                  # 10,000 repetitions per scenario
//!   cargo bench --bench flaky -- --reps 2000
//!
//! One sample, `sample_pass = 0.8`: a run passes with probability p (primary 1.0) and
//! otherwise fails (primary 0.4). The baseline keeps `runs_b` runs (its repeats and the
//! earlier runs `baseline refresh` carried over), the candidate makes `runs_c`; each side's
//! mean primary decides whether it passes, as the analysis does. Scenarios:
//!
//! - unchanged: the same p on both sides (1.0 stable, 0.9, 0.7, 0.5 flaky): every counted
//!   flip is a false fix or break;
//! - real break: the candidate never passes (p from 1.0 or 0.9 to 0);
//! - half break: a stable sample that now passes half the time (p from 1.0 to 0.5).
//!
//! For each, the share of repetitions where the sample flipped at all (what counting every
//! flip reports), where the flip was counted as fixed or broken, and where it was listed as
//! a flaky flip instead. Deterministic (a fixed seed).

use std::collections::HashMap;

use goldgate_core::gate::flaky::Outcomes;
use goldgate_core::gate::samples::analyse_primaries;
use goldgate_core::rng::Rng;

const SAMPLE_PASS: f64 = 0.8;
const RUNS: [(usize, usize); 6] = [(1, 1), (20, 1), (1, 3), (5, 5), (10, 5), (20, 5)];
const SCENARIOS: [(&str, f64, f64); 7] = [
    ("unchanged, stable", 1.0, 1.0),
    ("unchanged, p = 0.9", 0.9, 0.9),
    ("unchanged, p = 0.7", 0.7, 0.7),
    ("unchanged, p = 0.5", 0.5, 0.5),
    ("real break, from stable", 1.0, 0.0),
    ("real break, from p = 0.9", 0.9, 0.0),
    ("half break, from stable", 1.0, 0.5),
];

fn uniform(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// `runs` primary scores, each passing with probability `p`.
fn runs(rng: &mut Rng, p: f64, runs: usize) -> Vec<f64> {
    (0..runs)
        .map(|_| if uniform(rng) < p { 1.0 } else { 0.4 })
        .collect()
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

fn main() {
    let mut reps = 10_000usize;
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--reps") {
        reps = args[i + 1].parse().expect("--reps N");
    }
    let mut rng = Rng::new(20261129);
    println!("| scenario | baseline runs | candidate runs | flipped | counted as fixed or broken | listed as flaky |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, p_b, p_c) in SCENARIOS {
        for (runs_b, runs_c) in RUNS {
            let (mut flipped, mut counted, mut flaky) = (0usize, 0usize, 0usize);
            for _ in 0..reps {
                let base = runs(&mut rng, p_b, runs_b);
                let cand = runs(&mut rng, p_c, runs_c);
                let before: HashMap<&str, (f64, Outcomes)> = [(
                    "s",
                    (mean(&base), Outcomes::of(base.iter().copied(), SAMPLE_PASS)),
                )]
                .into();
                let outcomes = Outcomes::of(cand.iter().copied(), SAMPLE_PASS);
                let a = analyse_primaries(
                    &before,
                    [("s", mean(&cand), outcomes, None)].into_iter(),
                    SAMPLE_PASS,
                );
                let n = a.fix + a.break_;
                counted += n;
                flaky += a.flaky.len();
                flipped += n + a.flaky.len();
            }
            let pct = |x: usize| format!("{:.1}%", 100.0 * x as f64 / reps as f64);
            println!(
                "| {name} | {runs_b} | {runs_c} | {} | {} | {} |",
                pct(flipped),
                pct(counted),
                pct(flaky)
            );
        }
    }
    println!("\n{reps} repetitions per row.");
}
