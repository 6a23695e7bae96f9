//! Deciding the gate's questions while samples come in: each question's ratio tested on
//! the samples of its population seen so far, in the order they were sent, and what it
//! decided, when, and why the others are still open.
//!
//! A floor, a ceiling and an allowed regression are each one [`RatioTest`] at the bound
//! they break on. A regression the full check would also need to be significant breaks
//! only beyond what its paired-bootstrap interval would call noise on the full suite: the
//! sampling error of the change is estimated once, on the first tenth of the population
//! (at least [`SPREAD_FROM`] samples), and a second test, on the samples after those,
//! decides whether the value falls further than `max(allowed, SLACK · z · se)` below the
//! baseline's. Before that, such a regression can only be found to hold.

use serde::Serialize;

use super::betting::Side;
use super::questions::{Check, Question};
use super::ratio::{RatioTest, TermBounds, Terms};
use crate::metrics::registry::Ratio;
use crate::metrics::stats::Sums;
use crate::sample::Kind;

/// Samples seen before the change's sampling error is estimated, at the least.
pub const SPREAD_FROM: usize = 30;

/// How far beyond the estimated noise of the full check's interval a significant
/// regression must be found: a margin for the estimate's own error.
pub const SLACK: f64 = 1.5;

/// A sample still to be answered, in the order it is sent.
#[derive(Clone, Debug)]
pub struct Planned {
    pub id: String,
    pub kind: Kind,
    /// The most its records (every repeat) can add to each statistic the questions read, in
    /// the order of [`super::questions::keys`] (`None`: unknown).
    pub bounds: Vec<Option<f64>>,
}

/// Where a question stands.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "why")]
pub enum Outcome {
    /// Not decided yet.
    Open,
    /// The full suite's value keeps the rule.
    Holds,
    /// The full suite's value breaks the rule.
    Breaks,
    /// Cannot be decided before every sample is in, for this reason.
    Waits(String),
}

/// A question with its tests and what they found.
#[derive(Clone, Debug)]
pub struct Tracked {
    pub question: Question,
    pub outcome: Outcome,
    /// Samples answered (cached ones included) when it was decided.
    pub decided_at: Option<usize>,
    /// For each planned sample, its place in this question's population.
    member_of: Vec<Option<usize>>,
    bounds: Vec<TermBounds>,
    /// Each member's baseline term (zero without a baseline sample), for the paired test
    /// and the change's spread.
    paired: Vec<f64>,
    /// The terms seen so far, with those known before the first call.
    seen: Vec<Terms>,
    known: Vec<Terms>,
    holds: Option<RatioTest>,
    breaks: Option<RatioTest>,
    /// The bound the question breaks on and whether breaking is falling below it.
    bound: f64,
    below_breaks: bool,
}

/// Every question of a sequential check, fed the samples in the order they were sent.
#[derive(Clone, Debug)]
pub struct Decisions {
    keys: Vec<&'static str>,
    tracked: Vec<Tracked>,
    planned: Vec<Planned>,
    /// Samples answered before the first call (the cache's).
    known: usize,
    seen: usize,
    baseline: Option<std::collections::HashMap<String, crate::metrics::stats::Stats>>,
}

/// A sample's terms in `ratio`.
fn terms(ratio: &Ratio, sums: &dyn Sums) -> Terms {
    let (numerator, denominator) = ratio.parts(sums);
    Terms {
        numerator,
        denominator,
    }
}

impl Decisions {
    /// The questions' tests over `planned` (in sending order), with `known` the scores of
    /// the samples answered already and `baseline` the baseline's scores (for the paired
    /// regressions).
    pub fn new(
        questions: Vec<Question>,
        keys: Vec<&'static str>,
        planned: Vec<Planned>,
        known: &[crate::score::SampleScore],
        baseline: Option<&crate::score::ScoreFile>,
    ) -> Decisions {
        let baseline = baseline.map(|b| {
            b.samples
                .iter()
                .map(|s| (s.id.clone(), s.stats.clone()))
                .collect::<std::collections::HashMap<_, _>>()
        });
        let mut decisions = Decisions {
            keys,
            tracked: Vec::new(),
            known: known.len(),
            seen: 0,
            planned,
            baseline,
        };
        decisions.tracked = questions
            .into_iter()
            .map(|q| decisions.track(q, known))
            .collect();
        decisions
    }

