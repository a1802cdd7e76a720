//! Ethereum-shaped objects for the RLP suite, every field drawn from the
//! SplitMix64 stream [`dyno_workload::seq`].
//!
//! The shapes follow post-Prague mainnet: EIP-155 legacy transfers, EIP-1559
//! transfers and contract calls (some with access lists), a few EIP-4844 blob
//! transactions, receipts with ERC-20 and DEX logs and their real blooms, and
//! bodies with 16 withdrawals. Signatures are random valid-looking `(r, s,
//! y_parity)` values with a low `s`: nothing here is signed, only encoded.
//!
//! alloy-consensus does not re-export alloy-eips' `AccessListItem` and
//! `Withdrawal` (only through its `#[doc(hidden)]` `private` module), and
//! alloy-eips is not a direct dependency, so those items are pushed as
//! `Default::default()` and filled field by field.

use alloy_consensus::{
    BlockBody, EMPTY_OMMER_ROOT_HASH, EMPTY_ROOT_HASH, Eip658Value, Header, Receipt,
    ReceiptEnvelope, Signed, TrieAccount, TxEip1559, TxEip4844, TxEip4844Variant, TxEnvelope,
    TxLegacy, constants::KECCAK_EMPTY,
};
use alloy_primitives::{
    Address, B64, B256, Bloom, Bytes, Log, Signature, TxKind, U256, b256, keccak256,
};
use dyno_workload::seq;

/// One gwei in wei.
const GWEI: u128 = 1_000_000_000;

/// sha256 of the empty string: the requests hash of a block without EIP-7685
/// requests.
const EMPTY_REQUESTS_HASH: B256 =
    b256!("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

/// First mainnet block and timestamp of the Prague/Electra fork.
const PRAGUE_BLOCK: u64 = 22_431_084;
const PRAGUE_TIME: u64 = 1_746_612_311;

/// Blob gas per blob (EIP-4844).
const GAS_PER_BLOB: u64 = 131_072;

/// Consecutive bytes of `seq(seed, ·)`, read as the fields of an object.
#[derive(Debug)]
pub struct Rng {
    seed: u64,
    buf: Vec<u8>,
    pos: usize,
}

impl Rng {
    /// The stream `seq(seed, ·)` from its start.
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            buf: seq(seed, 4096),
            pos: 0,
        }
    }

    /// The next `n` bytes. `seq` is prefix-stable, so growing the buffer by
    /// regenerating it longer keeps every byte already read.
    fn take(&mut self, n: usize) -> &[u8] {
        if self.pos + n > self.buf.len() {
            let len = (2 * self.buf.len()).max(self.pos + n);
            self.buf = seq(self.seed, len);
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        out
    }

    fn array<const N: usize>(&mut self) -> [u8; N] {
        self.take(N).try_into().expect("take returns N bytes")
    }

    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.array())
    }

    /// Uniform-ish in `0..n` (modulo bias is irrelevant here).
    fn below(&mut self, n: u64) -> u64 {
        self.u64() % n
    }

    /// In `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    fn percent(&mut self, p: u64) -> bool {
        self.below(100) < p
    }

    fn address(&mut self) -> Address {
        Address::from(self.array::<20>())
    }

    fn b256(&mut self) -> B256 {
        B256::from(self.array::<32>())
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        self.take(n).to_vec()
    }

    /// An unsigned integer of up to `max_bytes` random bytes.
    fn uint(&mut self, max_bytes: u64) -> U256 {
        let n = self.range(0, max_bytes) as usize;
        U256::from_be_slice(self.take(n))
    }

    /// A price around `lo..=hi` gwei, not a round number.
    fn gwei(&mut self, lo: u64, hi: u64) -> u128 {
        u128::from(self.range(lo, hi)) * GWEI + u128::from(self.below(GWEI as u64))
    }

    /// Random `(r, s, y_parity)` with `s` in the lower half of the range.
    fn signature(&mut self) -> Signature {
        let r = U256::from_be_bytes(self.array::<32>());
        let mut s = self.array::<32>();
        s[0] &= 0x7f;
        let y_parity = self.u64() & 1 == 1;
        Signature::new(r, U256::from_be_bytes(s), y_parity)
    }
}

/// A 32-byte ABI word holding `value` right-aligned.
fn word(value: &[u8]) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[32 - value.len()..].copy_from_slice(value);
    w
}

/// The 4-byte selector of a Solidity function signature.
fn selector(signature: &str) -> [u8; 4] {
    keccak256(signature)[..4]
        .try_into()
        .expect("4 bytes of a hash")
}

