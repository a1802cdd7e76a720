//! Router dispatch: every registered code decodes to its typed message,
//! unknown codes give a typed error, and snappy wire payloads route too.

mod common;

use alloy_primitives::B256;
use common::{many_txs, prague_header};
use dyno_net::eth::{
    BlockBodies, BlockHeaders, EthMessage, GetBlockBodies, GetBlockHeaders, HashOrNumber,
    HeadersQuery, NewPooledTransactionHashes, Transactions,
};
use dyno_net::hello::{Disconnect, DisconnectReason};
use dyno_net::key::{node_id, public_key};
use dyno_net::{Capability, Error, Hello, Message, Router, snappy};

fn all_messages() -> Vec<Message> {
    let k = common::signer();
    vec![
        Message::Hello(Hello::new(
            "dyno",
            vec![Capability::new("eth", 69)],
            node_id(&public_key(&k)),
        )),
        Message::Disconnect(Disconnect {
            reason: DisconnectReason::UselessPeer,
        }),
        Message::Ping,
        Message::Pong,
        Message::Status(dyno_net::eth::Status {
            protocol_version: 69,
            network_id: 1,
            genesis: B256::ZERO,
            fork_id: alloy_eips::eip2124::ForkId {
                hash: alloy_eips::eip2124::ForkHash([9, 9, 9, 9]),
                next: 5,
            },
            earliest_block: 0,
            latest_block: 1,
            latest_block_hash: B256::ZERO,
        }),
        Message::Transactions(Transactions(many_txs(10))),
        Message::GetBlockHeaders(GetBlockHeaders {
            request_id: 1,
            query: HeadersQuery {
                origin: HashOrNumber::Hash(B256::repeat_byte(1)),
                amount: 2,
                skip: 3,
                reverse: true,
            },
        }),
        Message::BlockHeaders(BlockHeaders {
            request_id: 1,
            headers: vec![prague_header(1)],
        }),
        Message::GetBlockBodies(GetBlockBodies {
            request_id: 2,
            hashes: vec![B256::repeat_byte(2)],
        }),
        Message::BlockBodies(BlockBodies {
            request_id: 2,
            bodies: vec![Default::default()],
        }),
        Message::NewPooledTransactionHashes(NewPooledTransactionHashes {
            types: vec![2u8].into(),
            sizes: vec![120],
            hashes: vec![B256::repeat_byte(3)],
        }),
    ]
}

#[test]
fn routes_every_message_by_code() {
    let r = Router::eth();
    let msgs = all_messages();
    let codes: Vec<u64> = msgs.iter().map(Message::code).collect();
    assert_eq!(
        codes,
        vec![
            0x00, 0x01, 0x02, 0x03, 0x10, 0x12, 0x13, 0x14, 0x15, 0x16, 0x18
        ]
    );
    for m in msgs {
        let got = r.route(m.code(), &m.to_rlp()).unwrap();
        assert_eq!(got, m);
        let wire = snappy::compress(&m.to_rlp()).unwrap();
        assert_eq!(r.route_wire(m.code(), &wire).unwrap(), m);
    }
}

#[test]
fn unknown_codes_are_typed_errors() {
    let r = Router::eth();
    for code in [0x04, 0x0f, 0x11, 0x17, 0x19, 0x1f, 0x100, u64::MAX] {
        assert!(matches!(r.route(code, &[0xc0]), Err(Error::UnknownMessage(c)) if c == code));
        // Unknown before decompression: junk payload still yields UnknownMessage.
        assert!(matches!(
            r.route_wire(code, &[0xff]),
            Err(Error::UnknownMessage(_))
        ));
    }
    assert!(matches!(
        Router::empty().route(0x10, &[0xc0]),
        Err(Error::UnknownMessage(0x10))
    ));
}

#[test]
fn payload_mismatching_its_code_is_an_error() {
    let r = Router::eth();
    let status_rlp = all_messages()[4].to_rlp();
    for code in [0x00, 0x12, 0x13, 0x14, 0x16, 0x18] {
        assert!(r.route(code, &status_rlp).is_err(), "code {code:#x}");
    }
    assert!(r.route(0x02, &[0x01]).is_err(), "ping needs a list");
}

#[test]
fn custom_registration_overrides() {
    fn always_pong(_: &[u8]) -> dyno_net::Result<Message> {
        Ok(Message::Pong)
    }
    let mut r = Router::eth();
    r.register(0x17, always_pong);
    assert_eq!(r.route(0x17, &[]).unwrap(), Message::Pong);
    r.register(Transactions::code(), always_pong);
    assert_eq!(r.route(0x12, &[]).unwrap(), Message::Pong);
    assert!(r.decoder(0x99).is_none());
}
