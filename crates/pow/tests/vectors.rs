//! Known-answer tests for dyno-pow.
//!
//! Sources of the expected values:
//! - `tests/data/coregeth_*.hex` and the small hashimoto vector: core-geth
//!   v1.12.22 `consensus/ethash/algorithm_test.go` (`TestCacheGeneration`,
//!   `TestDatasetGeneration`, `TestHashimoto`), copied byte for byte from the
//!   Go module cache.
//! - Sizes, epochs and seeds around ECIP-1099: printed by a Go program that
//!   calls core-geth v1.12.22's `ethash.CalcEpochLength`, `ethash.CalcEpoch`,
//!   `ethash.SeedHash` and (by go:linkname) `cacheSize` / `datasetSize`
//!   (the same calls as adapters/go-etc's `pow/etchash-epoch/ecip1099`).
//! - Mainnet block 1: the fields of a recorded `eth_getBlockByNumber(1)`
//!   reply, lmittmann/w3 `module/eth/testdata/get_block_by_number__1.golden`
//!   (no Go module in this machine's cache carries block 1). The test checks
//!   that they hash to the well-known block hash 0x88e96d45…6cb6, so a typo
//!   in any field fails.
//! - The block-1 seal hash and hashimoto result: core-geth's
//!   `Ethash.SealHash` and `hashimotoLight` (adapters/go-etc tests assert the
//!   same values).

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::OnceLock;

use alloy_primitives::{Address, B64, B256, U256, b256, hex, keccak256};
use dyno_pow::*;

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.trim()).expect("test vector is hex")
}

fn threads(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

/// The epoch-0 verification cache, built once for all tests of this file.
fn epoch0() -> &'static LightCache {
    static CACHE: OnceLock<LightCache> = OnceLock::new();
    CACHE.get_or_init(|| LightCache::new(Pow::Ethash, 0))
}

/// Mainnet block 1 (lmittmann/w3 module/eth/testdata/get_block_by_number__1.golden)
/// is `dyno_pow::bench::block1`, with core-geth's hashimoto result for it.
use dyno_pow::bench::{BLOCK1_RESULT, block1};

const BLOCK1_HASH: B256 = b256!("88e96d4537bea4d9c05d12549907b32561d3bf31f45aae734cdc119f13406cb6");
/// core-geth `Ethash.SealHash(block 1)`.
const BLOCK1_SEAL_HASH: B256 =
    b256!("85913a3057ea8bec78cd916871ca73802e77724e014dda65add3405d02240eb7");
/// core-geth `generateDataset` into a 32 KiB buffer with the real epoch-0
/// cache (its first 512 items): keccak-256.
const EPOCH0_FIRST_32K_KECCAK256: B256 =
    b256!("6bde09c6180d4a61beb0d03734b828b2c05110d6554d635441fcae500491331d");

#[test]
fn sizes_match_core_geth_tables() {
    assert_eq!(cache_size(0), EPOCH0_CACHE_SIZE);
    assert_eq!(full_size(0), EPOCH0_FULL_SIZE);
    assert_eq!(EPOCH0_CACHE_SIZE, 16_776_896);
    assert_eq!(EPOCH0_FULL_SIZE, 1_073_739_904);
    for (epoch, cache, full) in [
        (42, 22_281_536, 1_426_062_464),
        (83, 27_655_744, 1_769_995_904),
        (195, 42_334_912, 2_709_518_464),
        (389, 67_763_776, 4_336_909_184),
    ] {
        assert_eq!(cache_size(epoch), cache, "cache size of epoch {epoch}");
        assert_eq!(full_size(epoch), full, "dataset size of epoch {epoch}");
    }
}

/// Expected: core-geth v1.12.22, for ECIP1099FBlock = 11_700_000 (ETC):
/// ```text
/// block 11699999: epochLength 30000 epoch 389 seed 82232565…0743f cache 67763776 dataset 4336909184
/// block 11700000: epochLength 60000 epoch 195 seed e79f0f63…26c65 cache 42334912 dataset 2709518464
/// block 11700001: epochLength 60000 epoch 195 seed e79f0f63…26c65 cache 42334912 dataset 2709518464
/// ```
#[test]
fn etchash_epoch_at_etc_mainnet_fork() {
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
    let etc = Pow::ETC_MAINNET;
    assert_eq!(etc.epoch_params(11_699_999), before);
    assert_eq!(etc.epoch_params(11_700_000), after);
    assert_eq!(etc.epoch_params(11_700_001), after);
    assert_eq!(etc.epoch_length(11_699_999), 30_000);
    assert_eq!(etc.epoch(11_700_000), 195);
}

