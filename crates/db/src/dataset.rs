//! The data set every engine holds: version 1 of `docs/db.md`.
//!
//! Every runtime generates it from the SplitMix64 stream [`seq`], so no
//! data is shipped; `vectors/db.json` (from an independent Python
//! generator) pins it down.

use std::sync::{Arc, Mutex, OnceLock};

use dyno_workload::{seq, u64_le};
use sha3::{Digest, Keccak256};

/// The data set's version, part of every database's folder and marker.
pub const VERSION: u32 = 1;

/// Keys in the benchmarks' data set.
pub const KEYS: u64 = 1_000_000;

/// Keys per batch or transaction while loading.
pub const LOAD_BATCH: u64 = 10_000;

/// keccak-256 of `data`.
pub fn keccak(data: &[u8]) -> [u8; 32] {
    Keccak256::digest(data).into()
}

/// `key(i) = keccak256(le64(i))`.
pub fn key(i: u64) -> [u8; 32] {
    keccak(&i.to_le_bytes())
}

/// `value(i)`: 100 to 600 bytes of `seq(0xDB_8000_0000 + i, ...)`.
pub fn value(i: u64) -> Vec<u8> {
    let len = 100 + u64_le(0xDB_0000_0000 + i) % 501;
    seq(0xDB_8000_0000 + i, len as usize)
}

/// Access `j`'s index into a data set of `n` keys: `a(j)`.
pub fn access(j: u64, n: u64) -> u64 {
    u64_le(0xDB_A000_0000 + j) % n
}

/// Whether access `j` of `db/mixed/r80w20` writes (one in five does).
pub fn writes(j: u64) -> bool {
    u64_le(0xDB_B000_0000 + j) % 10 >= 8
}

/// keccak-256 of the concatenation of `parts`.
pub fn digest<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> [u8; 32] {
    let mut h = Keccak256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// The data set's keys in key order, as indices: what a range scan
/// returns. Computed once per size (a second for a million keys) and
/// shared.
pub fn sorted(n: u64) -> Arc<Vec<u32>> {
    /// Each size computed so far, with its order.
    type Orders = Vec<(u64, Arc<Vec<u32>>)>;
    static SORTED: OnceLock<Mutex<Orders>> = OnceLock::new();
    let cache = SORTED.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, s)) = cache.iter().find(|(k, _)| *k == n) {
        return s.clone();
    }
    let keys: Vec<[u8; 32]> = (0..n).map(key).collect();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]));
    let order = Arc::new(order);
    cache.push((n, order.clone()));
    order
}

/// The first `len` pairs in key order from `key(start)` inclusive, as
/// indices.
pub fn scan(n: u64, start: u64, len: usize) -> Vec<u64> {
    let order = sorted(n);
    let at = order
        .binary_search_by(|&i| key(i as u64).cmp(&key(start)))
        .expect("key(start) is in the data set");
    order[at..(at + len).min(order.len())]
        .iter()
        .map(|&i| i as u64)
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    struct File {
        samples: Vec<Sample>,
        values_digest_0_999: String,
        mixed_write_flags_0_31: Vec<bool>,
        mixed_writes: usize,
        sets: Vec<Set>,
    }
    #[derive(Deserialize)]
    struct Sample {
        index: u64,
        key: String,
        value: String,
    }
    #[derive(Deserialize)]
    pub(crate) struct Set {
        pub(crate) keys: u64,
        pub(crate) access: Vec<u64>,
        pub(crate) batch_digests: std::collections::BTreeMap<String, Vec<String>>,
        pub(crate) iterate: Vec<Scan>,
    }
    #[derive(Deserialize)]
    pub(crate) struct Scan {
        pub(crate) start: u64,
        pub(crate) count: usize,
        pub(crate) digest: String,
    }

    fn file() -> File {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/db.json");
        serde_json::from_str(&std::fs::read_to_string(path).expect("vectors/db.json"))
            .expect("vectors/db.json parses")
    }

    /// The vector file's data sets (10 000 and 1 000 000 keys).
    pub(crate) fn sets() -> Vec<Set> {
        file().sets
    }

    pub(crate) fn hex(b: &[u8]) -> String {
        dyno_workload::hex(b)
    }

    #[test]
    fn keys_and_values_match_the_python_generator() {
        let f = file();
        for s in &f.samples {
            assert_eq!(hex(&key(s.index)), s.key, "key({})", s.index);
            let v = value(s.index);
            assert_eq!(
                dyno_workload::unhex(&s.value).unwrap(),
                v,
                "value({})",
                s.index
            );
        }
        let values: Vec<Vec<u8>> = (0..1000).map(value).collect();
        assert_eq!(
            hex(&digest(values.iter().map(Vec::as_slice))),
            f.values_digest_0_999
        );
        let flags: Vec<bool> = (0..32).map(writes).collect();
        assert_eq!(flags, f.mixed_write_flags_0_31);
        assert_eq!((0..4096).filter(|&j| writes(j)).count(), f.mixed_writes);
    }

    #[test]
    fn value_lengths_span_100_to_600() {
        let lens: Vec<usize> = (0..20_000).map(|i| value(i).len()).collect();
        assert_eq!(lens.iter().min(), Some(&100));
        assert_eq!(lens.iter().max(), Some(&600));
    }

    #[test]
    fn accesses_batches_and_scans_match_the_python_generator() {
        for set in &sets() {
            let n = set.keys;
            let a: Vec<u64> = (0..set.access.len() as u64).map(|j| access(j, n)).collect();
            assert_eq!(a, set.access);
            for (k, digests) in &set.batch_digests {
                let k: u64 = k.parse().unwrap();
                for (j, want) in digests.iter().enumerate() {
                    let vals: Vec<Vec<u8>> =
                        (0..k).map(|m| value(access(j as u64 * k + m, n))).collect();
                    assert_eq!(&hex(&digest(vals.iter().map(Vec::as_slice))), want);
                }
            }
            for it in &set.iterate {
                let run = scan(n, it.start, 1000);
                assert_eq!(run.len(), it.count);
                let parts: Vec<Vec<u8>> = run
                    .iter()
                    .map(|&i| [key(i).as_slice(), &value(i)].concat())
                    .collect();
                assert_eq!(hex(&digest(parts.iter().map(Vec::as_slice))), it.digest);
            }
        }
    }
}
