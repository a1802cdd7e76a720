//! Ethash and Etchash (ECIP-1099) proof of work for dyno.
//!
//! The hashing is rust-ethereum's [`ethash`] crate 0.4.0 (cache generation,
//! dataset items, hashimoto); this crate adds what dyno needs around it:
//!
//! - epoch, seed hash and sizes for Ethash and Etchash ([`Pow`]), with
//!   core-geth's rules: the epoch length becomes 60 000 at the ECIP-1099
//!   block, the cache and dataset sizes are indexed by that 60k epoch, and
//!   the seed hash stays continuous (`get_seedhash(epoch * 2)`);
//! - a dataset built on all cores (the crate's `make_dataset` is
//!   single-threaded, but its `calc_dataset_item` is item-wise);
//! - [`hashimoto_light`] / [`hashimoto_full`] on alloy types, and
//!   [`verify_header`] for a proof-of-work [`Header`] (seal hash, light
//!   hashimoto, mix digest, difficulty target);
//! - an on-disk copy of a dataset with a keccak-256 checksum file
//!   ([`load_or_make_dataset`]), so that the 1 GiB epoch-0 dataset is built
//!   once.

pub mod bench;
pub mod cases;

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::thread;

pub use alloy_consensus::Header;
use alloy_primitives::{B256, Keccak256, U256};
use alloy_rlp::Encodable;
use ethereum_types::{H64, H256};

/// Blocks per epoch before ECIP-1099 (and always on Ethereum).
pub const EPOCH_LENGTH: u64 = 30_000;
/// Blocks per epoch from the ECIP-1099 block on (Etchash).
pub const ECIP1099_EPOCH_LENGTH: u64 = 60_000;
/// ECIP-1099 activation block on Ethereum Classic mainnet (core-geth
/// `params/config_classic.go`, `ECIP1099FBlock`).
pub const ETC_MAINNET_ECIP1099_BLOCK: u64 = 11_700_000;
/// ECIP-1099 activation block on Mordor (core-geth `params/config_mordor.go`).
pub const MORDOR_ECIP1099_BLOCK: u64 = 2_520_000;
/// Bytes of one cache or dataset item.
pub const HASH_BYTES: usize = 64;
/// Bytes of the hashimoto mix (two dataset items).
pub const MIX_BYTES: usize = 128;
/// Cache size of epoch 0 (16 MiB less a few items, a prime number of items).
pub const EPOCH0_CACHE_SIZE: usize = 16_776_896;
/// Dataset size of epoch 0 (1 GiB less a few mixes).
pub const EPOCH0_FULL_SIZE: usize = 1_073_739_904;
/// keccak-256 of the whole epoch-0 dataset (little-endian words, as both
/// the ethash crate and core-geth lay it out). Computed with this crate and,
/// independently, with core-geth v1.12.22's `generateDataset`; the two agree.
pub const EPOCH0_DATASET_KECCAK256: B256 =
    alloy_primitives::b256!("cb449c4f4c3fa2de74074abb3aa7c29b5296f466315025d8172c8843d7c0924a");

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
pub enum PowError {
    /// A cache must be a positive whole number of 64-byte items.
    #[error("cache size {0} is not a positive multiple of {HASH_BYTES}")]
    BadCacheSize(usize),
    /// A dataset must be a positive whole number of 128-byte mixes.
    #[error("dataset size {0} is not a positive multiple of {MIX_BYTES}")]
    BadFullSize(usize),
    /// The difficulty is zero (no target exists).
    #[error("difficulty is zero")]
    ZeroDifficulty,
    /// The header carries fields that proof-of-work headers never have.
    #[error("not a proof-of-work header: it has {0}")]
    NotPowHeader(&'static str),
    /// The cache given is for another epoch than the header's block.
    #[error(
        "the cache is for epoch {cache_epoch} (length {cache_epoch_length}); block {block} is in epoch {block_epoch} (length {block_epoch_length})"
    )]
    WrongEpoch {
        block: u64,
        block_epoch: u64,
        block_epoch_length: u64,
        cache_epoch: u64,
        cache_epoch_length: u64,
    },
    /// The recomputed mix digest differs from the header's `mix_hash`.
    #[error("mix digest mismatch: header has {header}, computed {computed}")]
    MixDigestMismatch { header: B256, computed: B256 },
    /// The hashimoto result is above `2^256 / difficulty`.
    #[error("proof of work too weak: result {result} above the target for difficulty {difficulty}")]
    DifficultyNotMet { result: B256, difficulty: U256 },
    /// Reading or writing a dataset file failed.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> PowError + '_ {
    move |source| PowError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The output of hashimoto: the mix digest (a header's `mix_hash`) and the
/// result that is compared with the difficulty target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PowHash {
    pub mix_digest: B256,
    pub result: B256,
}

