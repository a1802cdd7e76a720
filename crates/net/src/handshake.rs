//! The RLPx v4 encryption handshake in its EIP-8 form (auth / ack), for both
//! the initiator and the recipient, and the derivation of the session
//! secrets (aes-secret, mac-secret and the two keccak256 MAC states).
//!
//! Mirrors go-ethereum v1.17.8 `p2p/rlpx/rlpx.go`. Like geth, only EIP-8
//! packets (2-byte size prefix, RLP body, random padding) are produced and
//! accepted; pre-EIP-8 fixed-size packets are not.

use std::io::{Read, Write};

use alloy_primitives::{B256, B512, Bytes, keccak256};
use alloy_rlp::{Decodable, Encodable};
use rand::{Rng, RngCore};
use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
use secp256k1::{Message, PublicKey, SECP256K1, SecretKey};
use sha3::{Digest, Keccak256};

use crate::ecies;
use crate::error::{Error, Result};
use crate::key::{ecdh_x, node_id, public_key, public_key_from_slice, random_secret_key};
use crate::rlp::{list_payload, raw_items};

/// Largest handshake packet body accepted (go-ethereum's
/// `baseProtocolMaxMsgSize`).
pub const MAX_PACKET_SIZE: usize = 2048;

/// RLPx handshake version sent in auth and ack.
pub const VERSION: u64 = 4;

/// The initiator's auth message (EIP-8 body, before encryption).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthMessage {
    /// Recoverable signature `[r || s || v]` by the initiator's ephemeral
    /// key over `static-shared-secret ^ nonce`.
    pub signature: [u8; 65],
    /// The initiator's static public key (node id).
    pub initiator_pubkey: B512,
    /// The initiator's nonce.
    pub nonce: B256,
    /// Handshake version (4; higher values must be accepted).
    pub version: u64,
    /// Extra list elements from newer versions, as raw RLP items.
    pub rest: Vec<Bytes>,
}

/// The recipient's ack message (EIP-8 body, before encryption).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AckMessage {
    /// The recipient's ephemeral public key.
    pub random_pubkey: B512,
    /// The recipient's nonce.
    pub nonce: B256,
    /// Handshake version (4; higher values must be accepted).
    pub version: u64,
    /// Extra list elements from newer versions, as raw RLP items.
    pub rest: Vec<Bytes>,
}

fn encode_list(fields: &[&dyn Encodable], rest: &[Bytes], out: &mut Vec<u8>) {
    let payload_length: usize = fields.iter().map(|f| f.length()).sum::<usize>()
        + rest.iter().map(|r| r.len()).sum::<usize>();
    alloy_rlp::Header {
        list: true,
        payload_length,
    }
    .encode(out);
    for f in fields {
        f.encode(out);
    }
    for r in rest {
        out.extend_from_slice(r);
    }
}

impl AuthMessage {
    /// RLP-encodes the message (without padding).
    pub fn encode(&self, out: &mut Vec<u8>) {
        encode_list(
            &[
                &self.signature,
                &self.initiator_pubkey.0,
                &self.nonce,
                &self.version,
            ],
            &self.rest,
            out,
        );
    }

    /// Decodes the message from a decrypted EIP-8 body; extra list elements
    /// and bytes after the list (padding) are accepted.
    pub fn decode(mut buf: &[u8]) -> Result<Self> {
        let mut p = list_payload(&mut buf)?;
        let signature = <[u8; 65]>::decode(&mut p)?;
        let initiator_pubkey = B512::from(<[u8; 64]>::decode(&mut p)?);
        let nonce = B256::decode(&mut p)?;
        let version = u64::decode(&mut p)?;
        let rest = raw_items(p)?;
        Ok(Self {
            signature,
            initiator_pubkey,
            nonce,
            version,
            rest,
        })
    }
}

impl AckMessage {
    /// RLP-encodes the message (without padding).
    pub fn encode(&self, out: &mut Vec<u8>) {
        encode_list(
            &[&self.random_pubkey.0, &self.nonce, &self.version],
            &self.rest,
            out,
        );
    }

