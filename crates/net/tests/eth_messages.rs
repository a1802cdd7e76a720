//! eth wire message vectors and round trips.
//!
//! Byte vectors come from go-ethereum v1.17.8
//! `eth/protocols/eth/protocol_test.go` (`TestMessages`, `TestEmptyMessages`,
//! `TestGetBlockHeadersDataEncodeDecode`).

mod common;

use alloy_consensus::{BlockBody, TxEnvelope};
use alloy_eips::eip2124::{ForkHash, ForkId};
use alloy_eips::eip2718::{Decodable2718, Encodable2718, Typed2718};
use alloy_eips::eip4895::{Withdrawal, Withdrawals};
use alloy_primitives::{Address, B256, Bytes, b256};
use common::{GETH_TX_RLPS, geth_test_header, hex, many_txs, prague_header, sample_txs};
use dyno_net::eth::{
    BlockBodies, BlockHeaders, EthMessage, GetBlockBodies, GetBlockHeaders, HashOrNumber,
    HeadersQuery, NewPooledTransactionHashes, Status, Transactions,
};
use dyno_net::{Error, snappy};

const BLOCK_HEADERS_1111: &str = "f90202820457f901fcf901f9a00000000000000000000000000000000000000000000000000000000000000000a00000000000000000000000000000000000000000000000000000000000000000940000000000000000000000000000000000000000a00000000000000000000000000000000000000000000000000000000000000000a00000000000000000000000000000000000000000000000000000000000000000a00000000000000000000000000000000000000000000000000000000000000000b90100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000008208ae820d0582115c8215b3821a0a827788a00000000000000000000000000000000000000000000000000000000000000000880000000000000000";

const BLOCK_BODIES_1111: &str = "f902dc820457f902d6f902d3f8d2f867088504a817c8088302e2489435353535353535353535353535353535353535358202008025a064b1702d9298fee62dfeccc57d322a463ad55ca201256d01f62b45b2e1c21c12a064b1702d9298fee62dfeccc57d322a463ad55ca201256d01f62b45b2e1c21c10f867098504a817c809830334509435353535353535353535353535353535353535358202d98025a052f8f61201b2b11a78d6e866abc9c3db2ae8631fa656bfe5cb53668255367afba052f8f61201b2b11a78d6e866abc9c3db2ae8631fa656bfe5cb53668255367afbf901fcf901f9a00000000000000000000000000000000000000000000000000000000000000000a00000000000000000000000000000000000000000000000000000000000000000940000000000000000000000000000000000000000a00000000000000000000000000000000000000000000000000000000000000000a00000000000000000000000000000000000000000000000000000000000000000a00000000000000000000000000000000000000000000000000000000000000000b90100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000008208ae820d0582115c8215b3821a0a827788a00000000000000000000000000000000000000000000000000000000000000000880000000000000000";

/// `PooledTransactionsPacket{1111, txs}`; its inner list is exactly a
/// Transactions message with the same two transactions.
const POOLED_TXS_1111: &str = "f8d7820457f8d2f867088504a817c8088302e2489435353535353535353535353535353535353535358202008025a064b1702d9298fee62dfeccc57d322a463ad55ca201256d01f62b45b2e1c21c12a064b1702d9298fee62dfeccc57d322a463ad55ca201256d01f62b45b2e1c21c10f867098504a817c809830334509435353535353535353535353535353535353535358202d98025a052f8f61201b2b11a78d6e866abc9c3db2ae8631fa656bfe5cb53668255367afba052f8f61201b2b11a78d6e866abc9c3db2ae8631fa656bfe5cb53668255367afb";

fn hashes() -> Vec<B256> {
    // common.HexToHash("deadc0de"), common.HexToHash("feedbeef")
    vec![
        b256!("0x00000000000000000000000000000000000000000000000000000000deadc0de"),
        b256!("0x00000000000000000000000000000000000000000000000000000000feedbeef"),
    ]
}

fn geth_txs() -> Vec<TxEnvelope> {
    GETH_TX_RLPS
        .iter()
        .map(|h| TxEnvelope::network_decode(&mut hex(h).as_slice()).unwrap())
        .collect()
}