/// Which proof-of-work rules pick the epoch of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pow {
    /// Ethash: 30 000 blocks per epoch forever.
    Ethash,
    /// Etchash (ECIP-1099): 60 000 blocks per epoch from `ecip1099_block` on.
    Etchash { ecip1099_block: u64 },
}

/// The parameters of the epoch a block is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EpochParams {
    pub epoch_length: u64,
    pub epoch: u64,
    pub seed_hash: B256,
    pub cache_size: usize,
    pub full_size: usize,
}

impl Pow {
    /// Ethereum Classic mainnet.
    pub const ETC_MAINNET: Pow = Pow::Etchash {
        ecip1099_block: ETC_MAINNET_ECIP1099_BLOCK,
    };
    /// Mordor, Ethereum Classic's test network.
    pub const MORDOR: Pow = Pow::Etchash {
        ecip1099_block: MORDOR_ECIP1099_BLOCK,
    };

    /// Blocks per epoch at `block` (core-geth `CalcEpochLength`).
    pub fn epoch_length(self, block: u64) -> u64 {
        match self {
            Pow::Etchash { ecip1099_block } if block >= ecip1099_block => ECIP1099_EPOCH_LENGTH,
            _ => EPOCH_LENGTH,
        }
    }

    /// The epoch of `block` (core-geth `CalcEpoch`).
    pub fn epoch(self, block: u64) -> u64 {
        block / self.epoch_length(block)
    }

    /// Epoch length, epoch, seed hash and sizes at `block`.
    pub fn epoch_params(self, block: u64) -> EpochParams {
        let epoch_length = self.epoch_length(block);
        let epoch = block / epoch_length;
        EpochParams {
            epoch_length,
            epoch,
            seed_hash: seed_hash(epoch, epoch_length),
            cache_size: cache_size(epoch),
            full_size: full_size(epoch),
        }
    }
}

/// The seed hash of `epoch` for epochs of `epoch_length` blocks, as
/// core-geth's `seedHash`: keccak-256 iterated over 32 zero bytes once per
/// 30 000 blocks before the epoch's first block. With 60 000-block epochs
/// that is `get_seedhash(epoch * 2)`, so seeds stay continuous across
/// ECIP-1099.
pub fn seed_hash(epoch: u64, epoch_length: u64) -> B256 {
    let first_block = epoch * epoch_length + 1;
    let rounds = first_block / EPOCH_LENGTH;
    B256::from(ethash::get_seedhash(rounds as usize).0)
}

/// Cache size of `epoch` (the ethash crate's prime search).
pub fn cache_size(epoch: u64) -> usize {
    ethash::get_cache_size(epoch as usize)
}

/// Dataset size of `epoch` (the ethash crate's prime search).
pub fn full_size(epoch: u64) -> usize {
    ethash::get_full_size(epoch as usize)
}

fn check_cache(cache: &[u8]) -> Result<(), PowError> {
    if cache.is_empty() || !cache.len().is_multiple_of(HASH_BYTES) {
        return Err(PowError::BadCacheSize(cache.len()));
    }
    Ok(())
}

fn check_full_size(full_size: usize) -> Result<(), PowError> {
    if full_size == 0 || !full_size.is_multiple_of(MIX_BYTES) {
        return Err(PowError::BadFullSize(full_size));
    }
    Ok(())
}

/// Builds a verification cache of `cache_size` bytes from `seed`
/// (`ethash::make_cache`: sequential keccak-512 fill, three RandMemoHash
/// rounds).
pub fn make_cache(cache_size: usize, seed: B256) -> Result<Vec<u8>, PowError> {
    if cache_size == 0 || !cache_size.is_multiple_of(HASH_BYTES) {
        return Err(PowError::BadCacheSize(cache_size));
    }
    let mut cache = vec![0u8; cache_size];
    ethash::make_cache(&mut cache, H256(seed.0));
    Ok(cache)
}

