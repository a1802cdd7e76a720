//! ECIES as RLPx uses it (go-ethereum `crypto/ecies` with the secp256k1
//! parameters): ECDH on secp256k1, NIST SP 800-56 concatenation KDF with
//! SHA-256, AES-128-CTR and HMAC-SHA256.
//!
//! Ciphertext layout: `R (65 bytes, uncompressed) || IV (16) || c || tag (32)`
//! where `tag = HMAC-SHA256(sha256(Km), IV || c || shared_mac_data)`.

use aes::Aes128;
use aes::cipher::{KeyIvInit, StreamCipher};
use hmac::{Hmac, Mac};
use rand::RngCore;
use secp256k1::{PublicKey, SecretKey};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::key::{ecdh_x, public_key, random_secret_key};

type Aes128Ctr = ctr::Ctr128BE<Aes128>;
type HmacSha256 = Hmac<Sha256>;

/// Length of the uncompressed ephemeral public key at the front.
const PUBKEY_LEN: usize = 65;
/// AES block size, also the IV length.
const IV_LEN: usize = 16;
/// HMAC-SHA256 tag length.
const TAG_LEN: usize = 32;
/// AES-128 key length.
const KEY_LEN: usize = 16;

/// Bytes ECIES adds to a plaintext: ephemeral key, IV and tag (113).
pub const OVERHEAD: usize = PUBKEY_LEN + IV_LEN + TAG_LEN;

/// NIST SP 800-56 concatenation KDF with SHA-256:
/// `K = H(1 || z || s1) || H(2 || z || s1) || ...` truncated to `len` bytes.
pub fn concat_kdf(z: &[u8], s1: &[u8], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len.div_ceil(32) * 32);
    let mut counter: u32 = 1;
    while out.len() < len {
        let mut h = Sha256::new();
        h.update(counter.to_be_bytes());
        h.update(z);
        h.update(s1);
        out.extend_from_slice(&h.finalize());
        counter = counter.wrapping_add(1);
    }
    out.truncate(len);
    out
}

/// Derives the AES key `Ke` and the MAC key `sha256(Km)` from the shared x.
fn derive_keys(z: &[u8; 32]) -> ([u8; KEY_LEN], [u8; 32]) {
    let k = concat_kdf(z, &[], 2 * KEY_LEN);
    let mut ke = [0u8; KEY_LEN];
    ke.copy_from_slice(&k[..KEY_LEN]);
    let km: [u8; 32] = Sha256::digest(&k[KEY_LEN..]).into();
    (ke, km)
}

fn tag(km: &[u8; 32], iv_and_ct: &[u8], shared_mac_data: &[u8]) -> HmacSha256 {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = <HmacSha256 as Mac>::new_from_slice(km).unwrap_or_else(|_| unreachable!());
    mac.update(iv_and_ct);
    mac.update(shared_mac_data);
    mac
}

/// Encrypts `plaintext` to `remote` with a fresh ephemeral key and IV.
/// `shared_mac_data` is authenticated but not sent (RLPx passes the 2-byte
/// size prefix here).
pub fn encrypt(remote: &PublicKey, plaintext: &[u8], shared_mac_data: &[u8]) -> Vec<u8> {
    let mut iv = [0u8; IV_LEN];
    rand::rng().fill_bytes(&mut iv);
    encrypt_with(remote, plaintext, shared_mac_data, &random_secret_key(), iv)
}

/// Deterministic [`encrypt`] with a caller-chosen ephemeral key and IV
/// (for test vectors; never reuse them in production).
pub fn encrypt_with(
    remote: &PublicKey,
    plaintext: &[u8],
    shared_mac_data: &[u8],
    ephemeral: &SecretKey,
    iv: [u8; IV_LEN],
) -> Vec<u8> {
    let z = ecdh_x(remote, ephemeral);
    let (ke, km) = derive_keys(&z);

    let mut out = Vec::with_capacity(plaintext.len() + OVERHEAD);
    out.extend_from_slice(&public_key(ephemeral).serialize_uncompressed());
    out.extend_from_slice(&iv);
    let body_start = out.len();
    out.extend_from_slice(plaintext);
    Aes128Ctr::new(&ke.into(), &iv.into()).apply_keystream(&mut out[body_start..]);

    let d = tag(&km, &out[PUBKEY_LEN..], shared_mac_data)
        .finalize()
        .into_bytes();
    out.extend_from_slice(&d);
    out
}

