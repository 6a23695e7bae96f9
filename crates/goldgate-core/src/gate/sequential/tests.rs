use super::betting::{OutOfRange, Side, TotalTest};
use crate::rng::Rng;

/// The indices `0..n` in a uniformly random order.
fn shuffled_indices(n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut v);
    v
}

/// Whether `count` of `reps` repetitions is within three Monte Carlo standard errors of a
/// rate of at most `p`.
fn at_most(count: usize, reps: usize, p: f64) -> bool {
    count as f64 / reps as f64 <= p + 3.0 * (p * (1.0 - p) / reps as f64).sqrt()
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
    for i in shuffled_indices(values.len(), rng) {
        if test.decided().is_some() {
            break;
        }
        test.observe(values[i]).unwrap();
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
        // α = 0.05.
        assert!(at_most(wrong, reps, 0.05), "wrong {wrong} of {reps}");
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
    assert!(at_most(above, reps, 0.025), "above {above} of {reps}");
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

mod ratio {
    use super::super::betting::Side;
    use super::super::ratio::{RatioTest, TermBounds, Terms};
    use super::shuffled_indices;
    use crate::rng::Rng;

    /// At most this many predicted items in one answer.
    const MAX_ITEMS: f64 = 20.0;

    /// A suite of `n` samples with 3–8 gold items each.
    fn golds(n: usize, rng: &mut Rng) -> Vec<usize> {
        (0..n).map(|_| 3 + rng.below(6)).collect()
    }

    /// What each sample's F1 terms (2·TP over 2·TP + FP + FN) can be.
    fn bounds(golds: &[usize]) -> Vec<TermBounds> {
        golds
            .iter()
            .map(|&gold| TermBounds {
                numerator: 2.0 * gold as f64,
                denominator: 2.0 * gold as f64 + MAX_ITEMS,
            })
            .collect()
    }

    /// A pipeline that finds each gold item with probability `found` and adds a false item
    /// with probability 0.3: each sample's F1 terms.
    fn answers(golds: &[usize], found: f64, rng: &mut Rng) -> Vec<Terms> {
        golds
            .iter()
            .map(|&gold| {
                let tp = (0..gold)
                    .filter(|_| (rng.below(10_000) as f64) < found * 10_000.0)
                    .count();
                let fp = usize::from(rng.below(10) < 3) as f64;
                let (tp, fn_) = (tp as f64, (gold - tp) as f64);
                Terms {
                    numerator: 2.0 * tp,
                    denominator: 2.0 * tp + fp + fn_,
                }
            })
            .collect()
    }

    fn suite(n: usize, found: f64, rng: &mut Rng) -> (Vec<Terms>, Vec<TermBounds>) {
        let golds = golds(n, rng);
        (answers(&golds, found, rng), bounds(&golds))
    }

    fn f1(terms: &[Terms]) -> f64 {
        let (a, b) = terms
            .iter()
            .fold((0.0, 0.0), |(a, b), t| (a + t.numerator, b + t.denominator));
        a / b
    }

    /// Draw the suite in a random order until the test decides; the side and the draws.
    fn decide(
        terms: &[Terms],
        bounds: &[TermBounds],
        theta: f64,
        paired: Option<Vec<f64>>,
        rng: &mut Rng,
    ) -> (Option<Side>, usize) {
        let mut test = RatioTest::new(theta, &[], bounds, paired, 0.05);
        let mut drawn = 0;
        for i in shuffled_indices(terms.len(), rng) {
            if test.decided().is_some() {
                break;
            }
            test.observe(i, terms[i]).unwrap();
            drawn += 1;
        }
        (test.decided(), drawn)
    }

    #[test]
    fn a_clear_drop_in_f1_is_found_below_the_floor_early_and_no_change_never_is() {
        let mut rng = Rng::new(17);
        let golds = golds(400, &mut rng);
        let (baseline, bounds) = (answers(&golds, 0.85, &mut rng), bounds(&golds));
        let floor = f1(&baseline) - 0.02;
        // The baseline's own term per sample, at its own F1: a total of zero.
        let base_f1 = f1(&baseline);
        let paired: Vec<f64> = baseline
            .iter()
            .map(|t| t.numerator - base_f1 * t.denominator)
            .collect();
        let (mut below, mut draws) = (0, 0);
        for _ in 0..100 {
            let candidate = answers(&golds, 0.70, &mut rng);
            assert!(f1(&candidate) < floor - 0.05);
            let (side, drawn) = decide(&candidate, &bounds, floor, None, &mut rng);
            below += usize::from(side == Some(Side::Below));
            draws += drawn;
        }
        assert_eq!(below, 100, "every clear drop is found");
        assert!(draws / 100 < 200, "after {} draws on average", draws / 100);
        // The baseline itself, paired with itself: never below the floor.
        for _ in 0..100 {
            let (side, _) = decide(&baseline, &bounds, floor, Some(paired.clone()), &mut rng);
            assert_eq!(side, Some(Side::Above));
        }
    }

    #[test]
    fn the_side_found_is_the_full_suites_side_at_least_one_minus_alpha_of_the_time() {
        // Candidates whose F1 lies near the floor, on either side.
        let mut rng = Rng::new(23);
        let (mut wrong, mut decided, reps) = (0, 0, 400);
        for rep in 0..reps {
            let found = 0.80 + 0.1 * (rep % 5) as f64 / 4.0;
            let (candidate, bounds) = suite(200, found, &mut rng);
            let floor = 0.86;
            let truth = if f1(&candidate) >= floor {
                Side::Above
            } else {
                Side::Below
            };
            let (side, _) = decide(&candidate, &bounds, floor, None, &mut rng);
            if let Some(side) = side {
                decided += 1;
                wrong += usize::from(side != truth);
            }
        }
        assert!(decided > 0);
        assert!(
            wrong as f64 / reps as f64 <= 0.05,
            "{wrong} wrong of {reps}"
        );
    }

    #[test]
    fn known_samples_move_the_bound_and_alone_give_the_exact_side() {
        let known = [Terms {
            numerator: 8.0,
            denominator: 10.0,
        }];
        let exact = RatioTest::new(0.75, &known, &[], None, 0.05);
        assert_eq!(exact.decided(), Some(Side::Above));
        let exact = RatioTest::new(0.85, &known, &[], None, 0.05);
        assert_eq!(exact.decided(), Some(Side::Below));
        // One sample to draw, bounded by 10/10: with 8/10 known, 0.95 cannot be reached.
        let bounds = [TermBounds {
            numerator: 10.0,
            denominator: 10.0,
        }];
        let test = RatioTest::new(0.95, &known, &bounds, None, 0.05);
        assert_eq!(test.decided(), Some(Side::Below));
    }
}
