//! Executing a block's transactions in revm: the block's environment, one
//! receipt per transaction, and the list of accounts and slots the block
//! changed.
//!
//! revm runs the Osaka rules (chain id [`CHAIN_ID`], the per-transaction
//! gas cap of EIP-7825, nonce, balance and fee checks all on) over an
//! overlay, `CacheDB<&World>`: every read falls through to the world, every
//! write stays in the overlay, so the world is never mutated. Each
//! transaction's changes are committed to the overlay before the next one
//! runs, and the touched accounts and written slots are noted on the way;
//! [`Executor::finish`] turns them into [`AccountChange`]s with their final
//! values.

use std::collections::{HashMap, HashSet};

use alloy_consensus::{
    Eip658Value, Header, Receipt, ReceiptEnvelope, Signed, Transaction, TxEip1559,
};
use alloy_eips::eip7685::Requests;
use alloy_primitives::{Address, B256, Bloom, Bytes, U256};
use revm::context::result::ExecutionResult;
use revm::context::{BlockEnv, CfgEnv, Context, ContextTr, TxEnv};
use revm::database::CacheDB;
use revm::state::EvmState;
use revm::{ExecuteCommitEvm, ExecuteEvm, MainBuilder, MainContext, MainnetEvm, SystemCallEvm};

use super::world::{AccountChange, World};

use alloy_eips::eip2935::HISTORY_STORAGE_ADDRESS;
use alloy_eips::eip4788::{BEACON_ROOTS_ADDRESS, SYSTEM_ADDRESS};
use alloy_eips::eip7002::WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS;
use alloy_eips::eip7251::CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS;

/// The chain id every generated transaction carries.
pub const CHAIN_ID: u64 = 1337;

/// A block's EVM context over a world.
pub type Ctx<'w> = Context<BlockEnv, TxEnv, CfgEnv, CacheDB<&'w World>>;

/// Why a transaction could not be included.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TxError {
    /// Its gas limit exceeds the gas the block has left.
    #[error("gas limit {gas_limit} exceeds the {available} gas left in the block")]
    GasLimit {
        /// The transaction's gas limit.
        gas_limit: u64,
        /// Block gas limit minus the gas used before it.
        available: u64,
    },
    /// revm rejected it (nonce, balance, fee, chain id, gas cap...).
    #[error("{0}")]
    Invalid(String),
}

#[derive(Default)]
struct Touched {
    wiped: bool,
    slots: HashSet<U256>,
}

/// A block being executed transaction by transaction.
pub struct Executor<'w> {
    evm: MainnetEvm<Ctx<'w>>,
    touched: HashMap<Address, Touched>,
    receipts: Vec<ReceiptEnvelope>,
    gas_used: u64,
    gas_limit: u64,
}

impl std::fmt::Debug for Executor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("transactions", &self.receipts.len())
            .field("gas_used", &self.gas_used)
            .finish_non_exhaustive()
    }
}

/// What a block's execution produced.
#[derive(Debug, Clone)]
pub struct Executed {
    /// One receipt per transaction, cumulative gas included.
    pub receipts: Vec<ReceiptEnvelope>,
    /// Gas used by the whole block (the last receipt's cumulative gas).
    pub gas_used: u64,
    /// The union of the receipts' blooms.
    pub logs_bloom: Bloom,
    /// Every account the block changed, with its final state.
    pub changes: Vec<AccountChange>,
    /// The EIP-7685 requests the end-of-block system calls returned.
    pub requests: Requests,
}

/// A system call that failed: the block is invalid (Prague and later).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("system call to {contract} ({eip}) failed: {reason}")]
pub struct SystemCallError {
    pub eip: &'static str,
    pub contract: Address,
    pub reason: String,
}

/// revm's transaction for a signed EIP-1559 transaction from `sender`.
pub fn tx_env(tx: &Signed<TxEip1559>, sender: Address) -> TxEnv {
    let t = tx.tx();
    TxEnv {
        tx_type: 2,
        caller: sender,
        gas_limit: t.gas_limit,
        gas_price: t.max_fee_per_gas,
        kind: t.to,
        value: t.value,
        data: t.input.clone(),
        nonce: t.nonce,
        chain_id: Some(t.chain_id),
        access_list: t.access_list.clone(),
        gas_priority_fee: Some(t.max_priority_fee_per_gas),
        blob_hashes: Vec::new(),
        max_fee_per_blob_gas: 0,
        authorization_list: Vec::new(),
    }
}

/// The EVM context of block `header` on top of `world`: the world's fork's
/// rules (Osaka unless its genesis chose Prague),
/// chain id [`CHAIN_ID`], the header's environment, an overlay over the
/// world. [`Executor`] builds its EVM on it, and so does whatever else
/// re-executes a block (an inspector counting what it ran).
pub fn context<'w>(world: &'w World, header: &Header) -> Ctx<'w> {
    Context::mainnet()
        .modify_cfg_chained(|cfg| {
            cfg.set_spec_and_mainnet_gas_params(world.fork().spec_id());
            cfg.chain_id = CHAIN_ID;
        })
        .modify_block_chained(|b| {
            b.number = U256::from(header.number);
            b.timestamp = U256::from(header.timestamp);
            b.gas_limit = header.gas_limit;
            b.basefee = header.base_fee_per_gas.unwrap_or_default();
            b.beneficiary = header.beneficiary;
            b.difficulty = header.difficulty;
            b.prevrandao = Some(header.mix_hash);
        })
        .with_db(CacheDB::new(world))
}