    /// Decodes the message from a decrypted EIP-8 body; extra list elements
    /// and bytes after the list (padding) are accepted.
    pub fn decode(mut buf: &[u8]) -> Result<Self> {
        let mut p = list_payload(&mut buf)?;
        let random_pubkey = B512::from(<[u8; 64]>::decode(&mut p)?);
        let nonce = B256::decode(&mut p)?;
        let version = u64::decode(&mut p)?;
        let rest = raw_items(p)?;
        Ok(Self {
            random_pubkey,
            nonce,
            version,
            rest,
        })
    }
}

/// Session secrets negotiated by the handshake.
#[derive(Clone)]
pub struct Secrets {
    /// `aes-secret`: key of the AES-256-CTR frame cipher.
    pub aes: B256,
    /// `mac-secret`: key of the AES-256-ECB step in the frame MAC.
    pub mac: B256,
    /// Keccak256 state for frames we send.
    pub egress_mac: Keccak256,
    /// Keccak256 state for frames we receive.
    pub ingress_mac: Keccak256,
    /// The remote static public key.
    pub remote: PublicKey,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Keys stay out of logs.
        f.debug_struct("Secrets")
            .field("remote", &node_id(&self.remote))
            .finish_non_exhaustive()
    }
}

/// Which side of the connection a [`Handshake`] plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Dials and sends auth.
    Initiator,
    /// Accepts and sends ack.
    Recipient,
}

/// State of one RLPx handshake.
///
/// Production use is [`Handshake::run_initiator`] / [`Handshake::run_recipient`];
/// the individual steps are public so test vectors can drive them with fixed
/// ephemeral keys and nonces.
pub struct Handshake {
    role: Role,
    our_key: SecretKey,
    ephemeral: SecretKey,
    nonce: B256,
    remote: Option<PublicKey>,
    remote_ephemeral: Option<PublicKey>,
    remote_nonce: Option<B256>,
}

impl std::fmt::Debug for Handshake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handshake")
            .field("role", &self.role)
            .field("remote", &self.remote.as_ref().map(node_id))
            .finish_non_exhaustive()
    }
}

fn random_nonce() -> B256 {
    let mut n = B256::ZERO;
    rand::rng().fill_bytes(n.as_mut_slice());
    n
}

fn xor32(a: &[u8; 32], b: &B256) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(b.iter())) {
        *o = x ^ y;
    }
    out
}

/// Reads one size-prefixed handshake packet (`prefix || body`) from `r`.
pub fn read_packet<R: Read>(r: &mut R) -> Result<Vec<u8>> {
    let mut prefix = [0u8; 2];
    r.read_exact(&mut prefix)?;
    let size = u16::from_be_bytes(prefix) as usize;
    if size > MAX_PACKET_SIZE {
        return Err(Error::HandshakeTooBig {
            size,
            max: MAX_PACKET_SIZE,
        });
    }
    let mut packet = vec![0u8; 2 + size];
    packet[..2].copy_from_slice(&prefix);
    r.read_exact(&mut packet[2..])?;
    Ok(packet)
}

/// Checks the announced size of a `prefix || body` packet and decrypts the body.
fn open_packet(our_key: &SecretKey, packet: &[u8]) -> Result<Vec<u8>> {
    if packet.len() < 2 {
        return Err(Error::Truncated {
            needed: 2,
            have: packet.len(),
        });
    }
    let (prefix, body) = packet.split_at(2);
    let size = u16::from_be_bytes([prefix[0], prefix[1]]) as usize;
    if size > MAX_PACKET_SIZE {
        return Err(Error::HandshakeTooBig {
            size,
            max: MAX_PACKET_SIZE,
        });
    }
    if body.len() < size {
        return Err(Error::Truncated {
            needed: size + 2,
            have: packet.len(),
        });
    }
    if body.len() > size {
        return Err(Error::TrailingBytes(body.len() - size));
    }
    ecies::decrypt(our_key, body, prefix)
}

