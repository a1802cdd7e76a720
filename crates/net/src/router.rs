//! Dispatch by message code to a decoder, yielding a typed [`Message`].
//!
//! The table is a dense `Vec` indexed by absolute message code (base
//! protocol at 0x00.., eth at [`ETH_OFFSET`]..), each entry a plain `fn`
//! pointer. Unknown codes yield [`Error::UnknownMessage`].

use crate::error::{Error, Result};
use crate::eth::{
    BlockBodies, BlockHeaders, ETH_OFFSET, EthMessage, GetBlockBodies, GetBlockHeaders,
    NewPooledTransactionHashes, Status, Transactions,
};
use crate::hello::{self, Disconnect, Hello};
use crate::rlp::decode_exact;
use crate::snappy;

/// Every message the router can produce.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)]
pub enum Message {
    /// p2p Hello.
    Hello(Hello),
    /// p2p Disconnect.
    Disconnect(Disconnect),
    /// p2p Ping.
    Ping,
    /// p2p Pong.
    Pong,
    /// eth Status.
    Status(Status),
    /// eth Transactions.
    Transactions(Transactions),
    /// eth GetBlockHeaders.
    GetBlockHeaders(GetBlockHeaders),
    /// eth BlockHeaders.
    BlockHeaders(BlockHeaders),
    /// eth GetBlockBodies.
    GetBlockBodies(GetBlockBodies),
    /// eth BlockBodies.
    BlockBodies(BlockBodies),
    /// eth NewPooledTransactionHashes.
    NewPooledTransactionHashes(NewPooledTransactionHashes),
}

impl Message {
    /// Absolute message code with eth at [`ETH_OFFSET`].
    pub fn code(&self) -> u64 {
        match self {
            Self::Hello(_) => hello::HELLO,
            Self::Disconnect(_) => hello::DISCONNECT,
            Self::Ping => hello::PING,
            Self::Pong => hello::PONG,
            Self::Status(_) => Status::code(),
            Self::Transactions(_) => Transactions::code(),
            Self::GetBlockHeaders(_) => GetBlockHeaders::code(),
            Self::BlockHeaders(_) => BlockHeaders::code(),
            Self::GetBlockBodies(_) => GetBlockBodies::code(),
            Self::BlockBodies(_) => BlockBodies::code(),
            Self::NewPooledTransactionHashes(_) => NewPooledTransactionHashes::code(),
        }
    }

    /// Plain RLP payload of the message.
    pub fn to_rlp(&self) -> Vec<u8> {
        match self {
            Self::Hello(m) => m.to_rlp(),
            Self::Disconnect(m) => m.to_rlp(),
            Self::Ping | Self::Pong => hello::EMPTY_LIST.to_vec(),
            Self::Status(m) => m.to_rlp(),
            Self::Transactions(m) => m.to_rlp(),
            Self::GetBlockHeaders(m) => m.to_rlp(),
            Self::BlockHeaders(m) => m.to_rlp(),
            Self::GetBlockBodies(m) => m.to_rlp(),
            Self::BlockBodies(m) => m.to_rlp(),
            Self::NewPooledTransactionHashes(m) => m.to_rlp(),
        }
    }
}

/// A decoder from a plain RLP payload to a [`Message`].
pub type DecodeFn = fn(&[u8]) -> Result<Message>;

fn decode_empty_list(buf: &[u8]) -> Result<()> {
    // geth sends `rlp([])`; accept any list for forward compatibility.
    let mut b = buf;
    crate::rlp::list_payload(&mut b)?;
    if !b.is_empty() {
        return Err(Error::TrailingBytes(b.len()));
    }
    Ok(())
}

fn hello(b: &[u8]) -> Result<Message> {
    Hello::decode(b).map(Message::Hello)
}
fn disconnect(b: &[u8]) -> Result<Message> {
    Disconnect::decode(b).map(Message::Disconnect)
}
fn ping(b: &[u8]) -> Result<Message> {
    decode_empty_list(b).map(|()| Message::Ping)
}
fn pong(b: &[u8]) -> Result<Message> {
    decode_empty_list(b).map(|()| Message::Pong)
}
fn status(b: &[u8]) -> Result<Message> {
    decode_exact(b).map(Message::Status)
}
fn transactions(b: &[u8]) -> Result<Message> {
    decode_exact(b).map(Message::Transactions)
}
fn get_block_headers(b: &[u8]) -> Result<Message> {
    decode_exact(b).map(Message::GetBlockHeaders)
}
fn block_headers(b: &[u8]) -> Result<Message> {
    decode_exact(b).map(Message::BlockHeaders)
}
fn get_block_bodies(b: &[u8]) -> Result<Message> {
    decode_exact(b).map(Message::GetBlockBodies)
}
fn block_bodies(b: &[u8]) -> Result<Message> {
    decode_exact(b).map(Message::BlockBodies)
}
fn new_pooled_transaction_hashes(b: &[u8]) -> Result<Message> {
    decode_exact(b).map(Message::NewPooledTransactionHashes)
}

/// Code-indexed decoder table.
#[derive(Clone, Debug, Default)]
pub struct Router {
    table: Vec<Option<DecodeFn>>,
}

impl Router {
    /// An empty router (every code is unknown).
    pub fn empty() -> Self {
        Self::default()
    }

    /// The base protocol (Hello, Disconnect, Ping, Pong) plus the eth/69
    /// messages of [`crate::eth`] at [`ETH_OFFSET`].
    pub fn eth() -> Self {
        let mut r = Self::empty();
        r.register(hello::HELLO, hello);
        r.register(hello::DISCONNECT, disconnect);
        r.register(hello::PING, ping);
        r.register(hello::PONG, pong);
        r.register(Status::code(), status);
        r.register(Transactions::code(), transactions);
        r.register(GetBlockHeaders::code(), get_block_headers);
        r.register(BlockHeaders::code(), block_headers);
        r.register(GetBlockBodies::code(), get_block_bodies);
        r.register(BlockBodies::code(), block_bodies);
        r.register(
            NewPooledTransactionHashes::code(),
            new_pooled_transaction_hashes,
        );
        debug_assert_eq!(ETH_OFFSET, 0x10);
        r
    }

    /// Registers (or replaces) the decoder for `code`. Codes above 0xffff
    /// are ignored; devp2p codes are small.
    pub fn register(&mut self, code: u64, decode: DecodeFn) {
        let Ok(i) = usize::try_from(code) else { return };
        if i > 0xffff {
            return;
        }
        if self.table.len() <= i {
            self.table.resize(i + 1, None);
        }
        self.table[i] = Some(decode);
    }

    /// The decoder for `code`, if any.
    pub fn decoder(&self, code: u64) -> Option<DecodeFn> {
        usize::try_from(code)
            .ok()
            .and_then(|i| self.table.get(i).copied().flatten())
    }

    /// Decodes a plain RLP payload by code.
    pub fn route(&self, code: u64, rlp: &[u8]) -> Result<Message> {
        let decode = self.decoder(code).ok_or(Error::UnknownMessage(code))?;
        decode(rlp)
    }

    /// Decodes a snappy-compressed wire payload by code (the unknown-code
    /// check happens before decompression).
    pub fn route_wire(&self, code: u64, wire: &[u8]) -> Result<Message> {
        let decode = self.decoder(code).ok_or(Error::UnknownMessage(code))?;
        decode(&snappy::decompress(wire)?)
    }
}
