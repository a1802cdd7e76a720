//! The `pow` suite's benchmarks on the `ethash` crate (docs/pow.md).
//!
//! Every check uses values from the chain or from core-geth, never from
//! this crate alone: mainnet block 1's mix hash and core-geth's hashimoto
//! result for it, and core-geth's Etchash parameters at the ECIP-1099 fork.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use alloy_consensus::Header;
use alloy_primitives::{B64, B256, Bloom, Bytes, U256, address, b256, hex};
use dyno_workload::{BenchDef, BuildError, Cases, Mismatch, Param, Workload};

use crate::{
    DatasetSource, EpochParams, LightCache, Pow, PowHash, dataset_file_name, default_threads,
    hashimoto_full, load_or_make_dataset, seal_hash, verify_header_with_cache,
};

/// The implementation's name in results.
pub const IMPL: &str = "ethash";
/// Its version (checked against Cargo.lock by the tests).
pub const VERSION: &str = "0.4.0";

/// Mainnet block 1, from a recorded `eth_getBlockByNumber(1)` reply; its
/// fields hash to the block hash 0x88e96d45…6cb6 (tests/vectors.rs).
pub fn block1() -> Header {
    Header {
        parent_hash: b256!("d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3"),
        ommers_hash: b256!("1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"),
        beneficiary: address!("05a56e2d52c817161883f50c441c3228cfe54d9f"),
        state_root: b256!("d67e4d450343046425ae4271474353857ab860dbc0a1dde64b41b5cd3a532bf3"),
        transactions_root: b256!(
            "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"
        ),
        receipts_root: b256!("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"),
        logs_bloom: Bloom::ZERO,
        difficulty: U256::from(17_171_480_576u64),
        number: 1,
        gas_limit: 5000,
        gas_used: 0,
        timestamp: 0x55ba_4224,
        extra_data: Bytes::from_static(&hex!("476574682f76312e302e302f6c696e75782f676f312e342e32")),
        mix_hash: b256!("969b900de27b6ac6a67742365dd65f55a0526c41fd18e1b16f1a1215c2e66f59"),
        nonce: B64::new(hex!("539bd4979fef1ec4")),
        ..Default::default()
    }
}

/// core-geth's `hashimotoLight` result for block 1 (its mix digest is the
/// block's `mix_hash`).
pub const BLOCK1_RESULT: B256 =
    b256!("000000002bc095dd4de049873e6302c3f14a7f2e5b5a1f60cdf1f1798164d610");

/// Block 1's expected hashimoto output.
pub fn block1_pow() -> PowHash {
    PowHash {
        mix_digest: block1().mix_hash,
        result: BLOCK1_RESULT,
    }
}

/// Block 1's seal hash and nonce, as hashimoto takes them.
pub(crate) fn block1_input() -> Result<(B256, u64), BuildError> {
    let h = block1();
    let seal = seal_hash(&h).map_err(|e| BuildError::Setup {
        what: "block 1's seal hash".into(),
        reason: e.to_string(),
    })?;
    Ok((seal, u64::from_be_bytes(h.nonce.0)))
}

/// Blocks and forks of `pow/etchash-epoch/ecip1099`, with core-geth
/// v1.12.22's answers (`CalcEpochLength`, `CalcEpoch`, `SeedHash`, sizes).
pub fn etchash_cases() -> Vec<((u64, Pow), EpochParams)> {
    let before = EpochParams {
        epoch_length: 30_000,
        epoch: 389,
        seed_hash: b256!("82232565de6c6216a88e3d3b4a49c8ad5e5913b731e78c93c7e29e50b9f0743f"),
        cache_size: 67_763_776,
        full_size: 4_336_909_184,
    };
    let after = EpochParams {
        epoch_length: 60_000,
        epoch: 195,
        seed_hash: b256!("e79f0f63030bf691445c2b9d0266b24a9619e355194067f2ad2c73a8e0a26c65"),
        cache_size: 42_334_912,
        full_size: 2_709_518_464,
    };
    vec![
        ((11_699_999, Pow::ETC_MAINNET), before),
        ((11_700_000, Pow::ETC_MAINNET), after),
        ((11_700_001, Pow::ETC_MAINNET), after),
    ]
}

