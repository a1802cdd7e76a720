//! devp2p base protocol messages: Hello (0x00), Disconnect (0x01),
//! Ping (0x02) and Pong (0x03). Mirrors go-ethereum v1.17.8 `p2p/peer.go`
//! (`protoHandshake`, `decodeDisconnectMessage`) and `p2p/peer_error.go`.

use alloy_primitives::Bytes;
use alloy_rlp::{Decodable, Encodable, Header, RlpDecodable, RlpEncodable};

use crate::error::{Error, Result};
use crate::key::NodeId;
use crate::rlp::{decode_exact, list_payload, raw_items};

/// Message code of Hello.
pub const HELLO: u64 = 0x00;
/// Message code of Disconnect.
pub const DISCONNECT: u64 = 0x01;
/// Message code of Ping.
pub const PING: u64 = 0x02;
/// Message code of Pong.
pub const PONG: u64 = 0x03;
/// Number of codes reserved by the base protocol; the first capability
/// (eth) starts here.
pub const BASE_PROTOCOL_LENGTH: u64 = 0x10;
/// devp2p base protocol version; 5 and up use snappy after Hello.
pub const P2P_VERSION: u64 = 5;
/// Largest Hello geth accepts (`baseProtocolMaxMsgSize`).
pub const MAX_HELLO_SIZE: usize = 2 * 1024;
/// RLP payload of Ping and Pong: the empty list.
pub const EMPTY_LIST: [u8; 1] = [0xc0];

/// A capability advertised in Hello, e.g. `eth/69`.
#[derive(Clone, Debug, PartialEq, Eq, RlpEncodable, RlpDecodable)]
pub struct Capability {
    /// Protocol name, e.g. `"eth"`.
    pub name: String,
    /// Protocol version.
    pub version: u64,
}

impl Capability {
    /// Builds a capability.
    pub fn new(name: impl Into<String>, version: u64) -> Self {
        Self {
            name: name.into(),
            version,
        }
    }
}

/// The devp2p Hello message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// Base protocol version (5).
    pub protocol_version: u64,
    /// Client name, e.g. `Geth/v1.17.8-stable/linux-amd64/go1.26.8`.
    pub client_id: String,
    /// Advertised capabilities.
    pub capabilities: Vec<Capability>,
    /// Listening port (0 if none; ignored by geth).
    pub listen_port: u64,
    /// The sender's node id (64-byte public key).
    pub id: NodeId,
    /// Extra list elements from newer versions, as raw RLP items.
    pub rest: Vec<Bytes>,
}

impl Hello {
    /// A version-5 Hello with no tail.
    pub fn new(client_id: impl Into<String>, capabilities: Vec<Capability>, id: NodeId) -> Self {
        Self {
            protocol_version: P2P_VERSION,
            client_id: client_id.into(),
            capabilities,
            listen_port: 0,
            id,
            rest: Vec::new(),
        }
    }

    fn payload_length(&self) -> usize {
        self.protocol_version.length()
            + self.client_id.as_str().length()
            + self.capabilities.length()
            + self.listen_port.length()
            + self.id.0.as_slice().length()
            + self.rest.iter().map(|r| r.len()).sum::<usize>()
    }

    /// RLP-encodes the Hello (uncompressed; Hello is never snappy-compressed).
    pub fn encode(&self, out: &mut Vec<u8>) {
        Header {
            list: true,
            payload_length: self.payload_length(),
        }
        .encode(out);
        self.protocol_version.encode(out);
        self.client_id.as_str().encode(out);
        self.capabilities.encode(out);
        self.listen_port.encode(out);
        self.id.0.as_slice().encode(out);
        for r in &self.rest {
            out.extend_from_slice(r);
        }
    }

    /// RLP bytes of the Hello.
    pub fn to_rlp(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.payload_length() + 3);
        self.encode(&mut out);
        out
    }

    /// Decodes a Hello; extra list elements are kept in `rest`. Rejects
    /// payloads above [`MAX_HELLO_SIZE`], bytes after the list and ids that
    /// are not 64 bytes or are all zeros (as geth does).
    pub fn decode(buf: &[u8]) -> Result<Self> {
        if buf.len() > MAX_HELLO_SIZE {
            return Err(Error::InvalidHello("message too big"));
        }
        let mut outer = buf;
        let mut p = list_payload(&mut outer)?;
        if !outer.is_empty() {
            return Err(Error::TrailingBytes(outer.len()));
        }
        let protocol_version = u64::decode(&mut p)?;
        let client_id = String::decode(&mut p)?;
        let capabilities = Vec::<Capability>::decode(&mut p)?;
        let listen_port = u64::decode(&mut p)?;
        let id = Bytes::decode(&mut p)?;
        if id.len() != 64 {
            return Err(Error::InvalidHello("node id is not 64 bytes"));
        }
        if id.iter().all(|b| *b == 0) {
            // geth: `!bitutil.TestBytes(hs.ID)` -> DiscInvalidIdentity.
            return Err(Error::InvalidHello("node id is all zeros"));
        }
        let rest = raw_items(p)?;
        Ok(Self {
            protocol_version,
            client_id,
            capabilities,
            listen_port,
            id: NodeId::from_slice(&id),
            rest,
        })
    }
}