/// Seals an EIP-8 packet: RLP body, 100..=199 zero bytes of padding, ECIES
/// with the 2-byte big-endian size prefix as shared MAC data.
fn seal(remote: &PublicKey, mut plain: Vec<u8>) -> Result<Vec<u8>> {
    let pad = rand::rng().random_range(100..200);
    plain.resize(plain.len() + pad, 0);
    let size = plain.len() + ecies::OVERHEAD;
    if size > MAX_PACKET_SIZE {
        return Err(Error::HandshakeTooBig {
            size,
            max: MAX_PACKET_SIZE,
        });
    }
    let prefix = (size as u16).to_be_bytes();
    let mut packet = prefix.to_vec();
    packet.extend_from_slice(&ecies::encrypt(remote, &plain, &prefix));
    Ok(packet)
}

impl Handshake {
    /// Starts the initiator side towards `remote` with a random ephemeral
    /// key and nonce.
    pub fn initiator(our_key: SecretKey, remote: PublicKey) -> Self {
        Self {
            role: Role::Initiator,
            our_key,
            ephemeral: random_secret_key(),
            nonce: random_nonce(),
            remote: Some(remote),
            remote_ephemeral: None,
            remote_nonce: None,
        }
    }

    /// Starts the recipient side with a random ephemeral key and nonce.
    pub fn recipient(our_key: SecretKey) -> Self {
        Self {
            role: Role::Recipient,
            our_key,
            ephemeral: random_secret_key(),
            nonce: random_nonce(),
            remote: None,
            remote_ephemeral: None,
            remote_nonce: None,
        }
    }

    /// Replaces the ephemeral key (test vectors only).
    pub fn with_ephemeral_key(mut self, key: SecretKey) -> Self {
        self.ephemeral = key;
        self
    }

    /// Replaces our nonce (test vectors only).
    pub fn with_nonce(mut self, nonce: B256) -> Self {
        self.nonce = nonce;
        self
    }

    /// The role of this side.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The remote static key, once known.
    pub fn remote(&self) -> Option<&PublicKey> {
        self.remote.as_ref()
    }

    /// Builds the initiator's auth message.
    pub fn auth_message(&self) -> Result<AuthMessage> {
        let remote = self
            .remote
            .as_ref()
            .ok_or(Error::HandshakeState("no remote key"))?;
        let token = ecdh_x(remote, &self.our_key);
        let signed = xor32(&token, &self.nonce);
        let sig = SECP256K1.sign_ecdsa_recoverable(Message::from_digest(signed), &self.ephemeral);
        let (recid, rs) = sig.serialize_compact();
        let mut signature = [0u8; 65];
        signature[..64].copy_from_slice(&rs);
        signature[64] = i32::from(recid) as u8;
        Ok(AuthMessage {
            signature,
            initiator_pubkey: node_id(&public_key(&self.our_key)),
            nonce: self.nonce,
            version: VERSION,
            rest: Vec::new(),
        })
    }

    /// Builds and seals the auth packet (`prefix || ECIES(body)`).
    pub fn write_auth(&self) -> Result<Vec<u8>> {
        if self.role != Role::Initiator {
            return Err(Error::HandshakeState("write_auth on recipient"));
        }
        let mut body = Vec::with_capacity(300);
        self.auth_message()?.encode(&mut body);
        let remote = self
            .remote
            .as_ref()
            .ok_or(Error::HandshakeState("no remote key"))?;
        seal(remote, body)
    }

    /// Recipient: decrypts and handles an auth packet (`prefix || body`),
    /// learning the remote static key, nonce and ephemeral key.
    pub fn read_auth(&mut self, packet: &[u8]) -> Result<AuthMessage> {
        if self.role != Role::Recipient {
            return Err(Error::HandshakeState("read_auth on initiator"));
        }
        let plain = open_packet(&self.our_key, packet)?;
        let msg = AuthMessage::decode(&plain)?;
        self.handle_auth(&msg)?;
        Ok(msg)
    }

    /// Recipient: handles a decoded auth message.
    pub fn handle_auth(&mut self, msg: &AuthMessage) -> Result<()> {
        let remote = public_key_from_slice(msg.initiator_pubkey.as_slice())?;
        let token = ecdh_x(&remote, &self.our_key);
        let signed = xor32(&token, &msg.nonce);
        let recid = RecoveryId::try_from(i32::from(msg.signature[64]))?;
        let sig = RecoverableSignature::from_compact(&msg.signature[..64], recid)?;
        let remote_ephemeral = SECP256K1.recover_ecdsa(Message::from_digest(signed), &sig)?;
        self.remote = Some(remote);
        self.remote_nonce = Some(msg.nonce);
        self.remote_ephemeral = Some(remote_ephemeral);
        Ok(())
    }