fn query(origin: HashOrNumber, amount: u64, skip: u64, reverse: bool) -> HeadersQuery {
    HeadersQuery {
        origin,
        amount,
        skip,
        reverse,
    }
}

/// Encodes, checks the bytes, decodes back and checks equality; then the
/// same through snappy.
fn check_vector<M: EthMessage + PartialEq + std::fmt::Debug>(msg: &M, want_hex: &str) {
    let want = hex(want_hex);
    assert_eq!(
        alloy_primitives::hex::encode(msg.to_rlp()),
        alloy_primitives::hex::encode(&want),
        "{}",
        M::NAME
    );
    assert_eq!(&M::from_rlp(&want).unwrap(), msg, "{}", M::NAME);
    roundtrip(msg);
}

fn roundtrip<M: EthMessage + PartialEq + std::fmt::Debug>(msg: &M) {
    let rlp = msg.to_rlp();
    assert_eq!(
        rlp.len(),
        alloy_rlp::Encodable::length(msg),
        "{} length()",
        M::NAME
    );
    assert_eq!(
        &M::from_rlp(&rlp).unwrap(),
        msg,
        "{} rlp roundtrip",
        M::NAME
    );
    let wire = msg.encode_wire().unwrap();
    assert_eq!(
        snappy::decompress(&wire).unwrap(),
        rlp,
        "{} snappy",
        M::NAME
    );
    assert_eq!(
        &M::decode_wire(&wire).unwrap(),
        msg,
        "{} wire roundtrip",
        M::NAME
    );
}

#[test]
fn get_block_headers_by_hash_vector() {
    let m = GetBlockHeaders {
        request_id: 1111,
        query: query(HashOrNumber::Hash(hashes()[0]), 5, 5, false),
    };
    check_vector(
        &m,
        "e8820457e4a000000000000000000000000000000000000000000000000000000000deadc0de050580",
    );
}

#[test]
fn get_block_headers_by_number_vector() {
    let m = GetBlockHeaders {
        request_id: 1111,
        query: query(HashOrNumber::Number(9999), 5, 5, false),
    };
    check_vector(&m, "ca820457c682270f050580");
}

#[test]
fn get_block_headers_encode_decode_table() {
    // TestGetBlockHeadersDataEncodeDecode: origin as number or hash, with
    // arbitrary query fields.
    let mut h = B256::ZERO;
    for (i, b) in h.iter_mut().enumerate() {
        *b = i as u8;
    }
    for q in [
        query(HashOrNumber::Number(314), 0, 0, false),
        query(HashOrNumber::Hash(h), 0, 0, false),
        query(HashOrNumber::Number(314), 314, 1, true),
        query(HashOrNumber::Hash(h), 314, 1, true),
        query(HashOrNumber::Number(0), 1, 0, false),
        query(HashOrNumber::Number(u64::MAX), 1, 0, false),
    ] {
        roundtrip(&GetBlockHeaders {
            request_id: 7,
            query: q,
        });
    }
}

#[test]
fn bad_origin_is_rejected() {
    // A 20-byte origin is neither a hash nor a number.
    let mut bad = vec![0xe0, 0x07, 0xdd, 0x94];
    bad.extend([0x11; 20]);
    bad.extend([0x01, 0x80, 0x80]);
    let err = GetBlockHeaders::from_rlp(&bad).unwrap_err();
    assert!(matches!(err, Error::Rlp(_)), "{err}");
}

#[test]
fn block_headers_vector() {
    let m = BlockHeaders {
        request_id: 1111,
        headers: vec![geth_test_header()],
    };
    check_vector(&m, BLOCK_HEADERS_1111);
}

#[test]
fn get_block_bodies_vector() {
    let m = GetBlockBodies {
        request_id: 1111,
        hashes: hashes(),
    };
    check_vector(
        &m,
        "f847820457f842a000000000000000000000000000000000000000000000000000000000deadc0dea000000000000000000000000000000000000000000000000000000000feedbeef",
    );
}

#[test]
fn block_bodies_vector() {
    let body = BlockBody {
        transactions: geth_txs(),
        ommers: vec![geth_test_header()],
        withdrawals: None,
    };
    let m = BlockBodies {
        request_id: 1111,
        bodies: vec![body],
    };
    check_vector(&m, BLOCK_BODIES_1111);
}