/// Decrypts an ECIES ciphertext addressed to `ours`, checking the tag over
/// `IV || c || shared_mac_data` in constant time before decrypting.
pub fn decrypt(ours: &SecretKey, ciphertext: &[u8], shared_mac_data: &[u8]) -> Result<Vec<u8>> {
    if ciphertext.len() < OVERHEAD {
        return Err(Error::EciesTooShort(ciphertext.len()));
    }
    if ciphertext[0] != 0x04 {
        return Err(Error::EciesInvalidPublicKey);
    }
    let mut r = [0u8; PUBKEY_LEN];
    r.copy_from_slice(&ciphertext[..PUBKEY_LEN]);
    let r = PublicKey::from_byte_array_uncompressed(r).map_err(|_| Error::EciesInvalidPublicKey)?;

    let z = ecdh_x(&r, ours);
    let (ke, km) = derive_keys(&z);

    let mac_end = ciphertext.len() - TAG_LEN;
    let body = &ciphertext[PUBKEY_LEN..mac_end];
    tag(&km, body, shared_mac_data)
        .verify_slice(&ciphertext[mac_end..])
        .map_err(|_| Error::EciesBadMac)?;

    let (iv, ct) = body.split_at(IV_LEN);
    let mut iv_arr = [0u8; IV_LEN];
    iv_arr.copy_from_slice(iv);
    let mut plain = ct.to_vec();
    Aes128Ctr::new(&ke.into(), &iv_arr.into()).apply_keystream(&mut plain);
    Ok(plain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::secret_key_from_slice;

    fn hex(s: &str) -> Vec<u8> {
        alloy_primitives::hex::decode(s).unwrap()
    }

    #[test]
    fn kdf_matches_go_ethereum() {
        // Vectors from go-ethereum v1.17.8 crypto/ecies/ecies_test.go (TestKDF).
        let full = hex(
            "858b192fa2ed4395e2bf88dd8d5770d67dc284ee539f12da8bceaa45d06ebae0\
             700f1ab918a5f0413b8140f9940d6955f3467fd6672cce1024c5b1effccc0f61",
        );
        for len in [6usize, 32, 48, 64] {
            assert_eq!(concat_kdf(b"input", &[], len), full[..len], "len {len}");
        }
    }

    #[test]
    fn shared_key_static_matches_go_ethereum() {
        // go-ethereum v1.17.8 crypto/ecies/ecies_test.go (TestSharedKeyStatic).
        let a = secret_key_from_slice(&hex(
            "7ebbc6a8358bc76dd73ebc557056702c8cfc34e5cfcd90eb83af0347575fd2ad",
        ))
        .unwrap();
        let b = secret_key_from_slice(&hex(
            "6a3d6396903245bba5837752b9e0348874e72db0c4e11e9c485a81b4ea4353b9",
        ))
        .unwrap();
        let want = hex("167ccc13ac5e8a26b131c3446030c60fbfac6aa8e31149d0869f93626a4cdf62");
        assert_eq!(ecdh_x(&public_key(&b), &a).to_vec(), want);
        assert_eq!(ecdh_x(&public_key(&a), &b).to_vec(), want);
    }

    #[test]
    fn shared_key_padding_matches_go_ethereum() {
        // go-ethereum v1.17.8 crypto/ecies/ecies_test.go (TestSharedKeyPadding):
        // keys whose public x starts with zero bits must still agree.
        let a = secret_key_from_slice(&hex(
            "1adf5c18167d96a1f9a0b1ef63be8aa27eaf6032c233b2b38f7850cf5b859fd9",
        ))
        .unwrap();
        let b = secret_key_from_slice(&hex(
            "0097a076fc7fcd9208240668e31c9abee952cbb6e375d1b8febc7499d6e16f1a",
        ))
        .unwrap();
        let pa = public_key(&a).serialize_uncompressed();
        assert_eq!(
            pa[1..33].to_vec(),
            hex("1a8ed022ff7aec59dc1b440446bdda5ff6bcb3509a8b109077282b361efffbd8")
        );
        assert_eq!(ecdh_x(&public_key(&b), &a), ecdh_x(&public_key(&a), &b));
    }

    #[test]
    fn deterministic_encrypt_is_decryptable() {
        let sk = secret_key_from_slice(&[9u8; 32]).unwrap();
        let eph = secret_key_from_slice(&[3u8; 32]).unwrap();
        let a = encrypt_with(&public_key(&sk), b"abc", b"", &eph, [1u8; 16]);
        let b = encrypt_with(&public_key(&sk), b"abc", b"", &eph, [1u8; 16]);
        assert_eq!(a, b);
        assert_eq!(&a[65..81], &[1u8; 16]);
        assert_eq!(decrypt(&sk, &a, b"").unwrap(), b"abc");
    }

    #[test]
    fn roundtrip_and_tamper() {
        let sk = secret_key_from_slice(&[7u8; 32]).unwrap();
        let pk = public_key(&sk);
        let ct = encrypt(&pk, b"hello ecies", b"ad");
        assert_eq!(ct.len(), 11 + OVERHEAD);
        assert_eq!(decrypt(&sk, &ct, b"ad").unwrap(), b"hello ecies");
        assert!(matches!(decrypt(&sk, &ct, b"xx"), Err(Error::EciesBadMac)));
        let mut bad = ct.clone();
        bad[70] ^= 1;
        assert!(matches!(decrypt(&sk, &bad, b"ad"), Err(Error::EciesBadMac)));
        assert!(matches!(
            decrypt(&sk, &ct[..50], b"ad"),
            Err(Error::EciesTooShort(50))
        ));
        let mut badkey = ct.clone();
        badkey[0] = 0x02;
        assert!(matches!(
            decrypt(&sk, &badkey, b"ad"),
            Err(Error::EciesInvalidPublicKey)
        ));
        let other = secret_key_from_slice(&[8u8; 32]).unwrap();
        assert!(matches!(
            decrypt(&other, &ct, b"ad"),
            Err(Error::EciesBadMac)
        ));
    }
}
