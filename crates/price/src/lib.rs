//! What dyno's measurements are worth in gas: every pricing and fit reads
//! Results and schedules only, never a suite or the session, so a saved
//! run (or a docs table's raw file) is priced the way a fresh one is.
//!
//! - [`precompile`]: `dyno gas`, each precompile and opcode time as
//!   calculated gas against ECRECOVER, beside its nominal gas;
//! - [`state`]: `dyno gas --state`, each state access against every
//!   state-access schedule, and its growth with the state's size;
//! - [`fit`] and [`blocks`]: `dyno gas --blocks`, the op-isolation fits
//!   and the per-operation table built from them;
//! - [`peer`]: a peer's per-client table set beside dyno's.
//!
//! The paired A/B verdict is a judgement too; it lives beside the history
//! gate, in `dyno_gate::paired`.

/// Refuse with a message (format arguments).
macro_rules! refuse {
    ($($arg:tt)*) => {
        return Err($crate::Error::Refused(format!($($arg)*)))
    };
}

pub mod anchor;
pub mod blocks;
pub mod fit;
pub mod peer;
pub mod precompile;
pub mod state;

#[cfg(test)]
mod tests;

/// Why a run cannot be priced.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum Error {
    /// Input that cannot be priced, said in full (file, line, advice).
    #[error("{0}")]
    Refused(String),
    /// The anchor was not measured (or failed).
    #[error("the anchor {0} has no timing in these results; it must be measured to compute gas")]
    NoAnchor(String),
    /// `--anchor arith` without arithmetic opcode results.
    #[error(
        "the arithmetic anchor needs the opcode/arith-* results; run them too (`dyno gas` does) or choose another anchor"
    )]
    NoArithmetic,
    /// A factor that cannot flag anything.
    #[error("the mispricing factor must be above 1, got {0}")]
    Factor(f64),
    /// A state run without ECRECOVER's time to anchor calculated gas.
    #[error(
        "the run has no timed {} (every dyno run records it): cannot anchor gas",
        dyno_format::gas::ANCHOR_ID
    )]
    NoStateAnchor,
    /// No state-access result.
    #[error(
        "the run has no timed state/ result: run `dyno run state` (or `dyno gas --state`) first"
    )]
    NoState,
}

/// The flag of calculated gas against nominal gas: underpriced where it
/// exceeds the price by more than `factor`, overpriced where it falls
/// below it by more than `factor`, else none.
pub(crate) fn flag(
    calculated: f64,
    nominal: u64,
    factor: f64,
) -> Option<dyno_format::gas::Pricing> {
    use dyno_format::gas::Pricing;
    let ratio = calculated / (nominal as f64).max(1.0);
    if ratio > factor {
        Some(Pricing::Under)
    } else if ratio < 1.0 / factor {
        Some(Pricing::Over)
    } else {
        None
    }
}
