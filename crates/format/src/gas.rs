//! The gas table's rows: what `dyno gas` priced, as the reports render
//! them. The pricing itself (nominal gas from a fork's schedule, the
//! anchors, the flags) is `dyno_price::precompile`; the rows and their
//! figures live here, with the rest of what results are, and the names
//! results are found by, so that a report and the pricing read a run
//! without compiling the EVM.

use dyno_stats::Interval;
use serde::{Deserialize, Serialize};

use crate::BenchResult;

/// The id that anchors calculated gas: ECRECOVER on a valid signature.
pub const ANCHOR_ID: &str = "precompile/ecrecover/ValidKey";
/// ECRECOVER's price, the anchor's gas.
pub const ANCHOR_GAS: f64 = 3000.0;
/// The group of every bytecode-mode precompile id (a STATICCALL loop).
pub const BYTECODE_GROUP: &str = "precompile-bytecode";
/// The bytecode loop's no-op control's id.
pub const NOOP_ID: &str = "precompile-bytecode/noop/identity-empty";
/// The parameter in which a bytecode loop records its control's times,
/// `[{iters, ns}]`, one per time the loop timed itself (warm-up included:
/// the last ones pair with the result's samples).
pub const CONTROL_SAMPLES: &str = "control_samples";
/// The parameter in which a direct-mode precompile result records its
/// input's nominal gas under every fork's schedule, at measure time
/// (`{"osaka": 3000, "prague": 3000}`), so a report prices the run from the
/// run alone.
pub const NOMINAL_GAS: &str = "nominal_gas";

/// A figure with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The point estimate.
    pub value: f64,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
}

impl Estimate {
    /// Whether the interval includes zero: a difference not told apart
    /// from none.
    pub fn spans_zero(&self) -> bool {
        self.lower <= 0.0 && 0.0 <= self.upper
    }

    /// A value known exactly.
    pub fn exact(value: f64) -> Self {
        Self {
            value,
            lower: value,
            upper: value,
        }
    }

    fn from_interval(value: f64, i: &Interval) -> Self {
        Self {
            value,
            lower: i.lower,
            upper: i.upper,
        }
    }

    /// The time per operation of a result: if it was fitted, the
    /// Theil-Sen slope of its raw samples (robust to samples the scheduler
    /// interrupted, which can flip an OLS slope's sign), else the P50;
    /// `None` if nothing was timed.
    pub fn of(r: &BenchResult) -> Option<Self> {
        if r.fit.is_some() {
            let x: Vec<f64> = r.samples.iter().map(|s| s.iters as f64).collect();
            let y: Vec<f64> = r.samples.iter().map(|s| s.ns as f64).collect();
            if let Some((slope, ci)) = dyno_stats::theil_sen(&x, &y, 0.95) {
                return Some(Self::from_interval(slope, &ci));
            }
        }
        if let Some(fit) = &r.fit {
            return Some(Self::from_interval(fit.slope, &fit.slope_ci));
        }
        r.stats
            .as_ref()
            .map(|s| Self::from_interval(s.p50, &s.median_ci))
    }

    /// `self - other` for independent estimates: half-widths add in
    /// quadrature.
    pub fn minus(self, other: Self) -> Self {
        let below =
            ((self.value - self.lower).powi(2) + (other.upper - other.value).powi(2)).sqrt();
        let above =
            ((self.upper - self.value).powi(2) + (other.value - other.lower).powi(2)).sqrt();
        let value = self.value - other.value;
        Self {
            value,
            lower: value - below,
            upper: value + above,
        }
    }

    /// `self × k` for a constant `k ≥ 0`.
    pub fn scale(self, k: f64) -> Self {
        Self {
            value: self.value * k,
            lower: self.lower * k,
            upper: self.upper * k,
        }
    }

    /// `k × self / anchor` for a positive `anchor`, conservatively: the
    /// bounds are the extremes over the two intervals' ends (the lowest
    /// numerator over the highest anchor, or over the lowest when the
    /// numerator's bound is negative, and the other way round).
    pub fn ratio(self, anchor: Self, k: f64) -> Self {
        let (lo, hi) = (anchor.lower.max(f64::MIN_POSITIVE), anchor.upper);
        Self {
            value: k * self.value / anchor.value,
            lower: (k * self.lower / hi).min(k * self.lower / lo),
            upper: (k * self.upper / lo).max(k * self.upper / hi),
        }
    }

    /// `k / self` (a rate from a time), bounds swapped.
    pub fn inverse(self, k: f64) -> Self {
        Self {
            value: k / self.value,
            lower: k / self.upper,
            upper: k / self.lower.max(f64::MIN_POSITIVE),
        }
    }
}

/// What calculated gas is measured against, besides ECRECOVER.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Anchor {
    /// Gas the time would buy at this many MGas/s.
    Throughput(f64),
    /// The median gas per ns of the arithmetic opcode sequences.
    Arithmetic,
}

impl std::fmt::Display for Anchor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Throughput(m) => write!(f, "{m} MGas/s"),
            Self::Arithmetic => f.write_str("arithmetic opcodes"),
        }
    }
}

/// Whether a precompile looks mispriced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pricing {
    /// Calculated gas above nominal by more than the factor.
    #[serde(rename = "underpriced")]
    Under,
    /// Calculated gas below nominal by more than the factor.
    #[serde(rename = "overpriced")]
    Over,
}

impl Pricing {
    /// `underpriced` or `overpriced`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Under => "underpriced",
            Self::Over => "overpriced",
        }
    }
}

/// One line of the gas table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// `precompile` or `opcode`: the id's group.
    pub kind: String,
    /// The op name, e.g. `ecrecover` or `arith-add`.
    pub name: String,
    /// A precompile's address; empty for an opcode.
    pub address: String,
    /// The input's name.
    pub input: String,
    /// The fork schedule's price for this input.
    pub nominal_gas: u64,
    /// Direct call time, ns.
    pub direct_ns: Estimate,
    /// Bytecode call time beyond the no-op control, ns: sample by sample
    /// against the control timed beside it where the result recorded one
    /// (`paired`), else against the no-op loop's own result. Its interval
    /// may include zero, or lie below it (the call costs no more than the
    /// control, as far as the run can tell).
    pub bytecode_ns: Option<Estimate>,
    /// Whether `bytecode_ns` is paired with an interleaved control.
    #[serde(default)]
    pub bytecode_paired: bool,
    /// ns × 3000 / ns(ECRECOVER).
    pub calculated_gas: Estimate,
    /// The same from bytecode times: `bytecode_ns` × 3000 / ECRECOVER's
    /// `bytecode_ns`, the cross-client method's figure; `None` without a
    /// bytecode time or where ECRECOVER's is not clearly above zero.
    #[serde(default)]
    pub bytecode_gas: Option<Estimate>,
    /// Calculated gas against the second anchor.
    pub second: Option<Estimate>,
    /// Nominal gas / time, in MGas/s.
    pub mgas_per_s: Estimate,
    /// A mispricing beyond the factor, if any.
    pub flag: Option<Pricing>,
}
