//! A block as the Engine API carries it: `ExecutionPayloadV3` and the
//! other parameters of `engine_newPayloadV4` (Prague and Osaka), made from
//! dyno's own blocks or from any block's RLP (a recorded chain).

use alloy_consensus::{Header, Transaction as _, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_eips::eip4895::Withdrawal;
use alloy_primitives::{B256, Bytes};
use dyno_evm::block::Block;
use serde_json::{Value, json};

/// What `engine_newPayload` needs of a block.
#[derive(Debug, Clone, PartialEq)]
pub struct Payload {
    pub header: Header,
    /// The header's hash, computed once.
    pub hash: B256,
    /// Each transaction's EIP-2718 encoding, in order.
    pub transactions: Vec<Bytes>,
    /// The versioned hashes of its blob transactions' blobs, in order.
    pub blob_hashes: Vec<B256>,
    pub withdrawals: Vec<Withdrawal>,
}

impl Payload {
    /// One of dyno's own blocks.
    pub fn of(block: &Block) -> Self {
        Self {
            hash: block.header.hash_slow(),
            header: block.header.clone(),
            transactions: block
                .transactions
                .iter()
                .map(|t| Bytes::from(t.encoded_2718()))
                .collect(),
            blob_hashes: Vec::new(),
            withdrawals: block.withdrawals.clone(),
        }
    }

    /// Any post-Shanghai block, as decoded from its RLP.
    pub fn from_block(block: alloy_consensus::Block<TxEnvelope>) -> Self {
        let txs = &block.body.transactions;
        Self {
            hash: block.header.hash_slow(),
            transactions: txs.iter().map(|t| Bytes::from(t.encoded_2718())).collect(),
            blob_hashes: txs
                .iter()
                .filter_map(|t| t.blob_versioned_hashes())
                .flatten()
                .copied()
                .collect(),
            withdrawals: block
                .body
                .withdrawals
                .map(|w| w.into_inner())
                .unwrap_or_default(),
            header: block.header,
        }
    }

    /// The `engine_newPayloadV4` parameters: the payload, the blob
    /// versioned hashes, the parent beacon block root, and the execution
    /// requests (none: a block's body does not carry them, so only blocks
    /// whose header commits to the empty list are replayed; see
    /// [`has_requests`](Self::has_requests)).
    pub fn new_payload_params(&self) -> Value {
        let h = &self.header;
        let q = |n: u64| format!("{n:#x}");
        let withdrawals: Vec<Value> = self
            .withdrawals
            .iter()
            .map(|w| {
                json!({
                    "index": q(w.index),
                    "validatorIndex": q(w.validator_index),
                    "address": w.address,
                    "amount": q(w.amount),
                })
            })
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
            "blockHash": self.hash,
            "transactions": self.transactions,
            "withdrawals": withdrawals,
            "blobGasUsed": q(h.blob_gas_used.unwrap_or_default()),
            "excessBlobGas": q(h.excess_blob_gas.unwrap_or_default()),
        });
        json!([
            payload,
            self.blob_hashes,
            h.parent_beacon_block_root.unwrap_or_default(),
            [],
        ])
    }

    /// The `engine_forkchoiceUpdatedV3` parameters making this block the
    /// head, safe and finalized (dyno plays a consensus client that
    /// finalizes at once), with no payload to build.
    pub fn forkchoice_params(&self) -> Value {
        json!([
            {"headBlockHash": self.hash, "safeBlockHash": self.hash, "finalizedBlockHash": self.hash},
            null,
        ])
    }

    /// Whether the header commits to execution requests (EIP-7685): they
    /// come from the consensus layer, not the block, so such a block
    /// cannot be replayed from its RLP alone.
    pub fn has_requests(&self) -> bool {
        self.header
            .requests_hash
            .is_some_and(|h| h != alloy_eips::eip7685::EMPTY_REQUESTS_HASH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_consensus::{BlockBody, SignableTransaction, TxEip4844};
    use alloy_primitives::{Address, Signature, U256};

    /// A block of one blob transaction and one withdrawal, through RLP.
    fn blob_block() -> alloy_consensus::Block<TxEnvelope> {
        let hashes = vec![B256::repeat_byte(0x01), B256::repeat_byte(0x02)];
        let tx = TxEip4844 {
            chain_id: 1337,
            blob_versioned_hashes: hashes,
            max_fee_per_blob_gas: 1,
            gas_limit: 21_000,
            ..Default::default()
        };
        let sig = Signature::new(U256::from(1), U256::from(2), false);
        let body = BlockBody {
            transactions: vec![TxEnvelope::Eip4844(tx.into_signed(sig).into())],
            ommers: Vec::new(),
            withdrawals: Some(
                vec![Withdrawal {
                    index: 7,
                    validator_index: 9,
                    address: Address::repeat_byte(0xaa),
                    amount: 32,
                }]
                .into(),
            ),
        };
        alloy_consensus::Block {
            header: Header {
                number: 5,
                base_fee_per_gas: Some(7),
                withdrawals_root: Some(B256::repeat_byte(4)),
                blob_gas_used: Some(2 * 131_072),
                excess_blob_gas: Some(0),
                parent_beacon_block_root: Some(B256::repeat_byte(5)),
                requests_hash: Some(alloy_eips::eip7685::EMPTY_REQUESTS_HASH),
                ..Header::default()
            },
            body,
        }
    }

    #[test]
    fn a_decoded_block_carries_its_blob_hashes_and_withdrawals() {
        let block = blob_block();
        let rlp = alloy_rlp::encode(&block);
        let decoded: alloy_consensus::Block<TxEnvelope> =
            alloy_rlp::Decodable::decode(&mut rlp.as_slice()).unwrap();
        let p = Payload::from_block(decoded);
        assert_eq!(p.hash, block.header.hash_slow());
        let params = p.new_payload_params();
        assert_eq!(
            params[1],
            json!([B256::repeat_byte(1), B256::repeat_byte(2)])
        );
        assert_eq!(
            params[0]["withdrawals"],
            json!([{"index": "0x7", "validatorIndex": "0x9",
                    "address": Address::repeat_byte(0xaa), "amount": "0x20"}])
        );
        assert_eq!(params[0]["blockNumber"], "0x5");
        assert_eq!(params[0]["blobGasUsed"], "0x40000");
        assert_eq!(params[2], json!(B256::repeat_byte(5)));
        assert_eq!(params[0]["transactions"].as_array().unwrap().len(), 1);
        assert!(!p.has_requests());
        let mut with_requests = p.clone();
        with_requests.header.requests_hash = Some(B256::repeat_byte(3));
        assert!(with_requests.has_requests());
    }
}
