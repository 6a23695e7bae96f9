use super::betting::{OutOfRange, Side, TotalTest};
use crate::rng::Rng;

/// A uniformly random order of `values` (Fisher–Yates).
fn shuffled(values: &[f64], rng: &mut Rng) -> Vec<f64> {
    let mut v = values.to_vec();
    for i in (1..v.len()).rev() {
        v.swap(i, rng.below(i + 1));
    }
    v
}

/// Draw the whole population in a random order; the side found and after how many draws.
fn run(
    values: &[f64],
    lo: f64,
    hi: f64,
    bound: f64,
    alpha: f64,
    rng: &mut Rng,
) -> (Option<Side>, usize) {
    let mut test = TotalTest::new(values.len(), lo, hi, bound, alpha);
    for x in shuffled(values, rng) {
        if test.decided().is_some() {
            break;
        }
        test.observe(x).unwrap();
    }
    (test.decided(), test.drawn())
}

/// `ones` values of 1 among `n`, the rest 0.
fn binary(n: usize, ones: usize) -> Vec<f64> {
    (0..n).map(|i| if i < ones { 1.0 } else { 0.0 }).collect()
}

#[test]
fn a_total_exactly_at_the_bound_is_rarely_called_either_side() {
    // However often it is looked at (after every draw), a side is found wrongly at most
    // α/2 of the time each: here no side is right.
    let mut rng = Rng::new(7);
    let reps = 2000;
    for (values, lo, hi) in [
        (binary(200, 60), 0.0, 1.0),
        // Skewed, on a wider range: most values small, a few large.
        (
            (0..300)
                .map(|i| if i % 10 == 0 { 9.0 } else { (i % 3) as f64 })
                .collect::<Vec<_>>(),
            0.0,
            9.0,
        ),
    ] {
        let total: f64 = values.iter().sum();
        let wrong = (0..reps)
            .filter(|_| run(&values, lo, hi, total, 0.05, &mut rng).0.is_some())
            .count();
        let rate = wrong as f64 / reps as f64;
        // α = 0.05, with three standard errors of the Monte Carlo estimate.
        assert!(
            rate <= 0.05 + 3.0 * (0.05f64 * 0.95 / reps as f64).sqrt(),
            "wrong {rate}"
        );
    }
}

#[test]
fn a_total_just_below_the_bound_is_rarely_called_above() {
    let mut rng = Rng::new(11);
    let reps = 2000;
    let values = binary(400, 120);
    let above = (0..reps)
        .filter(|_| run(&values, 0.0, 1.0, 121.0, 0.05, &mut rng).0 == Some(Side::Above))
        .count();
    let rate = above as f64 / reps as f64;
    assert!(
        rate <= 0.025 + 3.0 * (0.025f64 * 0.975 / reps as f64).sqrt(),
        "above {rate}"
    );
}

#[test]
fn a_clear_difference_is_found_long_before_the_population_is_drawn() {
    let mut rng = Rng::new(3);
    let values = binary(400, 240); // a mean of 0.6 against a bound at 0.5
    let mut draws = Vec::new();
    for _ in 0..200 {
        let (side, drawn) = run(&values, 0.0, 1.0, 200.0, 0.05, &mut rng);
        assert_eq!(side, Some(Side::Above));
        draws.push(drawn);
    }
    let mean = draws.iter().sum::<usize>() as f64 / draws.len() as f64;
    assert!(mean < 200.0, "found after {mean} draws on average");
    let values = binary(400, 160); // 0.4 against 0.5
    let (side, drawn) = run(&values, 0.0, 1.0, 200.0, 0.05, &mut rng);
    assert_eq!(side, Some(Side::Below));
    assert!(drawn < 400);
}

#[test]
fn what_remains_decides_when_no_draw_still_to_come_could_reach_the_bound() {
    // 10 values in [0, 1], bound 7: after drawing four zeros, the six left sum to at most 6.
    let mut test = TotalTest::new(10, 0.0, 1.0, 7.0, 0.05);
    for _ in 0..3 {
        test.observe(0.0).unwrap();
        assert_eq!(test.decided(), None);
    }
    test.observe(0.0).unwrap();
    assert_eq!(test.decided(), Some(Side::Below));
    // Eight ones of ten against a bound of 7.5: above once the total passes it.
    let mut test = TotalTest::new(10, 0.0, 1.0, 7.5, 0.05);
    for _ in 0..7 {
        test.observe(1.0).unwrap();
    }
    assert_eq!(
        test.decided(),
        None,
        "seven ones cannot yet pass 7.5 for sure"
    );
    test.observe(1.0).unwrap();
    assert_eq!(test.decided(), Some(Side::Above));
}

#[test]
fn every_value_drawn_gives_the_exact_side() {
    let mut test = TotalTest::new(3, 0.0, 1.0, 1.5, 1e-9);
    for x in [0.5, 0.5, 0.6] {
        test.observe(x).unwrap();
    }
    assert_eq!(test.decided(), Some(Side::Above));
}