/// Why a peer disconnects (go-ethereum `p2p.DiscReason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DisconnectReason {
    /// 0x00 disconnect requested.
    Requested,
    /// 0x01 network error.
    NetworkError,
    /// 0x02 breach of protocol.
    ProtocolError,
    /// 0x03 useless peer.
    UselessPeer,
    /// 0x04 too many peers.
    TooManyPeers,
    /// 0x05 already connected.
    AlreadyConnected,
    /// 0x06 incompatible p2p protocol version.
    IncompatibleVersion,
    /// 0x07 invalid node identity.
    InvalidIdentity,
    /// 0x08 client quitting.
    Quitting,
    /// 0x09 unexpected identity.
    UnexpectedIdentity,
    /// 0x0a connected to self.
    Self_,
    /// 0x0b read timeout.
    ReadTimeout,
    /// 0x10 subprotocol error.
    SubprotocolError,
    /// Any other value.
    Other(u8),
}

impl DisconnectReason {
    /// The wire value.
    pub fn code(self) -> u8 {
        match self {
            Self::Requested => 0x00,
            Self::NetworkError => 0x01,
            Self::ProtocolError => 0x02,
            Self::UselessPeer => 0x03,
            Self::TooManyPeers => 0x04,
            Self::AlreadyConnected => 0x05,
            Self::IncompatibleVersion => 0x06,
            Self::InvalidIdentity => 0x07,
            Self::Quitting => 0x08,
            Self::UnexpectedIdentity => 0x09,
            Self::Self_ => 0x0a,
            Self::ReadTimeout => 0x0b,
            Self::SubprotocolError => 0x10,
            Self::Other(c) => c,
        }
    }
}

impl From<u8> for DisconnectReason {
    fn from(c: u8) -> Self {
        match c {
            0x00 => Self::Requested,
            0x01 => Self::NetworkError,
            0x02 => Self::ProtocolError,
            0x03 => Self::UselessPeer,
            0x04 => Self::TooManyPeers,
            0x05 => Self::AlreadyConnected,
            0x06 => Self::IncompatibleVersion,
            0x07 => Self::InvalidIdentity,
            0x08 => Self::Quitting,
            0x09 => Self::UnexpectedIdentity,
            0x0a => Self::Self_,
            0x0b => Self::ReadTimeout,
            0x10 => Self::SubprotocolError,
            c => Self::Other(c),
        }
    }
}

impl std::fmt::Display for DisconnectReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            Self::Requested => "disconnect requested",
            Self::NetworkError => "network error",
            Self::ProtocolError => "breach of protocol",
            Self::UselessPeer => "useless peer",
            Self::TooManyPeers => "too many peers",
            Self::AlreadyConnected => "already connected",
            Self::IncompatibleVersion => "incompatible p2p protocol version",
            Self::InvalidIdentity => "invalid node identity",
            Self::Quitting => "client quitting",
            Self::UnexpectedIdentity => "unexpected identity",
            Self::Self_ => "connected to self",
            Self::ReadTimeout => "read timeout",
            Self::SubprotocolError => "subprotocol error",
            Self::Other(c) => return write!(f, "unknown disconnect reason {c}"),
        };
        f.write_str(s)
    }
}

/// The devp2p Disconnect message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Disconnect {
    /// Why the sender disconnects.
    pub reason: DisconnectReason,
}

impl Disconnect {
    /// RLP bytes: `[reason]`, as geth sends it.
    pub fn to_rlp(&self) -> Vec<u8> {
        let code = self.reason.code();
        let mut out = Vec::with_capacity(3);
        Header {
            list: true,
            payload_length: code.length(),
        }
        .encode(&mut out);
        code.encode(&mut out);
        out
    }

    /// Decodes `[reason]`, or a bare `reason` (the legacy form geth still
    /// accepts). Like geth, extra list elements after the reason are ignored.
    pub fn decode(buf: &[u8]) -> Result<Self> {
        let code = match buf.first() {
            Some(b) if *b >= 0xc0 => {
                let mut outer = buf;
                let mut p = list_payload(&mut outer)?;
                if !outer.is_empty() {
                    return Err(Error::TrailingBytes(outer.len()));
                }
                u8::decode(&mut p)?
            }
            _ => decode_exact::<u8>(buf)?,
        };
        Ok(Self {
            reason: code.into(),
        })
    }
}
