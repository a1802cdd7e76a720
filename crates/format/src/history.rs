//! What the run history lists: saved runs, one id's figures over runs,
//! and baselines. The store reads them; the report renders them.

use serde::Serialize;

/// One stored run, as listed by `Store::runs` of dyno-store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunRow {
    /// The run id.
    pub id: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    /// Whether the run finished.
    pub complete: bool,
    /// The git commit dyno was built from, if known.
    pub git_commit: Option<String>,
    /// The machine's CPU.
    pub cpu_model: String,
    /// The command line, arguments joined by spaces.
    pub command: String,
    /// Benchmark results in the run.
    pub results: usize,
    /// Load-lab results in the run.
    pub load: usize,
}

/// One measurement of a benchmark id in one stored run, from
/// `Store::history`. Times are nanoseconds per operation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryPoint {
    /// The run it was measured in.
    pub run_id: String,
    /// When that run started (RFC 3339, UTC).
    pub started_at: String,
    /// The git commit that run's dyno was built from, if known.
    pub git_commit: Option<String>,
    /// The implementation's name.
    pub implementation: String,
    /// Where it ran (`rust`, `go`, ...).
    pub runtime: String,
    /// Median.
    pub p50_ns: f64,
    /// 95th percentile.
    pub p95_ns: f64,
    /// 99th percentile.
    pub p99_ns: f64,
    /// Lower end of the median's 95 % confidence interval.
    pub ci_low_ns: f64,
    /// Upper end of the median's 95 % confidence interval.
    pub ci_high_ns: f64,
    /// Samples the statistics are over.
    pub n: usize,
}

/// One stored baseline, as listed by `Store::baselines`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BaselineRow {
    /// The baseline's name.
    pub name: String,
    /// How many versions it has.
    pub versions: u32,
    /// When its newest version was saved (RFC 3339, UTC).
    pub updated_at: String,
    /// The reason given for the newest version.
    pub latest_reason: String,
    /// The id of the run the newest version holds.
    pub run_id: String,
}
