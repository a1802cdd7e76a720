//! dyno's regression gate: one verdict per benchmark between a baseline run
//! and a new run, built not to cry wolf.
//!
//! A benchmark is **regressed** only when both hold:
//!
//! 1. the change is statistically significant: a two-sided Mann-Whitney U
//!    test of the per-operation sample times, with the p-values of all the
//!    benchmarks compared adjusted together by Holm's method, so the chance
//!    of *any* false alarm in a whole check stays below α (0.05);
//! 2. the effect is larger than the benchmark's regression threshold (the
//!    spec's, 20% by default): the ratio of medians, new over baseline,
//!    exceeds `1 + threshold`.
//!
//! **Improved** is the mirror image (ratio below `1 / (1 + threshold)`).
//! **No change** (`~`) is everything in between, significant or not.
//! **Insufficient data** is said, with the reason, when a side is missing,
//! has failed verification, has fewer than [`Options::min_samples`]
//! samples, or has so few that no outcome could reach significance.
//!
//! The binary re-measures flagged benchmarks once and confirms with
//! [`confirm`]; only a regression seen twice fails a check.
//!
//! When the two runs come from different machines, times are first divided
//! by a reference operation measured in the same run (ECRECOVER by
//! default), and the comparison says so ([`Comparison::normalised`]).
//! Instruction counts (callgrind) can be compared instead of times: they
//! are exact, so the threshold alone decides.
//!
//! The paired A/B verdict of `dyno ab` (two builds measured interleaved in
//! one run) is [`paired`]'s.

use dyno_format::{BenchResult, Run, VerificationStatus};
use serde::Serialize;

mod changes;
mod machine;
pub mod paired;
mod verdict;

pub use changes::changes;
pub use machine::{Machine, same_machine};
pub use verdict::{compare, confirm};

/// The reference operation for cross-machine normalisation.
pub const DEFAULT_REFERENCE: &str = "precompile/ecrecover/ValidKey";

/// Family-wise significance level.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// The threshold used when a result carries none.
pub const DEFAULT_THRESHOLD: f64 = 0.2;

/// What is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Per-operation wall time of every sample.
    Time,
    /// Instructions per operation counted under callgrind.
    Instructions,
}

/// When to divide by the reference operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Normalize {
    /// When the runs' machines differ.
    Auto,
    /// Always.
    Always,
    /// Never (raw times even across machines, with a warning).
    Never,
}

/// How to compare.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Options {
    /// Family-wise significance level.
    pub alpha: f64,
    /// Overrides every result's own regression threshold.
    pub threshold: Option<f64>,
    /// Normalisation policy.
    pub normalize: Normalize,
    /// The reference id for normalisation.
    pub reference: String,
    /// Time or instructions.
    pub metric: Metric,
    /// Fewer samples than this on either side: insufficient data.
    pub min_samples: usize,
    /// Bootstrap resamples for each ratio's CI (0: no CI).
    pub resamples: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            alpha: DEFAULT_ALPHA,
            threshold: None,
            normalize: Normalize::Auto,
            reference: DEFAULT_REFERENCE.to_string(),
            metric: Metric::Time,
            min_samples: 5,
            resamples: 2000,
        }
    }
}

/// One benchmark's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Significantly faster, by more than the threshold.
    Improved,
    /// Significantly slower, by more than the threshold.
    Regressed,
    /// No change beyond the threshold (`~`).
    NoChange,
    /// Too little to decide (see the row's note).
    Insufficient,
}

impl Verdict {
    /// As shown in tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Improved => "improved",
            Self::Regressed => "REGRESSED",
            Self::NoChange => "~",
            Self::Insufficient => "insufficient data",
        }
    }
}

/// One side of a comparison, in the compared unit (ns, a ratio to the
/// reference, or instructions).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// Samples (1 for an instruction count).
    pub n: usize,
    /// The median.
    pub median: f64,
    /// The 95% distribution-free CI of the median, when n allows.
    pub ci: Option<dyno_stats::Interval>,
}

