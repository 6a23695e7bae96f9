//! `goldgate suite stats`: counts per kind, difficulty and domain against the size targets
//! (each kind's own, [`crate::kinds::TaskKind::suite_target`]; 150–200 samples in all).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::sample::{Difficulty, Kind, Sample};

/// The target number of samples of each kind that has one, in registry order.
pub fn targets() -> Vec<(Kind, usize)> {
    crate::kinds::all()
        .filter_map(|k| Some((k, crate::kinds::of(k).suite_target()?)))
        .collect()
}

/// The seed's target suite size.
pub const TOTAL_TARGET: (usize, usize) = (150, 200);

/// Counts of a suite.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SuiteStats {
    pub total: usize,
    pub by_kind: BTreeMap<Kind, usize>,
    pub by_difficulty: BTreeMap<Difficulty, usize>,
    pub by_domain: BTreeMap<String, usize>,
    pub by_kind_and_difficulty: BTreeMap<Kind, BTreeMap<Difficulty, usize>>,
    /// Samples with at least two annotations (usable for agreement).
    pub annotated: usize,
    /// Gold items: requirements, inferred requirements, issues, PII strings, tuples.
    pub gold_items: usize,
    /// Samples per tag.
    pub by_tag: BTreeMap<String, usize>,
    /// Tuples samples per task.
    pub by_task: BTreeMap<String, usize>,
}

impl SuiteStats {
    pub fn add(&mut self, s: &Sample) {
        self.total += 1;
        *self.by_kind.entry(s.kind).or_default() += 1;
        *self.by_difficulty.entry(s.difficulty).or_default() += 1;
        *self.by_domain.entry(s.domain.clone()).or_default() += 1;
        *self
            .by_kind_and_difficulty
            .entry(s.kind)
            .or_default()
            .entry(s.difficulty)
            .or_default() += 1;
        self.annotated += usize::from(s.annotations.len() >= 2);
        self.gold_items += s.labels.iter().map(|(_, list)| list.len()).sum::<usize>();
        for tag in &s.tags {
            *self.by_tag.entry(tag.clone()).or_default() += 1;
        }
        if let Some(task) = &s.task {
            *self.by_task.entry(task.name.clone()).or_default() += 1;
        }
    }

    /// Whether the suite has requirement samples (the size targets are theirs).
    pub fn has_requirement_samples(&self) -> bool {
        targets().iter().any(|(k, _)| self.count(*k) > 0)
    }

    pub fn count(&self, kind: Kind) -> usize {
        self.by_kind.get(&kind).copied().unwrap_or(0)
    }

    /// Whether every kind meets its target and the total is in range.
    pub fn meets_targets(&self) -> bool {
        targets().iter().all(|(k, t)| self.count(*k) >= *t)
            && (TOTAL_TARGET.0..=TOTAL_TARGET.1).contains(&self.total)
    }
}
