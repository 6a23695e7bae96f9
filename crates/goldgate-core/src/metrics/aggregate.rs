//! One aggregate as the score file reports it: the value over the scope's pooled sums with
//! its `n` and bootstrap interval and, when the run has repeats, the mean and standard
//! deviation of the value over the repeats taken as separate runs ([`Spread`]).

use serde::{Deserialize, Serialize};

/// One aggregate value: `null` with `n = 0` when there is no data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    pub value: Option<f64>,
    pub n: usize,
    pub ci: Option<[f64; 2]>,
    /// The value's spread over repeats (`mean`, `std`, `runs` beside `value`): present only
    /// in scores of runs with two or more repeats, absent in older score files.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
}

/// A metric's value computed over each repeat's records alone (repeat `r` of every sample
/// in the scope, as if it were a run of its own), summarised over the repeats where it has
/// a value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Mean of the per-repeat values (`null` when no repeat has one).
    pub mean: Option<f64>,
    /// Sample standard deviation (divided by `runs − 1`) of the per-repeat values (`null`
    /// with fewer than two).
    pub std: Option<f64>,
    /// Repeats whose value is not `null`: how many went into `mean` and `std`.
    pub runs: usize,
}

impl Spread {
    /// The spread of `values`, one per repeat, leaving out the repeats without one.
    pub fn of(values: impl IntoIterator<Item = Option<f64>>) -> Spread {
        let values: Vec<f64> = values.into_iter().flatten().collect();
        let runs = values.len();
        let mean = (runs > 0).then(|| values.iter().sum::<f64>() / runs as f64);
        let std = mean.filter(|_| runs > 1).map(|mean| {
            let squares: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
            (squares / (runs - 1) as f64).sqrt()
        });
        Spread { mean, std, runs }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_sample_std_leave_out_missing_values() {
        let s = Spread::of([Some(0.5), None, Some(0.7), Some(0.9)]);
        assert_eq!(s.runs, 3);
        assert!((s.mean.unwrap() - 0.7).abs() < 1e-15);
        // Squares 0.04 + 0 + 0.04 over 3 − 1.
        assert!((s.std.unwrap() - 0.2).abs() < 1e-15, "{s:?}");
        let one = Spread::of([None, Some(0.4)]);
        assert_eq!(
            one,
            Spread {
                mean: Some(0.4),
                std: None,
                runs: 1
            }
        );
        let none = Spread::of([None, None]);
        assert_eq!(
            none,
            Spread {
                mean: None,
                std: None,
                runs: 0
            }
        );
    }

    /// Without repeats the aggregate is written as before; with them `mean`, `std` and
    /// `runs` stand beside `value`; files without them read back as before.
    #[test]
    fn the_spread_is_written_only_when_there_is_one() {
        let plain = Aggregate {
            value: Some(0.5),
            n: 3,
            ci: Some([0.25, 0.75]),
            spread: None,
        };
        let text = serde_json::to_string(&plain).unwrap();
        assert_eq!(text, r#"{"value":0.5,"n":3,"ci":[0.25,0.75]}"#);
        assert_eq!(serde_json::from_str::<Aggregate>(&text).unwrap(), plain);
        let spread = Aggregate {
            spread: Some(Spread {
                mean: Some(0.5),
                std: None,
                runs: 1,
            }),
            ..plain.clone()
        };
        let text = serde_json::to_string(&spread).unwrap();
        assert_eq!(
            text,
            r#"{"value":0.5,"n":3,"ci":[0.25,0.75],"mean":0.5,"std":null,"runs":1}"#
        );
        assert_eq!(serde_json::from_str::<Aggregate>(&text).unwrap(), spread);
        let empty = r#"{"value":null,"n":0,"ci":null,"mean":null,"std":null,"runs":0}"#;
        assert_eq!(
            serde_json::from_str::<Aggregate>(empty).unwrap().spread,
            Some(Spread {
                mean: None,
                std: None,
                runs: 0
            })
        );
    }
}
