//! The shared metric machinery every task kind scores with: precision/recall/F1
//! ([`prf`]), similarity and one-to-one matching, calibration, agreement (kappa),
//! sufficient statistics ([`stats`]), the metric type and the run-health and parse metrics
//! ([`registry`]), bootstrap aggregation ([`bootstrap`]) and the scoring settings. What a
//! kind measures lives in its folder under `kinds/`.

pub mod aggregate;
pub mod agreement;
mod block_sums;
pub mod bootstrap;
pub mod calibration;
pub mod matching;
pub mod prf;
pub mod registry;
pub mod runs;
pub mod scoring;
pub mod similarity;
pub mod stats;
pub mod texts;
pub mod vectors;

pub use prf::{f1, precision, ratio_or, recall, set_counts, Prf, PrfKeys};
pub use scoring::{
    default_actor_classes, RdWeights, SchemaMode, ScoringConfig, DEFAULT_ID_PATTERN,
};
