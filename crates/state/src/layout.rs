//! The flat key layout the state is kept in, go-ethereum's snapshot layout
//! (`core/rawdb/schema.go`): one key space, a one-byte table prefix.
//!
//! | key | value |
//! |---|---|
//! | `a` ‖ keccak(address) | RLP [nonce, balance, storage root, code hash] |
//! | `o` ‖ keccak(address) ‖ keccak(slot) | RLP(value), never zero |
//! | `c` ‖ code hash | the code |
//!
//! A client reads an account or a slot with one lookup of the hashed key;
//! the tries are not read (dyno checks their root once, after the load).

use alloy_primitives::{B256, U256, keccak256};
use alloy_rlp::{Decodable, Encodable, RlpDecodable, RlpEncodable};

/// Prefix of an account's key.
pub const ACCOUNT: u8 = b'a';
/// Prefix of a storage slot's key.
pub const STORAGE: u8 = b'o';
/// Prefix of a code's key.
pub const CODE: u8 = b'c';

/// keccak256 of the empty string: the code hash of an account without code.
pub const KECCAK_EMPTY: B256 =
    alloy_primitives::b256!("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
/// The root of an empty trie.
pub const EMPTY_ROOT: B256 =
    alloy_primitives::b256!("0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");

/// An account as the state trie's leaf holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, RlpEncodable, RlpDecodable)]
pub struct StoredAccount {
    /// Nonce.
    pub nonce: u64,
    /// Balance in wei.
    pub balance: U256,
    /// Root of its storage trie.
    pub storage_root: B256,
    /// keccak256 of its code.
    pub code_hash: B256,
}

impl StoredAccount {
    /// Its RLP encoding, the value stored and the trie's leaf.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(110);
        Encodable::encode(self, &mut out);
        out
    }

    /// Decode a stored value.
    pub fn decode(mut bytes: &[u8]) -> Result<Self, alloy_rlp::Error> {
        <Self as Decodable>::decode(&mut bytes)
    }
}

/// The key of the account whose address hashes to `hashed`.
pub fn account_key(hashed: &B256) -> [u8; 33] {
    let mut k = [0u8; 33];
    k[0] = ACCOUNT;
    k[1..].copy_from_slice(hashed.as_slice());
    k
}

/// The key of slot `hashed_slot` of the account hashing to `hashed_address`.
pub fn storage_key(hashed_address: &B256, hashed_slot: &B256) -> [u8; 65] {
    let mut k = [0u8; 65];
    k[0] = STORAGE;
    k[1..33].copy_from_slice(hashed_address.as_slice());
    k[33..].copy_from_slice(hashed_slot.as_slice());
    k
}

/// The key of the code hashing to `hash`.
pub fn code_key(hash: &B256) -> [u8; 33] {
    let mut k = [0u8; 33];
    k[0] = CODE;
    k[1..].copy_from_slice(hash.as_slice());
    k
}

/// A slot value's stored form.
pub fn encode_value(v: &U256) -> Vec<u8> {
    let mut out = Vec::with_capacity(33);
    v.encode(&mut out);
    out
}

/// A stored slot value.
pub fn decode_value(mut bytes: &[u8]) -> Result<U256, alloy_rlp::Error> {
    U256::decode(&mut bytes)
}

/// keccak256 of a slot key, as the layout hashes it.
pub fn hash_slot(slot: &B256) -> B256 {
    keccak256(slot)
}
