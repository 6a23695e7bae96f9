//! The sequential gate's statistics: deciding a rule before every sample has been sent.
//! Today it holds [`betting`], the anytime-valid test of whether a finite population's total
//! lies above or below a bound, with samples drawn without replacement.

pub mod betting;

#[cfg(test)]
mod tests;