#[test]
fn transactions_vector() {
    // Inner list of PooledTransactionsPacket{1111, txs} (after `f8d7820457`).
    let want = &POOLED_TXS_1111[10..];
    check_vector(&Transactions(geth_txs()), want);
}

#[test]
fn empty_messages_vector() {
    // TestEmptyMessages: every empty request/response encodes to c4820457c0.
    let want = "c4820457c0";
    check_vector(
        &BlockHeaders {
            request_id: 1111,
            headers: vec![],
        },
        want,
    );
    check_vector(
        &GetBlockBodies {
            request_id: 1111,
            hashes: vec![],
        },
        want,
    );
    check_vector(
        &BlockBodies {
            request_id: 1111,
            bodies: vec![],
        },
        want,
    );
}

#[test]
fn status_roundtrip_and_layout() {
    let m = Status {
        protocol_version: 69,
        network_id: 1,
        genesis: b256!("0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3"),
        fork_id: ForkId {
            hash: ForkHash([0xfc, 0x64, 0xec, 0x04]),
            next: 1_150_000,
        },
        earliest_block: 0,
        latest_block: 22_000_000,
        latest_block_hash: B256::repeat_byte(0xab),
    };
    roundtrip(&m);
    // [69, 1, genesis, [forkhash, next], 0, latest, hash]: check the fork id
    // is a nested 2-list with a 4-byte string, as geth's forkid.ID encodes.
    let rlp = m.to_rlp();
    let fork = hex("c984fc64ec0483118c30");
    assert!(rlp.windows(fork.len()).any(|w| w == fork.as_slice()));
}

#[test]
fn transactions_roundtrip_all_types() {
    let txs = sample_txs(0);
    let m = Transactions(txs.clone());
    roundtrip(&m);
    // Typed transactions are RLP strings wrapping `type || payload`.
    let rlp = m.to_rlp();
    for tx in &txs {
        let mut net = Vec::new();
        tx.network_encode(&mut net);
        assert!(rlp.windows(net.len()).any(|w| w == net.as_slice()));
        if !tx.is_legacy() {
            assert!(
                net[0] >= 0xb8 || (0x80..0xb8).contains(&net[0]),
                "typed tx is an RLP string"
            );
        }
    }
    roundtrip(&Transactions(many_txs(100)));
    roundtrip(&Transactions::default());
}

#[test]
fn block_headers_roundtrip_post_prague() {
    let headers: Vec<_> = (0..100).map(prague_header).collect();
    roundtrip(&BlockHeaders {
        request_id: u64::MAX,
        headers,
    });
}

#[test]
fn block_bodies_roundtrip_with_withdrawals() {
    let bodies = (0..10)
        .map(|i| BlockBody {
            transactions: many_txs(10 + i),
            ommers: if i % 3 == 0 {
                vec![prague_header(i as u64)]
            } else {
                vec![]
            },
            withdrawals: (i % 2 == 0).then(|| {
                Withdrawals::new(vec![Withdrawal {
                    index: i as u64,
                    validator_index: 3,
                    address: Address::repeat_byte(0x44),
                    amount: 32_000_000_000,
                }])
            }),
        })
        .collect();
    roundtrip(&BlockBodies {
        request_id: 42,
        bodies,
    });
}

#[test]
fn new_pooled_transaction_hashes_roundtrip() {
    let txs = many_txs(100);
    let m = NewPooledTransactionHashes {
        types: txs.iter().map(|t| t.ty()).collect::<Vec<u8>>().into(),
        sizes: txs.iter().map(|t| t.network_len() as u32).collect(),
        hashes: txs.iter().map(|t| *t.tx_hash()).collect(),
    };
    roundtrip(&m);
    roundtrip(&NewPooledTransactionHashes::default());
}

#[test]
fn new_pooled_transaction_hashes_length_mismatch_is_rejected() {
    let m = NewPooledTransactionHashes {
        types: Bytes::from_static(&[2, 2]),
        sizes: vec![100],
        hashes: vec![B256::ZERO, B256::ZERO],
    };
    // Encoding is allowed (it is the caller's data); decoding rejects it.
    assert!(matches!(
        NewPooledTransactionHashes::from_rlp(&m.to_rlp()),
        Err(Error::Rlp(_))
    ));
}

