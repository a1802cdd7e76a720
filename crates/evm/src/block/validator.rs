//! Full block validation, as a client does it on import: the header
//! against its parent, the body against the header's roots, every sender
//! recovered, every transaction executed, and the receipts, bloom, gas and
//! state root compared with the header.
//!
//! The checks are split by stage so chain import can run a prefix of them:
//! [`check_header`] (headers-only sync), [`check_body`] and
//! [`recover_senders`] (bodies), and [`validate_after`] for everything.

use alloy_consensus::proofs::{
    calculate_ommers_root, calculate_receipt_root, calculate_transaction_root,
    calculate_withdrawals_root,
};
use alloy_consensus::{EMPTY_OMMER_ROOT_HASH, Header};
use alloy_eips::calc_next_block_base_fee;
use alloy_eips::eip1559::BaseFeeParams;
use alloy_primitives::{Address, B64, B256, Bloom, U256};

use super::Block;
use super::executor::{Executed, Executor, TxError};
use super::signer::{RecoveryError, recover};
use super::world::{PostState, World};

/// The lowest gas limit a block may have.
pub const MIN_GAS_LIMIT: u64 = 5000;
/// The most extra data a header may carry.
pub const MAX_EXTRA_DATA: usize = 32;

/// Why a block is invalid. Root mismatches name the header's value
/// (`expected`) and the one the block's contents give (`actual`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BlockError {
    /// The parent hash is not keccak-256 of the parent header's RLP.
    #[error("parent hash mismatch: header has {expected}, the parent header hashes to {actual}")]
    ParentHash {
        /// The header's parent hash.
        expected: B256,
        /// keccak-256(rlp(parent header)).
        actual: B256,
    },
    /// The number is not the parent's plus one.
    #[error("block number {actual} does not follow parent {parent}")]
    Number {
        /// The parent's number.
        parent: u64,
        /// The header's number.
        actual: u64,
    },
    /// The timestamp is not after the parent's.
    #[error("timestamp {actual} is not after the parent's {parent}")]
    Timestamp {
        /// The parent's timestamp.
        parent: u64,
        /// The header's timestamp.
        actual: u64,
    },
    /// The gas limit moved by parent/1024 or more, or is below 5000.
    #[error(
        "gas limit {actual} out of bounds: parent {parent} ± {max_delta} (exclusive), at least 5000"
    )]
    GasLimit {
        /// The parent's gas limit.
        parent: u64,
        /// The header's gas limit.
        actual: u64,
        /// parent / 1024.
        max_delta: u64,
    },
    /// The header's gas used exceeds its gas limit.
    #[error("gas used {used} exceeds the gas limit {limit}")]
    GasUsedAboveLimit {
        /// The header's gas used.
        used: u64,
        /// The header's gas limit.
        limit: u64,
    },
    /// The base fee is not the EIP-1559 successor of the parent's.
    #[error("base fee {actual:?} is not {expected:?}, the EIP-1559 successor of the parent's")]
    BaseFee {
        /// From the parent's gas used, gas limit and base fee.
        expected: Option<u64>,
        /// The header's.
        actual: Option<u64>,
    },
    /// More than 32 bytes of extra data.
    #[error("extra data is {0} bytes, at most 32 allowed")]
    ExtraData(usize),
    /// A proof-of-work field is set after the merge.
    #[error("{field} must be zero after the merge, is {value}")]
    NonZero {
        /// `difficulty` or `nonce`.
        field: &'static str,
        /// Its value.
        value: String,
    },
    /// A header field this validator does not implement is present (blob
    /// gas, beacon root, requests hash, block access list, slot number).
    #[error("header field {0} is not supported by this validator (see docs/blocks.md)")]
    Unsupported(&'static str),
    /// The withdrawals root is missing.
    #[error("the withdrawals root is missing (required since Shanghai)")]
    MissingWithdrawalsRoot,
    /// A Cancun or Prague header field is missing.
    #[error("the header has no {0} (required since {1})")]
    Missing(&'static str, &'static str),
    /// Blob gas on a chain this validator knows has no blobs.
    #[error("{field} is {value}; this validator handles blocks without blobs (see docs/blocks.md)")]
    Blobs {
        /// `blob_gas_used` or `excess_blob_gas`.
        field: &'static str,
        /// Its value.
        value: u64,
    },
    /// A system call failed.
    #[error("{0}")]
    SystemCall(#[from] super::executor::SystemCallError),
    /// The requests hash does not match the end-of-block system calls'.
    #[error("requests hash mismatch: header has {expected}, the system calls give {actual}")]
    RequestsHash {
        /// The header's.
        expected: B256,
        /// The computed one.
        actual: B256,
    },
    /// The ommers hash does not match the body's ommers (or is not the
    /// empty list's hash).
    #[error("ommers hash mismatch: header has {expected}, the body gives {actual}")]
    OmmersHash {
        /// The header's.
        expected: B256,
        /// From the body.
        actual: B256,
    },
    /// The transactions root does not match the body.
    #[error("transactions root mismatch: header has {expected}, the body gives {actual}")]
    TransactionsRoot {
        /// The header's.
        expected: B256,
        /// From the body.
        actual: B256,
    },
    /// The withdrawals root does not match the body.
    #[error("withdrawals root mismatch: header has {expected}, the body gives {actual}")]
    WithdrawalsRoot {
        /// The header's.
        expected: B256,
        /// From the body.
        actual: B256,
    },
    /// A transaction's signature does not recover.
    #[error("transaction {index}: {source}")]
    Sender {
        /// Its position in the block.
        index: usize,
        /// Why.
        source: RecoveryError,
    },
    /// A transaction cannot be executed in this block.
    #[error("transaction {index}: {source}")]
    Transaction {
        /// Its position in the block.
        index: usize,
        /// Why.
        source: TxError,
    },
    /// The header's gas used is not what execution used.
    #[error("gas used mismatch: header has {expected}, execution used {actual}")]
    GasUsed {
        /// The header's.
        expected: u64,
        /// Execution's.
        actual: u64,
    },
    /// The receipts root does not match the receipts execution produced.
    #[error("receipts root mismatch: header has {expected}, execution gives {actual}")]
    ReceiptsRoot {
        /// The header's.
        expected: B256,
        /// From the receipts.
        actual: B256,
    },
    /// The logs bloom does not match the receipts'.
    #[error("logs bloom mismatch: header has {expected}, the receipts give {actual}")]
    LogsBloom {
        /// The header's.
        expected: Box<Bloom>,
        /// From the receipts.
        actual: Box<Bloom>,
    },
    /// The state root does not match the post-state.
    #[error("state root mismatch: header has {expected}, the post-state root is {actual}")]
    StateRoot {
        /// The header's.
        expected: B256,
        /// The post-state's.
        actual: B256,
    },
}

/// A fully validated block: its execution and post-state, ready to commit.
#[derive(Debug, Clone)]
pub struct Validated {
    /// Receipts, gas, bloom and changed accounts.
    pub executed: Executed,
    /// The tries after the block (the root equals the header's).
    pub post: PostState,
}

/// The EIP-1559 base fee of the block after `parent` (Ethereum's
/// parameters: elasticity 2, change denominator 8).
pub fn next_base_fee(parent: &Header) -> Option<u64> {
    parent.base_fee_per_gas.map(|base| {
        calc_next_block_base_fee(
            parent.gas_used,
            parent.gas_limit,
            base,
            BaseFeeParams::ethereum(),
        )
    })
}

/// The header checks that need only the header and its parent (whose hash,
/// keccak-256 of its RLP, is `parent_hash`).
pub fn check_header(header: &Header, parent: &Header, parent_hash: B256) -> Result<(), BlockError> {
    if header.parent_hash != parent_hash {
        return Err(BlockError::ParentHash {
            expected: header.parent_hash,
            actual: parent_hash,
        });
    }
    if header.number != parent.number + 1 {
        return Err(BlockError::Number {
            parent: parent.number,
            actual: header.number,
        });
    }
    if header.timestamp <= parent.timestamp {
        return Err(BlockError::Timestamp {
            parent: parent.timestamp,
            actual: header.timestamp,
        });
    }
    let max_delta = parent.gas_limit / 1024;
    if header.gas_limit.abs_diff(parent.gas_limit) >= max_delta || header.gas_limit < MIN_GAS_LIMIT
    {
        return Err(BlockError::GasLimit {
            parent: parent.gas_limit,
            actual: header.gas_limit,
            max_delta,
        });
    }
    if header.gas_used > header.gas_limit {
        return Err(BlockError::GasUsedAboveLimit {
            used: header.gas_used,
            limit: header.gas_limit,
        });
    }
    let expected = next_base_fee(parent);
    if expected.is_none() || header.base_fee_per_gas != expected {
        return Err(BlockError::BaseFee {
            expected,
            actual: header.base_fee_per_gas,
        });
    }
    if header.extra_data.len() > MAX_EXTRA_DATA {
        return Err(BlockError::ExtraData(header.extra_data.len()));
    }
    if header.ommers_hash != EMPTY_OMMER_ROOT_HASH {
        return Err(BlockError::OmmersHash {
            expected: header.ommers_hash,
            actual: EMPTY_OMMER_ROOT_HASH,
        });
    }
    if header.difficulty != U256::ZERO {
        return Err(BlockError::NonZero {
            field: "difficulty",
            value: header.difficulty.to_string(),
        });
    }
    if header.nonce != B64::ZERO {
        return Err(BlockError::NonZero {
            field: "nonce",
            value: header.nonce.to_string(),
        });
    }
    if header.withdrawals_root.is_none() {
        return Err(BlockError::MissingWithdrawalsRoot);
    }
    for (field, fork, present) in [
        ("blob_gas_used", "Cancun", header.blob_gas_used.is_some()),
        (
            "excess_blob_gas",
            "Cancun",
            header.excess_blob_gas.is_some(),
        ),
        (
            "parent_beacon_block_root",
            "Cancun",
            header.parent_beacon_block_root.is_some(),
        ),
        ("requests_hash", "Prague", header.requests_hash.is_some()),
    ] {
        if !present {
            return Err(BlockError::Missing(field, fork));
        }
    }
    // No blob transactions: no blob gas, and (as the parent had none
    // either) no excess, whichever fork's formula.
    for (field, value) in [
        ("blob_gas_used", header.blob_gas_used),
        ("excess_blob_gas", header.excess_blob_gas),
        ("the parent's blob_gas_used", parent.blob_gas_used),
        ("the parent's excess_blob_gas", parent.excess_blob_gas),
    ] {
        if let Some(v) = value.filter(|v| *v != 0) {
            return Err(BlockError::Blobs { field, value: v });
        }
    }
    let unsupported = [
        (
            "block_access_list_hash",
            header.block_access_list_hash.is_some(),
        ),
        ("slot_number", header.slot_number.is_some()),
    ];
    if let Some((field, _)) = unsupported.iter().find(|(_, present)| *present) {
        return Err(BlockError::Unsupported(field));
    }
    Ok(())
}

/// The body against the header: transactions root (each transaction's
/// EIP-2718 encoding in an index-keyed trie), ommers hash and withdrawals
/// root.
pub fn check_body(block: &Block) -> Result<(), BlockError> {
    let header = &block.header;
    let actual = calculate_transaction_root(&block.transactions);
    if actual != header.transactions_root {
        return Err(BlockError::TransactionsRoot {
            expected: header.transactions_root,
            actual,
        });
    }
    let actual = calculate_ommers_root(&block.ommers);
    if actual != header.ommers_hash {
        return Err(BlockError::OmmersHash {
            expected: header.ommers_hash,
            actual,
        });
    }
    let actual = calculate_withdrawals_root(&block.withdrawals);
    let expected = header.withdrawals_root.unwrap_or_default();
    if actual != expected {
        return Err(BlockError::WithdrawalsRoot { expected, actual });
    }
    Ok(())
}

/// Every transaction's sender, in order.
pub fn recover_senders(block: &Block) -> Result<Vec<Address>, BlockError> {
    block
        .transactions
        .iter()
        .enumerate()
        .map(|(index, tx)| recover(tx).map_err(|source| BlockError::Sender { index, source }))
        .collect()
}

/// Execute the block on `world` (which is not modified) and compare gas,
/// receipts root, bloom and state root with the header.
pub fn execute(world: &World, block: &Block, senders: &[Address]) -> Result<Validated, BlockError> {
    let header = &block.header;
    let mut executor = Executor::new(world, header)?;
    for (index, (tx, sender)) in block.transactions.iter().zip(senders).enumerate() {
        executor
            .execute(tx, *sender)
            .map_err(|source| BlockError::Transaction { index, source })?;
    }
    let executed = executor.finish()?;
    let actual = executed.requests.requests_hash();
    let expected = header.requests_hash.unwrap_or_default();
    if actual != expected {
        return Err(BlockError::RequestsHash { expected, actual });
    }
    if executed.gas_used != header.gas_used {
        return Err(BlockError::GasUsed {
            expected: header.gas_used,
            actual: executed.gas_used,
        });
    }
    let actual = calculate_receipt_root(&executed.receipts);
    if actual != header.receipts_root {
        return Err(BlockError::ReceiptsRoot {
            expected: header.receipts_root,
            actual,
        });
    }
    if executed.logs_bloom != header.logs_bloom {
        return Err(BlockError::LogsBloom {
            expected: Box::new(header.logs_bloom),
            actual: Box::new(executed.logs_bloom),
        });
    }
    let post = world.post_state(&executed.changes);
    if post.root != header.state_root {
        return Err(BlockError::StateRoot {
            expected: header.state_root,
            actual: post.root,
        });
    }
    Ok(Validated { executed, post })
}

/// Validate `block` fully against its parent header (whose hash is
/// `parent_hash`) and the pre-state `world`, without modifying it.
pub fn validate_after(
    world: &World,
    parent: &Header,
    parent_hash: B256,
    block: &Block,
) -> Result<Validated, BlockError> {
    check_header(&block.header, parent, parent_hash)?;
    check_body(block)?;
    let senders = recover_senders(block)?;
    execute(world, block, &senders)
}

/// [`validate_after`], hashing the parent header first.
pub fn validate(world: &World, parent: &Header, block: &Block) -> Result<Validated, BlockError> {
    validate_after(world, parent, parent.hash_slow(), block)
}