/// One benchmark (id and implementation) compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// `group/op/input`.
    pub id: String,
    /// Implementation name.
    pub implementation: String,
    /// Its runtime (`rust`, `go`, ...).
    pub runtime: String,
    /// The baseline side.
    pub base: Option<Side>,
    /// The new side.
    pub new: Option<Side>,
    /// median(new) / median(base).
    pub ratio: Option<f64>,
    /// Bootstrap 95% CI of the ratio.
    pub ratio_ci: Option<dyno_stats::Interval>,
    /// Mann-Whitney two-sided p.
    pub p: Option<f64>,
    /// Holm-adjusted p over the benchmarks compared.
    pub p_adjusted: Option<f64>,
    /// The regression threshold applied.
    pub threshold: f64,
    /// The verdict.
    pub verdict: Verdict,
    /// Why (for insufficient data), or what else to know.
    pub note: Option<String>,
    /// The first pass's verdict, when this row was re-measured.
    pub first_verdict: Option<Verdict>,
    /// When re-measured: the ratio of every pass, the first one first (the
    /// row's own figures are the last pass's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub passes: Vec<Option<f64>>,
}

impl Row {
    /// Change in percent, (ratio - 1) x 100.
    pub fn delta_pct(&self) -> Option<f64> {
        self.ratio.map(|r| (r - 1.0) * 100.0)
    }

    /// Key for matching results between runs.
    pub fn key(&self) -> (String, String, String) {
        (
            self.id.clone(),
            self.implementation.clone(),
            self.runtime.clone(),
        )
    }
}

/// How times were normalised, when they were.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Normalisation {
    /// The reference id.
    pub reference: String,
    /// Its median per-op time in the baseline run, ns.
    pub base_ns: f64,
    /// Its median per-op time in the new run, ns.
    pub new_ns: f64,
    /// Why: the machines, or "asked for".
    pub reason: String,
}

/// A whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// What the baseline is (a name, a file, a run id).
    pub base_label: String,
    /// What the new run is.
    pub new_label: String,
    /// Time or instructions.
    pub metric: Metric,
    /// Family-wise α.
    pub alpha: f64,
    /// Benchmarks in the Holm family.
    pub family: usize,
    /// Set when times were divided by a reference.
    pub normalised: Option<Normalisation>,
    /// One row per benchmark in either run, in the baseline's order.
    pub rows: Vec<Row>,
    /// Geometric mean of the ratios over rows with both sides.
    pub geomean_ratio: Option<f64>,
    /// Warnings, shown as numbered footnotes.
    pub notes: Vec<String>,
}

impl Comparison {
    /// Rows with this verdict.
    pub fn count(&self, v: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == v).count()
    }

    /// The rows flagged as regressed.
    pub fn regressed(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.verdict == Verdict::Regressed)
    }
}

/// Why two runs cannot be compared.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GateError {
    /// Normalisation was needed but the reference is missing on one side.
    #[error(
        "{why}, so times must be normalised by {reference}, but the {side} run has no \
         verified timing of it; measure it in both runs, or pass --normalize never to \
         compare raw times anyway"
    )]
    NoReference {
        /// Why normalisation was needed.
        why: String,
        /// The reference id.
        reference: String,
        /// `baseline` or `new`.
        side: &'static str,
    },
    /// Nothing in common.
    #[error(
        "the two runs share no benchmark (baseline: {base} results, new: {new}); \
         run the baseline's ids (`dyno check` without a run file does)"
    )]
    Disjoint {
        /// Results in the baseline.
        base: usize,
        /// Results in the new run.
        new: usize,
    },
    /// Bad options.
    #[error("{0}")]
    Options(String),
}

/// The per-operation times of a result's samples, ns; empty for a result
/// that failed verification.
pub fn per_op_samples(r: &BenchResult) -> Vec<f64> {
    if r.verification.status == VerificationStatus::Failed {
        return Vec::new();
    }
    r.samples
        .iter()
        .filter(|s| s.iters > 0)
        .map(|s| s.per_op())
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect()
}

/// The median per-op time of `id`'s baseline implementation in `run`.
pub fn reference_ns(run: &Run, id: &str) -> Option<f64> {
    run.results
        .iter()
        .filter(|r| r.id == id && r.verification.status == VerificationStatus::Passed)
        .find(|r| r.baseline || r.implementation.runtime == "rust")
        .and_then(|r| dyno_stats::median(&per_op_samples(r)))
}

#[cfg(test)]
mod tests;
