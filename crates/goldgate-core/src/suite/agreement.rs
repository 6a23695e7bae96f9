//! `goldgate suite agreement`: inter-annotator agreement on message-level requirement
//! identification — pairwise Cohen's kappa per annotator pair, pooled over the
//! samples both annotated, and Fleiss' kappa over samples with three or more annotators.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::metrics::agreement::{band, binary_kappa, fleiss_kappa};
use crate::sample::Sample;

/// Agreement of one annotator pair.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairAgreement {
    pub a: String,
    pub b: String,
    pub samples: usize,
    pub messages: usize,
    pub kappa: Option<f64>,
    pub band: Option<&'static str>,
}

/// The whole report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Agreement {
    /// Samples with two or more annotations and a conversation.
    pub samples: usize,
    pub annotators: Vec<String>,
    pub pairs: Vec<PairAgreement>,
    pub fleiss: Option<f64>,
    /// Messages rated by three or more annotators.
    pub fleiss_messages: usize,
    /// The number the suite is judged by: Fleiss' kappa when there are 3+ annotators,
    /// else the mean pairwise kappa.
    pub headline: Option<f64>,
    pub band: Option<&'static str>,
}

/// Each annotator's message-level labels of a sample, in the order of `annotations`: per
/// conversation message, whether any of the annotator's requirements names it in
/// `source_messages`.
pub fn message_marks(sample: &Sample) -> Vec<(&str, Vec<bool>)> {
    let n = sample.conversation.len();
    sample
        .annotations
        .iter()
        .map(|a| {
            let mut marks = vec![false; n];
            let cited = crate::kinds::label_shapes()
                .iter()
                .filter_map(|shape| shape.cited_messages(a.labels.get(shape.key())?));
            for i in cited.flatten() {
                if let Some(m) = usize::try_from(i).ok().and_then(|i| marks.get_mut(i)) {
                    *m = true;
                }
            }
            (a.annotator.as_str(), marks)
        })
        .collect()
}

/// Accumulates agreement over samples.
#[derive(Default)]
pub struct AgreementBuilder {
    samples: usize,
    /// (a, b) → cells 11, 10, 01, 00 and sample count.
    pairs: BTreeMap<(String, String), ([f64; 4], usize)>,
    subjects: Vec<Vec<&'static str>>,
}

impl AgreementBuilder {
    pub fn add(&mut self, sample: &Sample) {
        let n = sample.conversation.len();
        if sample.annotations.len() < 2 || n == 0 {
            return;
        }
        self.samples += 1;
        let labels = message_marks(sample);
        for (i, (a, la)) in labels.iter().enumerate() {
            for (b, lb) in &labels[i + 1..] {
                let (key, flip) = if a <= b {
                    ((a.to_string(), b.to_string()), false)
                } else {
                    ((b.to_string(), a.to_string()), true)
                };
                let entry = self.pairs.entry(key).or_default();
                entry.1 += 1;
                for (&x, &y) in la.iter().zip(lb) {
                    let (x, y) = if flip { (y, x) } else { (x, y) };
                    entry.0[match (x, y) {
                        (true, true) => 0,
                        (true, false) => 1,
                        (false, true) => 2,
                        (false, false) => 3,
                    }] += 1.0;
                }
            }
        }
        if labels.len() >= 3 {
            for m in 0..n {
                self.subjects.push(
                    labels
                        .iter()
                        .map(|(_, l)| if l[m] { "1" } else { "0" })
                        .collect(),
                );
            }
        }
    }

    pub fn finish(self) -> Agreement {
        let pairs: Vec<PairAgreement> = self
            .pairs
            .into_iter()
            .map(|((a, b), (c, samples))| {
                let kappa = binary_kappa(c[0], c[1], c[2], c[3]);
                PairAgreement {
                    a,
                    b,
                    samples,
                    messages: c.iter().sum::<f64>() as usize,
                    kappa,
                    band: kappa.map(band),
                }
            })
            .collect();
        let mut annotators: Vec<String> = pairs
            .iter()
            .flat_map(|p| [p.a.clone(), p.b.clone()])
            .collect();
        annotators.sort();
        annotators.dedup();
        let fleiss = fleiss_kappa(&self.subjects);
        let pairwise: Vec<f64> = pairs.iter().filter_map(|p| p.kappa).collect();
        let mean =
            (!pairwise.is_empty()).then(|| pairwise.iter().sum::<f64>() / pairwise.len() as f64);
        let headline = fleiss.or(mean);
        Agreement {
            samples: self.samples,
            annotators,
            pairs,
            fleiss,
            fleiss_messages: self.subjects.len(),
            headline,
            band: headline.map(band),
        }
    }
}