impl<'w> Executor<'w> {
    /// An executor for `header`'s block on `world`, with the start of the
    /// block done: the EIP-4788 beacon-roots call (the header's
    /// `parent_beacon_block_root`) and the EIP-2935 history call (its
    /// `parent_hash`), as every Prague client makes them before the first
    /// transaction.
    pub fn new(world: &'w World, header: &Header) -> Result<Self, SystemCallError> {
        let mut executor = Self::bare(world, header);
        let beacon_root: B256 = header.parent_beacon_block_root.unwrap_or_default();
        executor.system_call("EIP-4788", BEACON_ROOTS_ADDRESS, beacon_root)?;
        executor.system_call("EIP-2935", HISTORY_STORAGE_ADDRESS, header.parent_hash)?;
        Ok(executor)
    }

    /// An EVM for the block `header` on top of `world`, no system call made.
    fn bare(world: &'w World, header: &Header) -> Self {
        Self {
            evm: context(world, header).build_mainnet(),
            touched: HashMap::new(),
            receipts: Vec::new(),
            gas_used: 0,
            gas_limit: header.gas_limit,
        }
    }

    /// Gas used so far.
    pub fn gas_used(&self) -> u64 {
        self.gas_used
    }

    /// One system call (caller `SYSTEM_ADDRESS`, no gas charged to the
    /// block), its state committed as reth's and geth's are: the system
    /// address and the beneficiary, which revm touches, are left out.
    /// Returns the call's output.
    fn system_call(
        &mut self,
        eip: &'static str,
        contract: Address,
        data: impl Into<Bytes>,
    ) -> Result<Bytes, SystemCallError> {
        let fail = |reason: String| SystemCallError {
            eip,
            contract,
            reason,
        };
        let out = self
            .evm
            .system_call(contract, data.into())
            .map_err(|e| fail(e.to_string()))?;
        if !out.result.is_success() {
            return Err(fail(format!("{:?}", out.result)));
        }
        let output = out.result.output().cloned().unwrap_or_default();
        let mut state = out.state;
        state.remove(&SYSTEM_ADDRESS);
        state.remove(&self.evm.ctx.block.beneficiary);
        self.record(&state);
        self.evm.commit(state);
        Ok(output)
    }

    /// Note the accounts and slots a committed state changes.
    fn record(&mut self, state: &EvmState) {
        for (address, account) in state {
            if !account.is_touched() {
                continue;
            }
            let t = self.touched.entry(*address).or_default();
            if account.is_created() || account.is_selfdestructed() {
                t.wiped = true;
                t.slots.clear();
            }
            t.slots.extend(
                account
                    .storage
                    .iter()
                    .filter(|(_, s)| s.is_changed())
                    .map(|(k, _)| *k),
            );
        }
    }

    /// Execute `tx` from `sender` and commit it to the overlay: its result
    /// (a reverted transaction is included, with a failed receipt).
    pub fn execute(
        &mut self,
        tx: &Signed<TxEip1559>,
        sender: Address,
    ) -> Result<ExecutionResult, TxError> {
        let available = self.gas_limit - self.gas_used;
        if tx.gas_limit() > available {
            return Err(TxError::GasLimit {
                gas_limit: tx.gas_limit(),
                available,
            });
        }
        let out = self
            .evm
            .transact(tx_env(tx, sender))
            .map_err(|e| TxError::Invalid(e.to_string()))?;
        self.record(&out.state);
        self.evm.commit(out.state);
        let result = out.result;
        self.gas_used += result.tx_gas_used();
        let receipt = Receipt {
            status: Eip658Value::Eip658(result.is_success()),
            cumulative_gas_used: self.gas_used,
            logs: result.logs().to_vec(),
        };
        self.receipts
            .push(ReceiptEnvelope::Eip1559(receipt.with_bloom()));
        Ok(result)
    }

    /// The end of the block: the EIP-7002 withdrawal and EIP-7251
    /// consolidation request dequeues, whose outputs are the block's
    /// EIP-7685 requests (type 1 and 2; a type with no request is left
    /// out); then the receipts, the bloom and the changed accounts with
    /// their final values (read back from the overlay).
    pub fn finish(mut self) -> Result<Executed, SystemCallError> {
        let mut requests = Requests::default();
        for (eip, contract, kind) in [
            ("EIP-7002", WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS, 1u8),
            ("EIP-7251", CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS, 2u8),
        ] {
            let out = self.system_call(eip, contract, Bytes::new())?;
            if !out.is_empty() {
                let mut request = vec![kind];
                request.extend_from_slice(&out);
                requests.push_request(request.into());
            }
        }
        let db = self.evm.ctx.db_ref();
        let mut changes: Vec<AccountChange> = self
            .touched
            .into_iter()
            .map(|(address, t)| {
                let account = db.cache.accounts.get(&address);
                let info = account.and_then(|a| a.info());
                let storage = t
                    .slots
                    .into_iter()
                    .map(|slot| {
                        let value = account
                            .and_then(|a| a.storage.get(&slot))
                            .copied()
                            .unwrap_or_default();
                        (slot, value)
                    })
                    .collect();
                AccountChange {
                    address,
                    info,
                    wiped: t.wiped,
                    storage,
                }
            })
            .collect();
        // Deterministic order (the tries do not care; debugging does).
        changes.sort_unstable_by_key(|c| c.address);
        let mut logs_bloom = Bloom::ZERO;
        for r in &self.receipts {
            logs_bloom.accrue_bloom(r.logs_bloom());
        }
        Ok(Executed {
            receipts: self.receipts,
            gas_used: self.gas_used,
            logs_bloom,
            changes,
            requests,
        })
    }
}