    /// A question's population, bounds and first test.
    fn track(&self, question: Question, known: &[crate::score::SampleScore]) -> Tracked {
        let (bound, below_breaks) = question.bound();
        let mut tracked = Tracked {
            outcome: Outcome::Open,
            decided_at: None,
            member_of: vec![None; self.planned.len()],
            bounds: Vec::new(),
            paired: Vec::new(),
            seen: Vec::new(),
            known: Vec::new(),
            holds: None,
            breaks: None,
            bound,
            below_breaks,
            question,
        };
        let Some(ratio) = tracked.question.ratio() else {
            let why = tracked.question.waits.clone().unwrap_or_default();
            tracked.outcome = Outcome::Waits(why);
            return tracked;
        };
        let kind = tracked.question.kind;
        let owner = crate::kinds::owner(tracked.question.metric.name);
        let counts = |k: Kind| kind.is_none_or(|only| only == k) && owner.is_none_or(|o| o == k);
        tracked.known = known
            .iter()
            .filter(|s| counts(s.kind))
            .map(|s| terms(&ratio, &s.stats))
            .collect();
        let index = |key: &str| self.keys.iter().position(|k| *k == key);
        for (i, planned) in self.planned.iter().enumerate() {
            if !counts(planned.kind) {
                continue;
            }
            let side = |parts: &[(&str, f64)]| -> Option<f64> {
                parts
                    .iter()
                    .map(|(key, w)| Some(w.max(0.0) * planned.bounds[index(key)?]?))
                    .sum()
            };
            let (Some(numerator), Some(denominator)) =
                (side(ratio.numerator), side(ratio.denominator))
            else {
                tracked.outcome = Outcome::Waits(format!(
                    "how much one answer can add to it is not known ({})",
                    planned.id
                ));
                return tracked;
            };
            tracked.member_of[i] = Some(tracked.bounds.len());
            tracked.bounds.push(TermBounds {
                numerator,
                denominator,
            });
            let base = self.baseline.as_ref().and_then(|b| b.get(&planned.id));
            tracked.paired.push(match (&tracked.question.check, base) {
                (Check::Regression { baseline, .. }, Some(stats)) => {
                    let t = terms(&ratio, stats);
                    t.numerator - baseline * t.denominator
                }
                _ => 0.0,
            });
        }
        if tracked.bounds.is_empty() {
            let why = "no sample is left to send that counts towards it";
            tracked.outcome = Outcome::Waits(why.into());
            return tracked;
        }
        match tracked.certain() {
            Some(outcome) => tracked.outcome = outcome,
            None => {
                let alpha = 1.0 - tracked.question.confidence;
                let paired = matches!(tracked.question.check, Check::Regression { .. })
                    .then(|| tracked.paired.clone());
                tracked.holds = Some(RatioTest::new(
                    bound,
                    &tracked.known,
                    &tracked.bounds,
                    paired,
                    alpha,
                ));
            }
        }
        tracked
    }

    /// Give the next sample's score, in the order the samples were sent.
    pub fn observe(&mut self, score: &crate::score::SampleScore) {
        let position = self.seen;
        self.seen += 1;
        let answered = self.known + self.seen;
        for tracked in &mut self.tracked {
            if tracked.outcome != Outcome::Open {
                continue;
            }
            let Some(member) = tracked.member_of.get(position).copied().flatten() else {
                continue;
            };
            let ratio = tracked.question.ratio().expect("an open question has a ratio");
            let t = terms(&ratio, &score.stats);
            tracked.seen.push(t);
            tracked.step(member, t);
            if tracked.outcome != Outcome::Open {
                tracked.decided_at = Some(answered);
            }
        }
    }

    /// Every question with where it stands.
    pub fn tracked(&self) -> &[Tracked] {
        &self.tracked
    }

    /// Whether every question is decided: no further sample can change the verdict.
    pub fn all_decided(&self) -> bool {
        self.tracked
            .iter()
            .all(|t| matches!(t.outcome, Outcome::Holds | Outcome::Breaks))
    }

    /// Samples answered so far, the cache's included.
    pub fn answered(&self) -> usize {
        self.known + self.seen
    }

    /// Samples in the suite: answered and still to send.
    pub fn total(&self) -> usize {
        self.known + self.planned.len()
    }
}

impl Tracked {
    /// The outcome when the bound leaves no doubt whatever the values (a ratio lies in
    /// `[0, 1]`).
    fn certain(&self) -> Option<Outcome> {
        match (self.below_breaks, self.bound) {
            (true, b) if b <= 0.0 => Some(Outcome::Holds),
            (false, b) if b >= 1.0 => Some(Outcome::Holds),
            (true, b) if b > 1.0 => Some(Outcome::Waits(
                "its floor is above any value it can take".into(),
            )),
            (false, b) if b < 0.0 => Some(Outcome::Waits(
                "its ceiling is below any value it can take".into(),
            )),
            _ => None,
        }
    }

