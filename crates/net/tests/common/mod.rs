//! Shared fixtures for the integration tests.
#![allow(dead_code, unreachable_pub)]

use alloy_consensus::{
    Header, SignableTransaction, Signed, TxEip1559, TxEip2930, TxEip4844, TxEip4844Variant,
    TxEip7702, TxEnvelope, TxLegacy,
};
use alloy_eips::eip2930::{AccessList, AccessListItem};
use alloy_eips::eip7702::{Authorization, SignedAuthorization};
use alloy_primitives::{Address, B256, Bytes, Signature, TxKind, U256, address, b256};
use dyno_net::key::secret_key_from_slice;
use secp256k1::{Message, SECP256K1, SecretKey};

/// Decodes hex, ignoring whitespace.
pub fn hex(s: &str) -> Vec<u8> {
    let clean: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    alloy_primitives::hex::decode(clean).expect("valid hex")
}

/// Parses a 32-byte hex secret key.
pub fn key(s: &str) -> SecretKey {
    secret_key_from_slice(&hex(s)).expect("valid key")
}

/// A fixed signer key for the fixture transactions.
pub fn signer() -> SecretKey {
    key("4646464646464646464646464646464646464646464646464646464646464646")
}

fn signature(hash: B256, key: &SecretKey) -> Signature {
    let sig = SECP256K1.sign_ecdsa_recoverable(Message::from_digest(hash.0), key);
    let (rec, rs) = sig.serialize_compact();
    Signature::new(
        U256::from_be_slice(&rs[..32]),
        U256::from_be_slice(&rs[32..]),
        i32::from(rec) == 1,
    )
}

/// Signs `tx` with `key`.
pub fn sign<T: SignableTransaction<Signature>>(tx: T, key: &SecretKey) -> Signed<T> {
    let sig = signature(tx.signature_hash(), key);
    tx.into_signed(sig)
}

const TO: Address = address!("0x3535353535353535353535353535353535353535");

fn access_list() -> AccessList {
    AccessList(vec![AccessListItem {
        address: address!("0x00000000000000000000000000000000000000aa"),
        storage_keys: vec![B256::with_last_byte(1), B256::with_last_byte(2)],
    }])
}

/// One signed transaction of type `kind % 5` (legacy EIP-155, 2930, 1559,
/// 4844 without sidecar, 7702) with `nonce`.
pub fn sample_tx(kind: usize, nonce: u64) -> TxEnvelope {
    let k = signer();
    match kind % 5 {
        0 => TxEnvelope::Legacy(sign(
            TxLegacy {
                chain_id: Some(1),
                nonce,
                gas_price: 20_000_000_000,
                gas_limit: 21_000,
                to: TxKind::Call(TO),
                value: U256::from(1_000_000_000_000_000_000u128),
                input: Bytes::new(),
            },
            &k,
        )),
        1 => TxEnvelope::Eip2930(sign(
            TxEip2930 {
                chain_id: 1,
                nonce,
                gas_price: 20_000_000_000,
                gas_limit: 50_000,
                to: TxKind::Call(TO),
                value: U256::from(7),
                access_list: access_list(),
                input: Bytes::from_static(&[0xde, 0xad]),
            },
            &k,
        )),
        2 => TxEnvelope::Eip1559(sign(
            TxEip1559 {
                chain_id: 1,
                nonce,
                gas_limit: 100_000,
                max_fee_per_gas: 30_000_000_000,
                max_priority_fee_per_gas: 1_000_000_000,
                to: TxKind::Create,
                value: U256::ZERO,
                access_list: AccessList::default(),
                input: Bytes::from(vec![0x60, 0x00, 0x60, 0x00, 0xf3]),
            },
            &k,
        )),
        3 => TxEnvelope::Eip4844(sign(
            TxEip4844Variant::TxEip4844(TxEip4844 {
                chain_id: 1,
                nonce,
                gas_limit: 100_000,
                max_fee_per_gas: 30_000_000_000,
                max_priority_fee_per_gas: 1_000_000_000,
                to: TO,
                value: U256::ZERO,
                access_list: AccessList::default(),
                blob_versioned_hashes: vec![b256!(
                    "0x01a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8"
                )],
                max_fee_per_blob_gas: 1_000_000,
                input: Bytes::new(),
            }),
            &k,
        )),
        _ => {
            let auth = Authorization {
                chain_id: U256::from(1),
                address: TO,
                nonce: 5,
            };
            let auth_sig = signature(auth.signature_hash(), &k);
            TxEnvelope::Eip7702(sign(
                TxEip7702 {
                    chain_id: 1,
                    nonce,
                    gas_limit: 100_000,
                    max_fee_per_gas: 30_000_000_000,
                    max_priority_fee_per_gas: 1_000_000_000,
                    to: TO,
                    value: U256::ZERO,
                    access_list: access_list(),
                    authorization_list: vec![SignedAuthorization::new_unchecked(
                        auth,
                        auth_sig.v() as u8,
                        auth_sig.r(),
                        auth_sig.s(),
                    )],
                    input: Bytes::new(),
                },
                &k,
            ))
        }
    }
}

