//! Interleaved A/B of two builds (`dyno ab`): for one benchmark, short
//! rounds of the base build (A) and the candidate (B) in ABBA order, each
//! pair of adjacent rounds giving one ratio, so that whatever the host
//! does to the machine's speed for seconds at a time hits both sides of a
//! pair alike.

use serde::{Deserialize, Serialize};

/// One benchmark compared in interleaved rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paired {
    /// The benchmark id.
    pub id: String,
    /// The implementation measured on both sides.
    pub implementation: String,
    /// What each side is (`base: ./old/dyno worker`, `candidate: this
    /// dyno`), as shown.
    pub base: String,
    pub candidate: String,
    /// Iterations of the operation in every round, both sides alike.
    pub iterations: u64,
    /// The order rounds were run in, compressed: `ABBA` repeated.
    pub order: String,
    /// Each round's time per operation (ns; a round's mean over its
    /// `iterations`), in the order run, side A's and side B's.
    pub base_ns: Vec<f64>,
    pub candidate_ns: Vec<f64>,
    /// Per pair of adjacent rounds: ln(B's time / A's time).
    pub log_ratios: Vec<f64>,
    /// B's time relative to A's (B / A - 1): the median over pairs.
    pub delta: f64,
    /// Its percentile-bootstrap interval (pairs resampled whole).
    pub delta_low: f64,
    pub delta_high: f64,
    /// The interval's confidence level.
    pub level: f64,
    /// The exact sign test's p ("B is as often slower as faster"), and
    /// Holm's adjustment over every benchmark of the run.
    pub p: f64,
    pub p_holm: f64,
    /// A change smaller than this (relative) is not a regression.
    pub threshold: f64,
    /// The smallest change this comparison would flag 95% of the time at
    /// the noise it saw (relative): what the gate can vouch for here.
    pub min_detectable: f64,
    /// `regressed`, `improved`, `unchanged` (the interval lies within the
    /// threshold), `inconclusive` (too noisy to say either), or
    /// `not compared` (with `note` saying why).
    pub verdict: String,
    /// Why there is no verdict, or what else a reader must know (the
    /// knob's slowdown on the candidate side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
