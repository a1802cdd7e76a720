//! The state-access gas table's rows (`dyno gas --state`): each access at
//! each state size and cache state, its time, its calculated gas and the
//! nominal gas of every schedule, and how its cost grows with the state.
//! The pricing is `dyno_price::state`; the rows live here so that a
//! report renders them without compiling the EVM.

use serde::{Deserialize, Serialize};

/// The state suite's id group (`state/<access>/<accounts>[-dropped]`).
pub const GROUP: &str = "state";

/// The suffix of a state id's input whose samples each began with the
/// state's pages evicted (`state/sload-cold/1000000-dropped`).
pub const EVICTED_SUFFIX: &str = "-dropped";

/// What a state id's input names: the accounts, and whether the page cache
/// was evicted (`1000000` → (10⁶, false), `1000000-dropped` → (10⁶, true)).
pub fn input_parts(input: &str) -> Option<(u64, bool)> {
    let (n, evicted) = match input.strip_suffix(EVICTED_SUFFIX) {
        Some(n) => (n, true),
        None => (input, false),
    };
    Some((n.parse().ok()?, evicted))
}

use crate::gas::{Estimate, Pricing};

/// One access at one size and cache state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateRow {
    /// The access kind, e.g. `sload-cold`.
    pub access: String,
    /// Accounts in the state.
    pub accounts: u64,
    /// `warm` or `evicted`: the OS page cache.
    pub cache: String,
    /// The implementation, e.g. `revm`.
    pub implementation: String,
    /// One access, ns (the fit's slope, with its interval).
    pub ns: Estimate,
    /// The EVM's gas for one iteration of the loop (the access with its
    /// share of the loop), where the result recorded it.
    pub loop_gas: Option<u64>,
    /// ns × 3000 / ns(ECRECOVER).
    pub calculated_gas: Estimate,
    /// The gas the time buys at the throughput anchor (60 MGas/s).
    pub throughput_gas: Estimate,
    /// Disk reads per access over the timed samples, where recorded.
    pub disk_reads: Option<f64>,
    /// Each schedule's price of the access, in schedule order.
    pub nominal: Vec<Nominal>,
}

/// A schedule's price of one row's access, and whether the row's
/// calculated gas strays from it by more than the factor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Nominal {
    /// The schedule's name.
    pub schedule: String,
    /// Its price of the access alone.
    pub gas: u64,
    /// The flag, if calculated gas is beyond the factor either way.
    pub pricing: Option<Pricing>,
}

/// How one access's cost grows with the state: the slope of ln(ns)
/// against ln(accounts) over the sizes measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateTrend {
    /// The access kind.
    pub access: String,
    /// `warm` or `evicted`.
    pub cache: String,
    /// The implementation.
    pub implementation: String,
    /// The exponent (ns ∝ accounts^exponent), with its 95% interval.
    pub exponent: Estimate,
    /// The sizes fitted.
    pub sizes: Vec<u64>,
}

/// A schedule as the table names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleName {
    /// `osaka`, `eip-8038`.
    pub name: String,
    /// In force, proposed, superseded.
    pub status: String,
    /// Its provenance.
    pub source: String,
}

/// A run's state accesses priced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatePricing {
    /// The run priced.
    pub run_id: String,
    /// ECRECOVER's time, ns: 3 000 gas.
    pub anchor_ns: Estimate,
    /// The throughput anchor, MGas/s.
    pub throughput_mgas: f64,
    /// The mispricing factor.
    pub factor: f64,
    /// The schedules, in the file's order (the first in force).
    pub schedules: Vec<ScheduleName>,
    /// Access, then size, then cache state.
    pub rows: Vec<StateRow>,
    /// One per access, cache state and implementation with three sizes or
    /// more.
    pub trends: Vec<StateTrend>,
}