#[test]
fn corrupt_transaction_inside_list_is_rejected() {
    // Decoding is eager: a broken tx in the middle of the list fails the message.
    let txs = sample_txs(0);
    let mut rlp = Transactions(txs).to_rlp();
    // Find the EIP-1559 type byte (0x02) following a string header and break it.
    let mut net = Vec::new();
    sample_txs(0)[2].network_encode(&mut net);
    let pos = rlp
        .windows(net.len())
        .position(|w| w == net.as_slice())
        .unwrap();
    let type_pos = pos + (net.len() - sample_txs(0)[2].encode_2718_len());
    assert_eq!(rlp[type_pos], 0x02);
    rlp[type_pos] = 0x7f;
    assert!(Transactions::from_rlp(&rlp).is_err());
}

#[test]
fn trailing_bytes_and_truncation_are_errors() {
    let m = GetBlockBodies {
        request_id: 1,
        hashes: hashes(),
    };
    let mut rlp = m.to_rlp();
    rlp.push(0x80);
    assert!(matches!(
        GetBlockBodies::from_rlp(&rlp),
        Err(Error::TrailingBytes(1))
    ));
    rlp.pop();
    for cut in [0, 1, 5, rlp.len() - 1] {
        assert!(GetBlockBodies::from_rlp(&rlp[..cut]).is_err(), "cut {cut}");
    }
    let bodies = BlockBodies {
        request_id: 1111,
        bodies: vec![BlockBody {
            transactions: sample_txs(0),
            ommers: vec![],
            withdrawals: None,
        }],
    }
    .to_rlp();
    for cut in [1, 10, bodies.len() / 2, bodies.len() - 1] {
        assert!(BlockBodies::from_rlp(&bodies[..cut]).is_err(), "cut {cut}");
    }
}

#[test]
fn wrong_shape_is_an_error_not_a_panic() {
    for junk in [
        &b""[..],
        b"\x80",
        b"\xc0",
        b"\xff\xff\xff",
        b"\xc3\x01\x02\x03",
        b"\xb9\xff\xff",
    ] {
        assert!(Status::from_rlp(junk).is_err());
        assert!(Transactions::from_rlp(junk).is_err() || junk == b"\xc0");
        assert!(GetBlockHeaders::from_rlp(junk).is_err());
        assert!(BlockHeaders::from_rlp(junk).is_err());
        assert!(BlockBodies::from_rlp(junk).is_err());
        assert!(NewPooledTransactionHashes::from_rlp(junk).is_err());
    }
}

#[test]
fn snappy_limits_and_corruption() {
    // A snappy header announcing 16 MiB + 1 decoded bytes is refused before
    // any allocation.
    let mut varint = Vec::new();
    let mut n = snappy::MAX_MESSAGE_SIZE as u64 + 1;
    while n >= 0x80 {
        varint.push((n as u8) | 0x80);
        n >>= 7;
    }
    varint.push(n as u8);
    varint.extend([0u8; 8]);
    assert!(matches!(
        snappy::decompress(&varint),
        Err(Error::SnappyTooLarge { .. })
    ));
    assert!(matches!(
        Status::decode_wire(&varint),
        Err(Error::SnappyTooLarge { .. })
    ));
    // Corrupt snappy data is an error.
    let wire = Transactions(sample_txs(0)).encode_wire().unwrap();
    assert!(Transactions::decode_wire(&wire[..wire.len() / 2]).is_err());
    assert!(matches!(
        snappy::decompress(&[0x05, 0xff]),
        Err(Error::Snappy(_))
    ));
    // A custom limit applies too.
    assert!(matches!(
        snappy::decompress_with_limit(&wire, 10),
        Err(Error::SnappyTooLarge { .. })
    ));
}

#[test]
fn message_codes() {
    assert_eq!(Status::code(), 0x10);
    assert_eq!(Transactions::code(), 0x12);
    assert_eq!(GetBlockHeaders::code(), 0x13);
    assert_eq!(BlockHeaders::code(), 0x14);
    assert_eq!(GetBlockBodies::code(), 0x15);
    assert_eq!(BlockBodies::code(), 0x16);
    assert_eq!(NewPooledTransactionHashes::code(), 0x18);
}