/// What a transaction does, whatever its envelope.
struct Call {
    to: TxKind,
    value: U256,
    input: Vec<u8>,
    gas_limit: u64,
    access_list: Vec<(Address, Vec<B256>)>,
}

/// A plain ether transfer.
fn eth_transfer(rng: &mut Rng) -> Call {
    Call {
        to: TxKind::Call(rng.address()),
        value: rng.uint(9),
        input: Vec::new(),
        gas_limit: 21_000,
        access_list: Vec::new(),
    }
}

/// `transfer(address,uint256)` on an ERC-20 token; the access list, when
/// asked for, warms the token and its two balance slots.
fn erc20_transfer(rng: &mut Rng, with_access_list: bool) -> Call {
    let token = rng.address();
    let mut input = Vec::with_capacity(68);
    input.extend_from_slice(&selector("transfer(address,uint256)"));
    input.extend_from_slice(&word(&rng.array::<20>()));
    input.extend_from_slice(&word(&rng.uint(12).to_be_bytes_trimmed_vec()));
    let access_list = if with_access_list {
        vec![(token, vec![rng.b256(), rng.b256()])]
    } else {
        Vec::new()
    };
    Call {
        to: TxKind::Call(token),
        value: U256::ZERO,
        input,
        gas_limit: rng.range(45_000, 80_000),
        access_list,
    }
}

/// A router or aggregator call: a selector and 2–14 ABI words, mostly
/// addresses and amounts (so mostly zero bytes), sometimes with value and an
/// access list.
fn contract_call(rng: &mut Rng) -> Call {
    let to = TxKind::Call(rng.address());
    let value = if rng.percent(30) {
        rng.uint(8)
    } else {
        U256::ZERO
    };
    let words = rng.range(2, 14);
    let mut input = rng.bytes(4);
    for _ in 0..words {
        let w = match rng.below(4) {
            0 => word(&rng.array::<20>()),
            1 => {
                let width = rng.range(1, 16) as usize;
                word(&rng.bytes(width))
            }
            2 => rng.array::<32>(),
            _ => word(&[]),
        };
        input.extend_from_slice(&w);
    }
    let access_list = if rng.percent(25) {
        (0..rng.range(1, 3))
            .map(|_| {
                let address = rng.address();
                let keys = (0..rng.below(4)).map(|_| rng.b256()).collect();
                (address, keys)
            })
            .collect()
    } else {
        Vec::new()
    };
    Call {
        to,
        value,
        input,
        gas_limit: rng.range(100_000, 600_000),
        access_list,
    }
}

/// A contract deployment or a rollup batch: 2–16 KiB of calldata.
fn calldata_heavy(rng: &mut Rng) -> Call {
    let to = if rng.percent(50) {
        TxKind::Create
    } else {
        TxKind::Call(rng.address())
    };
    let len = rng.range(2048, 16 * 1024) as usize;
    Call {
        to,
        value: U256::ZERO,
        input: rng.bytes(len),
        gas_limit: rng.range(1_000_000, 10_000_000),
        access_list: Vec::new(),
    }
}

/// Fills an alloy `AccessList` from `(address, keys)` pairs.
macro_rules! fill_access_list {
    ($list:expr, $items:expr) => {
        for (address, storage_keys) in $items {
            $list.0.push(Default::default());
            let item = $list.0.last_mut().expect("just pushed");
            item.address = address;
            item.storage_keys = storage_keys;
        }
    };
}

/// An EIP-155 legacy transaction on mainnet.
fn legacy(rng: &mut Rng, call: Call) -> TxEnvelope {
    assert!(
        call.access_list.is_empty(),
        "legacy transactions have no access list"
    );
    let tx = TxLegacy {
        chain_id: Some(1),
        nonce: rng.below(100_000),
        gas_price: rng.gwei(1, 60),
        gas_limit: call.gas_limit,
        to: call.to,
        value: call.value,
        input: Bytes::from(call.input),
    };
    TxEnvelope::Legacy(Signed::new_unhashed(tx, rng.signature()))
}

/// An EIP-1559 transaction on mainnet.
fn eip1559(rng: &mut Rng, call: Call) -> TxEnvelope {
    let max_priority_fee_per_gas = u128::from(rng.range(1, 3_000)) * GWEI / 1000;
    let mut tx = TxEip1559 {
        chain_id: 1,
        nonce: rng.below(100_000),
        gas_limit: call.gas_limit,
        max_fee_per_gas: max_priority_fee_per_gas + rng.gwei(2, 80),
        max_priority_fee_per_gas,
        to: call.to,
        value: call.value,
        access_list: Default::default(),
        input: Bytes::from(call.input),
    };
    fill_access_list!(tx.access_list, call.access_list);
    TxEnvelope::Eip1559(Signed::new_unhashed(tx, rng.signature()))
}

