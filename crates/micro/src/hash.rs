//! hash suite.

use dyno_workload::BenchDef;

/// The hash benchmarks.
pub fn defs() -> Vec<BenchDef> {
    Vec::new()
}
