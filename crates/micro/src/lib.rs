//! dyno's built-in micro workloads: what Ethereum clients spend their time in.
//!
//! Each module is one suite and lists its benchmarks as [`BenchDef`]s, one per
//! `(group/op/input, implementation)`. Where the Rust ecosystem has more than
//! one implementation of a primitive, every one is listed under the same id so
//! the tables can compare them. Every workload verifies its outputs against
//! the vectors in `vectors/` (or against an independent implementation)
//! before it is timed.

use dyno_workload::BenchDef;

pub mod cases;
pub mod crypto;
pub mod hash;
pub mod jsonrpc;
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
    defs.extend(jsonrpc::defs());
    defs
}

/// Helpers the suites' tests share: the repository's vectors, and edited
/// copies of a vector file for tests that must see a check fail.
#[cfg(test)]
pub(crate) mod testutil {
    use std::path::PathBuf;

    use dyno_workload::Ctx;

    /// The repository's `vectors/` folder.
    pub(crate) fn vectors() -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors"))
    }

    /// A context reading the repository's vectors.
    pub(crate) fn ctx() -> Ctx {
        Ctx { vectors: vectors() }
    }

    /// A temporary vectors folder holding only `file`, edited by `edit`.
    /// `tag` keeps concurrent tests' folders apart.
    pub(crate) fn edited(
        tag: &str,
        file: &str,
        edit: impl FnOnce(&mut serde_json::Value),
    ) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("dyno-micro-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = std::fs::read_to_string(vectors().join(file)).unwrap();
        let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
        edit(&mut json);
        std::fs::write(dir.join(file), serde_json::to_string(&json).unwrap()).unwrap();
        dir
    }
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
