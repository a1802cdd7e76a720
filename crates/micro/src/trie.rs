//! trie suite.

use dyno_workload::BenchDef;

/// The trie benchmarks.
pub fn defs() -> Vec<BenchDef> {
    Vec::new()
}