/// One transaction of every type, nonces `n..n + 5`.
pub fn sample_txs(n: u64) -> Vec<TxEnvelope> {
    (0..5).map(|k| sample_tx(k, n + k as u64)).collect()
}

/// `count` transactions cycling through all types.
pub fn many_txs(count: usize) -> Vec<TxEnvelope> {
    (0..count).map(|i| sample_tx(i, i as u64)).collect()
}

/// The header from go-ethereum's eth/protocols/eth/protocol_test.go (TestMessages).
pub fn geth_test_header() -> Header {
    Header {
        difficulty: U256::from(2222),
        number: 3333,
        gas_limit: 4444,
        gas_used: 5555,
        timestamp: 6666,
        extra_data: Bytes::from_static(&[0x77, 0x88]),
        // alloy's Default fills the empty-trie/ommer roots; geth's zero
        // Header has all-zero hashes.
        ommers_hash: B256::ZERO,
        state_root: B256::ZERO,
        transactions_root: B256::ZERO,
        receipts_root: B256::ZERO,
        ..Default::default()
    }
}

/// A Prague-style header with every optional field up to requests_hash.
pub fn prague_header(number: u64) -> Header {
    Header {
        parent_hash: B256::with_last_byte(1),
        ommers_hash: alloy_consensus::constants::EMPTY_OMMER_ROOT_HASH,
        beneficiary: address!("0x00000000000000000000000000000000000000bb"),
        state_root: B256::with_last_byte(2),
        transactions_root: B256::with_last_byte(3),
        receipts_root: B256::with_last_byte(4),
        number,
        gas_limit: 36_000_000,
        gas_used: 21_000,
        timestamp: 1_750_000_000 + number * 12,
        extra_data: Bytes::from_static(b"dyno"),
        mix_hash: B256::with_last_byte(5),
        base_fee_per_gas: Some(7),
        withdrawals_root: Some(B256::with_last_byte(6)),
        blob_gas_used: Some(131_072),
        excess_blob_gas: Some(0),
        parent_beacon_block_root: Some(B256::with_last_byte(8)),
        requests_hash: Some(B256::with_last_byte(9)),
        ..Default::default()
    }
}

/// The two legacy transactions from go-ethereum's protocol_test.go (TestMessages).
pub const GETH_TX_RLPS: [&str; 2] = [
    "f867088504a817c8088302e2489435353535353535353535353535353535353535358202008025a064b1702d9298fee62dfeccc57d322a463ad55ca201256d01f62b45b2e1c21c12a064b1702d9298fee62dfeccc57d322a463ad55ca201256d01f62b45b2e1c21c10",
    "f867098504a817c809830334509435353535353535353535353535353535353535358202d98025a052f8f61201b2b11a78d6e866abc9c3db2ae8631fa656bfe5cb53668255367afba052f8f61201b2b11a78d6e866abc9c3db2ae8631fa656bfe5cb53668255367afb",
];
