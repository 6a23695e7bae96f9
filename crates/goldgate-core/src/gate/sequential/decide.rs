//! Deciding the gate's questions while samples come in: each question's ratio tested on
//! the samples of its population seen so far, in the order they were sent, and what it
//! decided, when, and why the others are still open.
//!
//! A floor, a ceiling and an allowed regression are each one [`RatioTest`] at the bound
//! they break on. A regression the full check would also need to be significant breaks
//! only beyond what its paired-bootstrap interval would call noise on the full suite: the
//! sampling error of the change is estimated once, on the first tenth of the population
//! (at least [`SPREAD_FROM`] pairs), and a second test, on the samples after those,
//! decides whether the value falls further than `max(allowed, SLACK · z · se)` below the
//! baseline's. Before that, such a regression can only be found to hold.

use serde::Serialize;

use super::betting::{side_of, Side};
use super::questions::{Against, Check, Question};
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
    /// The stratum it was sent in (its kind, and its task within the kind): the samples of
    /// a stratum are sent in a uniformly random order of their own.
    pub stratum: String,
    /// The most its records (every repeat) can add to each statistic the questions read, in
    /// the order of [`super::questions::keys`] (`None`: unknown).
    pub bounds: Vec<Option<f64>>,
}

/// A sample answered before the first call (by the cache), with its stratum.
#[derive(Clone, Copy, Debug)]
pub struct Known<'a> {
    pub score: &'a crate::score::SampleScore,
    pub stratum: &'a str,
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
    /// One part per stratum its samples are sent in.
    parts: Vec<Part>,
    /// For each planned sample, its part and its place in that part's population.
    member_of: Vec<Option<(usize, usize)>>,
    /// The bound the question breaks on and whether breaking is falling below it.
    bound: f64,
    below_breaks: bool,
}

/// A question's samples of one stratum: drawn in a uniformly random order of their own, so
/// each stratum's total is tested apart, at the question's α shared among its strata. The
/// suite's total is on one side of the bound when every stratum's is.
#[derive(Clone, Debug, Default)]
struct Part {
    bounds: Vec<TermBounds>,
    /// Each member's baseline term (zero without a baseline sample), for the paired test
    /// and the change's spread, and whether the baseline has the sample.
    paired: Vec<f64>,
    has_pair: Vec<bool>,
    /// The terms seen so far, and those known before the first call.
    seen: Vec<Terms>,
    known: Vec<Terms>,
    holds: Option<RatioTest>,
    breaks: Option<RatioTest>,
    /// The side found exactly (nothing to draw), `None` inside: a part at the bound exactly
    /// takes neither side.
    exact: Option<Option<Side>>,
    /// A regression the full check would also need to be significant: it breaks only by
    /// the significance test.
    needs_significance: bool,
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
    baseline: Option<std::collections::HashMap<String, (Kind, crate::metrics::stats::Stats)>>,
    /// The pinned reference's samples, for the drift questions.
    reference: Option<std::collections::HashMap<String, (Kind, crate::metrics::stats::Stats)>>,
}

