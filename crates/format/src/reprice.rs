//! What `dyno gas --blocks` fits from an op-isolation series (a result's
//! `reprice`): block time against the block's operation count, the
//! repricing EIPs' way (non-negative least squares, kept when R² > 0.5 and
//! the count's p < 0.05) and dyno's robust slope beside it, each on every
//! measure of block time the client gave, and the same less the control
//! series' per-operation time (the glue). The raw points are the result's
//! samples: `iters` is the block's operation count, `ns` its
//! `engine_newPayload` time, one sample per block, in `blocks` order.

use serde::{Deserialize, Serialize};

use crate::gas::Estimate;

/// The id group of the op-isolation series (`reprice/<op>/<param>`).
pub const GROUP: &str = "reprice";
/// The op name of a control series.
pub const CONTROL: &str = "control";

/// One series' fits in one client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Isolation {
    /// The operation and its parameter (`ecrecover`, `valid`).
    pub op: String,
    pub param: String,
    /// The parameter as a number (message words, rounds, points), if it
    /// has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<u64>,
    /// The control series whose per-operation time is the glue (`None`
    /// for a control).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<String>,
    /// One fit per measure of block time.
    pub fits: Vec<Fit>,
    /// Its per-operation time as a ratio to its anchor's, round by round
    /// (absent for a control, for the anchor itself, and in a run made
    /// before rounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<AnchorRatio>,
}

/// The id of the series every op-isolation series is set beside, in the
/// same client and the same round: ECRECOVER, the field's unit.
pub const ANCHOR_SERIES: &str = "reprice/ecrecover/valid";

/// The half-width, relative to the ratio, of the 95% interval a ratio must
/// reach for `dyno gas --blocks` to stop adding rounds.
pub const ANCHOR_TARGET: f64 = 0.05;

/// A series' per-operation time over its anchor's, each measured in the
/// same client in the same round, on dyno's newPayload time, each less
/// its own control's glue: the figure that reproduces when the machine's
/// speed does not (a slower host slows both).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnchorRatio {
    /// The anchor's id ([`ANCHOR_SERIES`]).
    pub anchor: String,
    /// The ratio in each round, in round order: the series' least-squares
    /// slope of the round's blocks less its control's, over the anchor's
    /// the same way. A round where either net slope is not above 0 gives
    /// no ratio and is left out.
    pub rounds: Vec<f64>,
    /// Their mean.
    pub ratio: f64,
    /// The 95% t-interval of the mean across rounds; `None` with fewer
    /// than 2 rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<[f64; 2]>,
    /// The series' own net slope (ns per operation) in each round, beside
    /// the ratio: what the host's speed moves.
    pub per_op_ns: Vec<f64>,
    /// Whether the interval's half-width is within [`ANCHOR_TARGET`] of
    /// the ratio.
    pub reached: bool,
}

/// A non-negative coefficient with its interval and p.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coefficient {
    pub value: f64,
    pub lower: f64,
    pub upper: f64,
    /// Two-sided p of "it is 0" (1 for one the constraint holds at 0).
    pub p: f64,
}

impl Coefficient {
    /// Held at 0 by the non-negativity constraint: no estimate of its
    /// own, so its "interval" [0, 0] says nothing of its spread.
    pub fn held(&self) -> bool {
        self.value == 0.0 && self.lower == 0.0 && self.upper == 0.0 && self.p == 1.0
    }

    pub fn estimate(&self) -> crate::gas::Estimate {
        crate::gas::Estimate {
            value: self.value,
            lower: self.lower,
            upper: self.upper,
        }
    }
}

/// Block time on operation count, one measure of time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fit {
    /// `new_payload` (dyno's side of `engine_newPayload`),
    /// `client_execution` or `client_total` (the client's slow-block log:
    /// `timing.execution_ms`, `timing.total_ms`).
    pub time: String,
    /// Blocks fitted.
    pub n: usize,
    /// NNLS: time = intercept + per_op × count, 95% intervals.
    pub intercept_ns: Coefficient,
    pub per_op_ns: Coefficient,
    pub r_squared: f64,
    /// The repricing EIPs' rule: R² > 0.5 and the count's p < 0.05. A fit
    /// that fails it is reported with its figures, never dropped.
    pub kept: bool,
    /// Theil-Sen slope of the same points, with its 95% interval.
    pub robust_per_op_ns: Estimate,
    /// `per_op_ns` less the control's, on the same time in the same
    /// client (half-widths in quadrature); absent for a control or when
    /// the control has no fit on this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_per_op_ns: Option<Estimate>,
    /// The same with the robust slopes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_robust_per_op_ns: Option<Estimate>,
}

