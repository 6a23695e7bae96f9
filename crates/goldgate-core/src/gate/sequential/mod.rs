//! The sequential gate: deciding every rule about the full suite before every sample has
//! been sent. [`questions`] turns the rules into questions (floors, ceilings, allowed
//! regressions of ratio metrics); [`decide`] tests them on the samples seen so far, one
//! [`ratio`] test per stratum, each a [`betting`] test of a finite population's total drawn
//! without replacement; [`order`] is the seeded order, random within each kind and task, in
//! which samples are sent; [`report`] is what the verdict records and how a verdict of the
//! samples that ran becomes the full suite's.

pub mod betting;
pub mod decide;
pub mod order;
pub mod questions;
pub mod ratio;
pub mod report;

#[cfg(test)]
mod decisions_tests;
#[cfg(test)]
mod tests;
