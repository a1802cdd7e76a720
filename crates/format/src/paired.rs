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
    /// Each pass: both sides in fresh worker processes, warmed up, then
    /// interleaved rounds.
    pub passes: Vec<Pass>,
    /// B's time relative to A's (B / A - 1): from the mean of the passes'
    /// statistics.
    pub delta: f64,
    /// Its Student's t interval over the passes.
    pub delta_low: f64,
    pub delta_high: f64,
    /// The interval's confidence level.
    pub level: f64,
    /// The t test's p over the passes ("no difference"), and Holm's
    /// adjustment over every benchmark of the run.
    pub p: f64,
    pub p_holm: f64,
    /// A change smaller than this (relative) is not a regression.
    pub threshold: f64,
    /// The smallest change the verdict would flag 95% of the time at the
    /// noise this comparison saw (relative), the interval beyond the
    /// threshold and Holm's test over the run's number of comparisons
    /// both counted: what the gate can vouch for here; `None` when
    /// nothing was compared.
    pub min_detectable: Option<f64>,
    /// `regressed`, `improved`, `unchanged` (the interval lies within the
    /// threshold), `inconclusive` (too noisy to say either), or
    /// `not compared` (with `note` saying why).
    pub verdict: String,
    /// Why there is no verdict, or what else a reader must know (the
    /// knob's slowdown on the candidate side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One pass of a comparison: a fresh worker on each side, warmed up, then
/// rounds in ABBA order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pass {
    /// Operations in every round of this pass, both sides alike.
    pub iterations: u64,
    /// The order the rounds ran in (`ABBAABBA...`).
    pub order: String,
    /// Each round's time per operation (ns; the round's mean over its
    /// `iterations`), in the order run: side A's and side B's.
    pub base_ns: Vec<f64>,
    pub candidate_ns: Vec<f64>,
    /// Per pair of adjacent rounds: ln(B's time / A's time).
    pub log_ratios: Vec<f64>,
    /// The pass's statistic: the median of its log ratios.
    pub statistic: f64,
}
