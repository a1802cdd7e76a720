//! Deterministic mutation sweep: corrupted, truncated and extended inputs to
//! every decoder must return errors or values, never panic.

mod common;

use alloy_consensus::BlockBody;
use alloy_primitives::B256;
use common::{many_txs, prague_header};
use dyno_net::eth::{
    BlockBodies, BlockHeaders, GetBlockHeaders, HashOrNumber, HeadersQuery,
    NewPooledTransactionHashes, Transactions,
};
use dyno_net::frame::FrameCodec;
use dyno_net::handshake::{AckMessage, AuthMessage};
use dyno_net::hello::{Disconnect, DisconnectReason};
use dyno_net::{Capability, Hello, Message, Router, snappy};

/// xorshift64*: a fixed, dependency-free PRNG so every run is identical.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    match rng.below(4) {
        0 if !v.is_empty() => {
            let i = rng.below(v.len());
            v[i] ^= 1 << rng.below(8);
        }
        1 if !v.is_empty() => {
            let i = rng.below(v.len());
            v[i] = rng.next() as u8;
        }
        2 => v.truncate(rng.below(v.len() + 1)),
        _ => {
            let i = rng.below(v.len() + 1);
            v.insert(i, rng.next() as u8);
        }
    }
    v
}

fn samples() -> Vec<Message> {
    let txs = many_txs(10);
    vec![
        Message::Hello(Hello::new(
            "x",
            vec![Capability::new("eth", 69)],
            Default::default(),
        )),
        Message::Disconnect(Disconnect {
            reason: DisconnectReason::TooManyPeers,
        }),
        Message::Ping,
        Message::Transactions(Transactions(txs.clone())),
        Message::GetBlockHeaders(GetBlockHeaders {
            request_id: 1,
            query: HeadersQuery {
                origin: HashOrNumber::Hash(B256::repeat_byte(1)),
                amount: 1,
                skip: 0,
                reverse: false,
            },
        }),
        Message::BlockHeaders(BlockHeaders {
            request_id: 1,
            headers: vec![prague_header(1), prague_header(2)],
        }),
        Message::BlockBodies(BlockBodies {
            request_id: 2,
            bodies: vec![BlockBody {
                transactions: txs,
                ommers: vec![prague_header(3)],
                withdrawals: Some(Default::default()),
            }],
        }),
        Message::NewPooledTransactionHashes(NewPooledTransactionHashes {
            types: vec![2u8, 3].into(),
            sizes: vec![100, 200],
            hashes: vec![B256::ZERO, B256::repeat_byte(1)],
        }),
    ]
}

#[test]
fn mutated_messages_never_panic() {
    let router = Router::eth();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut errors = 0usize;
    let mut total = 0usize;
    for m in samples() {
        let rlp = m.to_rlp();
        for _ in 0..400 {
            let bad = mutate(&mut rng, &rlp);
            // Route under every registered code, not just its own.
            for code in [0x00, 0x01, 0x02, 0x10, 0x12, 0x13, 0x14, 0x15, 0x16, 0x18] {
                total += 1;
                errors += usize::from(router.route(code, &bad).is_err());
            }
            let wire = snappy::compress(&rlp).unwrap();
            let bad_wire = mutate(&mut rng, &wire);
            let _ = router.route_wire(m.code(), &bad_wire);
            let _ = snappy::decompress(&bad_wire);
        }
    }
    // The sweep must actually exercise error paths.
    assert!(errors > total / 2, "{errors} errors of {total}");
}

#[test]
fn mutated_handshake_bodies_never_panic() {
    let mut rng = Rng(42);
    let mut auth = Vec::new();
    AuthMessage {
        signature: [7; 65],
        initiator_pubkey: Default::default(),
        nonce: B256::ZERO,
        version: 4,
        rest: vec![],
    }
    .encode(&mut auth);
    let mut ack = Vec::new();
    AckMessage {
        random_pubkey: Default::default(),
        nonce: B256::ZERO,
        version: 4,
        rest: vec![],
    }
    .encode(&mut ack);
    for _ in 0..2000 {
        let _ = AuthMessage::decode(&mutate(&mut rng, &auth));
        let _ = AckMessage::decode(&mutate(&mut rng, &ack));
        let _ = dyno_net::ecies::decrypt(&common::signer(), &mutate(&mut rng, &auth), &[]);
    }
}

#[test]
fn mutated_frames_never_panic() {
    let mut rng = Rng(7);
    let aes = [1u8; 32];
    let mac = [2u8; 32];
    let mk = || {
        use sha3::Digest;
        let mut h = sha3::Keccak256::new();
        h.update(b"seed");
        h
    };
    let mut tx = FrameCodec::from_parts(&aes, &mac, mk(), mk());
    let mut frame = Vec::new();
    tx.encode_frame(0x12, &[0xc3, 1, 2, 3], &mut frame).unwrap();
    let mut rejected = 0;
    for _ in 0..2000 {
        let bad = mutate(&mut rng, &frame);
        let mut rx = FrameCodec::from_parts(&aes, &mac, mk(), mk());
        if bad != frame {
            rejected += usize::from(rx.decode_frame(&bad).is_err());
        }
    }
    assert!(rejected > 1500, "{rejected}");
}