/// core-geth v1.12.22 with ECIP1099FBlock = 2_520_000 (Mordor).
#[test]
fn etchash_epoch_at_mordor_fork() {
    let m = Pow::MORDOR;
    let before = m.epoch_params(2_519_999);
    assert_eq!((before.epoch_length, before.epoch), (30_000, 83));
    assert_eq!(
        before.seed_hash,
        b256!("cc55dae5d4738f1350d80a23aed0b0b0049085afc24eca54277a4ce9600ff670")
    );
    assert_eq!(
        (before.cache_size, before.full_size),
        (27_655_744, 1_769_995_904)
    );
    for block in [2_520_000, 2_520_001] {
        let p = m.epoch_params(block);
        assert_eq!((p.epoch_length, p.epoch), (60_000, 42));
        assert_eq!(
            p.seed_hash,
            b256!("002440e15267eebdf06fa7fe5aee5ccff445967925a90ecce6429aef7f8feb1f")
        );
        assert_eq!((p.cache_size, p.full_size), (22_281_536, 1_426_062_464));
    }
}

#[test]
fn etchash_seed_is_continuous_and_sizes_are_not() {
    // Ethash epoch 390 starts at block 11_700_000 too: the same seed as
    // Etchash epoch 195 (get_seedhash(195 * 2)), but sizes of epoch 390.
    let eth = Pow::Ethash.epoch_params(11_700_000);
    let etc = Pow::ETC_MAINNET.epoch_params(11_700_000);
    assert_eq!(eth.epoch, 390);
    assert_eq!(eth.seed_hash, etc.seed_hash);
    assert_eq!(etc.seed_hash, seed_hash(390, EPOCH_LENGTH));
    assert_ne!(eth.cache_size, etc.cache_size);
    assert_eq!(eth.cache_size, cache_size(390));
}

#[test]
fn seed_hashes() {
    assert_eq!(seed_hash(0, EPOCH_LENGTH), B256::ZERO);
    assert_eq!(seed_hash(0, ECIP1099_EPOCH_LENGTH), B256::ZERO);
    assert_eq!(seed_hash(1, EPOCH_LENGTH), keccak256([0u8; 32]));
    assert_eq!(seed_hash(2, EPOCH_LENGTH), keccak256(keccak256([0u8; 32])));
    assert_eq!(
        seed_hash(1, ECIP1099_EPOCH_LENGTH),
        seed_hash(2, EPOCH_LENGTH)
    );
}

#[test]
fn cache_generation_matches_core_geth() {
    let c0 = make_cache(1024, seed_hash(0, EPOCH_LENGTH)).unwrap();
    assert_eq!(
        c0,
        unhex(include_str!("data/coregeth_cache_1024_epoch0.hex"))
    );
    let c1 = make_cache(1024, seed_hash(1, EPOCH_LENGTH)).unwrap();
    assert_eq!(
        c1,
        unhex(include_str!("data/coregeth_cache_1024_epoch1.hex"))
    );
}

#[test]
fn dataset_generation_matches_core_geth_on_any_thread_count() {
    let cache = make_cache(1024, B256::ZERO).unwrap();
    let want = unhex(include_str!("data/coregeth_dataset_32k_epoch0.hex"));
    // 512 items: one thread, an even split, and uneven splits (the last
    // thread gets fewer items, or none).
    for n in [1, 2, 3, 7, 600] {
        let got = make_dataset_with_threads(32 * 1024, &cache, threads(n)).unwrap();
        assert!(
            got == want,
            "dataset on {n} threads differs from core-geth's"
        );
    }
    assert!(make_dataset(32 * 1024, &cache).unwrap() == want);
}

