//! Status (0x00), the eth/69 form.

use alloy_eips::eip2124::ForkId;
use alloy_primitives::B256;
use alloy_rlp::{RlpDecodable, RlpEncodable};

use super::{EthMessage, id};

/// The eth/69 Status message (go-ethereum `StatusPacket`).
#[derive(Clone, Debug, PartialEq, Eq, RlpEncodable, RlpDecodable)]
pub struct Status {
    /// Negotiated eth version.
    pub protocol_version: u32,
    /// Network id.
    pub network_id: u64,
    /// Genesis block hash.
    pub genesis: B256,
    /// EIP-2124 fork id.
    pub fork_id: ForkId,
    /// Earliest block the sender serves.
    pub earliest_block: u64,
    /// Latest block the sender has.
    pub latest_block: u64,
    /// Hash of `latest_block`.
    pub latest_block_hash: B256,
}

impl EthMessage for Status {
    const ID: u8 = id::STATUS;
    const NAME: &'static str = "Status";
}
