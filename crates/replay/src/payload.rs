//! A block as the Engine API carries it: `ExecutionPayloadV3` and the
//! other parameters of `engine_newPayloadV4` (Prague and Osaka).

use alloy_eips::eip2718::Encodable2718;
use dyno_evm::block::Block;
use serde_json::{Value, json};

/// The `engine_newPayloadV4` parameters of `block`: the payload, the blob
/// versioned hashes (none: dyno's blocks carry no blobs), the parent beacon
/// block root, and the execution requests (none on empty request queues;
/// the header's requests hash says which).
pub fn new_payload_params(block: &Block) -> Value {
    let h = &block.header;
    let q = |n: u64| format!("{n:#x}");
    let transactions: Vec<String> = block
        .transactions
        .iter()
        .map(|t| format!("0x{}", alloy_primitives::hex::encode(t.encoded_2718())))
        .collect();
    let payload = json!({
        "parentHash": h.parent_hash,
        "feeRecipient": h.beneficiary,
        "stateRoot": h.state_root,
        "receiptsRoot": h.receipts_root,
        "logsBloom": h.logs_bloom,
        "prevRandao": h.mix_hash,
        "blockNumber": q(h.number),
        "gasLimit": q(h.gas_limit),
        "gasUsed": q(h.gas_used),
        "timestamp": q(h.timestamp),
        "extraData": h.extra_data,
        "baseFeePerGas": q(h.base_fee_per_gas.unwrap_or_default()),
        "blockHash": h.hash_slow(),
        "transactions": transactions,
        "withdrawals": [],
        "blobGasUsed": q(h.blob_gas_used.unwrap_or_default()),
        "excessBlobGas": q(h.excess_blob_gas.unwrap_or_default()),
    });
    json!([
        payload,
        [],
        h.parent_beacon_block_root.unwrap_or_default(),
        [],
    ])
}

/// The `engine_forkchoiceUpdatedV3` parameters making `block` the head,
/// safe and finalized (dyno plays a consensus client that finalizes at
/// once), with no payload to build.
pub fn forkchoice_params(block: &Block) -> Value {
    let hash = block.header.hash_slow();
    json!([
        {"headBlockHash": hash, "safeBlockHash": hash, "finalizedBlockHash": hash},
        null,
    ])
}