/// core-geth TestHashimoto: cache 1 KiB, dataset 32 KiB, zero seed.
#[test]
fn hashimoto_matches_core_geth_small() {
    let cache = make_cache(1024, B256::ZERO).unwrap();
    let dataset = make_dataset_with_threads(32 * 1024, &cache, threads(2)).unwrap();
    let hash = b256!("c9149cc0386e689d789a1c2f3d5d169a61a6218ed30e74414dc736e442ef3d1f");
    let want = PowHash {
        mix_digest: b256!("e4073cffaef931d37117cefd9afd27ea0f1cad6a981dd2605c4a1ac97c519800"),
        result: b256!("d3539235ee2e6f8db665c0a72169f55b7f6c605712330b778ec3944f0eb5a557"),
    };
    assert_eq!(hashimoto_light(hash, 0, 32 * 1024, &cache).unwrap(), want);
    assert_eq!(hashimoto_full(hash, 0, &dataset).unwrap(), want);
    // Another nonce gives another answer, and light and full still agree.
    let other = hashimoto_light(hash, 1, 32 * 1024, &cache).unwrap();
    assert_ne!(other, want);
    assert_eq!(hashimoto_full(hash, 1, &dataset).unwrap(), other);
}

#[test]
fn epoch0_dataset_items_match_core_geth() {
    let ds = make_dataset_with_threads(32 * 1024, epoch0().bytes(), threads(2)).unwrap();
    assert_eq!(keccak256(&ds), EPOCH0_FIRST_32K_KECCAK256);
    assert_eq!(epoch0().bytes().len(), EPOCH0_CACHE_SIZE);
    assert_eq!(epoch0().params().seed_hash, B256::ZERO);
}

#[test]
fn bad_sizes_are_errors() {
    assert!(matches!(
        make_cache(1000, B256::ZERO),
        Err(PowError::BadCacheSize(1000))
    ));
    assert!(matches!(
        make_cache(0, B256::ZERO),
        Err(PowError::BadCacheSize(0))
    ));
    let cache = make_cache(1024, B256::ZERO).unwrap();
    assert!(matches!(
        hashimoto_light(B256::ZERO, 0, 100, &cache),
        Err(PowError::BadFullSize(100))
    ));
    assert!(matches!(
        hashimoto_light(B256::ZERO, 0, 1024, &cache[..100]),
        Err(PowError::BadCacheSize(100))
    ));
    assert!(matches!(
        hashimoto_full(B256::ZERO, 0, &[]),
        Err(PowError::BadFullSize(0))
    ));
    assert!(matches!(
        make_dataset_with_threads(192, &cache, threads(1)),
        Err(PowError::BadFullSize(192))
    ));
}

#[test]
fn block1_fields_hash_to_the_mainnet_block_hash() {
    let h = block1();
    assert_eq!(h.hash_slow(), BLOCK1_HASH);
    assert_eq!(h.difficulty, U256::from(17_171_480_576u64));
    assert_eq!(
        h.beneficiary,
        Address::from(hex!("05a56e2d52c817161883f50c441c3228cfe54d9f"))
    );
}

#[test]
fn block1_seal_hash_matches_core_geth() {
    assert_eq!(seal_hash(&block1()).unwrap(), BLOCK1_SEAL_HASH);
}

#[test]
fn block1_verifies() {
    let h = block1();
    let pow = verify_header_with_cache(&h, epoch0()).unwrap();
    assert_eq!(pow.mix_digest, h.mix_hash);
    assert_eq!(pow.result, BLOCK1_RESULT);
    assert!(meets_difficulty(pow.result, h.difficulty).unwrap());
    // The same through the public one-shot entry point and the raw one.
    let light = hashimoto_light(
        seal_hash(&h).unwrap(),
        0x539b_d497_9fef_1ec4,
        EPOCH0_FULL_SIZE,
        epoch0().bytes(),
    )
    .unwrap();
    assert_eq!(light, pow);
}

#[test]
fn block1_one_shot_verify_header() {
    assert_eq!(
        verify_header(&block1(), Pow::Ethash).unwrap().mix_digest,
        block1().mix_hash
    );
}

