//! The sequential gate's statistics: deciding a rule before every sample has been sent.
//! Today it holds [`betting`], the anytime-valid test of whether a finite population's total
//! lies above or below a bound, with samples drawn without replacement, [`ratio`], a
//! bound on a ratio metric (F1 over summed counts) as a bound on such a total, and [`order`],
//! the seeded order, random within each kind and task, in which samples are sent.

pub mod betting;
pub mod decide;
pub mod order;
pub mod questions;
pub mod ratio;
pub mod report;

#[cfg(test)]
mod tests;
