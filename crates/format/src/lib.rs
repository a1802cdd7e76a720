//! dyno's result format, schema version 1.
//!
//! A [`Run`] holds everything needed to re-analyse a measurement later: the
//! environment it ran in, every raw sample, the statistics derived from them,
//! whether the outputs were verified, and the spec's target and threshold.
//! The JSON Schema is `docs/schema/result-v1.schema.json`; the fields are
//! described in `docs/result-schema.md`. Readers reject other schema versions
//! with a clear error rather than misreading them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use dyno_stats::{Interval, LinearFit, Outliers, Stat, Summary};
use serde::{Deserialize, Serialize};

pub mod adapter;
pub mod baseline;
pub mod csv;
pub mod destination;
pub mod escape;
#[cfg(any(test, feature = "fixture"))]
pub mod fixture;
pub mod gas;
pub mod history;
pub mod load;
pub mod noise;
pub mod operation;
pub mod paired;
pub mod read;
pub use dyno_redact as redact;
pub mod replay;
pub mod reprice;
pub mod state;
pub mod time;

/// The schema version this crate writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

/// One invocation of `dyno run`: metadata, environment and results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// Always [`SCHEMA_VERSION`] when written by this crate.
    pub schema_version: u32,
    /// When, how and by what the run was made.
    pub run: RunInfo,
    /// The machine and toolchain.
    pub environment: Environment,
    /// The harness's own cost, measured with an empty benchmark.
    pub harness: Option<Harness>,
    /// One entry per (benchmark id, implementation).
    pub results: Vec<BenchResult>,
    /// Load-lab results (`dyno load`), one per node and signing mode.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub load: Vec<load::LoadResult>,
    /// eth_getLogs read-path studies (`dyno load --logs`), one per node.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<read::LogsStudy>,
    /// Read-load runs (`dyno load --reads`), one per node.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<read::ReadLoad>,
    /// Paired comparisons of two clients replaying the same blocks
    /// (`dyno replay --against`), one per id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comparisons: Vec<replay::Comparison>,
    /// Each client start of a replay (`dyno replay`): its process's CPU,
    /// memory and I/O, and its own metrics.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<replay::ClientRun>,
    /// Interleaved A/B comparisons of two builds (`dyno ab`), one per
    /// benchmark.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paired: Vec<paired::Paired>,
    /// How noisy the machine was while this run measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<noise::Noise>,
    /// The adapters whose workers measured in this run, and where each
    /// came from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adapters: Vec<adapter::AdapterRecord>,
}

/// Run metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunInfo {
    /// Unique, sortable: `20261122T101500Z-1a2b3c`.
    pub id: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    /// RFC 3339, UTC; absent while the run is in progress or was cut short.
    pub finished_at: Option<String>,
    /// False while running, and for a run that was interrupted or failed part way.
    pub complete: bool,
    /// Why the run is incomplete, if it is.
    pub incomplete_reason: Option<String>,
    /// argv as given.
    pub command_line: Vec<String>,
    /// The dyno version.
    pub dyno_version: String,
    /// The git commit dyno was built from, if known.
    pub git_commit: Option<String>,
    /// The engine settings in force.
    pub settings: Settings,
}

/// Measurement settings, recorded so a run can be reproduced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// `--quick` was given.
    pub quick: bool,
    /// Warm-up lasts at least this many iterations...
    pub warmup_min_iters: u64,
    /// ...and at least this long.
    pub warmup_min_ns: u64,
    /// Fewest samples per benchmark.
    pub min_samples: usize,
    /// Most samples per benchmark.
    pub max_samples: usize,
    /// Time budget for the timed samples of one benchmark.
    pub measurement_ns: u64,
    /// Each batched sample lasts at least this long: max(1 ms, 100x resolution).
    pub min_sample_ns: u64,
    /// Operations at least this slow are timed one at a time.
    pub single_threshold_ns: u64,
    /// Operations faster than this are fitted over several batch sizes.
    pub fit_threshold_ns: u64,
    /// Number of batch sizes in a fit.
    pub fit_sizes: usize,
}

/// The machine, OS, clock and toolchain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// e.g. `Intel(R) Xeon(R) Processor`.
    pub cpu_model: String,
    /// Logical CPUs available to the process.
    pub cores: usize,
    /// Total memory.
    pub memory_bytes: u64,
    /// e.g. `Debian GNU/Linux 12 (bookworm)`.
    pub os: String,
    /// Kernel release.
    pub kernel: String,
    /// e.g. `x86_64`.
    pub arch: String,
    /// The clock the timings came from.
    pub clock: Clock,
    /// `rustc --version` of the compiler that built dyno.
    pub rustc: String,
    /// Versions of other runtimes, by name (filled by adapters).
    pub runtimes: BTreeMap<String, String>,
}

/// The timer, measured at start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clock {
    /// The kernel clocksource (`tsc`, `hpet`, ...), or `unknown`.
    pub source: String,
    /// Mean cost of one monotonic clock read.
    pub read_cost_ns: f64,
    /// Smallest observed non-zero step between two reads.
    pub resolution_ns: f64,
}