    /// Builds the recipient's ack message.
    pub fn ack_message(&self) -> AckMessage {
        AckMessage {
            random_pubkey: node_id(&public_key(&self.ephemeral)),
            nonce: self.nonce,
            version: VERSION,
            rest: Vec::new(),
        }
    }

    /// Recipient: builds and seals the ack packet.
    pub fn write_ack(&self) -> Result<Vec<u8>> {
        if self.role != Role::Recipient {
            return Err(Error::HandshakeState("write_ack on initiator"));
        }
        let remote = self
            .remote
            .as_ref()
            .ok_or(Error::HandshakeState("ack before auth"))?;
        let mut body = Vec::with_capacity(200);
        self.ack_message().encode(&mut body);
        seal(remote, body)
    }

    /// Initiator: decrypts and handles an ack packet.
    pub fn read_ack(&mut self, packet: &[u8]) -> Result<AckMessage> {
        if self.role != Role::Initiator {
            return Err(Error::HandshakeState("read_ack on recipient"));
        }
        let plain = open_packet(&self.our_key, packet)?;
        let msg = AckMessage::decode(&plain)?;
        self.remote_ephemeral = Some(public_key_from_slice(msg.random_pubkey.as_slice())?);
        self.remote_nonce = Some(msg.nonce);
        Ok(msg)
    }

    /// Derives the session secrets from the exchanged packets (each
    /// including its 2-byte prefix).
    pub fn secrets(&self, auth_packet: &[u8], ack_packet: &[u8]) -> Result<Secrets> {
        let remote = self.remote.ok_or(Error::HandshakeState("no remote key"))?;
        let remote_ephemeral = self
            .remote_ephemeral
            .ok_or(Error::HandshakeState("no remote ephemeral key"))?;
        let remote_nonce = self
            .remote_nonce
            .ok_or(Error::HandshakeState("no remote nonce"))?;
        let (init_nonce, resp_nonce) = match self.role {
            Role::Initiator => (self.nonce, remote_nonce),
            Role::Recipient => (remote_nonce, self.nonce),
        };

        let ecdhe = ecdh_x(&remote_ephemeral, &self.ephemeral);
        let mut h = Keccak256::new();
        h.update(resp_nonce);
        h.update(init_nonce);
        let nonce_hash = h.finalize();
        let shared = keccak256([&ecdhe[..], &nonce_hash[..]].concat());
        let aes = keccak256([&ecdhe[..], &shared[..]].concat());
        let mac = keccak256([&ecdhe[..], &aes[..]].concat());

        let mut mac1 = Keccak256::new();
        mac1.update(xor32(&mac.0, &resp_nonce));
        mac1.update(auth_packet);
        let mut mac2 = Keccak256::new();
        mac2.update(xor32(&mac.0, &init_nonce));
        mac2.update(ack_packet);
        let (egress_mac, ingress_mac) = match self.role {
            Role::Initiator => (mac1, mac2),
            Role::Recipient => (mac2, mac1),
        };
        Ok(Secrets {
            aes,
            mac,
            egress_mac,
            ingress_mac,
            remote,
        })
    }

    /// Runs the initiator side over `stream`: send auth, read ack.
    pub fn run_initiator<S: Read + Write>(mut self, stream: &mut S) -> Result<Secrets> {
        let auth = self.write_auth()?;
        stream.write_all(&auth)?;
        stream.flush()?;
        let ack = read_packet(stream)?;
        self.read_ack(&ack)?;
        self.secrets(&auth, &ack)
    }

    /// Runs the recipient side over `stream`: read auth, send ack.
    pub fn run_recipient<S: Read + Write>(mut self, stream: &mut S) -> Result<Secrets> {
        let auth = read_packet(stream)?;
        self.read_auth(&auth)?;
        let ack = self.write_ack()?;
        stream.write_all(&ack)?;
        stream.flush()?;
        self.secrets(&auth, &ack)
    }
}
