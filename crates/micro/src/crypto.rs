//! crypto suite.

use dyno_workload::BenchDef;

/// The crypto benchmarks.
pub fn defs() -> Vec<BenchDef> {
    Vec::new()
}
