//! Producing blocks (outside timing): signed EIP-1559 transactions from
//! the genesis senders, with correct nonces, executed as they are added,
//! until the block holds the gas asked for; then the header with every
//! root filled in.
//!
//! What a block holds depends on its [`Kind`]:
//!
//! - `empty`: no transaction;
//! - `transfers`: value transfers (21 000 gas each);
//! - `mix`: ERC-20 transfers (40%), value transfers (25%),
//!   `Store.write(seed, 5..=30)` (15%), `Loop.spin(500..=5000)` (15%), and
//!   one `Token` deployment;
//! - `full`: the same calls, heavier (`Store.write` of up to 100 slots,
//!   `Loop.spin` of 1-4 Mgas), then filled with `Loop.spin` calls sized to
//!   the gas left (each at most 2^24 gas, the Osaka per-transaction cap)
//!   and value transfers, until less than 21 000 gas is left.
//!
//! Recipients are other senders half the time and fresh addresses the
//! other half, so blocks create accounts as real ones do. `Store.write`
//! seeds cycle through [`STORE_SEEDS`] values, so storage stays bounded
//! however many blocks a chain holds.

use std::collections::HashMap;

use alloy_consensus::proofs::{calculate_receipt_root, calculate_transaction_root};
use alloy_consensus::{EMPTY_OMMER_ROOT_HASH, EMPTY_ROOT_HASH, Header, Signed, TxEip1559};
use alloy_primitives::{Address, B256, Bytes, TxKind, U256, address, keccak256};

use super::Block;
use super::executor::{CHAIN_ID, Executor, TxError};
use super::genesis::{Genesis, LOOP, STORE, TOKEN};
use super::signer::Signer;
use super::validator::{Validated, next_base_fee};
use super::world::World;
use crate::tx::calldata;
use crate::vm::Vm;

/// Who receives the priority fees.
pub const FEE_RECIPIENT: Address = address!("0x00000000000000000000000000000000000fee00");
/// Every transaction's maximum fee per gas: 1 000 gwei.
pub const MAX_FEE: u128 = 1_000_000_000_000;
/// Every transaction's priority fee per gas: 1 gwei.
pub const TIP: u128 = 1_000_000_000;
/// The Osaka cap on one transaction's gas (EIP-7825).
pub const TX_GAS_CAP: u64 = 1 << 24;
/// Seconds between blocks.
pub const BLOCK_TIME: u64 = 12;
/// Distinct `Store.write` seeds: at most this × 100 slots are ever set.
pub const STORE_SEEDS: u64 = 8;
/// Tokens minted by each deployment.
const DEPLOY_SUPPLY: u64 = 1_000_000;
/// Extra gas allowed above a `Loop.spin` call's computed cost.
const SPIN_MARGIN: u64 = 2_000;

/// What a block holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// No transactions.
    Empty,
    /// Value transfers only.
    Transfers,
    /// ERC-20 transfers, storage writes, loops, a deployment, transfers.
    Mix,
    /// The mix, heavier, filled to the gas limit.
    Full,
}

impl Kind {
    /// Every kind, in the order the benchmarks list them.
    pub const ALL: [Kind; 4] = [Kind::Empty, Kind::Transfers, Kind::Mix, Kind::Full];

    /// The kind's name in benchmark ids.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Empty => "empty",
            Kind::Transfers => "transfers",
            Kind::Mix => "mix",
            Kind::Full => "full",
        }
    }
}

/// One block to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// What it holds.
    pub kind: Kind,
    /// Its gas limit (within the parent's ± 1/1024).
    pub gas_limit: u64,
    /// Add transactions while their gas limits fit under this much gas.
    pub fill: u64,
}

impl Spec {
    /// The standalone blocks of the `block` benchmarks: `transfers` and
    /// `mix` fill the EIP-1559 target (half the limit), `full` the limit.
    pub fn standard(kind: Kind, gas_limit: u64) -> Self {
        let fill = match kind {
            Kind::Empty => 0,
            Kind::Transfers | Kind::Mix => gas_limit / 2,
            Kind::Full => gas_limit,
        };
        Self {
            kind,
            gas_limit,
            fill,
        }
    }
}

/// Why a block could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProduceError {
    /// A generated transaction was rejected.
    #[error("transaction {index} ({what}) was rejected: {source}")]
    Rejected {
        /// Its position.
        index: usize,
        /// Which call.
        what: &'static str,
        /// Why.
        source: TxError,
    },
    /// A generated transaction reverted or halted.
    #[error("transaction {index} ({what}) failed: {result}")]
    Failed {
        /// Its position.
        index: usize,
        /// Which call.
        what: &'static str,
        /// revm's result.
        result: String,
    },
    /// `Loop.spin` could not be calibrated.
    #[error("calibrating Loop.spin: {0}")]
    Calibration(String),
    /// Stopped by an interrupt while the block was being made.
    #[error("interrupted")]
    Interrupted,
    /// A system call failed.
    #[error("{0}")]
    SystemCall(#[from] super::executor::SystemCallError),
}