#[test]
fn tampered_block1_fails() {
    let mut h = block1();
    h.nonce = B64::new(hex!("539bd4979fef1ec5"));
    assert!(matches!(
        verify_header_with_cache(&h, epoch0()),
        Err(PowError::MixDigestMismatch { header, .. }) if header == block1().mix_hash
    ));

    let mut h = block1();
    h.mix_hash.0[31] ^= 1;
    assert!(matches!(
        verify_header_with_cache(&h, epoch0()),
        Err(PowError::MixDigestMismatch { .. })
    ));

    // Any sealed field changes the seal hash.
    let mut h = block1();
    h.timestamp += 1;
    assert!(matches!(
        verify_header_with_cache(&h, epoch0()),
        Err(PowError::MixDigestMismatch { .. })
    ));

    let mut h = block1();
    h.difficulty = U256::ZERO;
    assert!(matches!(
        verify_header_with_cache(&h, epoch0()),
        Err(PowError::ZeroDifficulty)
    ));
}

#[test]
fn weak_proof_of_work_fails_on_difficulty() {
    // A header whose mix digest is right but whose difficulty is far too
    // high for its result: change the difficulty, then put the mix digest
    // that hashimoto gives for the new seal hash into the header.
    let mut h = block1();
    h.difficulty = U256::from(1) << 200;
    let pow = epoch0().hashimoto(seal_hash(&h).unwrap(), u64::from_be_bytes(h.nonce.0));
    h.mix_hash = pow.mix_digest;
    match verify_header_with_cache(&h, epoch0()) {
        Err(PowError::DifficultyNotMet { result, difficulty }) => {
            assert_eq!(result, pow.result);
            assert_eq!(difficulty, h.difficulty);
        }
        other => panic!("expected DifficultyNotMet, got {other:?}"),
    }
    // With difficulty 1 the same mix digest passes.
    h.difficulty = U256::from(1);
    let pow = epoch0().hashimoto(seal_hash(&h).unwrap(), u64::from_be_bytes(h.nonce.0));
    h.mix_hash = pow.mix_digest;
    assert_eq!(verify_header_with_cache(&h, epoch0()).unwrap(), pow);
}

#[test]
fn wrong_epoch_and_post_merge_headers_are_refused() {
    let mut h = block1();
    h.number = 30_000;
    assert!(matches!(
        verify_header_with_cache(&h, epoch0()),
        Err(PowError::WrongEpoch {
            block_epoch: 1,
            cache_epoch: 0,
            ..
        })
    ));
    let mut h = block1();
    h.withdrawals_root = Some(B256::ZERO);
    assert!(matches!(
        seal_hash(&h),
        Err(PowError::NotPowHeader("withdrawals_root"))
    ));
    // A base fee is sealed (core-geth SealHash appends it).
    let mut h = block1();
    h.base_fee_per_gas = Some(7);
    assert_ne!(seal_hash(&h).unwrap(), seal_hash(&block1()).unwrap());
}

#[test]
fn difficulty_targets() {
    assert_eq!(difficulty_target(U256::ZERO), None);
    assert_eq!(difficulty_target(U256::from(1)), Some(U256::MAX));
    assert_eq!(difficulty_target(U256::from(2)), Some(U256::from(1) << 255));
    assert_eq!(difficulty_target(U256::from(1) << 255), Some(U256::from(2)));
    // 2^256 = 3 * floor(2^256 / 3) + 1, so floor(2^256/3) = MAX / 3.
    assert_eq!(
        difficulty_target(U256::from(3)),
        Some(U256::MAX / U256::from(3))
    );
    let d = U256::from(17_171_480_576u64);
    let t = difficulty_target(d).unwrap();
    // t * d <= 2^256 < (t + 1) * d, checked in 512 bits.
    let (t, d) = (
        alloy_primitives::U512::from(t),
        alloy_primitives::U512::from(d),
    );
    let two256 = alloy_primitives::U512::from(1) << 256;
    assert!(t * d <= two256 && (t + alloy_primitives::U512::from(1)) * d > two256);
    // The boundary itself passes, one above fails.
    let target = difficulty_target(U256::from(2)).unwrap();
    assert!(meets_difficulty(B256::from(target), U256::from(2)).unwrap());
    assert!(!meets_difficulty(B256::from(target + U256::from(1)), U256::from(2)).unwrap());
    assert!(matches!(
        meets_difficulty(B256::ZERO, U256::ZERO),
        Err(PowError::ZeroDifficulty)
    ));
}