/// Block `k`'s time on measure `time` (`new_payload`: dyno's sample;
/// `client_execution`, `client_total`: the client's slow-block log), in ns;
/// `None` when that block lacks it.
pub fn block_ns(r: &crate::BenchResult, k: usize, time: &str) -> Option<f64> {
    match time {
        "new_payload" => r.samples.get(k).map(|s| s.ns as f64),
        _ => {
            let key = if time == "client_execution" {
                "execution_ms"
            } else {
                "total_ms"
            };
            let log = r.blocks.get(k)?.client_log.as_ref()?;
            Some(log.get("timing")?.get(key)?.as_f64()? * 1e6)
        }
    }
}

impl Isolation {
    /// The fit on `time`, if there is one.
    pub fn fit(&self, time: &str) -> Option<&Fit> {
        self.fits.iter().find(|f| f.time == time)
    }
}

/// `dyno gas --blocks` priced: one row per (series, client, measure of
/// time), as the reports render it. The figures are the results' fits;
/// the lab turns them into gas at the anchor beside each schedule's price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pricing {
    /// Gas per second the anchor prices time at, in millions.
    pub anchor_mgas: f64,
    /// The schedules priced against, today's first.
    pub schedules: Vec<crate::state::ScheduleName>,
    pub rows: Vec<Row>,
    pub run_id: String,
    /// A peer's per-client table set beside dyno's (`--compare`), each
    /// figure relative to ECRECOVER in the same client; empty without one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compared: Vec<Compared>,
    /// One operation's series at every parameter fitted together, the
    /// field's form: time = intercept + per_op × count + per_unit × count ×
    /// parameter; empty where no operation has two parameters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joint: Vec<Joint>,
}

/// An operation's blocks at every parameter in one client, fitted on
/// count and count × parameter (NNLS, the EIPs' form), each block's glue
/// (its control's fitted time a loop turn, in the same client and time)
/// taken off first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Joint {
    /// The operation (`keccak256`).
    pub op: String,
    pub client: String,
    /// Which time, as a [`Fit`]'s.
    pub time: String,
    /// The series pooled, each with its parameter as a number.
    pub series: Vec<(String, u64)>,
    /// Blocks fitted.
    pub n: usize,
    pub intercept_ns: Coefficient,
    /// The operation's fixed time, and its time per unit of the parameter
    /// (a word, a round, a pair, a point), 95% intervals; the glue's own
    /// spread is in each series' net fit, not here.
    pub per_op_ns: Coefficient,
    pub per_unit_ns: Coefficient,
    pub r_squared: f64,
    /// R² > 0.5 and the per-unit coefficient's p < 0.05; shown either way.
    pub kept: bool,
    /// Both at the anchor: a base price and a price per unit.
    pub gas_base: Estimate,
    pub gas_per_unit: Estimate,
    /// Each schedule's base and per-unit price, where its prices of the
    /// pooled series lie on one line (`None` otherwise, or where the
    /// schedule does not price the operation).
    pub prices: Vec<Option<(f64, f64)>>,
}

/// One operation of a peer's table beside dyno's: within each client its
/// gas over that client's ECRECOVER, so machines of different speed
/// compare.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Compared {
    /// dyno's id of the operation.
    pub id: String,
    /// The peer's client and its figure, as the file gives them.
    pub peer_client: String,
    pub peer_gas: f64,
    /// The peer's gas over its ECRECOVER's, in the same client.
    pub peer_ratio: f64,
    /// dyno's figure over its ECRECOVER's, per client dyno measured (the
    /// client's own execution time where it logs one, else dyno's
    /// newPayload time).
    pub ours: Vec<(String, f64)>,
}

/// One series at one level, in one implementation, on one measure of
/// time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// `reprice/<op>/<param>`.
    pub id: String,
    /// `library` (called directly), `bytecode` (an EVM's loop) or `block`
    /// (a client's blocks).
    pub level: String,
    /// The implementation: the library, the EVM or the client.
    pub client: String,
    /// Which time: a block fit's (`new_payload`, `client_execution`,
    /// `client_total`), `direct` or `loop`.
    pub time: String,
    /// Blocks.
    pub n: usize,
    /// Per operation less the glue, NNLS (95%); the raw slope where the
    /// control has no fit.
    pub ns: Estimate,
    /// The same from Theil-Sen slopes.
    pub robust_ns: Option<Estimate>,
    /// A block fit's R², the count's p and the EIPs' rule on them (a
    /// library or bytecode row has none: `kept` true).
    pub r_squared: Option<f64>,
    pub p: Option<f64>,
    pub kept: bool,
    /// Whether `ns` is net of the glue.
    pub net: bool,
    /// `ns` at the anchor: ns × anchor / 1000.
    pub gas: Estimate,
    /// Each schedule's price of one operation (`None`: not priced there).
    pub prices: Vec<Option<u64>>,
    /// `ns` over the time of the library this client or EVM calls (geth's
    /// own precompiles for geth, revm's backends for revm), called
    /// directly: how much of the cost at this level is not the library.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_library: Option<f64>,
    /// A block row on dyno's newPayload time: its ratio to ECRECOVER in
    /// the same client, round by round ([`AnchorRatio`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<AnchorRatio>,
}
