//! How often the gate calls a change significant on few samples, before and after the
//! paired-samples minimum (docs/thresholds.md, "Too few samples to test"): a simulation
//! through the gate's own code — the paired bootstrap of the delta
//! (`metrics::bootstrap::paired_deltas`, 1,000 resamples, as `check` draws it) and the
//! judging of the rule (`gate::decide::judge_values`) — with and without the number of
//! paired samples it is given.
//!
//!   cargo bench --bench significance              # 1,000 repetitions per scenario
//!   cargo bench --bench significance -- --reps 5000
//!
//! Each repetition draws a suite of n samples of 5 gold items each (of the kind test
//! builds register, whose recall is matched items over gold items like every kind's);
//! sample i has its own difficulty p_i, uniform in [0.5, 1], shared by both runs (they
//! answer the same samples). The baseline finds each item with probability p_i, the
//! candidate with p_i (no change: the two runs differ by chance alone) or p_i − 0.2 (a real
//! drop of about 0.2 in recall). The rule is that recall with `max_regression = 0.02`,
//! `require_significance = true`, `confidence = 0.95`. "Before" judges the rule without
//! the number of paired samples (the gate as it was); "after" with it. The table gives the
//! share of repetitions in which the rule failed on the drop. Deterministic (fixed seeds).

use goldgate_core::gate::decide::{judge_values, Noise, Values};
use goldgate_core::gate::thresholds::Thresholds;
use goldgate_core::gate::verdict::Status;
use goldgate_core::metrics::bootstrap::{
    aggregate, interval, paired_deltas, BootstrapConfig, Prepared,
};
use goldgate_core::metrics::registry::Metric;
use goldgate_core::metrics::stats::Stats;
use goldgate_core::rng::Rng;

const GOLD: usize = 5;
const SIZES: [usize; 11] = [1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 40];

fn uniform(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// One run's sums for a sample whose items are each found with probability `p`.
fn answer(rng: &mut Rng, p: f64) -> Stats {
    let tp = (0..GOLD).filter(|_| uniform(rng) < p).count() as f64;
    let kind = goldgate_core::testkit::test_kind().name();
    let mut stats = Stats::default();
    for (sum, value) in [
        ("records", 1.0),
        ("tp", tp),
        ("fp", 0.0),
        ("fn", GOLD as f64 - tp),
    ] {
        stats.add_dynamic(format!("{kind}.{sum}"), value);
    }
    stats
}

/// Whether the rule failed (before, after) on one simulated comparison.
fn one(
    rng: &mut Rng,
    n: usize,
    drop: f64,
    recall: &'static [Metric],
    rules: &Thresholds,
    cfg: &BootstrapConfig,
) -> (bool, bool) {
    let difficulty: Vec<f64> = (0..n).map(|_| 0.5 + 0.5 * uniform(rng)).collect();
    let base: Vec<Stats> = difficulty.iter().map(|&p| answer(rng, p)).collect();
    let cand: Vec<Stats> = difficulty
        .iter()
        .map(|&p| answer(rng, (p - drop).max(0.0)))
        .collect();
    let prepare = |runs: &[Stats]| {
        let refs: Vec<&Stats> = runs.iter().collect();
        Prepared::new(recall, &refs, vec![&[][..]; runs.len()])
    };
    let (b, c) = (prepare(&base), prepare(&cand));
    let members: Vec<usize> = (0..n).collect();
    let point = BootstrapConfig {
        resamples: 0,
        ..*cfg
    };
    let value = |p: &Prepared<'_>| aggregate(p, &members, &point, "all")[recall[0].name].value;
    let draws = paired_deltas(&b, &c, cfg, "paired");
    let judged = |paired: Option<usize>| {
        let values = Values {
            candidate: value(&c),
            baseline: value(&b),
            n,
            paired,
            baseline_n: None,
            by_kind: &[],
            keyless: &[],
        };
        let noise = |confidence| Noise::Interval(interval(&draws[0], confidence));
        let result = judge_values(&recall[0], values, rules, noise, String::new);
        result.status == Status::Fail
    };
    (judged(None), judged(Some(n)))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reps = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|r| r.parse().ok())
        .unwrap_or(1000usize);
    let name = goldgate_core::testkit::metric("recall");
    let metric = *goldgate_core::kinds::find(&name).expect("a registered metric");
    let recall: &'static [Metric] = Box::leak(vec![metric].into_boxed_slice());
    let rules = Thresholds::parse(
        &format!("version = 1\n[metrics.\"{name}\"]\nmax_regression = 0.02\nrequire_significance = true\nconfidence = 0.95\n"),
        std::path::Path::new("thresholds.toml"),
    )
    .expect("the rules parse");
    let cfg = BootstrapConfig::default();
    println!(
        "{reps} repetitions per scenario; rule: {name}, max_regression = 0.02, significant at 95% (at least {} paired samples)\n",
        goldgate_core::gate::evidence::min_paired(0.95)
    );
    println!("| paired samples n | no change: fails before | no change: fails after | recall −0.2: fails before | recall −0.2: fails after |");
    println!("|---:|---:|---:|---:|---:|");
    for n in SIZES {
        let mut rng = Rng::new(0x5157_0000 + n as u64);
        let mut fails = [[0usize; 2]; 2];
        for (scenario, drop) in [0.0, 0.2].into_iter().enumerate() {
            for _ in 0..reps {
                let (before, after) = one(&mut rng, n, drop, recall, &rules, &cfg);
                fails[scenario][0] += usize::from(before);
                fails[scenario][1] += usize::from(after);
            }
        }
        let pct = |k: usize| format!("{:.1}%", 100.0 * k as f64 / reps as f64);
        println!(
            "| {n} | {} | {} | {} | {} |",
            pct(fails[0][0]),
            pct(fails[0][1]),
            pct(fails[1][0]),
            pct(fails[1][1])
        );
    }
}