/// What the harness itself costs, from timing an empty benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Harness {
    /// P50 per iteration of the empty benchmark: loop, input cycling and
    /// `black_box`. Every per-op figure includes this much.
    pub empty_iteration_ns: f64,
    /// The empty benchmark's fit: the intercept is the per-sample cost
    /// (timer reads and call), which the slope excludes.
    pub fit: Option<LinearFit>,
}

/// How the samples were taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// One operation per sample (slow operations), so tails are real.
    Single,
    /// A fixed batch per sample of at least `min_sample_ns`.
    Batched,
    /// Several batch sizes, with time fitted against batch size.
    LinearFit,
}

/// Whether the outputs were checked against expected values before timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerificationStatus {
    /// Every case matched; the result was then timed.
    Passed,
    /// An output differed; nothing was timed.
    Failed,
    /// Not reached (the run stopped first, or the workload could not be built).
    NotRun,
}

/// The verification outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verification {
    /// Passed, failed or not run.
    pub status: VerificationStatus,
    /// Inputs in the set (each checked).
    pub cases: usize,
    /// On failure: which case, expected and actual.
    pub mismatch: Option<Mismatch>,
}

/// A wrong output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mismatch {
    /// The case (input index or name).
    pub case: String,
    /// The expected value, as shown to people.
    pub expected: String,
    /// The value returned.
    pub actual: String,
}

/// One timed sample: `iters` operations took `ns` nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    /// Operations in the sample.
    pub iters: u64,
    /// Wall time of the whole sample.
    pub ns: u64,
}

impl Sample {
    /// Time per operation.
    pub fn per_op(&self) -> f64 {
        self.ns as f64 / self.iters as f64
    }
}

/// Heap allocations per operation, from the counting global allocator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Allocations {
    /// Allocation calls (alloc, realloc) per operation.
    pub allocs_per_op: f64,
    /// Bytes requested per operation.
    pub bytes_per_op: f64,
    /// Operations counted.
    pub iters: u64,
}

/// A spec target: the statistic must not exceed the limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// `p50`, `p95`, `p99`, `max` or `mean`.
    pub stat: Stat,
    /// The limit, per operation.
    pub limit_ns: f64,
    /// Whether the measured statistic is within the limit (absent if not measured).
    pub met: Option<bool>,
}

/// The implementation measured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Implementation {
    /// e.g. `k256`.
    pub name: String,
    /// e.g. `0.13.4`.
    pub version: String,
    /// Where it runs: `rust` for in-process benchmarks.
    pub runtime: String,
}

/// One benchmark id measured on one implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchResult {
    /// `group/op/input`.
    pub id: String,
    /// The implementation.
    pub implementation: Implementation,
    /// True for the implementation that others in the same id are compared with.
    pub baseline: bool,
    /// Recorded parameters (`bytes`, `accounts`, ...).
    pub parameters: BTreeMap<String, serde_json::Value>,
    /// The unit of `samples.ns` and of every statistic: nanoseconds per operation.
    pub unit: String,
    /// How samples were taken; absent if nothing was timed.
    pub mode: Option<Mode>,
    /// Checked before timing.
    pub verification: Verification,
    /// Warm-up iterations run before sampling.
    pub warmup_iters: u64,
    /// Raw samples, in the order taken.
    pub samples: Vec<Sample>,
    /// Statistics over the per-operation time of each sample.
    pub stats: Option<Summary>,
    /// Operations per second at the median: 1e9 / p50.
    pub ops_per_sec: Option<f64>,
    /// Time against batch size (linear-fit mode): slope = ns per op.
    pub fit: Option<LinearFit>,
    /// Heap allocations per op, when counted.
    pub allocations: Option<Allocations>,
    /// The spec's target, if any.
    pub target: Option<Target>,
    /// Relative slowdown that counts as a regression (0.2 = 20%).
    pub regression_threshold: f64,
    /// Measurement stopped early for this reason (samples taken are kept).
    pub incomplete_reason: Option<String>,
    /// Instructions per operation counted under callgrind (`--instructions`),
    /// a machine-independent metric for in-process Rust benchmarks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<Instructions>,
    /// A block replay's blocks (`dyno replay`), one per sample in the same
    /// order: which block, the forkchoice time, the client's own log.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<replay::Block>,
    /// An op-isolation series (`dyno gas --blocks`): block time fitted on
    /// the blocks' operation counts (the samples' `iters`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reprice: Option<reprice::Isolation>,
}

/// Instructions executed per operation, counted by valgrind's callgrind: a
/// count, not a time, so it repeats exactly for the same binary and inputs
/// whatever else the machine is doing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Instructions {
    /// Instructions per operation: the difference between two counted runs
    /// of different lengths, divided by the difference in iterations, so
    /// one-off costs (set-up, first-call initialisation) cancel.
    pub per_op: f64,
    /// The iteration counts of the two counted runs.
    pub iters: [u64; 2],
    /// The instructions each run counted.
    pub counts: [u64; 2],
    /// The tool and its version, e.g. `callgrind (valgrind-3.19.0)`.
    pub tool: String,
}