/// The number of threads [`make_dataset`] uses: the available parallelism.
pub fn default_threads() -> NonZeroUsize {
    thread::available_parallelism().unwrap_or(NonZeroUsize::MIN)
}

/// Builds the full dataset of `full_size` bytes from `cache` on
/// [`default_threads`] threads.
pub fn make_dataset(full_size: usize, cache: &[u8]) -> Result<Vec<u8>, PowError> {
    make_dataset_with_threads(full_size, cache, default_threads())
}

/// Builds the full dataset on `threads` scoped threads, each computing a
/// contiguous range of items with `ethash::calc_dataset_item` (the crate's
/// own `make_dataset` does the same items on one thread).
pub fn make_dataset_with_threads(
    full_size: usize,
    cache: &[u8],
    threads: NonZeroUsize,
) -> Result<Vec<u8>, PowError> {
    check_cache(cache)?;
    check_full_size(full_size)?;
    let mut dataset = vec![0u8; full_size];
    let items = full_size / HASH_BYTES;
    let per_thread = items.div_ceil(threads.get());
    thread::scope(|s| {
        for (t, chunk) in dataset.chunks_mut(per_thread * HASH_BYTES).enumerate() {
            s.spawn(move || {
                let first = t * per_thread;
                for (k, item) in chunk.chunks_exact_mut(HASH_BYTES).enumerate() {
                    item.copy_from_slice(ethash::calc_dataset_item(cache, first + k).as_bytes());
                }
            });
        }
    });
    Ok(dataset)
}

fn to_pow_hash((mix, result): (H256, H256)) -> PowHash {
    PowHash {
        mix_digest: B256::from(mix.0),
        result: B256::from(result.0),
    }
}

/// Hashimoto with dataset items computed from the cache
/// (`ethash::hashimoto_light`). `nonce` is the header's nonce read
/// big-endian, as core-geth's `Header.Nonce.Uint64()`.
pub fn hashimoto_light(
    header_hash: B256,
    nonce: u64,
    full_size: usize,
    cache: &[u8],
) -> Result<PowHash, PowError> {
    check_cache(cache)?;
    check_full_size(full_size)?;
    Ok(to_pow_hash(ethash::hashimoto_light(
        H256(header_hash.0),
        H64(nonce.to_be_bytes()),
        full_size,
        cache,
    )))
}

/// Hashimoto over the full dataset (`ethash::hashimoto_full`); the dataset
/// size is `dataset.len()`.
pub fn hashimoto_full(header_hash: B256, nonce: u64, dataset: &[u8]) -> Result<PowHash, PowError> {
    check_full_size(dataset.len())?;
    Ok(to_pow_hash(ethash::hashimoto_full(
        H256(header_hash.0),
        H64(nonce.to_be_bytes()),
        dataset.len(),
        dataset,
    )))
}

/// `floor(2^256 / difficulty)`, the largest passing result; `None` for a
/// zero difficulty. For difficulty 1 the target (2^256) does not fit in 256
/// bits, and `U256::MAX` is returned: every result passes either way.
pub fn difficulty_target(difficulty: U256) -> Option<U256> {
    if difficulty.is_zero() {
        return None;
    }
    if difficulty == U256::from(1) {
        return Some(U256::MAX);
    }
    // 2^256 = MAX + 1, so floor(2^256 / d) is floor(MAX / d), plus one when
    // d divides 2^256 (then MAX mod d = d - 1).
    let (q, r) = (U256::MAX / difficulty, U256::MAX % difficulty);
    Some(if r == difficulty - U256::from(1) {
        q + U256::from(1)
    } else {
        q
    })
}

/// Whether `result` (read big-endian) is at most `2^256 / difficulty`.
pub fn meets_difficulty(result: B256, difficulty: U256) -> Result<bool, PowError> {
    let target = difficulty_target(difficulty).ok_or(PowError::ZeroDifficulty)?;
    Ok(U256::from_be_bytes(result.0) <= target)
}