#[test]
fn a_population_that_cannot_vary_is_known_before_any_draw() {
    assert_eq!(
        TotalTest::new(5, 2.0, 2.0, 9.0, 0.05).decided(),
        Some(Side::Above)
    );
    assert_eq!(
        TotalTest::new(5, 2.0, 2.0, 11.0, 0.05).decided(),
        Some(Side::Below)
    );
    assert_eq!(TotalTest::new(5, 2.0, 2.0, 10.0, 0.05).decided(), None);
}

#[test]
fn values_outside_the_range_or_past_the_population_are_refused() {
    let mut test = TotalTest::new(2, 0.0, 1.0, 1.0, 0.05);
    assert_eq!(test.observe(1.5), Err(OutOfRange::Value(1.5)));
    assert_eq!(test.observe(f64::NAN).map_err(|_| ()), Err(()));
    assert_eq!(test.drawn(), 0);
    test.observe(0.5).unwrap();
    test.observe(0.5).unwrap();
    assert_eq!(test.observe(0.5), Err(OutOfRange::Exhausted));
}

/// The reference: confseq's `betting_mart` (Waudby-Smith and Ramdas' own package), written
/// by `benches/sequential_reference.py`.
#[derive(serde::Deserialize)]
struct Reference {
    cases: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    population: usize,
    m: f64,
    alpha: f64,
    side: Side,
    x: Vec<f64>,
    log_capital: Vec<Option<f64>>,
}

#[test]
fn the_capital_after_every_draw_is_the_references() {
    let reference: Reference = serde_json::from_str(include_str!("reference.json")).unwrap();
    assert_eq!(reference.cases.len(), 8);
    for case in &reference.cases {
        let n = case.population as f64;
        let mut test = TotalTest::new(case.population, 0.0, 1.0, case.m * n, case.alpha);
        for (i, (&x, expected)) in case.x.iter().zip(&case.log_capital).enumerate() {
            test.observe(x).unwrap();
            let (above, below) = test.log_capital();
            let ours = match case.side {
                Side::Above => above,
                Side::Below => below,
            };
            match expected {
                // No population with mean m is consistent with the draws: found for sure.
                None => {
                    assert!(test.decided().is_some(), "draw {i} of {:?}", case.side);
                    break;
                }
                Some(expected) => assert!(
                    (ours - expected).abs() <= 1e-9 * expected.abs().max(1.0),
                    "m {} {:?}, draw {i}: ln K {ours}, reference {expected}",
                    case.m,
                    case.side
                ),
            }
            if test.decided().is_some() {
                // From here the test stops betting; the reference has crossed too, unless
                // the other side decided.
                if test.decided() == Some(case.side) {
                    assert!(expected.unwrap() >= (2.0 / case.alpha).ln());
                }
                break;
            }
        }
    }
}

mod order {
    use super::super::order::send_order;

    fn strata() -> Vec<&'static str> {
        // 6 of a, 3 of b, 1 of c, mixed up.
        vec!["a", "b", "a", "c", "a", "b", "a", "a", "b", "a"]
    }

    #[test]
    fn every_sample_is_sent_once_in_an_order_the_seed_alone_decides() {
        let strata = strata();
        let order = send_order(&strata, 42);
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..strata.len()).collect::<Vec<_>>());
        assert_eq!(
            send_order(&strata, 42),
            order,
            "the same seed, the same order"
        );
        assert!(
            (0..20).any(|seed| send_order(&strata, seed) != order),
            "other seeds give other orders"
        );
        assert!(send_order::<&str>(&[], 1).is_empty());
    }

    #[test]
    fn each_stratum_keeps_its_share_of_every_prefix() {
        let strata: Vec<String> = (0..400)
            .map(|i| ["first", "second", "third"][(i * 7 % 10).min(2)].to_string())
            .collect();
        let n = strata.len() as f64;
        for seed in 0..20 {
            let order = send_order(&strata, seed);
            for name in ["first", "second", "third"] {
                let size = strata.iter().filter(|s| *s == name).count() as f64;
                let mut sent = 0.0;
                for (t, &i) in order.iter().enumerate() {
                    sent += f64::from(u8::from(strata[i] == name));
                    let share = (t + 1) as f64 * size / n;
                    assert!(
                        (sent - share).abs() < 1.0 + 1e-9,
                        "{name} at {t}: {sent} of {share}"
                    );
                }
            }
        }
    }

    #[test]
    fn within_a_stratum_every_sample_is_equally_likely_to_come_first() {
        let strata = strata();
        let mut first_a = [0usize; 10];
        let reps = 6000;
        for seed in 0..reps {
            let order = send_order(&strata, seed);
            let first = order.iter().find(|&&i| strata[i] == "a").unwrap();
            first_a[*first] += 1;
        }
        // Six samples of a: each first about 1,000 times (binomial sd about 29).
        for (i, &count) in first_a.iter().enumerate() {
            if strata[i] == "a" {
                assert!(
                    (count as f64 - 1000.0).abs() < 150.0,
                    "sample {i} first {count} times"
                );
            } else {
                assert_eq!(count, 0);
            }
        }
    }
}
