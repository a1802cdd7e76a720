//! rlp suite.

use dyno_workload::BenchDef;

/// The rlp benchmarks.
pub fn defs() -> Vec<BenchDef> {
    Vec::new()
}
