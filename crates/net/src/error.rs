//! Typed errors for every layer of the crate.
//!
//! Nothing in this crate panics on bad input from the network: truncated or
//! corrupted frames, bad MACs, malformed RLP, unknown message codes and
//! oversize snappy payloads all surface as an [`Error`] variant.

use crate::hello::DisconnectReason;

/// Result alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every failure the transport, the codecs and the router can report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The underlying stream failed (includes `UnexpectedEof` on a closed or
    /// truncated stream).
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// A secp256k1 key, signature or recovery failed.
    #[error("secp256k1: {0}")]
    Secp256k1(#[from] secp256k1::Error),
    /// A public key was not 64 (or 65 with the 0x04 prefix) bytes long.
    #[error("invalid public key length {0} (expected 64 or 65)")]
    PublicKeyLength(usize),
    /// An ECIES ciphertext is shorter than its fixed overhead.
    #[error("ECIES ciphertext too short: {0} bytes")]
    EciesTooShort(usize),
    /// The ECIES ephemeral key is not an uncompressed point on the curve.
    #[error("ECIES ephemeral public key is invalid")]
    EciesInvalidPublicKey,
    /// The ECIES HMAC-SHA256 tag does not match.
    #[error("ECIES message authentication failed")]
    EciesBadMac,
    /// A handshake packet announced a size above the limit.
    #[error("handshake packet of {size} bytes exceeds {max}")]
    HandshakeTooBig {
        /// Announced size.
        size: usize,
        /// Allowed maximum.
        max: usize,
    },
    /// A handshake step was called out of order.
    #[error("handshake out of order: {0}")]
    HandshakeState(&'static str),
    /// A frame header MAC did not verify.
    #[error("bad frame header MAC")]
    BadHeaderMac,
    /// A frame body MAC did not verify.
    #[error("bad frame MAC")]
    BadFrameMac,
    /// A frame or message exceeds the 24-bit RLPx size limit.
    #[error("message of {0} bytes exceeds the 16 MiB RLPx limit")]
    MessageTooLarge(usize),
    /// Input ended before a complete structure was read.
    #[error("truncated input: needed {needed} bytes, have {have}")]
    Truncated {
        /// Bytes needed to continue.
        needed: usize,
        /// Bytes available.
        have: usize,
    },
    /// RLP decoding failed.
    #[error("rlp: {0}")]
    Rlp(#[from] alloy_rlp::Error),
    /// EIP-2718 transaction decoding failed.
    #[error("eip-2718: {0}")]
    Eip2718(#[from] alloy_eips::eip2718::Eip2718Error),
    /// Bytes were left over after a complete RLP value.
    #[error("{0} trailing bytes after RLP value")]
    TrailingBytes(usize),
    /// Snappy decompression failed.
    #[error("snappy: {0}")]
    Snappy(#[from] snap::Error),
    /// A snappy payload announces a decoded length above the limit.
    #[error("snappy payload decodes to {len} bytes, limit {max}")]
    SnappyTooLarge {
        /// Announced decoded length.
        len: usize,
        /// Allowed maximum.
        max: usize,
    },
    /// No decoder is registered for this message code.
    #[error("unknown message code {0:#04x}")]
    UnknownMessage(u64),
    /// A different message arrived than the protocol step requires.
    #[error("expected message {expected:#04x}, got {got:#04x}")]
    UnexpectedMessage {
        /// Code the protocol step needs.
        expected: u64,
        /// Code that arrived.
        got: u64,
    },
    /// The peer sent a devp2p Disconnect.
    #[error("peer disconnected: {0}")]
    Disconnected(DisconnectReason),
    /// A Hello message is structurally valid RLP but not a valid Hello.
    #[error("invalid hello: {0}")]
    InvalidHello(&'static str),
}

impl Error {
    /// True when the error means the input ended early (a truncated slice or
    /// an `UnexpectedEof` from the stream).
    pub fn is_truncated(&self) -> bool {
        match self {
            Error::Truncated { .. } | Error::Rlp(alloy_rlp::Error::InputTooShort) => true,
            Error::Io(e) => e.kind() == std::io::ErrorKind::UnexpectedEof,
            _ => false,
        }
    }
}
