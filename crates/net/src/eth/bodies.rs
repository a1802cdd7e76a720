//! GetBlockBodies (0x05) and BlockBodies (0x06), with request ids.

use alloy_consensus::{BlockBody, TxEnvelope};
use alloy_primitives::B256;
use alloy_rlp::{Decodable, Encodable, Header, RlpDecodable, RlpEncodable};

use super::transactions::{decode_txs, encode_txs, txs_payload_length};
use super::{EthMessage, id};

/// GetBlockBodies (go-ethereum `GetBlockBodiesPacket`): `[request-id, [hash...]]`.
#[derive(Clone, Debug, PartialEq, Eq, RlpEncodable, RlpDecodable)]
pub struct GetBlockBodies {
    /// Request id echoed in the response.
    pub request_id: u64,
    /// Hashes of the wanted blocks.
    pub hashes: Vec<B256>,
}

impl EthMessage for GetBlockBodies {
    const ID: u8 = id::GET_BLOCK_BODIES;
    const NAME: &'static str = "GetBlockBodies";
}

/// BlockBodies (go-ethereum `BlockBodiesPacket`):
/// `[request-id, [[txs, uncles, withdrawals?]...]]`. Transactions are in
/// network form; withdrawals are present from Shanghai on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockBodies {
    /// Request id of the query this answers.
    pub request_id: u64,
    /// The bodies.
    pub bodies: Vec<BlockBody<TxEnvelope>>,
}

fn body_payload_length(b: &BlockBody<TxEnvelope>) -> usize {
    let txs = txs_payload_length(&b.transactions);
    txs + alloy_rlp::length_of_length(txs)
        + b.ommers.length()
        + b.withdrawals.as_ref().map_or(0, Encodable::length)
}

fn encode_body(b: &BlockBody<TxEnvelope>, out: &mut dyn alloy_rlp::BufMut) {
    Header {
        list: true,
        payload_length: body_payload_length(b),
    }
    .encode(out);
    encode_txs(&b.transactions, out);
    b.ommers.encode(out);
    if let Some(w) = &b.withdrawals {
        w.encode(out);
    }
}

fn decode_body(buf: &mut &[u8]) -> alloy_rlp::Result<BlockBody<TxEnvelope>> {
    let header = Header::decode(buf)?;
    if !header.list {
        return Err(alloy_rlp::Error::UnexpectedString);
    }
    if buf.len() < header.payload_length {
        return Err(alloy_rlp::Error::InputTooShort);
    }
    let (mut p, rest) = buf.split_at(header.payload_length);
    *buf = rest;
    let transactions = decode_txs(&mut p)?;
    let ommers = Vec::<alloy_consensus::Header>::decode(&mut p)?;
    let withdrawals = if p.is_empty() {
        None
    } else {
        Some(Decodable::decode(&mut p)?)
    };
    if !p.is_empty() {
        return Err(alloy_rlp::Error::ListLengthMismatch {
            expected: header.payload_length,
            got: header.payload_length - p.len(),
        });
    }
    Ok(BlockBody {
        transactions,
        ommers,
        withdrawals,
    })
}

fn bodies_payload_length(bodies: &[BlockBody<TxEnvelope>]) -> usize {
    bodies
        .iter()
        .map(|b| {
            let p = body_payload_length(b);
            p + alloy_rlp::length_of_length(p)
        })
        .sum()
}

impl Encodable for BlockBodies {
    fn encode(&self, out: &mut dyn alloy_rlp::BufMut) {
        let list = bodies_payload_length(&self.bodies);
        let payload_length = self.request_id.length() + list + alloy_rlp::length_of_length(list);
        Header {
            list: true,
            payload_length,
        }
        .encode(out);
        self.request_id.encode(out);
        Header {
            list: true,
            payload_length: list,
        }
        .encode(out);
        for b in &self.bodies {
            encode_body(b, out);
        }
    }

    fn length(&self) -> usize {
        let list = bodies_payload_length(&self.bodies);
        let p = self.request_id.length() + list + alloy_rlp::length_of_length(list);
        p + alloy_rlp::length_of_length(p)
    }
}

impl Decodable for BlockBodies {
    fn decode(buf: &mut &[u8]) -> alloy_rlp::Result<Self> {
        let header = Header::decode(buf)?;
        if !header.list {
            return Err(alloy_rlp::Error::UnexpectedString);
        }
        if buf.len() < header.payload_length {
            return Err(alloy_rlp::Error::InputTooShort);
        }
        let (mut p, rest) = buf.split_at(header.payload_length);
        *buf = rest;
        let request_id = u64::decode(&mut p)?;
        let list = Header::decode(&mut p)?;
        if !list.list {
            return Err(alloy_rlp::Error::UnexpectedString);
        }
        if p.len() != list.payload_length {
            return Err(alloy_rlp::Error::ListLengthMismatch {
                expected: list.payload_length,
                got: p.len(),
            });
        }
        let mut bodies = Vec::new();
        while !p.is_empty() {
            bodies.push(decode_body(&mut p)?);
        }
        Ok(Self { request_id, bodies })
    }
}

impl EthMessage for BlockBodies {
    const ID: u8 = id::BLOCK_BODIES;
    const NAME: &'static str = "BlockBodies";
}