/// The epoch-0 light cache, built once per process (about a second).
pub(crate) fn cache() -> Arc<LightCache> {
    static CACHE: std::sync::OnceLock<Arc<LightCache>> = std::sync::OnceLock::new();
    CACHE
        .get_or_init(|| Arc::new(LightCache::new(Pow::Ethash, 0)))
        .clone()
}

/// hashimoto-full as a miner runs it: every operation a new nonce on
/// block 1's seal hash, so each touches 64 fresh random pages of the 1 GiB
/// dataset (a handful of cycled inputs would stay in the CPU's cache).
struct Sweep {
    dataset: Vec<u8>,
    /// hashimoto-light over the same epoch's cache: the answer for any
    /// nonce, by the other algorithm.
    light: Box<dyn Fn(B256, u64) -> PowHash>,
    seal: B256,
    nonce: u64,
    /// What `nonce` must give, from outside this code (the chain's block,
    /// core-geth).
    first: PowHash,
    next: u64,
}

impl std::fmt::Debug for Sweep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sweep").field("nonce", &self.nonce).finish()
    }
}

impl Workload for Sweep {
    /// The first nonce must give the known answer (for epoch 0, block 1's
    /// nonce: the chain's mix hash and core-geth's result); the next 16
    /// nonces must agree with hashimoto-light.
    fn verify(&mut self) -> Result<(), Mismatch> {
        let show = |p: &PowHash| format!("mix {} result {}", p.mix_digest, p.result);
        let wrong = |case: u64, want: &PowHash, got: Result<PowHash, String>| Mismatch {
            case: case.to_string(),
            expected: show(want),
            actual: got.map_or_else(|e| format!("error: {e}"), |g| show(&g)),
        };
        let got = hashimoto_full(self.seal, self.nonce, &self.dataset).map_err(|e| e.to_string());
        if got.as_ref().ok() != Some(&self.first) {
            return Err(wrong(0, &self.first, got));
        }
        for k in 1..=16 {
            let nonce = self.nonce.wrapping_add(k);
            let want = (self.light)(self.seal, nonce);
            let got = hashimoto_full(self.seal, nonce, &self.dataset).map_err(|e| e.to_string());
            if got.as_ref().ok() != Some(&want) {
                return Err(wrong(k, &want, got));
            }
        }
        Ok(())
    }

    fn run(&mut self, iters: u64) {
        for _ in 0..iters {
            self.next = self.next.wrapping_add(1);
            let nonce = self.nonce.wrapping_add(self.next);
            black_box(hashimoto_full(black_box(self.seal), nonce, &self.dataset).ok());
        }
    }

    fn cases(&self) -> usize {
        1
    }
}

fn setup(what: &str) -> impl Fn(crate::PowError) -> BuildError + '_ {
    move |e| BuildError::Setup {
        what: what.into(),
        reason: e.to_string(),
    }
}

/// Where the datasets are kept: `<cache>/ethash`.
pub(crate) fn dataset_dir() -> std::path::PathBuf {
    dyno_workload::cache_dir().join("ethash")
}

fn build_full() -> Result<Box<dyn Workload>, BuildError> {
    let cache = cache();
    let p = *cache.params();
    let path = dataset_dir().join(dataset_file_name(p.seed_hash, p.full_size));
    eprintln!(
        "dyno: the epoch-0 Ethash dataset (1 GiB) from {} (generated there the first time: minutes)",
        path.display()
    );
    let t0 = Instant::now();
    let (dataset, source) = load_or_make_dataset(
        &path,
        p.seed_hash,
        p.full_size,
        cache.bytes(),
        default_threads(),
    )
    .map_err(setup("the Ethash dataset"))?;
    eprintln!(
        "dyno: dataset {} in {:.1} s",
        match source {
            DatasetSource::Loaded => "loaded",
            DatasetSource::Generated => "generated",
        },
        t0.elapsed().as_secs_f64()
    );
    let (seal, nonce) = block1_input()?;
    Ok(Box::new(Sweep {
        dataset,
        light: Box::new(move |seal, nonce| cache.hashimoto(seal, nonce)),
        seal,
        nonce,
        first: block1_pow(),
        next: 0,
    }))
}

