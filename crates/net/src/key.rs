//! Node keys and node ids: secp256k1 keys and their 64-byte devp2p form.

use alloy_primitives::B512;
use rand::RngCore;
use secp256k1::{PublicKey, SecretKey};

use crate::error::{Error, Result};

/// A devp2p node id: the uncompressed secp256k1 public key without the
/// leading `0x04` byte.
pub type NodeId = B512;

/// Returns the 64-byte node id of `pk`.
pub fn node_id(pk: &PublicKey) -> NodeId {
    let full = pk.serialize_uncompressed();
    NodeId::from_slice(&full[1..])
}

/// Parses a public key from 64 bytes (node id) or 65 bytes (`0x04` prefix).
pub fn public_key_from_slice(bytes: &[u8]) -> Result<PublicKey> {
    let mut full = [0u8; 65];
    match bytes.len() {
        64 => {
            full[0] = 0x04;
            full[1..].copy_from_slice(bytes);
        }
        65 if bytes[0] == 0x04 => full.copy_from_slice(bytes),
        n => return Err(Error::PublicKeyLength(n)),
    }
    Ok(PublicKey::from_byte_array_uncompressed(full)?)
}

/// Returns the public key of `sk`.
pub fn public_key(sk: &SecretKey) -> PublicKey {
    PublicKey::from_secret_key_global(sk)
}

/// Parses a secret key from 32 big-endian bytes.
pub fn secret_key_from_slice(bytes: &[u8]) -> Result<SecretKey> {
    let bytes: [u8; 32] = bytes
        .try_into()
        .map_err(|_| secp256k1::Error::InvalidSecretKey)?;
    Ok(SecretKey::from_byte_array(bytes)?)
}

/// Draws a fresh secret key from the thread-local CSPRNG.
pub fn random_secret_key() -> SecretKey {
    let mut rng = rand::rng();
    loop {
        let mut bytes = [0u8; 32];
        rng.fill_bytes(&mut bytes);
        // Out-of-range values (zero or >= n) have probability ~2^-128.
        if let Ok(sk) = SecretKey::from_byte_array(bytes) {
            return sk;
        }
    }
}

/// ECDH as devp2p uses it: the 32-byte x coordinate of `sk * pk`.
pub fn ecdh_x(pk: &PublicKey, sk: &SecretKey) -> [u8; 32] {
    let point = secp256k1::ecdh::shared_secret_point(pk, sk);
    let mut x = [0u8; 32];
    x.copy_from_slice(&point[..32]);
    x
}
