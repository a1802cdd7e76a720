//! Transaction signers with keys derived from a seed, and sender recovery
//! as a validating client does it (libsecp256k1 through the `secp256k1`
//! crate, the backend reth uses by default).

use alloy_consensus::{SignableTransaction, Signed, TxEip1559};
use alloy_primitives::{Address, B256, Signature, U256, keccak256};
use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
use secp256k1::{Message, PublicKey, SECP256K1, SecretKey};

/// Half the secp256k1 group order: EIP-2 rejects signatures with a larger
/// `s`.
const HALF_ORDER: U256 = U256::from_limbs([
    0xdfe9_2f46_681b_20a0,
    0x5d57_6e73_57a4_501d,
    0xffff_ffff_ffff_ffff,
    0x7fff_ffff_ffff_ffff,
]);

/// A secret key and the address it controls.
#[derive(Clone)]
pub struct Signer {
    secret: SecretKey,
    /// keccak-256 of the uncompressed public key, last 20 bytes.
    pub address: Address,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

/// The address of a public key.
fn address_of(key: &PublicKey) -> Address {
    Address::from_slice(&keccak256(&key.serialize_uncompressed()[1..])[12..])
}

impl Signer {
    /// The `index`-th signer of `seed`: secret key keccak-256(seed ‖ index
    /// as 8 big-endian bytes), rehashed in the (never observed) case that it
    /// is not a valid scalar.
    pub fn derive(seed: &[u8], index: u64) -> Self {
        let mut material = seed.to_vec();
        material.extend_from_slice(&index.to_be_bytes());
        let mut digest = keccak256(&material);
        let secret = loop {
            match SecretKey::from_byte_array(digest.0) {
                Ok(k) => break k,
                Err(_) => digest = keccak256(digest),
            }
        };
        let address = address_of(&PublicKey::from_secret_key_global(&secret));
        Self { secret, address }
    }

    /// The signer of a 32-byte secret key.
    pub fn from_secret(secret: [u8; 32]) -> Result<Self, secp256k1::Error> {
        let secret = SecretKey::from_byte_array(secret)?;
        let address = address_of(&PublicKey::from_secret_key_global(&secret));
        Ok(Self { secret, address })
    }

    /// `count` signers of `seed`, indices `0..count`.
    pub fn derive_many(seed: &[u8], count: u64) -> Vec<Self> {
        (0..count).map(|i| Self::derive(seed, i)).collect()
    }

    /// Sign `tx`, of any transaction type (RFC 6979 nonce, low `s`).
    pub fn sign<T: SignableTransaction<Signature>>(&self, tx: T) -> Signed<T> {
        let signature = self.sign_hash(tx.signature_hash());
        tx.into_signed(signature)
    }

    /// Sign a 32-byte digest: an EIP-7702 authorization's, or anything
    /// else signed as a hash (RFC 6979 nonce, low `s`).
    pub fn sign_hash(&self, hash: B256) -> Signature {
        let sig = SECP256K1.sign_ecdsa_recoverable(Message::from_digest(hash.0), &self.secret);
        let (id, rs) = sig.serialize_compact();
        Signature::from_scalars_and_parity(
            B256::from_slice(&rs[..32]),
            B256::from_slice(&rs[32..]),
            i32::from(id) == 1,
        )
    }
}

/// Why a transaction's sender could not be recovered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecoveryError {
    /// `s` above half the group order (EIP-2).
    #[error("signature s is above half the group order (EIP-2)")]
    HighS,
    /// libsecp256k1 rejected the signature (r or s zero or out of range, or
    /// no point with this r).
    #[error("invalid signature: {0}")]
    Invalid(String),
}

/// The address that signed `tx`: the signing hash (keccak-256 of
/// `0x02 ‖ rlp(fields)`), then public-key recovery.
pub fn recover(tx: &Signed<TxEip1559>) -> Result<Address, RecoveryError> {
    recover_hash(tx.signature_hash(), tx.signature())
}

/// The address whose key made `sig` over `hash` (a transaction of any
/// type's signing hash, an EIP-7702 authorization's), refusing a high `s`
/// as EIP-2 does.
pub fn recover_hash(hash: B256, sig: &Signature) -> Result<Address, RecoveryError> {
    if sig.s() > HALF_ORDER {
        return Err(RecoveryError::HighS);
    }
    let mut rs = [0u8; 64];
    rs[..32].copy_from_slice(&sig.r().to_be_bytes::<32>());
    rs[32..].copy_from_slice(&sig.s().to_be_bytes::<32>());
    let id = if sig.v() {
        RecoveryId::One
    } else {
        RecoveryId::Zero
    };
    let bad = |e: secp256k1::Error| RecoveryError::Invalid(e.to_string());
    let rec = RecoverableSignature::from_compact(&rs, id).map_err(bad)?;
    let key = SECP256K1
        .recover_ecdsa(Message::from_digest(hash.0), &rec)
        .map_err(bad)?;
    Ok(address_of(&key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{TxKind, address};

    fn tx(nonce: u64) -> TxEip1559 {
        TxEip1559 {
            chain_id: 1337,
            nonce,
            gas_limit: 21_000,
            max_fee_per_gas: 2_000_000_000,
            max_priority_fee_per_gas: 1_000_000_000,
            to: TxKind::Call(address!("0x00000000000000000000000000000000000b0b00")),
            value: U256::from(1),
            ..TxEip1559::default()
        }
    }

    #[test]
    fn signer_derivation_is_deterministic_and_distinct() {
        let a = Signer::derive(b"dyno", 0);
        assert_eq!(a.address, Signer::derive(b"dyno", 0).address);
        assert_ne!(a.address, Signer::derive(b"dyno", 1).address);
        assert_ne!(a.address, Signer::derive(b"other", 0).address);
    }

    #[test]
    fn signer_the_private_key_one_controls_the_known_address() {
        // The address of secret key 1 (generator point), a well-known value.
        let one = SecretKey::from_byte_array(B256::with_last_byte(1).0).unwrap();
        let key = PublicKey::from_secret_key_global(&one);
        assert_eq!(
            address_of(&key),
            address!("0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf")
        );
    }

    #[test]
    fn signer_recovery_returns_the_signer_and_rejects_bad_signatures() {
        let s = Signer::derive(b"dyno", 3);
        let signed = s.sign(tx(7));
        assert_eq!(recover(&signed), Ok(s.address));
        // A high-s twin of a valid signature (n - s, parity flipped) is
        // mathematically valid but rejected by EIP-2.
        let sig = *signed.signature();
        let n = HALF_ORDER * U256::from(2) + U256::from(1);
        let high = Signature::new(sig.r(), n - sig.s(), !sig.v());
        let t = signed.tx().clone().into_signed(high);
        assert_eq!(recover(&t), Err(RecoveryError::HighS));
        // r = 0 is not a signature.
        let zero = Signature::new(U256::ZERO, sig.s(), sig.v());
        let t = signed.tx().clone().into_signed(zero);
        assert!(matches!(recover(&t), Err(RecoveryError::Invalid(_))));
        // A changed field recovers some other address.
        let t = tx(8).into_signed(sig);
        assert_ne!(recover(&t).ok(), Some(s.address));
    }
}