/// An EIP-4844 blob transaction as it appears in a block (no sidecar).
fn blob(rng: &mut Rng) -> TxEnvelope {
    let max_priority_fee_per_gas = u128::from(rng.range(1, 3_000)) * GWEI / 1000;
    let input = if rng.percent(50) {
        Vec::new()
    } else {
        let mut input = rng.bytes(4);
        for _ in 0..rng.range(1, 3) {
            input.extend_from_slice(&word(&rng.bytes(8)));
        }
        input
    };
    let blobs = rng.range(1, 6);
    let mut tx = TxEip4844 {
        chain_id: 1,
        nonce: rng.below(1_000_000),
        gas_limit: rng.range(21_000, 100_000),
        max_fee_per_gas: max_priority_fee_per_gas + rng.gwei(2, 80),
        max_priority_fee_per_gas,
        to: rng.address(),
        value: U256::ZERO,
        access_list: Default::default(),
        blob_versioned_hashes: (0..blobs)
            .map(|_| {
                // Versioned hashes start with the KZG version byte 0x01.
                let mut h = rng.array::<32>();
                h[0] = 0x01;
                B256::from(h)
            })
            .collect(),
        max_fee_per_blob_gas: u128::from(rng.range(1, 20_000_000)),
        input: Bytes::from(input),
    };
    if rng.percent(10) {
        let items = vec![(rng.address(), vec![rng.b256()])];
        fill_access_list!(tx.access_list, items);
    }
    TxEnvelope::Eip4844(Signed::new_unhashed(
        TxEip4844Variant::TxEip4844(tx),
        rng.signature(),
    ))
}

/// A state-trie account: an EOA or, 30% of the time, a contract.
pub fn account(rng: &mut Rng) -> TrieAccount {
    if rng.percent(30) {
        TrieAccount::new(1, rng.uint(12), rng.b256(), rng.b256())
    } else {
        TrieAccount::new(
            rng.below(5_000),
            rng.uint(12),
            EMPTY_ROOT_HASH,
            KECCAK_EMPTY,
        )
    }
}

/// A signed EIP-155 legacy value transfer.
pub fn legacy_transfer(rng: &mut Rng) -> TxEnvelope {
    let call = eth_transfer(rng);
    legacy(rng, call)
}

/// A signed EIP-1559 ERC-20 transfer with a one-entry access list.
pub fn erc20_transfer_eip1559(rng: &mut Rng) -> TxEnvelope {
    let call = erc20_transfer(rng, true);
    eip1559(rng, call)
}

/// One transaction of a block, in mainnet-like proportions.
pub fn block_tx(rng: &mut Rng) -> TxEnvelope {
    match rng.below(100) {
        0..6 => legacy_transfer(rng),
        6..12 => {
            let call = contract_call(rng);
            let call = Call {
                access_list: Vec::new(),
                ..call
            };
            legacy(rng, call)
        }
        12..30 => {
            let call = eth_transfer(rng);
            eip1559(rng, call)
        }
        30..60 => {
            let with_access_list = rng.percent(20);
            let call = erc20_transfer(rng, with_access_list);
            eip1559(rng, call)
        }
        60..96 => {
            let call = contract_call(rng);
            eip1559(rng, call)
        }
        _ => blob(rng),
    }
}

/// A post-Shanghai block body: `txs` transactions, no ommers, 16
/// withdrawals. With `heavy_every = Some(n)`, every n-th transaction carries
/// 2–16 KiB of calldata.
pub fn body(rng: &mut Rng, txs: usize, heavy_every: Option<usize>) -> BlockBody<TxEnvelope> {
    let transactions = (0..txs)
        .map(|i| match heavy_every {
            Some(n) if i % n == n / 2 => {
                let call = calldata_heavy(rng);
                eip1559(rng, call)
            }
            _ => block_tx(rng),
        })
        .collect();
    let mut body = BlockBody {
        transactions,
        ommers: Vec::new(),
        withdrawals: Some(Default::default()),
    };
    let withdrawals = body.withdrawals.as_mut().expect("set above");
    let first_index = rng.range(80_000_000, 100_000_000);
    let mut validator_index = rng.range(0, 1_900_000);
    for index in first_index..first_index + 16 {
        withdrawals.0.push(Default::default());
        let w = withdrawals.0.last_mut().expect("just pushed");
        w.index = index;
        w.validator_index = validator_index;
        w.address = rng.address();
        // Partial withdrawals of the skimmed rewards, now and then a full exit.
        w.amount = if rng.percent(2) {
            32_000_000_000 + rng.below(100_000_000)
        } else {
            rng.range(10_000_000, 25_000_000)
        };
        validator_index += rng.range(1, 40);
    }
    body
}