/// The seal hash: keccak-256 of the RLP list of the header's fields without
/// `mix_hash` and `nonce` (core-geth `Ethash.SealHash`: the 13 pre-London
/// fields, plus the base fee when the header has one). A header with
/// post-merge fields is refused, where core-geth panics.
pub fn seal_hash(header: &Header) -> Result<B256, PowError> {
    let post_merge = [
        (header.withdrawals_root.is_some(), "withdrawals_root"),
        (header.blob_gas_used.is_some(), "blob_gas_used"),
        (header.excess_blob_gas.is_some(), "excess_blob_gas"),
        (
            header.parent_beacon_block_root.is_some(),
            "parent_beacon_block_root",
        ),
        (header.requests_hash.is_some(), "requests_hash"),
        (
            header.block_access_list_hash.is_some(),
            "block_access_list_hash",
        ),
        (header.slot_number.is_some(), "slot_number"),
    ];
    if let Some((_, field)) = post_merge.iter().find(|(set, _)| *set) {
        return Err(PowError::NotPowHeader(field));
    }
    let fields: [&dyn Encodable; 13] = [
        &header.parent_hash,
        &header.ommers_hash,
        &header.beneficiary,
        &header.state_root,
        &header.transactions_root,
        &header.receipts_root,
        &header.logs_bloom,
        &header.difficulty,
        &header.number,
        &header.gas_limit,
        &header.gas_used,
        &header.timestamp,
        &header.extra_data,
    ];
    let mut payload_length: usize = fields.iter().map(|f| f.length()).sum();
    if let Some(base_fee) = &header.base_fee_per_gas {
        payload_length += base_fee.length();
    }
    let mut out = Vec::with_capacity(payload_length + 4);
    alloy_rlp::Header {
        list: true,
        payload_length,
    }
    .encode(&mut out);
    for f in fields {
        f.encode(&mut out);
    }
    if let Some(base_fee) = &header.base_fee_per_gas {
        base_fee.encode(&mut out);
    }
    Ok(alloy_primitives::keccak256(&out))
}

/// A verification cache and the epoch it belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LightCache {
    pow: Pow,
    params: EpochParams,
    cache: Vec<u8>,
}

impl LightCache {
    /// Builds the cache of the epoch `block` is in under `pow`'s rules.
    pub fn new(pow: Pow, block: u64) -> Self {
        let params = pow.epoch_params(block);
        let cache = make_cache(params.cache_size, params.seed_hash)
            .expect("cache sizes of real epochs are whole items");
        LightCache { pow, params, cache }
    }

    /// The rules the cache was built under.
    pub fn pow(&self) -> Pow {
        self.pow
    }

    /// Epoch length, epoch, seed and sizes of the cache's epoch.
    pub fn params(&self) -> &EpochParams {
        &self.params
    }

    /// The cache bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.cache
    }

    /// Light hashimoto in this epoch.
    pub fn hashimoto(&self, header_hash: B256, nonce: u64) -> PowHash {
        to_pow_hash(ethash::hashimoto_light(
            H256(header_hash.0),
            H64(nonce.to_be_bytes()),
            self.params.full_size,
            &self.cache,
        ))
    }
}

/// Verifies the proof of work of `header` under `pow`'s rules, building the
/// cache of its epoch first (about a second for epoch 0 in a release build;
/// use [`verify_header_with_cache`] to verify many headers).
pub fn verify_header(header: &Header, pow: Pow) -> Result<PowHash, PowError> {
    verify_header_with_cache(header, &LightCache::new(pow, header.number))
}

/// Verifies the proof of work of `header` as core-geth's `verifySeal` does
/// in light mode: a positive difficulty, the seal hash, light hashimoto, the
/// mix digest equal to `header.mix_hash`, and the result at most
/// `2^256 / difficulty`. Returns the hashimoto output on success.
pub fn verify_header_with_cache(header: &Header, cache: &LightCache) -> Result<PowHash, PowError> {
    if header.difficulty.is_zero() {
        return Err(PowError::ZeroDifficulty);
    }
    let at = cache.pow.epoch_params(header.number);
    if at.epoch != cache.params.epoch || at.epoch_length != cache.params.epoch_length {
        return Err(PowError::WrongEpoch {
            block: header.number,
            block_epoch: at.epoch,
            block_epoch_length: at.epoch_length,
            cache_epoch: cache.params.epoch,
            cache_epoch_length: cache.params.epoch_length,
        });
    }
    let pow = cache.hashimoto(seal_hash(header)?, u64::from_be_bytes(header.nonce.0));
    if pow.mix_digest != header.mix_hash {
        return Err(PowError::MixDigestMismatch {
            header: header.mix_hash,
            computed: pow.mix_digest,
        });
    }
    if !meets_difficulty(pow.result, header.difficulty)? {
        return Err(PowError::DifficultyNotMet {
            result: pow.result,
            difficulty: header.difficulty,
        });
    }
    Ok(pow)
}

