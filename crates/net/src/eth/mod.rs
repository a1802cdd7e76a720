//! eth wire protocol messages in the form go-ethereum v1.17.8
//! (`eth/protocols/eth/protocol.go`) speaks on eth/69, eth/70 and eth/71.
//!
//! Every message is an RLP value; on the wire (after the Hello exchange) the
//! RLP is snappy-compressed and sent with code [`ETH_OFFSET`] + id. Decoding
//! is eager: every transaction and header is decoded into its alloy type.

mod bodies;
mod headers;
mod pooled;
mod status;
mod transactions;

pub use bodies::{BlockBodies, GetBlockBodies};
pub use headers::{BlockHeaders, GetBlockHeaders, HashOrNumber, HeadersQuery};
pub use pooled::NewPooledTransactionHashes;
pub use status::Status;
pub use transactions::Transactions;

use alloy_rlp::{Decodable, Encodable};

use crate::error::Result;
use crate::rlp::decode_exact;
use crate::snappy;

/// Code offset of the eth capability when it is the only (or first)
/// capability: the base protocol reserves 0x00..0x10.
pub const ETH_OFFSET: u64 = crate::hello::BASE_PROTOCOL_LENGTH;

/// The eth version whose Status form this crate implements and advertises.
pub const ETH_VERSION: u64 = 69;

/// eth versions whose messages in this module are unchanged (geth 1.17.8
/// speaks 69..=72; eth/72 changes NewPooledTransactionHashes).
pub const COMPATIBLE_VERSIONS: [u64; 3] = [69, 70, 71];

/// Message ids relative to [`ETH_OFFSET`].
pub mod id {
    /// Status.
    pub const STATUS: u8 = 0x00;
    /// Transactions.
    pub const TRANSACTIONS: u8 = 0x02;
    /// GetBlockHeaders.
    pub const GET_BLOCK_HEADERS: u8 = 0x03;
    /// BlockHeaders.
    pub const BLOCK_HEADERS: u8 = 0x04;
    /// GetBlockBodies.
    pub const GET_BLOCK_BODIES: u8 = 0x05;
    /// BlockBodies.
    pub const BLOCK_BODIES: u8 = 0x06;
    /// NewPooledTransactionHashes.
    pub const NEW_POOLED_TRANSACTION_HASHES: u8 = 0x08;
}

/// An eth message with a fixed id. `to_rlp` / `from_rlp` are the plain
/// RLP codec; `encode_wire` / `decode_wire` add snappy (what the benchmark
/// ids `net/encode/*` and `net/decode/*` measure).
pub trait EthMessage: Encodable + Decodable + Sized {
    /// Id relative to [`ETH_OFFSET`].
    const ID: u8;
    /// Name as in the devp2p spec.
    const NAME: &'static str;

    /// Absolute message code with eth at [`ETH_OFFSET`].
    fn code() -> u64 {
        ETH_OFFSET + u64::from(Self::ID)
    }

    /// Plain RLP encoding.
    fn to_rlp(&self) -> Vec<u8> {
        alloy_rlp::encode(self)
    }

    /// Decodes plain RLP, rejecting trailing bytes.
    fn from_rlp(buf: &[u8]) -> Result<Self> {
        decode_exact(buf)
    }

    /// RLP then snappy: the payload as sent on the wire.
    fn encode_wire(&self) -> Result<Vec<u8>> {
        snappy::compress(&self.to_rlp())
    }

    /// Snappy (with the 16 MiB limit) then RLP.
    fn decode_wire(wire: &[u8]) -> Result<Self> {
        Self::from_rlp(&snappy::decompress(wire)?)
    }
}
