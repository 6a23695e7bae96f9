//! The sequential gate's statistics: deciding a rule before every sample has been sent.
//! Today it holds [`betting`], the anytime-valid test of whether a finite population's total
//! lies above or below a bound, with samples drawn without replacement, and [`order`], the
//! seeded order, random within each kind and task, in which samples are sent.

pub mod betting;
pub mod order;

#[cfg(test)]
mod tests;
