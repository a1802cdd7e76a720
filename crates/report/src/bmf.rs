//! Bencher Metric Format (BMF): the JSON that Bencher's `json` adapter
//! reads, so `bencher run --adapter json --file <this>` tracks dyno results.
//!
//! The document maps a benchmark name to its measures, each a metric with a
//! `value` and, when known, a `lower_value` and `upper_value` (a recorded
//! result, rounded here, written one measure a line):
//!
//! ```json
//! {
//!   "hash/keccak256/32B::tiny-keccak": {
//!     "allocated-bytes": { "value": 0.0 },
//!     "allocations": { "value": 0.0 },
//!     "latency": { "value": 553.74, "lower_value": 513.01, "upper_value": 594.47 },
//!     "throughput": { "value": 1805891.1, "lower_value": 1682161.5, "upper_value": 1949267.4 }
//!   }
//! }
//! ```
//!
//! # Benchmark names
//!
//! `<id>::<implementation>`, for every result, the baseline included:
//! `hash/keccak256/32B::tiny-keccak`, `precompile/ecrecover/ValidKey::geth (go)`.
//! The implementation is [`crate::compare::label`]: its name for Rust, and
//! `name (runtime)` for the other runtimes, as in dyno's own tables. The
//! version is left out, so a version bump continues the same series (that
//! is the change Bencher is there to catch). The baseline is not given the
//! bare id: which implementation is the baseline is a spec setting, and a
//! bare `<id>` would silently switch series when it changed. Ids never hold
//! `:` (the result schema allows `[A-Za-z0-9._-]` and `/`), so the name
//! splits back unambiguously at the first `::`.
//!
//! # Measures
//!
//! * `latency` (Bencher's built-in measure, nanoseconds): the time per
//!   operation that dyno compares everywhere ([`crate::compare::per_op`]):
//!   for linear-fit results the Theil-Sen slope of the raw samples, with
//!   Sen's 95 % interval as the bounds (robust to a sample the scheduler
//!   held up, which can flip an OLS slope); else the median (P50), with the
//!   median's distribution-free confidence interval.
//! * `throughput` (built-in, operations per second): `1e9 / latency`; its
//!   bounds are the latency bounds inverted (and swapped), given only when
//!   the lower latency bound is positive.
//! * `instructions`: instructions per operation, when counted under
//!   callgrind (`--instructions`).
//! * `allocations` and `allocated-bytes`: heap allocation calls and bytes
//!   requested per operation, when counted. Exact counts, so no bounds.
//!
//! Bencher creates the custom measures (`instructions`, `allocations`,
//! `allocated-bytes`) on first use; give them units in the Bencher console.
//!
//! Bounds are written only when both are finite and bracket the value.
//! Measures whose value is not finite are left out.
//!
//! # What is left out
//!
//! Results that failed verification (a wrong result is never a timing) and
//! results without statistics (nothing was timed). A result cut short is
//! kept: its statistics cover the samples taken. If two results share a
//! name (the format allows one result per id and implementation, so only a
//! malformed run does this), the first is kept.
//!
//! Keys are sorted (benchmark names, then measure slugs), so the same run
//! always renders to the same text.

use std::collections::BTreeMap;

use dyno_format::{BenchResult, Run, VerificationStatus};
use serde::Serialize;

use crate::compare;

/// Bencher's built-in latency measure (nanoseconds).
pub const LATENCY: &str = "latency";
/// Bencher's built-in throughput measure (operations per second).
pub const THROUGHPUT: &str = "throughput";
/// Instructions per operation.
pub const INSTRUCTIONS: &str = "instructions";
/// Heap allocation calls per operation.
pub const ALLOCATIONS: &str = "allocations";
/// Heap bytes requested per operation.
pub const ALLOCATED_BYTES: &str = "allocated-bytes";

/// One metric: a value and, when known, its bounds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Metric {
    /// The measured value.
    pub value: f64,
    /// The lower bound (a confidence interval's lower end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower_value: Option<f64>,
    /// The upper bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper_value: Option<f64>,
}

impl Metric {
    /// `value` alone, if finite.
    fn exact(value: f64) -> Option<Self> {
        value.is_finite().then_some(Self {
            value,
            lower_value: None,
            upper_value: None,
        })
    }

    /// `value` with bounds `[lower, upper]`, the bounds dropped unless both
    /// are finite and bracket the value; `None` if `value` is not finite.
    fn bounded(value: f64, lower: f64, upper: f64) -> Option<Self> {
        let mut m = Self::exact(value)?;
        if lower.is_finite() && upper.is_finite() && lower <= value && value <= upper {
            m.lower_value = Some(lower);
            m.upper_value = Some(upper);
        }
        Some(m)
    }
}

/// The measures of one benchmark, by slug.
pub type Measures = BTreeMap<&'static str, Metric>;

/// The benchmark name of a result: `<id>::<implementation label>`.
pub fn name(r: &BenchResult) -> String {
    format!("{}::{}", r.id, compare::label(r))
}

/// Latency per operation ([`compare::per_op`]): the robust slope (with
/// its interval) where samples were fitted, else the P50 (with the
/// median's interval).
fn latency(r: &BenchResult) -> Option<Metric> {
    r.stats.as_ref()?;
    let e = compare::per_op(r)?;
    Metric::bounded(e.value, e.lower, e.upper)
}

/// Operations per second from a latency in nanoseconds.
fn throughput(lat: &Metric) -> Option<Metric> {
    if lat.value <= 0.0 {
        return None;
    }
    let value = 1e9 / lat.value;
    match (lat.lower_value, lat.upper_value) {
        (Some(lo), Some(hi)) if lo > 0.0 => Metric::bounded(value, 1e9 / hi, 1e9 / lo),
        _ => Metric::exact(value),
    }
}

/// The measures of one result, or `None` if it is left out (failed
/// verification, nothing timed).
pub fn measures(r: &BenchResult) -> Option<Measures> {
    if r.verification.status == VerificationStatus::Failed {
        return None;
    }
    let lat = latency(r)?;
    let mut m = Measures::new();
    m.insert(LATENCY, lat);
    if let Some(t) = throughput(&lat) {
        m.insert(THROUGHPUT, t);
    }
    if let Some(i) = r
        .instructions
        .as_ref()
        .and_then(|i| Metric::exact(i.per_op))
    {
        m.insert(INSTRUCTIONS, i);
    }
    if let Some(a) = &r.allocations {
        if let Some(v) = Metric::exact(a.allocs_per_op) {
            m.insert(ALLOCATIONS, v);
        }
        if let Some(v) = Metric::exact(a.bytes_per_op) {
            m.insert(ALLOCATED_BYTES, v);
        }
    }
    Some(m)
}

/// Every kept result's measures, by benchmark name (sorted).
pub fn document(run: &Run) -> BTreeMap<String, Measures> {
    let mut doc = BTreeMap::new();
    for r in &run.results {
        if let Some(m) = measures(r) {
            doc.entry(name(r)).or_insert(m);
        }
    }
    doc
}

/// Render `run` as BMF JSON (pretty, with a final newline).
pub fn render(run: &Run) -> String {
    let mut s =
        serde_json::to_string_pretty(&document(run)).expect("finite numbers always serialize");
    s.push('\n');
    s
}

/// Bencher's Metric Format.
#[derive(Debug, Clone, Copy)]
pub struct Bmf;

impl crate::Export for Bmf {
    fn render(&self, run: &Run) -> String {
        render(run)
    }

    fn one_run_only(&self) -> Option<&'static str> {
        Some("--format bmf writes one run's metrics; give one RUN")
    }
}
