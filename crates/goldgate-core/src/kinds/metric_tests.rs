//! The metrics machinery (sums interned per sample, the bootstrap, runs over repeats) over
//! the real registry the kinds make: tests that need every kind's metrics, kept above the
//! kinds so that `metrics` never names a kind.

use crate::metrics::aggregate::{Aggregate, Spread};
use crate::metrics::bootstrap::{aggregate, BootstrapConfig, Prepared};
use crate::metrics::registry::Eval;
use crate::metrics::runs::{Runs, SampleRuns};
use crate::metrics::stats::{Interned, Stats};

/// A sample (or one record) of extraction: its true and false positives and false negatives.
fn sample(tp: f64, fp: f64, fn_: f64) -> Stats {
    let mut stats = Stats::default();
    stats.add("ext.records", 1.0);
    stats.add("ext.tp", tp);
    stats.add("ext.fp", fp);
    stats.add("ext.fn", fn_);
    stats
}

fn record(tp: f64, fp: f64, fn_: f64) -> Stats {
    sample(tp, fp, fn_)
}

fn spread_of(runs: &Runs<'_>, members: &[usize], name: &str) -> Spread {
    let at = runs.metrics().iter().position(|m| m.name == name).unwrap();
    runs.spread(members)[at]
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-12)
}

/// A sample's values read through the interned keys are the values its own sums give,
/// for every metric, with keys other samples have and it lacks.
#[test]
fn sample_values_are_read_from_the_samples_own_sums() {
    let mut a = sample(3.0, 1.0, 0.0);
    a.add("ext.cal.9.n", 2.0);
    a.add("ext.cal.9.conf", 1.9);
    a.add("ext.cal.9.correct", 1.0);
    a.add("ext.cal.n", 2.0);
    a.add_dynamic("ext.type_pair:functional|functional".to_string(), 2.0);
    let b = sample(0.0, 2.0, 5.0);
    let metrics = crate::kinds::metrics();
    // Many samples, so that one thread reads several in turn.
    let samples: Vec<&Stats> = (0..200).map(|i| if i % 2 == 0 { &a } else { &b }).collect();
    let prepared = Prepared::new(metrics, &samples, vec![&[]; samples.len()]);
    let values = prepared.sample_values(|_| metrics.iter());
    for (stats, values) in samples.into_iter().zip(&values) {
        let direct: Vec<(&str, f64)> = metrics
            .iter()
            .filter(|m| matches!(m.eval, Eval::Sums(_)))
            .filter_map(|m| m.value(stats).map(|v| (m.name, v)))
            .collect();
        assert!(!direct.is_empty());
        assert_eq!(values, &direct);
    }
}

#[test]
fn reproducible_and_brackets_the_value() {
    let samples: Vec<Stats> = (0..50)
        .map(|i| sample((i % 5) as f64, (i % 3) as f64, (i % 2) as f64))
        .collect();
    let refs: Vec<&Stats> = samples.iter().collect();
    let prepared = Prepared::new(crate::kinds::metrics(), &refs, vec![&[][..]; samples.len()]);
    let members: Vec<usize> = (0..samples.len()).collect();
    let cfg = BootstrapConfig {
        resamples: 300,
        ..BootstrapConfig::default()
    };
    let a = aggregate(&prepared, &members, &cfg, "all");
    let b = aggregate(&prepared, &members, &cfg, "all");
    assert_eq!(a, b);
    let f1 = &a["extraction.f1"];
    let [lo, hi] = f1.ci.unwrap();
    let v = f1.value.unwrap();
    assert!(lo <= v && v <= hi && lo < hi, "{lo} {v} {hi}");
    assert_eq!(f1.n, 50);
    assert_eq!(
        a["validation.f1"],
        Aggregate {
            value: None,
            n: 0,
            ci: None,
            spread: None
        }
    );
}

#[test]
fn every_metric_has_the_range_its_values_take() {
    let range = |name: &str| crate::kinds::find(name).unwrap().bounds();
    assert_eq!(range("extraction.f1"), (0.0, 1.0));
    assert_eq!(range("extraction.ece"), (0.0, 1.0));
    assert_eq!(range("run.error_rate"), (0.0, 1.0));
    assert_eq!(range("e2e.rd_score"), (0.0, 1.0));
    assert_eq!(range("extraction.kappa"), (-1.0, 1.0));
    assert_eq!(range("validation.severity_kappa"), (-1.0, 1.0));
    for unbounded in ["run.latency_p95_ms", "run.tokens_total", "run.cost_usd"] {
        assert_eq!(range(unbounded), (0.0, f64::INFINITY), "{unbounded}");
    }
}

/// Three samples × three repeats, TP/FP/FN per record given by hand; the third sample
/// has no record of repeat 1 and one (its only one) of repeat 2.
#[test]
fn each_repeat_is_a_run_of_its_own() {
    let metrics = crate::kinds::metrics();
    let a = vec![
        record(2.0, 0.0, 0.0),
        record(1.0, 0.0, 1.0),
        record(1.0, 1.0, 1.0),
    ];
    let b = vec![
        record(2.0, 0.0, 0.0),
        record(2.0, 0.0, 0.0),
        record(2.0, 1.0, 0.0),
    ];
    let c = vec![record(1.0, 0.0, 1.0)];
    let lat = |l: f64| Some(l);
    let (pa, ra) = SampleRuns::pool(&[(0, lat(10.0)), (1, lat(30.0)), (2, None)], a);
    let (pb, rb) = SampleRuns::pool(&[(0, lat(20.0)), (1, lat(50.0)), (2, None)], b);
    let (pc, rc) = SampleRuns::pool(&[(2, lat(90.0))], c);
    assert_eq!(
        pa.iter().collect::<Vec<_>>(),
        [
            ("ext.fn", 2.0),
            ("ext.fp", 1.0),
            ("ext.records", 3.0),
            ("ext.tp", 4.0)
        ]
    );
    let samples = [ra, rb, rc];
    let interned = Interned::new(&[&pa, &pb, &pc]);
    let runs = Runs::new(metrics, &interned, &samples);
    // Repeat 0: TP 4 → F1 1. Repeat 1: TP 3, FN 1 → P 1, R 3/4, F1 6/7. Repeat 2: TP 4,
    // FP 2, FN 2 → F1 2/3.
    let f1 = spread_of(&runs, &[0, 1, 2], "extraction.f1");
    let values = [1.0, 6.0 / 7.0, 2.0 / 3.0];
    let mean = values.iter().sum::<f64>() / 3.0;
    let std = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    assert_eq!(f1.runs, 3);
    assert!(close(f1.mean, mean) && close(f1.std, std), "{f1:?}");
    // Latency p50 per repeat: [10, 20] → 15, [30, 50] → 40, [90] → 90.
    let p50 = spread_of(&runs, &[0, 1, 2], "run.latency_p50_ms");
    assert_eq!(p50.runs, 3);
    assert!(close(p50.mean, (15.0 + 40.0 + 90.0) / 3.0), "{p50:?}");
    // The third sample alone has one run: no standard deviation.
    let alone = spread_of(&runs, &[2], "extraction.f1");
    assert_eq!(alone.runs, 1);
    assert!(
        close(alone.mean, 2.0 / 3.0) && alone.std.is_none(),
        "{alone:?}"
    );
    // A metric without data in any repeat.
    let none = spread_of(&runs, &[0, 1, 2], "inference.relevance");
    assert_eq!((none.mean, none.std, none.runs), (None, None, 0));
    // No members: nothing.
    assert_eq!(spread_of(&runs, &[], "extraction.f1").runs, 0);
}