/// A call a transaction will make.
struct Call {
    what: &'static str,
    to: TxKind,
    input: Bytes,
    value: U256,
    gas_limit: u64,
}

/// Makes blocks from one genesis; keeps the sender cursor, fresh-address
/// counter and random stream across blocks.
pub struct Producer {
    senders: Vec<Signer>,
    token_initcode: Vec<u8>,
    cursor: usize,
    fresh: u64,
    rng: u64,
    /// Gas of `Loop.spin(0)` (intrinsic included), and of one iteration.
    spin_base: u64,
    spin_step: u64,
}

impl std::fmt::Debug for Producer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Producer")
            .field("senders", &self.senders.len())
            .field("cursor", &self.cursor)
            .finish_non_exhaustive()
    }
}

fn word(a: Address) -> U256 {
    U256::from_be_slice(a.as_slice())
}

impl Producer {
    /// A producer for `genesis`'s senders; `seed` varies the calls.
    pub fn new(genesis: &Genesis, seed: u64) -> Result<Self, ProduceError> {
        let code = genesis
            .world
            .account(&LOOP)
            .and_then(|a| a.code.as_ref())
            .map(|c| c.original_bytes().to_vec())
            .ok_or_else(|| ProduceError::Calibration("Loop is not in the genesis".into()))?;
        let mut vm = Vm::new(code);
        let mut gas = |n: u64| {
            let out = vm.call(&calldata("spin(uint256)", &[U256::from(n)]));
            if out.success {
                Ok(out.gas_spent)
            } else {
                Err(ProduceError::Calibration(format!("spin({n}): {out:?}")))
            }
        };
        let base = gas(0)?;
        let step = (gas(1000)? - base).div_ceil(1000);
        Ok(Self {
            senders: genesis.senders.clone(),
            token_initcode: genesis.token_initcode.clone(),
            cursor: 0,
            fresh: 0,
            rng: seed,
            spin_base: base,
            spin_step: step,
        })
    }

    /// The next number of the random stream (SplitMix64) below `n`.
    fn below(&mut self, n: u64) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }

    /// A uniform draw in `lo..=hi`.
    fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    fn recipient(&mut self) -> Address {
        if self.below(2) == 0 {
            let i = self.below(self.senders.len() as u64) as usize;
            self.senders[i].address
        } else {
            self.fresh += 1;
            let mut preimage = b"dyno recipient".to_vec();
            preimage.extend_from_slice(&self.fresh.to_be_bytes());
            Address::from_slice(&keccak256(preimage)[12..])
        }
    }

    fn transfer(&mut self) -> Call {
        let to = self.recipient();
        Call {
            what: "transfer",
            to: TxKind::Call(to),
            input: Bytes::new(),
            value: U256::from(self.between(1, 1_000_000) * 1_000_000_000),
            gas_limit: 21_000,
        }
    }

    fn erc20(&mut self) -> Call {
        let to = self.recipient();
        let amount = U256::from(self.between(1, 1_000_000));
        Call {
            what: "erc20-transfer",
            to: TxKind::Call(TOKEN),
            input: calldata("transfer(address,uint256)", &[word(to), amount]),
            value: U256::ZERO,
            gas_limit: 80_000,
        }
    }

    fn store(&mut self, lo: u64, hi: u64) -> Call {
        let seed = self.below(STORE_SEEDS);
        let n = self.between(lo, hi);
        Call {
            what: "store-write",
            to: TxKind::Call(STORE),
            input: calldata("write(uint256,uint256)", &[U256::from(seed), U256::from(n)]),
            value: U256::ZERO,
            gas_limit: 50_000 + 25_000 * n,
        }
    }

    fn spin(&self, n: u64) -> Call {
        Call {
            what: "loop",
            to: TxKind::Call(LOOP),
            input: calldata("spin(uint256)", &[U256::from(n)]),
            value: U256::ZERO,
            gas_limit: self.spin_base + n * self.spin_step + SPIN_MARGIN,
        }
    }

    fn deploy(&self) -> Call {
        let mut init = self.token_initcode.clone();
        init.extend_from_slice(&U256::from(DEPLOY_SUPPLY).to_be_bytes::<32>());
        Call {
            what: "deploy-erc20",
            to: TxKind::Create,
            input: init.into(),
            value: U256::ZERO,
            gas_limit: 1_000_000,
        }
    }

    /// The `index`-th call of a block of `kind`.
    fn plan(&mut self, kind: Kind, index: usize) -> Call {
        if index == 3 && kind != Kind::Transfers {
            return self.deploy();
        }
        let r = self.below(100);
        match kind {
            Kind::Empty | Kind::Transfers => self.transfer(),
            Kind::Mix => match r {
                0..40 => self.erc20(),
                40..65 => self.transfer(),
                65..80 => self.store(5, 30),
                _ => {
                    let n = self.between(500, 5000);
                    self.spin(n)
                }
            },
            Kind::Full => match r {
                0..30 => self.erc20(),
                30..40 => self.transfer(),
                40..65 => self.store(20, 100),
                _ => {
                    let gas = self.between(1_000_000, 4_000_000);
                    self.spin((gas - self.spin_base) / self.spin_step)
                }
            },
        }
    }

    /// A call using at most `room` gas, as much of it as it can: a loop
    /// sized to it, else a transfer; `None` below 21 000.
    fn filler(&mut self, room: u64) -> Option<Call> {
        let budget = room.min(TX_GAS_CAP);
        let overhead = self.spin_base + SPIN_MARGIN;
        if budget >= overhead + 1000 * self.spin_step {
            Some(self.spin((budget - overhead) / self.spin_step))
        } else if room >= 21_000 {
            Some(self.transfer())
        } else {
            None
        }
    }

    /// Sign and execute calls of `spec.kind` until the next one would pass
    /// `spec.fill` (for `full`, then fillers until under 21 000 gas is
    /// left): the transactions, in order.
    fn fill(
        &mut self,
        world: &World,
        executor: &mut Executor<'_>,
        spec: Spec,
    ) -> Result<Vec<Signed<TxEip1559>>, ProduceError> {
        let mut transactions = Vec::new();
        let mut nonces: HashMap<Address, u64> = HashMap::new();
        loop {
            let room = spec.fill.saturating_sub(executor.gas_used());
            let mut call = self.plan(spec.kind, transactions.len());
            if call.gas_limit > room {
                let filler = match spec.kind {
                    Kind::Full => self.filler(room),
                    _ => None,
                };
                match filler {
                    Some(c) => call = c,
                    None => break,
                }
            }
            let signer = &self.senders[self.cursor % self.senders.len()];
            self.cursor += 1;
            let from = signer.address;
            let nonce = nonces
                .entry(from)
                .or_insert_with(|| world.account(&from).map_or(0, |a| a.nonce));
            let tx = signer.sign(TxEip1559 {
                chain_id: CHAIN_ID,
                nonce: *nonce,
                gas_limit: call.gas_limit,
                max_fee_per_gas: MAX_FEE,
                max_priority_fee_per_gas: TIP,
                to: call.to,
                value: call.value,
                input: call.input,
                ..TxEip1559::default()
            });
            *nonce += 1;
            let index = transactions.len();
            let result = executor
                .execute(&tx, from)
                .map_err(|source| ProduceError::Rejected {
                    index,
                    what: call.what,
                    source,
                })?;
            if !result.is_success() {
                return Err(ProduceError::Failed {
                    index,
                    what: call.what,
                    result: format!("{result:?}"),
                });
            }
            transactions.push(tx);
        }
        Ok(transactions)
    }

    /// The block after `parent` on `world` (which is not modified), with
    /// its execution and post-state: everything a chain needs to commit it.
    pub fn produce(
        &mut self,
        world: &World,
        parent: &Header,
        spec: Spec,
    ) -> Result<(Block, Validated), ProduceError> {
        seal(world, parent, spec.gas_limit, |executor| match spec.kind {
            Kind::Empty => Ok(Vec::new()),
            _ => self.fill(world, executor, spec),
        })
    }
}

