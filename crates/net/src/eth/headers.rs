//! GetBlockHeaders (0x03) and BlockHeaders (0x04), with request ids.

use alloy_consensus::Header;
use alloy_primitives::B256;
use alloy_rlp::{Decodable, Encodable, RlpDecodable, RlpEncodable};

use super::{EthMessage, id};

/// Origin of a header query: a block hash or a block number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashOrNumber {
    /// Start at this block hash.
    Hash(B256),
    /// Start at this block number.
    Number(u64),
}

impl Encodable for HashOrNumber {
    fn encode(&self, out: &mut dyn alloy_rlp::BufMut) {
        match self {
            Self::Hash(h) => h.encode(out),
            Self::Number(n) => n.encode(out),
        }
    }

    fn length(&self) -> usize {
        match self {
            Self::Hash(h) => h.length(),
            Self::Number(n) => n.length(),
        }
    }
}

impl Decodable for HashOrNumber {
    /// Like geth: a 32-byte string is a hash, up to 8 bytes a number.
    fn decode(buf: &mut &[u8]) -> alloy_rlp::Result<Self> {
        let mut peek = *buf;
        let header = alloy_rlp::Header::decode(&mut peek)?;
        if header.list {
            return Err(alloy_rlp::Error::UnexpectedList);
        }
        match header.payload_length {
            32 => Ok(Self::Hash(B256::decode(buf)?)),
            0..=8 => Ok(Self::Number(u64::decode(buf)?)),
            _ => Err(alloy_rlp::Error::Custom(
                "origin is neither a hash nor a number",
            )),
        }
    }
}

/// The query inside GetBlockHeaders (go-ethereum `GetBlockHeadersRequest`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, RlpEncodable, RlpDecodable)]
pub struct HeadersQuery {
    /// First block.
    pub origin: HashOrNumber,
    /// Maximum number of headers.
    pub amount: u64,
    /// Blocks to skip between headers.
    pub skip: u64,
    /// Walk towards genesis.
    pub reverse: bool,
}

/// GetBlockHeaders (go-ethereum `GetBlockHeadersPacket`):
/// `[request-id, [origin, amount, skip, reverse]]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, RlpEncodable, RlpDecodable)]
pub struct GetBlockHeaders {
    /// Request id echoed in the response.
    pub request_id: u64,
    /// The query.
    pub query: HeadersQuery,
}

impl EthMessage for GetBlockHeaders {
    const ID: u8 = id::GET_BLOCK_HEADERS;
    const NAME: &'static str = "GetBlockHeaders";
}

/// BlockHeaders (go-ethereum `BlockHeadersPacket`): `[request-id, [header...]]`.
#[derive(Clone, Debug, PartialEq, Eq, RlpEncodable, RlpDecodable)]
pub struct BlockHeaders {
    /// Request id of the query this answers.
    pub request_id: u64,
    /// The headers.
    pub headers: Vec<Header>,
}

impl EthMessage for BlockHeaders {
    const ID: u8 = id::BLOCK_HEADERS;
    const NAME: &'static str = "BlockHeaders";
}
