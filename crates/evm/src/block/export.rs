//! dyno's chain in the files any client reads: the genesis as go-ethereum's
//! genesis JSON (the format geth, Nethermind, Besu and Reth accept), so a
//! client started from it holds the state the blocks were built on.

use alloy_consensus::Header;
use serde_json::{Map, Value, json};

use super::executor::CHAIN_ID;
use super::world::World;

/// The blob schedule of a fork (EIP-7840): target and maximum blobs per
/// block and the base-fee update fraction. dyno's blocks carry no blobs;
/// a client still needs the schedule of every fork it runs.
const BLOB_SCHEDULE: [(&str, u64, u64, u64); 3] = [
    ("cancun", 3, 6, 3_338_477),
    ("prague", 6, 9, 5_007_716),
    ("osaka", 6, 9, 5_007_716),
];

/// The genesis JSON of `world` under `header` (block 0): every fork up to
/// the world's (Osaka unless it chose Prague) active from the start, chain id 1337, proof of stake from block
/// 0, and the header's own fields, so a client computes the same genesis
/// hash as dyno.
pub fn genesis_json(world: &World, header: &Header) -> Value {
    let hex = |n: u64| format!("{n:#x}");
    let mut config = Map::new();
    config.insert("chainId".into(), json!(CHAIN_ID));
    for fork in [
        "homesteadBlock",
        "eip150Block",
        "eip155Block",
        "eip158Block",
        "byzantiumBlock",
        "constantinopleBlock",
        "petersburgBlock",
        "istanbulBlock",
        "muirGlacierBlock",
        "berlinBlock",
        "londonBlock",
        "arrowGlacierBlock",
        "grayGlacierBlock",
        "mergeNetsplitBlock",
    ] {
        config.insert(fork.into(), json!(0));
    }
    for fork in world.fork().genesis_times() {
        config.insert((*fork).into(), json!(0));
    }
    config.insert("terminalTotalDifficulty".into(), json!(0));
    // No deposit contract: dyno's chain has no deposits (EIP-6110).
    config.insert(
        "depositContractAddress".into(),
        json!("0x0000000000000000000000000000000000000000"),
    );
    let schedule: Map<String, Value> = BLOB_SCHEDULE
        .iter()
        .filter(|(fork, ..)| super::fork::Fork::parse(fork).is_none_or(|f| f <= world.fork()))
        .map(|(fork, target, max, fraction)| {
            (
                (*fork).to_string(),
                json!({"target": target, "max": max, "baseFeeUpdateFraction": fraction}),
            )
        })
        .collect();
    config.insert("blobSchedule".into(), Value::Object(schedule));

    let mut alloc = Map::new();
    for super::world::Allocated {
        address,
        balance,
        nonce,
        code,
        storage,
    } in world.alloc()
    {
        let mut account = Map::new();
        account.insert("balance".into(), json!(format!("{balance:#x}")));
        if nonce != 0 {
            account.insert("nonce".into(), json!(hex(nonce)));
        }
        if !code.is_empty() {
            account.insert("code".into(), json!(code.to_string()));
        }
        if !storage.is_empty() {
            let slots: Map<String, Value> = storage
                .iter()
                .map(|(k, v)| (format!("{:#066x}", k), json!(format!("{:#066x}", v))))
                .collect();
            account.insert("storage".into(), Value::Object(slots));
        }
        alloc.insert(address.to_string().to_lowercase(), Value::Object(account));
    }
    json!({
        "config": config,
        "nonce": format!("{:#x}", u64::from_be_bytes(header.nonce.0)),
        "timestamp": hex(header.timestamp),
        "extraData": header.extra_data.to_string(),
        "gasLimit": hex(header.gas_limit),
        "gasUsed": hex(header.gas_used),
        "difficulty": format!("{:#x}", header.difficulty),
        "mixHash": header.mix_hash.to_string(),
        "coinbase": header.beneficiary.to_string().to_lowercase(),
        "baseFeePerGas": hex(header.base_fee_per_gas.unwrap_or_default()),
        "excessBlobGas": hex(header.excess_blob_gas.unwrap_or_default()),
        "blobGasUsed": hex(header.blob_gas_used.unwrap_or_default()),
        "number": "0x0",
        "parentHash": header.parent_hash.to_string(),
        "alloc": alloc,
    })
}

/// A block's RLP as clients exchange and import it (`geth import` reads a
/// file of these, one after another): `[header, [transactions], [ommers],
/// [withdrawals]]`, each typed transaction as its EIP-2718 bytes in an
/// RLP string.
pub fn block_rlp(block: &super::Block) -> Vec<u8> {
    use alloy_consensus::{BlockBody, TxEnvelope};
    let body = BlockBody {
        transactions: block
            .transactions
            .iter()
            .cloned()
            .map(TxEnvelope::Eip1559)
            .collect::<Vec<_>>(),
        ommers: block.ommers.clone(),
        withdrawals: Some(block.withdrawals.clone().into()),
    };
    let full = alloy_consensus::Block {
        header: block.header.clone(),
        body,
    };
    alloy_rlp::encode(&full)
}