/// Where a dataset returned by [`load_or_make_dataset`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatasetSource {
    /// Read from the file; its keccak-256 matched the checksum file.
    Loaded,
    /// Generated, because the file or its checksum was missing or did not
    /// match; the file and checksum file were (re)written.
    Generated,
}

/// The file name dyno uses for a dataset in a cache folder:
/// `ethash-full-<first 8 seed bytes in hex>-<size>.bin` (epoch 0:
/// `ethash-full-0000000000000000-1073739904.bin`). The Go adapter uses the
/// same name and format, so the two can share one file.
pub fn dataset_file_name(seed: B256, full_size: usize) -> String {
    let mut name = String::from("ethash-full-");
    for b in &seed[..8] {
        name.push_str(&format!("{b:02x}"));
    }
    name.push_str(&format!("-{full_size}.bin"));
    name
}

/// The checksum file of dataset file `path`: `path` + `.keccak256`.
pub fn checksum_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".keccak256");
    PathBuf::from(p)
}

/// The one line of a checksum file.
fn checksum_line(seed: B256, full_size: usize, digest: B256) -> String {
    format!("dyno-pow dataset v1 seed={seed} full_size={full_size} keccak256={digest}\n")
}

/// Reads the dataset file if it has `full_size` bytes and its checksum file
/// names this seed and size and the keccak-256 of what was read.
fn load_dataset(path: &Path, seed: B256, full_size: usize) -> Result<Option<Vec<u8>>, PowError> {
    let Ok(expected) = fs::read_to_string(checksum_path(path)) else {
        return Ok(None);
    };
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(path)(e)),
    };
    let len = file.metadata().map_err(io_err(path))?.len();
    if len != full_size as u64 {
        return Ok(None);
    }
    let mut dataset = vec![0u8; full_size];
    let mut hasher = Keccak256::new();
    for chunk in dataset.chunks_mut(8 << 20) {
        file.read_exact(chunk).map_err(io_err(path))?;
        hasher.update(&chunk[..]);
    }
    if expected != checksum_line(seed, full_size, hasher.finalize()) {
        return Ok(None);
    }
    Ok(Some(dataset))
}

/// Writes `data` to `path` through a temporary file that is synced and then
/// renamed over `path`.
fn write_durably(path: &Path, data: &[u8]) -> Result<(), PowError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut f = File::create(&tmp).map_err(io_err(&tmp))?;
    f.write_all(data).map_err(io_err(&tmp))?;
    f.sync_all().map_err(io_err(&tmp))?;
    drop(f);
    fs::rename(&tmp, path).map_err(io_err(path))
}

/// Returns the dataset of `full_size` bytes for `seed` built from `cache`,
/// read from `path` when that file and its checksum file
/// ([`checksum_path`]) match, else generated on `threads` threads and
/// written to `path` (temporary file, fsync, rename) with a new checksum
/// file. The checksum file is removed before the data is rewritten, so an
/// interrupted write is never taken for a good one. The parent folder is
/// created if needed. Checking costs one keccak-256 pass over the file.
pub fn load_or_make_dataset(
    path: &Path,
    seed: B256,
    full_size: usize,
    cache: &[u8],
    threads: NonZeroUsize,
) -> Result<(Vec<u8>, DatasetSource), PowError> {
    check_cache(cache)?;
    check_full_size(full_size)?;
    if let Some(dataset) = load_dataset(path, seed, full_size)? {
        return Ok((dataset, DatasetSource::Loaded));
    }
    let sum_path = checksum_path(path);
    match fs::remove_file(&sum_path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_err(&sum_path)(e)),
        _ => {}
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(io_err(dir))?;
    }
    let dataset = make_dataset_with_threads(full_size, cache, threads)?;
    write_durably(path, &dataset)?;
    let mut hasher = Keccak256::new();
    hasher.update(&dataset);
    let line = checksum_line(seed, full_size, hasher.finalize());
    write_durably(&sum_path, line.as_bytes())?;
    Ok((dataset, DatasetSource::Generated))
}