/// The numerators' and the denominators' sums of `terms`.
fn totals<'a>(terms: impl Iterator<Item = &'a Terms>) -> (f64, f64) {
    terms.fold((0.0, 0.0), |(a, b), t| (a + t.numerator, b + t.denominator))
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
    /// The questions' tests over `planned` (in sending order), with `known` the samples
    /// answered already, `baseline` the baseline's scores (for the paired regressions) and
    /// `reference` the pinned reference's (for the drift questions).
    pub fn new(
        questions: Vec<Question>,
        keys: Vec<&'static str>,
        planned: Vec<Planned>,
        known: &[Known<'_>],
        partners: (
            Option<&crate::score::ScoreFile>,
            Option<&crate::score::ScoreFile>,
        ),
    ) -> Decisions {
        let by_id = |f: &crate::score::ScoreFile| {
            f.samples
                .iter()
                .map(|s| (s.id.clone(), (s.kind, s.stats.clone())))
                .collect::<std::collections::HashMap<_, _>>()
        };
        let (baseline, reference) = (partners.0.map(by_id), partners.1.map(by_id));
        let mut decisions = Decisions {
            keys,
            tracked: Vec::new(),
            known: known.len(),
            seen: 0,
            planned,
            baseline,
            reference,
        };
        decisions.tracked = questions
            .into_iter()
            .map(|q| decisions.track(q, known))
            .collect();
        decisions
    }

    /// A question's parts, their bounds and first tests.
    fn track(&self, question: Question, known: &[Known<'_>]) -> Tracked {
        let (bound, below_breaks) = question.bound();
        let mut tracked = Tracked {
            outcome: Outcome::Open,
            decided_at: None,
            parts: Vec::new(),
            member_of: vec![None; self.planned.len()],
            bound,
            below_breaks,
            question,
        };
        let Some(ratio) = tracked.question.ratio() else {
            let why = tracked.question.waits.clone().unwrap_or_default();
            tracked.outcome = Outcome::Waits(why);
            return tracked;
        };
        if let Some(outcome) = tracked.certain() {
            tracked.outcome = outcome;
            return tracked;
        }
        let kind = tracked.question.kind;
        let owner = crate::kinds::owner(tracked.question.metric.name);
        // A drift is measured on the samples the reference has: only they count.
        let partner = match tracked.question.check {
            Check::Regression {
                against: Against::Reference,
                ..
            } => self.reference.as_ref(),
            _ => self.baseline.as_ref(),
        };
        let drift = matches!(
            tracked.question.check,
            Check::Regression {
                against: Against::Reference,
                ..
            }
        );
        // A partner of another kind (the sample's kind changed) is no partner.
        let partner_of = |id: &str, k: Kind| {
            partner
                .and_then(|p| p.get(id))
                .filter(|(pk, _)| *pk == k)
                .map(|(_, stats)| stats)
        };
        let shared = |id: &str, k: Kind| !drift || partner_of(id, k).is_some();
        let counts = |k: Kind| kind.is_none_or(|only| only == k) && owner.is_none_or(|o| o == k);
        let needs_significance = matches!(
            tracked.question.check,
            Check::Regression {
                significance: true,
                ..
            }
        );
        let mut strata: Vec<String> = Vec::new();
        let mut part_of = |stratum: &str, parts: &mut Vec<Part>| -> usize {
            match strata.iter().position(|s| s == stratum) {
                Some(i) => i,
                None => {
                    strata.push(stratum.to_string());
                    parts.push(Part {
                        needs_significance,
                        ..Part::default()
                    });
                    parts.len() - 1
                }
            }
        };
        for k in known
            .iter()
            .filter(|k| counts(k.score.kind) && shared(&k.score.id, k.score.kind))
        {
            let p = part_of(k.stratum, &mut tracked.parts);
            tracked.parts[p].known.push(terms(&ratio, &k.score.stats));
        }
        let index = |key: &str| self.keys.iter().position(|k| *k == key);
        for (i, planned) in self.planned.iter().enumerate() {
            if !counts(planned.kind) || !shared(&planned.id, planned.kind) {
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
            let p = part_of(&planned.stratum, &mut tracked.parts);
            let part = &mut tracked.parts[p];
            tracked.member_of[i] = Some((p, part.bounds.len()));
            part.bounds.push(TermBounds {
                numerator,
                denominator,
            });
            let base = partner_of(&planned.id, planned.kind);
            part.has_pair.push(base.is_some());
            part.paired.push(match (&tracked.question.check, base) {
                (Check::Regression { baseline, .. }, Some(stats)) => {
                    let t = terms(&ratio, stats);
                    t.numerator - baseline * t.denominator
                }
                _ => 0.0,
            });
        }
        // Each stratum at its share of α: the question is wrong only if one of them is.
        let alpha = (1.0 - tracked.question.confidence) / tracked.parts.len().max(1) as f64;
        let regression = matches!(tracked.question.check, Check::Regression { .. });
        for part in &mut tracked.parts {
            let test = RatioTest::new(
                bound,
                &part.known,
                &part.bounds,
                regression.then(|| part.paired.clone()),
                alpha,
            );
            match part.bounds.is_empty() {
                true => part.exact = Some(test.decided()),
                false => part.holds = Some(test),
            }
        }
        tracked.combine(0);
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
            let Some((part, member)) = tracked.member_of.get(position).copied().flatten() else {
                continue;
            };
            let ratio = tracked
                .question
                .ratio()
                .expect("an open question has a ratio");
            let t = terms(&ratio, &score.stats);
            let alpha = (1.0 - tracked.question.confidence) / tracked.parts.len() as f64;
            let significance = match tracked.question.check {
                // The noise of the full check's interval is estimated within one stratum.
                Check::Regression { significance, .. } if tracked.parts.len() == 1 => {
                    significance.then_some((tracked.question.confidence, tracked.below_breaks))
                }
                _ => None,
            };
            if let Err(why) =
                tracked.parts[part].step(member, t, alpha, significance, &tracked.question.check)
            {
                tracked.outcome = Outcome::Waits(why);
                continue;
            }
            tracked.combine(answered);
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

    /// The question's outcome from its parts', with `answered` samples in: it holds when
    /// every stratum is on the side that keeps the rule (or exactly at the bound), and
    /// breaks when every one is on the other.
    fn combine(&mut self, answered: usize) {
        if self.outcome != Outcome::Open || self.parts.is_empty() {
            if self.parts.is_empty() && self.outcome == Outcome::Open {
                let why = "no sample counts towards it";
                self.outcome = Outcome::Waits(why.into());
            }
            return;
        }
        let holds_side = match self.below_breaks {
            true => Side::Above,
            false => Side::Below,
        };
        // Every sample in: the suite's value is known exactly.
        if self.parts.iter().all(|p| p.seen.len() == p.bounds.len()) {
            let (numerator, denominator) = totals(
                self.parts
                    .iter()
                    .flat_map(|p| p.known.iter().chain(&p.seen)),
            );
            let total = numerator - self.bound * denominator;
            let significance = self.parts.iter().any(|p| p.needs_significance);
            self.outcome = match side_of(total, 0.0, 1e-9 * denominator.max(1.0)) {
                _ if denominator <= 0.0 => Outcome::Waits("no sample counts towards it".into()),
                // Whether the change is significant is the full check's to say.
                Some(side) if side != holds_side && significance => return,
                Some(side) if side != holds_side => Outcome::Breaks,
                _ => Outcome::Holds,
            };
            self.decided_at = Some(answered);
            return;
        }
        let sides: Vec<Option<Option<Side>>> =
            self.parts.iter().map(|p| p.side(holds_side)).collect();
        // `Some(None)`: exactly at the bound, on neither side.
        let decided: Vec<Option<Side>> = match sides.iter().copied().collect::<Option<Vec<_>>>() {
            Some(all) => all,
            None => return,
        };
        let taken: Vec<Side> = decided.iter().flatten().copied().collect();
        let outcome = if taken.is_empty() {
            // Every stratum exactly at the bound: the value is the bound, which keeps it.
            Outcome::Holds
        } else if taken.iter().all(|s| *s == holds_side) {
            Outcome::Holds
        } else if taken.iter().all(|s| *s != holds_side) {
            Outcome::Breaks
        } else {
            return;
        };
        self.outcome = outcome;
        self.decided_at = Some(answered);
    }
}

impl Part {
    /// The side this stratum's total is found on (`Some(None)`: exactly at the bound),
    /// `None` while open. A regression that must be significant takes the breaking side
    /// only from its significance test.
    fn side(&self, holds_side: Side) -> Option<Option<Side>> {
        if let Some(exact) = self.exact {
            return Some(exact);
        }
        let holds = self.holds.as_ref().and_then(RatioTest::decided);
        let breaks = self.breaks.as_ref().and_then(RatioTest::decided);
        match (holds, breaks) {
            (Some(s), _) if s == holds_side => Some(Some(s)),
            (_, Some(s)) if s != holds_side => Some(Some(s)),
            (Some(s), _) if !self.needs_significance => Some(Some(s)),
            _ => None,
        }
    }

    /// Member `member`'s terms are in: feed the tests, and start the significance test
    /// (`significance`: the rule's confidence, and whether breaking is falling below) once
    /// its spread can be estimated.
    fn step(
        &mut self,
        member: usize,
        t: Terms,
        alpha: f64,
        significance: Option<(f64, bool)>,
        check: &Check,
    ) -> Result<(), String> {
        let refused = |_| "an answer counted more than its bound allows".to_string();
        self.seen.push(t);
        if let Some(test) = &mut self.holds {
            test.observe(member, t).map_err(refused)?;
        }
        if let Some(test) = &mut self.breaks {
            let first = self.bounds.len() - test.population();
            test.observe(member - first, t).map_err(refused)?;
        }
        let start = SPREAD_FROM.max(self.bounds.len() / 10);
        if let (Some((confidence, below)), None) = (significance, &self.breaks) {
            if self.seen.len() >= start {
                self.breaks = self.significance_test(check, confidence, below, alpha);
            }
        }
        Ok(())
    }

    /// The test that the value falls beyond the full check's noise: on the members after
    /// those seen, with the seen ones known.
    fn significance_test(
        &self,
        check: &Check,
        confidence: f64,
        below_breaks: bool,
        alpha: f64,
    ) -> Option<RatioTest> {
        let Check::Regression {
            baseline, allowed, ..
        } = *check
        else {
            return None;
        };
        let n = self.seen.len();
        if n >= self.bounds.len() {
            return None;
        }
        let margin = allowed.max(SLACK * self.noise(confidence)?);
        let bound = match below_breaks {
            true => baseline - margin,
            false => baseline + margin,
        };
        if !(0.0..=1.0).contains(&bound) {
            return None;
        }
        let known: Vec<Terms> = self.known.iter().chain(&self.seen).copied().collect();
        Some(RatioTest::new(
            bound,
            &known,
            &self.bounds[n..],
            Some(self.paired[n..].to_vec()),
            alpha,
        ))
    }

    /// `z · se` of the change on the full suite, as the paired bootstrap would see it,
    /// estimated from the members seen: the ratio's linearised change per sample, over the
    /// samples the baseline has too (the pairs the bootstrap draws). `None` when fewer than
    /// [`SPREAD_FROM`] pairs were seen, or the suite has fewer than the full check's paired
    /// test needs: then the check's own significance decides, on every sample.
    fn noise(&self, confidence: f64) -> Option<f64> {
        let pairs = self.has_pair.iter().filter(|p| **p).count() + self.known.len();
        let seen: Vec<(&Terms, &f64)> = self
            .seen
            .iter()
            .zip(&self.paired)
            .zip(&self.has_pair)
            .filter(|(_, has)| **has)
            .map(|(pair, _)| pair)
            .collect();
        if seen.len() < SPREAD_FROM || pairs < crate::gate::evidence::min_paired(confidence) {
            return None;
        }
        let n = seen.len();
        let (a, b) = totals(self.known.iter().chain(&self.seen));
        let count = (self.known.len() + self.seen.len()) as f64;
        if b <= 0.0 || n < 2 {
            return None;
        }
        let value = a / b;
        let mean_b = b / count;
        // Each member's change: its own term against the candidate's value, less its
        // baseline term (already against the baseline's value), over the mean denominator.
        let u: Vec<f64> = seen
            .iter()
            .map(|(t, p)| (t.numerator - value * t.denominator - *p) / mean_b)
            .collect();
        let mean = u.iter().sum::<f64>() / n as f64;
        let variance = u.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let suite = pairs as f64;
        let z = normal_quantile(1.0 - (1.0 - confidence) / 2.0);
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
    let z = t
        - (2.515517 + 0.802853 * t + 0.010328 * t * t)
            / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
    sign * z
}
