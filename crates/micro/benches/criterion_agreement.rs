//! criterion.rs timing the exact functions and inputs dyno times for
//! `hash/keccak256/32B` (tiny-keccak) and `crypto/secp256k1-recover/valid`
//! (libsecp256k1), so the two harnesses can be compared on one machine:
//!
//! ```sh
//! cargo bench -p dyno-micro --bench criterion_agreement
//! cargo run --release -p dyno -- run 'hash/keccak256/32B,crypto/secp256k1-recover/valid' \
//!     --impl tiny-keccak,libsecp256k1
//! ```
//!
//! dyno's P50 and criterion's point estimate should agree within ±5%. This
//! is a benchmark, not a test: it asserts nothing about time. It does check
//! every output against its vector before timing, as dyno does.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use dyno_micro::crypto::{recover_inputs, recover_libsecp256k1};
use dyno_micro::hash::keccak256_tiny;
use dyno_workload::{seq, unhex};

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

/// The 32-byte keccak inputs and digests dyno uses, from vectors/hash.json.
fn keccak_cases() -> Vec<(Vec<u8>, [u8; 32])> {
    let text = std::fs::read_to_string(vectors().join("hash.json")).expect("vectors/hash.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("hash.json is JSON");
    doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["algorithm"] == "keccak256" && c["len"] == 32)
        .map(|c| {
            let input = seq(c["seed"].as_u64().expect("seed"), 32);
            let digest = unhex(c["digest"].as_str().expect("digest")).expect("hex digest");
            (input, digest.try_into().expect("32-byte digest"))
        })
        .collect()
}

fn keccak(c: &mut Criterion) {
    let cases = keccak_cases();
    assert!(!cases.is_empty());
    for (input, digest) in &cases {
        assert_eq!(&keccak256_tiny(input), digest, "keccak256 vector mismatch");
    }
    let mut k = 0;
    c.bench_function("hash/keccak256/32B tiny-keccak", |b| {
        b.iter(|| {
            let input = black_box(&cases[k].0);
            k = if k + 1 == cases.len() { 0 } else { k + 1 };
            keccak256_tiny(input)
        })
    });
}

fn recover(c: &mut Criterion) {
    let cases = recover_inputs(&vectors()).expect("vectors/secp256k1.json");
    for (input, key) in &cases {
        assert_eq!(
            recover_libsecp256k1(input).as_ref(),
            Some(key),
            "recover vector mismatch"
        );
    }
    let mut k = 0;
    c.bench_function("crypto/secp256k1-recover/valid libsecp256k1", |b| {
        b.iter(|| {
            let input = black_box(&cases[k].0);
            k = if k + 1 == cases.len() { 0 } else { k + 1 };
            recover_libsecp256k1(input)
        })
    });
}

criterion_group!(benches, keccak, recover);
criterion_main!(benches);