/// Every benchmark of the suite.
pub fn defs() -> Vec<BenchDef> {
    let def = |op: &'static str, input: &str, params, build| BenchDef {
        group: "pow",
        op,
        input: input.into(),
        implementation: IMPL,
        version: VERSION,
        params,
        build,
        cases: Some(crate::cases::cases),
    };
    let epoch0 = || {
        vec![
            ("epoch", Param::Int(0)),
            ("cache_bytes", Param::Int(16_776_896)),
        ]
    };
    vec![
        def(
            "hashimoto-light",
            "epoch0",
            epoch0(),
            Box::new(|_| {
                let cache = cache();
                let (seal, nonce) = block1_input()?;
                Ok(Box::new(Cases::expect(
                    vec![((seal, nonce), block1_pow())],
                    move |&(s, n): &(B256, u64)| cache.hashimoto(s, n),
                )) as Box<dyn Workload>)
            }),
        ),
        def(
            "hashimoto-full",
            "epoch0",
            vec![
                ("epoch", Param::Int(0)),
                ("dataset_bytes", Param::Int(1_073_739_904)),
                (
                    "inputs",
                    Param::Text("block 1's seal hash, a new nonce every operation".into()),
                ),
            ],
            Box::new(|_| build_full()),
        ),
        def(
            "verify-header",
            "mainnet-1",
            epoch0(),
            Box::new(|_| {
                let cache = cache();
                let good = block1();
                let mut bad = block1();
                bad.nonce.0[7] ^= 1;
                Ok(Box::new(Cases::expect(
                    vec![(good, true), (bad, false)],
                    move |h: &Header| verify_header_with_cache(h, &cache).is_ok(),
                )) as Box<dyn Workload>)
            }),
        ),
        def(
            "etchash-epoch",
            "ecip1099",
            vec![(
                "ecip1099_block",
                Param::Int(crate::ETC_MAINNET_ECIP1099_BLOCK),
            )],
            Box::new(|_| {
                Ok(Box::new(Cases::expect(
                    etchash_cases(),
                    |&(block, pow): &(u64, Pow)| pow.epoch_params(block),
                )) as Box<dyn Workload>)
            }),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{hashimoto_light, make_cache, make_dataset};

    /// The benchmark's own verification, on core-geth's TestHashimoto
    /// (cache 1 KiB, dataset 32 KiB, zero seed): CI cannot afford the 1 GiB
    /// epoch-0 dataset, so the same code is checked on a small one.
    fn small(dataset: Vec<u8>) -> Sweep {
        let cache = make_cache(1024, B256::ZERO).unwrap();
        Sweep {
            dataset,
            light: Box::new(move |seal, nonce| {
                hashimoto_light(seal, nonce, 32 * 1024, &cache).unwrap()
            }),
            seal: b256!("c9149cc0386e689d789a1c2f3d5d169a61a6218ed30e74414dc736e442ef3d1f"),
            nonce: 0,
            first: PowHash {
                mix_digest: b256!(
                    "e4073cffaef931d37117cefd9afd27ea0f1cad6a981dd2605c4a1ac97c519800"
                ),
                result: b256!("d3539235ee2e6f8db665c0a72169f55b7f6c605712330b778ec3944f0eb5a557"),
            },
            next: 0,
        }
    }

    #[test]
    fn hashimoto_full_verifies_on_a_small_dataset_and_a_wrong_one_fails() {
        let cache = make_cache(1024, B256::ZERO).unwrap();
        let dataset = make_dataset(32 * 1024, &cache).unwrap();
        let mut w = small(dataset.clone());
        w.verify().unwrap();
        w.run(5);
        // Every 64th byte of the dataset flipped (one in each 64-byte
        // item): the first nonce's answer is no longer core-geth's.
        let mut bad = dataset;
        for b in bad.iter_mut().step_by(64) {
            *b ^= 0xff;
        }
        let m = small(bad).verify().expect_err("a wrong dataset passed");
        assert_eq!(m.case, "0", "{m}");
    }
}
