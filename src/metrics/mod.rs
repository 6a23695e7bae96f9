//! The scoring engine of SPEC §5: similarity, one-to-one matching, and one module per metric
//! family. Records are scored into sufficient statistics ([`stats::Stats`]); every aggregate
//! metric in the [`registry`] is a plain function of summed statistics.

pub mod agreement;
pub mod bootstrap;
pub mod calibration;
pub mod e2e;
pub mod extraction;
pub mod inference;
pub mod matching;
pub mod registry;
pub mod similarity;
pub mod stats;
pub mod validation;

use regex::Regex;

use self::e2e::RdWeights;
use self::extraction::SchemaMode;
use self::matching::{ActorClasses, MatchRules};

/// Precision with the SPEC §5 zero-denominator rule: 1.0 when both sides are empty, else 0.0.
pub fn precision(tp: f64, fp: f64, fn_: f64) -> f64 {
    match tp + fp {
        d if d > 0.0 => tp / d,
        _ if fn_ == 0.0 => 1.0,
        _ => 0.0,
    }
}

/// Recall with the SPEC §5 zero-denominator rule.
pub fn recall(tp: f64, fp: f64, fn_: f64) -> f64 {
    match tp + fn_ {
        d if d > 0.0 => tp / d,
        _ if fp == 0.0 => 1.0,
        _ => 0.0,
    }
}

/// F1 = 2PR/(P+R), 0 when P+R = 0.
pub fn f1(p: f64, r: f64) -> f64 {
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

/// (TP, FP, FN) of a predicted set against a gold set.
pub fn set_counts<T: Ord>(
    gold: &std::collections::BTreeSet<T>,
    pred: &std::collections::BTreeSet<T>,
) -> (usize, usize, usize) {
    let tp = gold.intersection(pred).count();
    (tp, pred.len() - tp, gold.len() - tp)
}

/// `num / den`, or `empty` when the denominator is zero.
pub fn ratio_or(num: f64, den: f64, empty: f64) -> f64 {
    if den == 0.0 {
        empty
    } else {
        num / den
    }
}

/// Everything scoring depends on besides the data (`[matching]` and `[rd_score]` of
/// `thresholds.toml`).
#[derive(Clone, Debug)]
pub struct ScoringConfig {
    pub requirement_threshold: f64,
    pub ac_threshold: f64,
    pub type_rule: bool,
    pub actor_rule: bool,
    pub actors: ActorClasses,
    /// `norm`'d actors that never count as hallucinated.
    pub generic_actors: Vec<String>,
    pub schema: SchemaMode,
    pub id_pattern: Regex,
    pub rd_weights: RdWeights,
}

/// Default requirement id pattern of the schema check.
pub const DEFAULT_ID_PATTERN: &str = r"^(REQ-[0-9]{3,}|(FR|NFR|CON|SUG)-[0-9]{2,})$";

/// Default actor synonym classes.
pub fn default_actor_classes() -> Vec<Vec<String>> {
    [
        &["user", "customer", "end user", "client"][..],
        &["system", "application", "platform", "service"][..],
        &["admin", "administrator", "superuser"][..],
    ]
    .iter()
    .map(|class| class.iter().map(|s| s.to_string()).collect())
    .collect()
}

impl Default for ScoringConfig {
    fn default() -> Self {
        ScoringConfig {
            requirement_threshold: 0.60,
            ac_threshold: 0.50,
            type_rule: true,
            actor_rule: true,
            actors: ActorClasses::new(&default_actor_classes()),
            generic_actors: vec!["system".to_string(), "user".to_string()],
            schema: SchemaMode::Strict,
            id_pattern: Regex::new(DEFAULT_ID_PATTERN).expect("the default id pattern is valid"),
            rd_weights: RdWeights::default(),
        }
    }
}

impl ScoringConfig {
    /// Requirement matching rules, with the type rule on or off.
    pub fn rules(&self, type_rule: bool) -> MatchRules<'_> {
        MatchRules {
            threshold: self.requirement_threshold,
            type_rule,
            actor_rule: self.actor_rule,
            actors: &self.actors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_denominators() {
        assert_eq!(precision(0.0, 0.0, 0.0), 1.0);
        assert_eq!(recall(0.0, 0.0, 0.0), 1.0);
        assert_eq!(precision(0.0, 0.0, 3.0), 0.0);
        assert_eq!(recall(0.0, 2.0, 0.0), 0.0);
        assert_eq!(f1(0.0, 0.0), 0.0);
        assert_eq!(f1(1.0, 0.5), 2.0 / 3.0);
    }
}
