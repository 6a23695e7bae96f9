//! The settings scoring depends on besides the data (`[matching]` and `[rd_score]` of
//! `thresholds.toml`): matching thresholds and rules, actor classes, the schema mode, the
//! requirement id pattern and the RD-score weights.

use regex::Regex;

use super::matching::{ActorClasses, MatchRules};
use super::texts::Similarity;

/// Everything scoring depends on besides the data (`[matching]` and `[rd_score]` of
/// `thresholds.toml`).
#[derive(Clone, Debug)]
pub struct ScoringConfig {
    /// How texts are compared; an embedding backend's table is filled in before scoring.
    pub similarity: Similarity,
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
    /// The most items matching takes from one sample: the longest list of a sample's gold
    /// labels or of an answer (`[matching] max_items`).
    pub max_items: usize,
}

/// Default (requirement, acceptance-criterion) match thresholds of the lexical similarity.
pub const LEXICAL_THRESHOLDS: (f64, f64) = (0.60, 0.50);
/// Default (requirement, acceptance-criterion) match thresholds of embedding similarities
/// (`minilm`, `openai`): sentence embeddings of unrelated texts are already far from 0.
pub const EMBEDDING_THRESHOLDS: (f64, f64) = (0.85, 0.80);

/// Default of `[matching] max_items`: matching compares every gold item with every
/// predicted one and assigns them one to one, so its time grows faster than the product of
/// the two lists; at 1,000 items each a sample still scores in about a second.
pub const DEFAULT_MAX_ITEMS: usize = 1_000;

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
            similarity: Similarity::Lexical,
            requirement_threshold: LEXICAL_THRESHOLDS.0,
            ac_threshold: LEXICAL_THRESHOLDS.1,
            type_rule: true,
            actor_rule: true,
            actors: ActorClasses::new(&default_actor_classes()),
            generic_actors: vec!["system".to_string(), "user".to_string()],
            schema: SchemaMode::Strict,
            id_pattern: Regex::new(DEFAULT_ID_PATTERN).expect("the default id pattern is valid"),
            rd_weights: RdWeights::default(),
            max_items: DEFAULT_MAX_ITEMS,
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

/// How strictly answers are held to the schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaMode {
    /// Every field of the requirement format present with its type and rule.
    #[default]
    #[serde(rename = "schema_strict")]
    Strict,
    /// Only the top-level shape: an object whose `requirements` is a list, or a list.
    SyntaxOnly,
}

/// Weights of the RD score (must sum to 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RdWeights {
    pub coverage: f64,
    pub accuracy: f64,
    pub structure: f64,
    pub traceability: f64,
}

impl Default for RdWeights {
    fn default() -> Self {
        RdWeights {
            coverage: 0.4,
            accuracy: 0.3,
            structure: 0.2,
            traceability: 0.1,
        }
    }
}
