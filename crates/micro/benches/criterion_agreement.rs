//! criterion.rs timing the exact functions and inputs dyno times for
//! `hash/keccak256/32B` (tiny-keccak) and `crypto/secp256k1-recover/valid`
//! (libsecp256k1), to check that the two harnesses agree.
//!
//! Plain criterion benchmarks:
//!
//! ```sh
//! cargo bench -p dyno-micro --bench criterion_agreement
//! ```
//!
//! The agreement study (what the README reports):
//!
//! ```sh
//! DYNO_AGREEMENT_ROUNDS=12 cargo bench -p dyno-micro --bench criterion_agreement
//! ```
//!
//! It alternates, round after round, a short criterion measurement and
//! dyno's own engine (`dyno_runner::Engine`, the workload from
//! `dyno_micro::catalog()`, exactly what `dyno run` measures) on the same
//! operation, and prints dyno's P50 over criterion's point estimate for each
//! round and the median of those ratios. Interleaving matters: on a shared
//! virtual machine the speed of the host drifts by tens of percent over
//! seconds, so two harnesses run minutes apart disagree for reasons that
//! have nothing to do with either.
//!
//! This is a benchmark, not a test: it asserts nothing about time. It does
//! check every output against its vector before timing, as dyno does.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::Criterion;
use dyno_micro::crypto::{recover_inputs, recover_libsecp256k1};
use dyno_micro::hash::keccak256_tiny;
use dyno_workload::{Ctx, seq, unhex};

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

fn keccak(c: &mut Criterion, name: &str) {
    let cases = keccak_cases();
    assert!(!cases.is_empty());
    for (input, digest) in &cases {
        assert_eq!(&keccak256_tiny(input), digest, "keccak256 vector mismatch");
    }
    let mut k = 0;
    c.bench_function(name, |b| {
        b.iter(|| {
            let input = black_box(&cases[k].0);
            k = if k + 1 == cases.len() { 0 } else { k + 1 };
            keccak256_tiny(input)
        })
    });
}

fn recover(c: &mut Criterion, name: &str) {
    let cases = recover_inputs(&vectors()).expect("vectors/secp256k1.json");
    for (input, key) in &cases {
        assert_eq!(
            recover_libsecp256k1(input).as_ref(),
            Some(key),
            "recover vector mismatch"
        );
    }
    let mut k = 0;
    c.bench_function(name, |b| {
        b.iter(|| {
            let input = black_box(&cases[k].0);
            k = if k + 1 == cases.len() { 0 } else { k + 1 };
            recover_libsecp256k1(input)
        })
    });
}

/// criterion's headline estimate: the slope when it sampled linearly, else
/// the mean (what it prints as `time:`).
fn criterion_estimate(dir: &Path, name: &str) -> f64 {
    let path = dir.join(name).join("new/estimates.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).expect("criterion estimates");
    v["slope"]["point_estimate"]
        .as_f64()
        .or_else(|| v["mean"]["point_estimate"].as_f64())
        .expect("a point estimate")
}

/// dyno's P50 for one catalog benchmark, through the engine `dyno run` uses.
fn dyno_p50(id: &str, implementation: &str) -> f64 {
    let def = dyno_micro::catalog()
        .into_iter()
        .find(|d| d.id() == id && d.implementation == implementation)
        .expect("benchmark in the catalog");
    let ctx = Ctx { vectors: vectors() };
    let mut w = (def.build)(&ctx).expect("workload builds");
    let clock = dyno_runner::clock::calibrate();
    let engine = dyno_runner::Engine::new(dyno_runner::settings(false, None, &clock));
    let m = engine.measure(w.as_mut());
    assert_eq!(
        m.verification.status,
        dyno_format::VerificationStatus::Passed,
        "{id} {implementation} failed verification"
    );
    m.stats.expect("samples").p50
}

/// (dyno id, implementation, criterion name, criterion benchmark).
type Study = (
    &'static str,
    &'static str,
    &'static str,
    fn(&mut Criterion, &str),
);

fn agreement(rounds: usize) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut c = Criterion::default()
        .output_directory(dir.path())
        .without_plots()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(700))
        .sample_size(20);
    let studies: [Study; 2] = [
        ("hash/keccak256/32B", "tiny-keccak", "keccak", keccak),
        (
            "crypto/secp256k1-recover/valid",
            "libsecp256k1",
            "recover",
            recover,
        ),
    ];
    let mut summary = Vec::new();
    for (id, implementation, name, bench) in studies {
        let mut ratios = Vec::new();
        for round in 1..=rounds {
            // criterion runs an id once per process: a fresh id per round.
            let name = format!("{name}-{round}");
            bench(&mut c, &name);
            let crit = criterion_estimate(dir.path(), &name);
            let dyno = dyno_p50(id, implementation);
            let ratio = dyno / crit;
            eprintln!(
                "{id} round {round}: criterion {crit:.1} ns, dyno P50 {dyno:.1} ns, ratio {ratio:.3}"
            );
            ratios.push(ratio);
        }
        ratios.sort_by(f64::total_cmp);
        let median = ratios[ratios.len() / 2];
        summary.push(format!(
            "{id} {implementation}: median dyno/criterion = {median:.3} over {rounds} interleaved rounds (range {:.3}-{:.3})",
            ratios[0],
            ratios[ratios.len() - 1]
        ));
    }
    for line in summary {
        println!("{line}");
    }
}

fn main() {
    if let Some(rounds) = std::env::var("DYNO_AGREEMENT_ROUNDS")
        .ok()
        .and_then(|r| r.parse::<usize>().ok())
    {
        agreement(rounds.max(1));
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    keccak(&mut c, "hash/keccak256/32B tiny-keccak");
    recover(&mut c, "crypto/secp256k1-recover/valid libsecp256k1");
    c.final_summary();
}
