//! The `db` suite: the key-value stores Ethereum clients keep their state
//! in, measured on the same Ethereum-shaped data with the same durability
//! setting (`docs/db.md`).
//!
//! * [`dataset`]: version 1 of the data set (32-byte keccak keys, 100-600 B
//!   values, generated from SplitMix64 in every runtime).
//! * [`store`]: one interface over the engines, and loading the data set
//!   once into a cached database.
//! * [`bench`]: the operations (get, put, batches of 10 and 100, a 1000-pair
//!   scan, a 4:1 read/write mix) as workloads that check every output
//!   against the generator before they are timed.
//! * Engines: [`redb`](mod@redb) always; `rocksdb` and `mdbx` with the
//!   `engines` feature (C and C++ built from source through bindgen).

use dyno_workload::BenchDef;

pub mod bench;
pub mod cases;
pub mod dataset;
pub mod redb;
pub mod store;

#[cfg(feature = "engines")]
pub mod mdbx;
#[cfg(feature = "engines")]
pub mod rocksdb;

use store::Engine;

/// RocksDB, MDBX and redb; the first two with `open: None` when this build
/// leaves them out.
pub fn engines() -> [Engine; 3] {
    [rocksdb_engine(), mdbx_engine(), redb::ENGINE]
}

#[cfg(feature = "engines")]
fn rocksdb_engine() -> Engine {
    rocksdb::ENGINE
}

#[cfg(not(feature = "engines"))]
fn rocksdb_engine() -> Engine {
    Engine {
        name: "rocksdb",
        version: "0.25.0",
        library: "librocksdb-sys 0.19.0+11.8.1 (RocksDB 11.8.1), not built in",
        durability: "WAL on, no fsync per commit",
        settings: "not built in (feature db-engines)",
        open: None,
    }
}

#[cfg(feature = "engines")]
fn mdbx_engine() -> Engine {
    mdbx::ENGINE
}

#[cfg(not(feature = "engines"))]
fn mdbx_engine() -> Engine {
    Engine {
        name: "mdbx",
        version: "0.9.0",
        library: "libmdbx 0.9.0 over mdbx-sys 14.4.0 (libmdbx C 0.14), not built in",
        durability: "SafeNoSync, no fsync per commit",
        settings: "not built in (feature db-engines)",
        open: None,
    }
}

/// Every benchmark of the suite, for every engine.
pub fn catalog() -> Vec<BenchDef> {
    engines().into_iter().flat_map(bench::defs).collect()
}

#[cfg(test)]
mod tests;
