//! Transactions (0x02): a list of network-encoded transactions.

use alloy_consensus::TxEnvelope;
use alloy_eips::eip2718::{Decodable2718, Encodable2718};
use alloy_rlp::{Decodable, Encodable, Header};

use super::{EthMessage, id};

/// Encodes a list of transactions in network form (legacy as an RLP list,
/// typed as an RLP string of `type || payload`), as geth does.
pub(crate) fn encode_txs(txs: &[TxEnvelope], out: &mut dyn alloy_rlp::BufMut) {
    let payload_length = txs_payload_length(txs);
    Header {
        list: true,
        payload_length,
    }
    .encode(out);
    for tx in txs {
        tx.network_encode(out);
    }
}

/// Payload length of [`encode_txs`].
pub(crate) fn txs_payload_length(txs: &[TxEnvelope]) -> usize {
    txs.iter().map(Encodable2718::network_len).sum()
}

/// Decodes a list of network-encoded transactions, each fully.
pub(crate) fn decode_txs(buf: &mut &[u8]) -> alloy_rlp::Result<Vec<TxEnvelope>> {
    let header = Header::decode(buf)?;
    if !header.list {
        return Err(alloy_rlp::Error::UnexpectedString);
    }
    if buf.len() < header.payload_length {
        return Err(alloy_rlp::Error::InputTooShort);
    }
    let (mut payload, rest) = buf.split_at(header.payload_length);
    *buf = rest;
    let mut txs = Vec::new();
    while !payload.is_empty() {
        txs.push(TxEnvelope::network_decode(&mut payload)?);
    }
    Ok(txs)
}

/// The Transactions message (go-ethereum `TransactionsPacket`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transactions(pub Vec<TxEnvelope>);

impl Encodable for Transactions {
    fn encode(&self, out: &mut dyn alloy_rlp::BufMut) {
        encode_txs(&self.0, out);
    }

    fn length(&self) -> usize {
        let p = txs_payload_length(&self.0);
        p + alloy_rlp::length_of_length(p)
    }
}

impl Decodable for Transactions {
    fn decode(buf: &mut &[u8]) -> alloy_rlp::Result<Self> {
        decode_txs(buf).map(Self)
    }
}

impl EthMessage for Transactions {
    const ID: u8 = id::TRANSACTIONS;
    const NAME: &'static str = "Transactions";
}