impl BenchResult {
    /// The id's group (first part).
    pub fn group(&self) -> &str {
        self.id.split('/').next().unwrap_or(&self.id)
    }
}

/// Failure to read or write a result file.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not valid result JSON.
    #[error("{}:{line}:{column}: {reason}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        reason: String,
    },
    /// Written by another schema version.
    #[error(
        "{}: schema_version {found} is not supported (this dyno reads version {SCHEMA_VERSION}); \
         re-run the benchmarks or use the dyno that wrote it",
        path.display()
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// The version it declares.
        found: u64,
    },
}

impl Run {
    /// Serialize as pretty JSON.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a Run always serializes");
        s.push('\n');
        s
    }

    /// The results that failed verification (wrong results), each as
    /// `ID [IMPLEMENTATION]`.
    pub fn wrong_results(&self) -> Vec<String> {
        self.results
            .iter()
            .filter(|r| r.verification.status == VerificationStatus::Failed)
            .map(|r| format!("{} [{}]", r.id, r.implementation.name))
            .collect()
    }

    /// Write to `path` atomically (temporary file, then rename), so a reader
    /// or a crash never sees half a file.
    pub fn write(&self, path: &Path) -> Result<(), FormatError> {
        write_atomic(path, self.to_json().as_bytes())
    }

    /// Read a result file, checking its schema version first.
    pub fn read(path: &Path) -> Result<Self, FormatError> {
        Self::parse(&read_text(path)?, path)
    }

    /// Parse result JSON; `path` is used in error messages.
    pub fn parse(text: &str, path: &Path) -> Result<Self, FormatError> {
        parse_versioned(
            text,
            path,
            "schema_version",
            SCHEMA_VERSION,
            |found| FormatError::Version {
                path: path.to_path_buf(),
                found,
            },
            "no schema_version: not a dyno result file",
        )
    }
}

/// The most a gzipped file may hold unpacked (4 GiB): more is a bomb, not
/// a result.
pub const MAX_UNPACKED_BYTES: u64 = 4 << 30;

/// A file's text, gunzipped when it is gzip (its first two bytes say so,
/// whatever its name: the raw data in docs/ ships as `.json.gz`), or an
/// error naming it: not UTF-8 says where, and how to read it.
pub fn read_text(path: &Path) -> Result<String, FormatError> {
    use std::io::Read as _;
    let io = |source| FormatError::Io {
        path: path.to_path_buf(),
        source,
    };
    let bytes = std::fs::read(path).map_err(io)?;
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .take(MAX_UNPACKED_BYTES + 1)
            .read_to_end(&mut out)
            .map_err(|e| {
                io(std::io::Error::new(
                    e.kind(),
                    format!("gzip, but it does not unpack: {e}"),
                ))
            })?;
        if out.len() as u64 > MAX_UNPACKED_BYTES {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("gzip that unpacks to more than {MAX_UNPACKED_BYTES} bytes"),
            )));
        }
        out
    } else {
        bytes
    };
    String::from_utf8(bytes).map_err(|e| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text at byte {} (a result is JSON; a gzipped one is read as it is)",
                e.utf8_error().valid_up_to()
            ),
        ))
    })
}

/// Parse a JSON document whose `field` must equal `version`: another
/// version becomes `wrong(found)`, a missing field a parse error saying
/// `missing`, and bad JSON a parse error with line and column.
pub(crate) fn parse_versioned<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
    field: &str,
    version: u32,
    wrong: impl FnOnce(u64) -> FormatError,
    missing: &str,
) -> Result<T, FormatError> {
    let parse_err = |e: serde_json::Error| FormatError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        reason: e.to_string(),
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(parse_err)?;
    let at_top = |reason: String| FormatError::Parse {
        path: path.to_path_buf(),
        line: 1,
        column: 1,
        reason,
    };
    if !value.is_object() {
        return Err(at_top(format!(
            "{missing} (the file holds a JSON {}, not an object)",
            json_kind(&value)
        )));
    }
    match value.get(field) {
        Some(v) => match v.as_u64() {
            Some(v) if v == u64::from(version) => serde_json::from_str(text).map_err(parse_err),
            Some(found) => Err(wrong(found)),
            None => Err(at_top(format!(
                "{field} is {v}, a {}; it must be the number {version}",
                json_kind(v)
            ))),
        },
        None => Err(at_top(missing.to_string())),
    }
}

/// What kind of JSON value this is, in words.
fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// Write `bytes` to `path` through a synced temporary file and a rename, so
/// a reader or a crash never sees half a file; a failed write leaves no
/// temporary file behind. Creates the parent folder. (For a path the user
/// gave, check it first with [`destination::Destination::check`].)
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FormatError> {
    destination::write_replacing(path, bytes).map_err(|source| FormatError::Io {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests;