/// The block after `parent` on `world` (which is not modified) with gas
/// limit `gas_limit`, whose transactions `add` signs and executes on the
/// executor it is given (the block's system calls made around them): the
/// block with every root filled in, and its execution and post-state.
pub fn seal(
    world: &World,
    parent: &Header,
    gas_limit: u64,
    add: impl FnOnce(&mut Executor<'_>) -> Result<Vec<Signed<TxEip1559>>, ProduceError>,
) -> Result<(Block, Validated), ProduceError> {
    let number = parent.number + 1;
    let mut header = Header {
        parent_hash: parent.hash_slow(),
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        beneficiary: FEE_RECIPIENT,
        number,
        gas_limit,
        timestamp: parent.timestamp + BLOCK_TIME,
        extra_data: Bytes::from_static(b"dyno"),
        mix_hash: keccak256(number.to_be_bytes()),
        base_fee_per_gas: next_base_fee(parent),
        withdrawals_root: Some(EMPTY_ROOT_HASH),
        blob_gas_used: Some(0),
        excess_blob_gas: Some(0),
        parent_beacon_block_root: Some(beacon_root(number)),
        ..Header::default()
    };
    let mut executor = Executor::new(world, &header)?;
    let transactions = add(&mut executor)?;
    let executed = executor.finish()?;
    let post = world.post_state(&executed.changes);
    header.requests_hash = Some(executed.requests.requests_hash());
    header.gas_used = executed.gas_used;
    header.state_root = post.root;
    header.transactions_root = calculate_transaction_root(&transactions);
    header.receipts_root = calculate_receipt_root(&executed.receipts);
    header.logs_bloom = executed.logs_bloom;
    let block = Block {
        header,
        transactions,
        ommers: Vec::new(),
        withdrawals: Vec::new(),
    };
    Ok((block, Validated { executed, post }))
}

/// The beacon root dyno's block `number` names as its parent's (EIP-4788):
/// keccak-256 of "dyno beacon root" and the number, so that every block
/// stores a different one and a test can find it again.
pub fn beacon_root(number: u64) -> B256 {
    let mut preimage = b"dyno beacon root".to_vec();
    preimage.extend_from_slice(&number.to_be_bytes());
    keccak256(preimage)
}