    /// Member `member`'s terms are in: feed the tests, start the significance test when its
    /// spread can be estimated, and take what they decide.
    fn step(&mut self, member: usize, t: Terms) {
        let refused = |_| Outcome::Waits("an answer counted more than its bound allows".into());
        if let Some(test) = &mut self.holds {
            if let Err(e) = test.observe(member, t) {
                self.outcome = refused(e);
                return;
            }
        }
        if let Some(test) = &mut self.breaks {
            let first = self.bounds.len() - test.population();
            if let Err(e) = test.observe(member - first, t) {
                self.outcome = refused(e);
                return;
            }
        }
        let significance = matches!(
            self.question.check,
            Check::Regression {
                significance: true,
                ..
            }
        );
        let start = SPREAD_FROM.max(self.bounds.len() / 10);
        if significance && self.breaks.is_none() && self.seen.len() == start {
            self.breaks = self.significance_test();
        }
        let holds_side = match self.below_breaks {
            true => Side::Above,
            false => Side::Below,
        };
        let breaks_side = match holds_side {
            Side::Above => Side::Below,
            Side::Below => Side::Above,
        };
        let holds = self.holds.as_ref().and_then(RatioTest::decided);
        let breaks = self.breaks.as_ref().and_then(RatioTest::decided);
        if holds == Some(holds_side) {
            self.outcome = Outcome::Holds;
        } else if breaks == Some(breaks_side) || (!significance && holds == Some(breaks_side)) {
            self.outcome = Outcome::Breaks;
        }
    }

    /// The test that the value falls beyond the full check's noise: on the members after
    /// those seen, with the seen ones known.
    fn significance_test(&self) -> Option<RatioTest> {
        let Check::Regression {
            baseline, allowed, ..
        } = self.question.check
        else {
            return None;
        };
        let n = self.seen.len();
        if n >= self.bounds.len() {
            return None;
        }
        let margin = allowed.max(SLACK * self.noise()?);
        let bound = match self.below_breaks {
            true => baseline - margin,
            false => baseline + margin,
        };
        if !(0.0..=1.0).contains(&bound) {
            return None;
        }
        let known: Vec<Terms> = self.known.iter().chain(&self.seen).copied().collect();
        let alpha = 1.0 - self.question.confidence;
        Some(RatioTest::new(
            bound,
            &known,
            &self.bounds[n..],
            Some(self.paired[n..].to_vec()),
            alpha,
        ))
    }

    /// `z · se` of the change on the full suite, as the paired bootstrap would see it,
    /// estimated from the members seen: the ratio's linearised change per sample.
    fn noise(&self) -> Option<f64> {
        let n = self.seen.len();
        let (a, b): (f64, f64) = self
            .known
            .iter()
            .chain(&self.seen)
            .fold((0.0, 0.0), |(a, b), t| (a + t.numerator, b + t.denominator));
        let count = (self.known.len() + n) as f64;
        if b <= 0.0 || n < 2 {
            return None;
        }
        let value = a / b;
        let mean_b = b / count;
        // Each member's change: its own term against the candidate's value, less its
        // baseline term (already against the baseline's value), over the mean denominator.
        let u: Vec<f64> = self
            .seen
            .iter()
            .zip(&self.paired)
            .map(|(t, p)| (t.numerator - value * t.denominator - p) / mean_b)
            .collect();
        let mean = u.iter().sum::<f64>() / n as f64;
        let variance = u.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let suite = (self.known.len() + self.bounds.len()) as f64;
        let z = normal_quantile(1.0 - (1.0 - self.question.confidence) / 2.0);
        Some(z * (variance / suite).sqrt())
    }
}

/// The standard normal quantile at `p` in `(0, 1)` (Abramowitz and Stegun 26.2.23, absolute
/// error below 4.5e-4: the noise it scales is an estimate with a margin of its own).
pub fn normal_quantile(p: f64) -> f64 {
    let (q, sign) = match p < 0.5 {
        true => (p, -1.0),
        false => (1.0 - p, 1.0),
    };
    let t = (-2.0 * q.ln()).sqrt();
    let z = t - (2.515517 + 0.802853 * t + 0.010328 * t * t)
        / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
    sign * z
}