/// An event log: an ERC-20 `Transfer`/`Approval`, a Uniswap V3 `Swap` or a
/// V2 `Sync`, with topics and data shaped like the real ones.
fn log(rng: &mut Rng) -> Log {
    let address = rng.address();
    let (signature, indexed, data_words) = match rng.below(100) {
        0..55 => ("Transfer(address,address,uint256)", 2, 1),
        55..65 => ("Approval(address,address,uint256)", 2, 1),
        65..85 => (
            "Swap(address,address,int256,int256,uint160,uint128,int24)",
            2,
            5,
        ),
        _ => ("Sync(uint112,uint112)", 0, 2),
    };
    let mut topics = vec![keccak256(signature)];
    for _ in 0..indexed {
        topics.push(B256::from(word(&rng.array::<20>())));
    }
    let mut data = Vec::with_capacity(32 * data_words);
    for _ in 0..data_words {
        let width = rng.range(4, 20) as usize;
        data.extend_from_slice(&word(&rng.bytes(width)));
    }
    Log::new_unchecked(address, topics, Bytes::from(data))
}

/// `n` receipts of one block, typed like its transactions, with cumulative
/// gas, real blooms and 0–6 logs each (none when the transaction failed).
pub fn receipts(rng: &mut Rng, n: usize) -> Vec<ReceiptEnvelope> {
    let mut cumulative_gas_used = 0;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        cumulative_gas_used += rng.range(21_000, 250_000);
        let success = !rng.percent(3);
        let logs = match rng.below(100) {
            _ if !success => 0,
            0..30 => 0,
            30..65 => 1,
            65..85 => 2,
            85..95 => 3,
            _ => rng.range(4, 6),
        };
        let receipt = Receipt {
            status: Eip658Value::Eip658(success),
            cumulative_gas_used,
            logs: (0..logs).map(|_| log(rng)).collect(),
        }
        .with_bloom();
        out.push(match rng.below(100) {
            0..12 => ReceiptEnvelope::Legacy(receipt),
            12..96 => ReceiptEnvelope::Eip1559(receipt),
            _ => ReceiptEnvelope::Eip4844(receipt),
        });
    }
    out
}

/// What execution clients and builders put in `extraData`.
const EXTRA_DATA: [&str; 6] = [
    "beaverbuild.org",
    "Titan (titanbuilder.xyz)",
    "rsync-builder.xyz",
    "BuilderNet (Flashbots)",
    "reth/v1.3.12/linux",
    "",
];

/// A post-Prague mainnet header: every fork field up to the requests hash.
pub fn header(rng: &mut Rng) -> Header {
    let number = rng.range(PRAGUE_BLOCK, PRAGUE_BLOCK + 1_500_000);
    let gas_limit = if rng.percent(50) {
        36_000_000
    } else {
        45_000_000
    };
    Header {
        parent_hash: rng.b256(),
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        beneficiary: rng.address(),
        state_root: rng.b256(),
        transactions_root: rng.b256(),
        receipts_root: rng.b256(),
        logs_bloom: Bloom::from(rng.array::<256>()),
        difficulty: U256::ZERO,
        number,
        gas_limit,
        gas_used: rng.below(gas_limit + 1),
        timestamp: PRAGUE_TIME + 12 * (number - PRAGUE_BLOCK),
        extra_data: Bytes::from_static(
            EXTRA_DATA[rng.below(EXTRA_DATA.len() as u64) as usize].as_bytes(),
        ),
        mix_hash: rng.b256(),
        nonce: B64::ZERO,
        base_fee_per_gas: Some(rng.range(100_000_000, 30_000_000_000)),
        withdrawals_root: Some(rng.b256()),
        blob_gas_used: Some(GAS_PER_BLOB * rng.below(10)),
        excess_blob_gas: Some(rng.below(40_000_000)),
        parent_beacon_block_root: Some(rng.b256()),
        requests_hash: Some(if rng.percent(80) {
            EMPTY_REQUESTS_HASH
        } else {
            rng.b256()
        }),
        block_access_list_hash: None,
        slot_number: None,
    }
}
