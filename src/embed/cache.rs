//! The embedding cache.
