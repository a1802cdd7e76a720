//! dyno's built-in micro workloads: what Ethereum clients spend their time in.
//!
//! Each module is one suite and lists its benchmarks as [`BenchDef`]s, one per
//! `(group/op/input, implementation)`. Where the Rust ecosystem has more than
//! one implementation of a primitive, every one is listed under the same id so
//! the tables can compare them. Every workload verifies its outputs against
//! the vectors in `vectors/` (or against an independent implementation)
//! before it is timed.

use dyno_workload::BenchDef;

pub mod crypto;
pub mod hash;
pub mod rlp;
pub mod trie;

mod versions {
    include!(concat!(env!("OUT_DIR"), "/versions.rs"));
}
pub(crate) use versions::version;

/// Every benchmark the built-in suites can build.
pub fn catalog() -> Vec<BenchDef> {
    let mut defs = Vec::new();
    defs.extend(hash::defs());
    defs.extend(crypto::defs());
    defs.extend(rlp::defs());
    defs.extend(trie::defs());
    defs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_come_from_the_lockfile() {
        assert_eq!(version("k256"), "0.13.4");
        assert_ne!(version("tiny-keccak"), "unknown");
        assert_eq!(version("no-such-crate"), "unknown");
    }

    #[test]
    fn ids_and_implementations_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for d in catalog() {
            assert!(
                seen.insert((d.id(), d.implementation)),
                "duplicate {} {}",
                d.id(),
                d.implementation
            );
        }
    }
}