/// A fresh folder under the system's temporary folder.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dyno-pow-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn dataset_file_is_reused_and_regenerated_when_wrong() {
    let dir = temp_dir("dataset");
    let cache = make_cache(1024, B256::ZERO).unwrap();
    let want = unhex(include_str!("data/coregeth_dataset_32k_epoch0.hex"));
    let size = 32 * 1024;
    let path = dir.join("sub").join(dataset_file_name(B256::ZERO, size));
    assert!(path.ends_with("ethash-full-0000000000000000-32768.bin"));
    let sums = checksum_path(&path);
    let get = || load_or_make_dataset(&path, B256::ZERO, size, &cache, threads(2)).unwrap();

    let (ds, src) = get();
    assert_eq!((ds == want, src), (true, DatasetSource::Generated));
    assert_eq!(std::fs::read(&path).unwrap(), want);
    let line = std::fs::read_to_string(&sums).unwrap();
    assert_eq!(
        line,
        format!(
            "dyno-pow dataset v1 seed={} full_size=32768 keccak256={}\n",
            B256::ZERO,
            keccak256(&want)
        )
    );
    let (ds, src) = get();
    assert_eq!((ds == want, src), (true, DatasetSource::Loaded));

    // One flipped byte: the checksum no longer matches.
    let mut bad = want.clone();
    bad[12345] ^= 0x40;
    std::fs::write(&path, &bad).unwrap();
    let (ds, src) = get();
    assert_eq!((ds == want, src), (true, DatasetSource::Generated));
    assert_eq!(std::fs::read(&path).unwrap(), want);

    // A truncated file, a missing checksum file, a checksum file for
    // another seed: all regenerate.
    std::fs::write(&path, &want[..1000]).unwrap();
    assert_eq!(get().1, DatasetSource::Generated);
    std::fs::remove_file(&sums).unwrap();
    assert_eq!(get().1, DatasetSource::Generated);
    std::fs::write(&sums, line.replace("seed=0x00", "seed=0x01")).unwrap();
    assert_eq!(get().1, DatasetSource::Generated);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(get().1, DatasetSource::Generated);
    assert_eq!(get().1, DatasetSource::Loaded);
    assert!(
        !dir.join("sub")
            .join("ethash-full-0000000000000000-32768.bin.tmp")
            .exists()
    );

    // Bad sizes are refused before any file is touched.
    assert!(matches!(
        load_or_make_dataset(&path, B256::ZERO, 100, &cache, threads(1)),
        Err(PowError::BadFullSize(100))
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dataset_file_in_an_unwritable_place_is_an_io_error() {
    let cache = make_cache(1024, B256::ZERO).unwrap();
    // A path below a regular file cannot be created.
    let dir = temp_dir("io");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("plain");
    std::fs::write(&file, b"x").unwrap();
    let path = file.join("dataset.bin");
    assert!(matches!(
        load_or_make_dataset(&path, B256::ZERO, 32 * 1024, &cache, threads(1)),
        Err(PowError::Io { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The real 1 GiB epoch-0 dataset: minutes to build on two cores, so it is
/// ignored by default. `DYNO_POW_DATASET_DIR=… cargo test --release -- --ignored`
/// builds it there once (or loads it) and checks it against the digest that
/// core-geth's generateDataset gives, and full against light hashimoto.
#[test]
#[ignore = "builds or loads the 1 GiB epoch-0 dataset"]
fn epoch0_dataset_matches_core_geth() {
    let dir = std::env::var_os("DYNO_POW_DATASET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| temp_dir("epoch0"));
    let p = Pow::Ethash.epoch_params(0);
    let path = dir.join(dataset_file_name(p.seed_hash, p.full_size));
    let (ds, _) = load_or_make_dataset(
        &path,
        p.seed_hash,
        p.full_size,
        epoch0().bytes(),
        default_threads(),
    )
    .unwrap();
    assert_eq!(keccak256(&ds), EPOCH0_DATASET_KECCAK256);
    let h = block1();
    let full = hashimoto_full(seal_hash(&h).unwrap(), u64::from_be_bytes(h.nonce.0), &ds).unwrap();
    assert_eq!(full.mix_digest, h.mix_hash);
    assert_eq!(full.result, BLOCK1_RESULT);
}
