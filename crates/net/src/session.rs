//! An established RLPx connection over any `Read + Write` stream: the
//! handshake, framed messages, optional snappy, and the Hello exchange.
//! Blocking I/O; one `Conn` per stream.

use std::io::{Read, Write};

use secp256k1::{PublicKey, SecretKey};

use crate::error::{Error, Result};
use crate::eth::EthMessage;
use crate::frame::FrameCodec;
use crate::handshake::{Handshake, Secrets};
use crate::hello::{self, Disconnect, DisconnectReason, Hello};
use crate::snappy;

/// An RLPx connection after the encryption handshake.
pub struct Conn<S> {
    stream: S,
    codec: FrameCodec,
    remote: PublicKey,
    snappy: bool,
    wbuf: Vec<u8>,
}

impl<S> std::fmt::Debug for Conn<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("remote", &crate::key::node_id(&self.remote))
            .field("snappy", &self.snappy)
            .finish_non_exhaustive()
    }
}

impl<S: Read + Write> Conn<S> {
    /// Dials side: runs the initiator handshake towards `remote` on `stream`.
    pub fn initiate(mut stream: S, our_key: &SecretKey, remote: &PublicKey) -> Result<Self> {
        let secrets = Handshake::initiator(*our_key, *remote).run_initiator(&mut stream)?;
        Ok(Self::from_secrets(stream, &secrets))
    }

    /// Listening side: runs the recipient handshake on `stream`; returns the
    /// connection and the remote's static public key.
    pub fn accept(mut stream: S, our_key: &SecretKey) -> Result<(Self, PublicKey)> {
        let secrets = Handshake::recipient(*our_key).run_recipient(&mut stream)?;
        let remote = secrets.remote;
        Ok((Self::from_secrets(stream, &secrets), remote))
    }

    /// Wraps `stream` with already negotiated secrets.
    pub fn from_secrets(stream: S, secrets: &Secrets) -> Self {
        Self {
            stream,
            codec: FrameCodec::new(secrets),
            remote: secrets.remote,
            snappy: false,
            wbuf: Vec::new(),
        }
    }

    /// Sends message `code` with plain payload `data`, snappy-compressing it
    /// first when snappy is on.
    pub fn write_msg(&mut self, code: u64, data: &[u8]) -> Result<()> {
        if data.len() > snappy::MAX_MESSAGE_SIZE {
            return Err(Error::MessageTooLarge(data.len()));
        }
        if self.snappy {
            let compressed = snappy::compress(data)?;
            self.write_raw(code, &compressed)
        } else {
            self.write_raw(code, data)
        }
    }

    /// Sends message `code` with `data` exactly as given (already
    /// compressed if snappy is on).
    pub fn write_raw(&mut self, code: u64, data: &[u8]) -> Result<()> {
        self.wbuf.clear();
        self.codec.encode_frame(code, data, &mut self.wbuf)?;
        self.stream.write_all(&self.wbuf)?;
        self.stream.flush()?;
        Ok(())
    }

    /// Receives one message as `(code, plain payload)`, decompressing when
    /// snappy is on (with the 16 MiB limit).
    pub fn read_msg(&mut self) -> Result<(u64, Vec<u8>)> {
        let (code, data) = self.read_raw()?;
        if self.snappy {
            Ok((code, snappy::decompress(&data)?))
        } else {
            Ok((code, data))
        }
    }

    /// Receives one message as `(code, payload as on the wire)`.
    pub fn read_raw(&mut self) -> Result<(u64, Vec<u8>)> {
        self.codec.read_frame(&mut self.stream)
    }

    /// Sends an eth message at its code ([`crate::eth::ETH_OFFSET`] + id).
    pub fn send_eth<M: EthMessage>(&mut self, msg: &M) -> Result<()> {
        self.write_msg(M::code(), &msg.to_rlp())
    }

    /// Sends our Hello, reads the peer's, and turns snappy on when both
    /// sides speak p2p version 5 or later. A Disconnect from the peer
    /// becomes [`Error::Disconnected`].
    pub fn exchange_hello(&mut self, ours: &Hello) -> Result<Hello> {
        self.write_raw(hello::HELLO, &ours.to_rlp())?;
        let (code, data) = self.read_raw()?;
        let theirs = match code {
            hello::HELLO => Hello::decode(&data)?,
            hello::DISCONNECT => {
                return Err(Error::Disconnected(Disconnect::decode(&data)?.reason));
            }
            got => {
                return Err(Error::UnexpectedMessage {
                    expected: hello::HELLO,
                    got,
                });
            }
        };
        self.snappy = ours.protocol_version >= hello::P2P_VERSION
            && theirs.protocol_version >= hello::P2P_VERSION;
        Ok(theirs)
    }

    /// Sends Disconnect with `reason` (best effort; the stream stays open).
    pub fn disconnect(&mut self, reason: DisconnectReason) -> Result<()> {
        self.write_msg(hello::DISCONNECT, &Disconnect { reason }.to_rlp())
    }

    /// Turns snappy compression on or off for both directions.
    pub fn set_snappy(&mut self, on: bool) {
        self.snappy = on;
    }
}

impl<S> Conn<S> {
    /// True when snappy is on.
    pub fn snappy(&self) -> bool {
        self.snappy
    }

    /// The remote static public key.
    pub fn remote_pubkey(&self) -> &PublicKey {
        &self.remote
    }

    /// The underlying stream.
    pub fn get_ref(&self) -> &S {
        &self.stream
    }

    /// The underlying stream, mutably (e.g. to set timeouts).
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.stream
    }

    /// Unwraps the stream.
    pub fn into_inner(self) -> S {
        self.stream
    }
}
